/**
 * A Map that tells `changed` of each key about to change (set, delete, clear), like Collection does
 * for records: a workspace's secrets and call plans are tracked this way (store/changes.ts).
 */
export class ObservedMap<K, V> extends Map<K, V> {
  constructor(private readonly changed?: (key: K) => void) {
    super();
  }

  override set(key: K, value: V): this {
    this.changed?.(key);
    return super.set(key, value);
  }

  override delete(key: K): boolean {
    if (!super.has(key)) return false;
    this.changed?.(key);
    return super.delete(key);
  }

  override clear(): void {
    if (this.changed) for (const key of super.keys()) this.changed(key);
    super.clear();
  }

  /** Sets or removes a key without telling `changed` (a store applying another process's write, or an undo). */
  put(key: K, value: V | undefined): void {
    if (value === undefined) super.delete(key);
    else super.set(key, value);
  }
}
