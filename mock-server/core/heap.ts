/** A binary min-heap over an array, ordered by `before`: the clock's wake-ups and a workspace's tasks. */
export interface Timed {
  at: number;
  seq: number;
}

/** Earlier time first; at the same time, scheduled first. */
export function before(a: Timed, b: Timed): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

export function heapPush<T extends Timed>(heap: T[], item: T): void {
  heap.push(item);
  let i = heap.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!before(heap[i], heap[parent])) break;
    [heap[i], heap[parent]] = [heap[parent], heap[i]];
    i = parent;
  }
}

export function heapPop<T extends Timed>(heap: T[]): T | undefined {
  const top = heap[0];
  const last = heap.pop();
  if (heap.length > 0 && last) {
    heap[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && before(heap[l], heap[m])) m = l;
      if (r < heap.length && before(heap[r], heap[m])) m = r;
      if (m === i) break;
      [heap[i], heap[m]] = [heap[m], heap[i]];
      i = m;
    }
  }
  return top;
}
