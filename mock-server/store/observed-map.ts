/**
 * A Map that tells `onTouch` of each key about to change (set, delete, clear), like Collection does
 * for records: a workspace's secrets and call plans are shared through a store in Redis this way.
 */
export class ObservedMap<K, V> extends Map<K, V> {
  onTouch: ((key: K) => void) | undefined;

  override set(key: K, value: V): this {
    this.onTouch?.(key);
    return super.set(key, value);
  }

  override delete(key: K): boolean {
    if (!super.has(key)) return false;
    this.onTouch?.(key);
    return super.delete(key);
  }

  override clear(): void {
    if (this.onTouch) for (const key of super.keys()) this.onTouch(key);
    super.clear();
  }

  /** Sets or removes a key without telling onTouch (a shared store applying another process's write). */
  put(key: K, value: V | undefined): void {
    if (value === undefined) super.delete(key);
    else super.set(key, value);
  }
}
