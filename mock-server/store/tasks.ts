/**
 * Scheduled work of a workspace, as data: a call's next transition, a test run's completion, the end
 * of a silent chat, a webhook delivery's next attempt. Data rather than closures, so that a store
 * shared by several processes (store/redis/) holds it like any record, and whichever process finds
 * a task due runs it, once. One task per subject: scheduling it again replaces it.
 */
import { heapPop, heapPush } from "../core/heap.js";

export type TaskKind = "call" | "testRun" | "chatEnd" | "delivery";

export interface Task {
  /** `<kind>:<ref>`. */
  id: string;
  kind: TaskKind;
  /** The subject: a call id, a job id, a delivery id. */
  ref: string;
  /** Workspace clock time (ms) at which it falls due. */
  at: number;
  /** Scheduling order, for tasks due at the same time. */
  seq: number;
  /** What the subject must still be for the task to apply: a call's status, a chat's last turn. */
  expect?: string;
  /** A delivery's signing secret, as it was when the event was sent. */
  secret?: string;
}

export type TaskRequest = Omit<Task, "id" | "seq">;

export const taskId = (kind: TaskKind, ref: string) => `${kind}:${ref}`;

export class Tasks {
  /** Told of each task scheduled here (the in-memory mock wakes its clock for it). */
  onScheduled: ((task: Task) => void) | undefined;
  private readonly byId = new Map<string, Task>();
  /** Earliest first; entries whose task was replaced or cancelled are dropped when met. */
  private heap: Task[] = [];
  private nextSeq = 0;

  /** `changed`: told of each task about to change (see Collection). */
  constructor(private readonly changed?: (id: string) => void) {}

  get size(): number {
    return this.byId.size;
  }

  get(id: string): Task | undefined {
    return this.byId.get(id);
  }

  all(): Task[] {
    return [...this.byId.values()];
  }

  schedule(request: TaskRequest): Task {
    const task: Task = { ...request, id: taskId(request.kind, request.ref), seq: this.nextSeq++ };
    this.changed?.(task.id);
    this.put(task.id, task);
    this.onScheduled?.(task);
    return task;
  }

  cancel(id: string): void {
    if (!this.byId.has(id)) return;
    this.changed?.(id);
    this.byId.delete(id);
  }

  clear(): void {
    if (this.changed) for (const id of this.byId.keys()) this.changed(id);
    this.byId.clear();
    this.heap = [];
  }

  /** The task due first, if any. */
  peek(): Task | undefined {
    while (this.heap.length > 0 && this.byId.get(this.heap[0].id) !== this.heap[0]) heapPop(this.heap);
    return this.heap[0];
  }

  /** Sets or removes a task without telling `changed` or onScheduled (a store applying a write, or an undo). */
  put(id: string, task: Task | undefined): void {
    if (!task) {
      this.byId.delete(id);
      return;
    }
    this.byId.set(id, task);
    if (task.seq >= this.nextSeq) this.nextSeq = task.seq + 1;
    heapPush(this.heap, task);
    // Replaced tasks stay in the heap until met: rebuild before they outnumber the live ones.
    if (this.heap.length > 2 * this.byId.size + 64) {
      this.heap = [];
      for (const live of this.byId.values()) heapPush(this.heap, live);
    }
  }
}
