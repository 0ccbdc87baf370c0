/**
 * The drift findings of the upstream door (GET /__mock/drift): what the checks found in exchanges
 * with the upstream, newest first, in a bounded ring like the journal. The first finding of each kind
 * (operation, rule, side, place) is told on the console once; later ones of that kind are only kept.
 * Checks run after the answer went back to the client; reads wait for the checks under way, so a
 * client that reads the findings right after its requests sees theirs.
 */
import type { components as MockControlComponents } from "../../generated/mock-control.js";
import type { ControlQuery } from "../core/control-operations.js";

/** A finding as spec/mock-control.yaml describes it (DriftFinding): the spec is where its shape lives. */
export type DriftFinding = MockControlComponents["schemas"]["DriftFinding"];

/** The exchange a finding carries, secrets redacted. */
export type RecordedExchange = DriftFinding["exchange"];

/** GET /__mock/drift's filters, as the spec types them. */
export type DriftFilter = ControlQuery<"listDriftFindings">;

export const DEFAULT_DRIFT_CAPACITY = 1000;

export class DriftLog {
  private ring: DriftFinding[] = [];
  private seq = 0;
  private readonly kinds = new Set<string>();
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly log: (line: string) => void,
    readonly capacity = DEFAULT_DRIFT_CAPACITY,
  ) {}

  add(finding: Omit<DriftFinding, "id">): void {
    const kind = `${finding.operationId} ${finding.where} ${finding.rule} ${finding.path}`;
    if (!this.kinds.has(kind)) {
      this.kinds.add(kind);
      this.log(
        `drift (${finding.level}) ${finding.operationId} ${finding.where} ${finding.rule} at ${finding.path || "(body)"}: ${finding.message}`,
      );
    }
    this.ring.push({ id: String(++this.seq), ...finding });
    if (this.ring.length > this.capacity) this.ring.splice(0, this.ring.length - this.capacity);
  }

  /** Tells the console something about the door once (a record not kept), not again for the same line. */
  note(line: string): void {
    if (this.kinds.has(line)) return;
    this.kinds.add(line);
    this.log(line);
  }

  /** Runs `work` (a check, a recording) off the response path; reads wait for it. */
  track(work: Promise<unknown>): void {
    const settled = work.then(
      () => undefined,
      (error) => this.log(`upstream check failed: ${(error as Error)?.stack ?? String(error)}`),
    );
    this.pending.add(settled);
    void settled.finally(() => this.pending.delete(settled));
  }

  /** Settles once the checks and recordings under way are done. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending);
  }

  /** Newest first, those that pass the filter. */
  list(filter: DriftFilter = {}): DriftFinding[] {
    const out: DriftFinding[] = [];
    const limit = filter.limit ?? Infinity;
    for (let i = this.ring.length - 1; i >= 0 && out.length < limit; i--)
      if (matches(this.ring[i], filter)) out.push(this.ring[i]);
    return out;
  }

  /** Forgets every finding (POST /__mock/reset); kinds are told on the console again. */
  clear(): void {
    this.ring = [];
    this.kinds.clear();
  }
}

function matches(f: DriftFinding, filter: DriftFilter): boolean {
  return (
    (filter.operationId === undefined || f.operationId === filter.operationId) &&
    (filter.workspaceId === undefined || f.workspaceId === filter.workspaceId) &&
    (filter.method === undefined || f.exchange.request.method === filter.method) &&
    (filter.status === undefined || f.exchange.response?.status === filter.status) &&
    (filter.rule === undefined || f.rule === filter.rule) &&
    (filter.level === undefined || f.level === filter.level) &&
    (filter.where === undefined || f.where === filter.where)
  );
}
