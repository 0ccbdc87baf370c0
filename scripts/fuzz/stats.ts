/** Counts of what the fuzzer sent and got, per operation and per kind of case, printed as a table. */
import { operations } from "../../conformance/lib/spec.js";
import type { FuzzCase } from "./case.js";

interface Row {
  sent: number;
  ok: number;
  clientErrors: number;
  serverErrors: number;
}

const emptyRow = (): Row => ({ sent: 0, ok: 0, clientErrors: 0, serverErrors: 0 });

export class FuzzStats {
  readonly byOperation = new Map<string, Row>([...operations.keys()].map((id) => [id, emptyRow()]));
  readonly byKind = new Map<string, number>();
  readonly byStatus = new Map<number, number>();
  requests = 0;

  add(c: FuzzCase, status: number): void {
    this.requests++;
    const key = c.operationId ?? "(no operation)";
    const row = this.byOperation.get(key) ?? emptyRow();
    row.sent++;
    if (status >= 200 && status < 300) row.ok++;
    else if (status >= 400 && status < 500) row.clientErrors++;
    else if (status >= 500 || status === 0) row.serverErrors++;
    this.byOperation.set(key, row);
    this.byKind.set(c.kind, (this.byKind.get(c.kind) ?? 0) + 1);
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
  }

  /** Operations that got no request, or never a success: the run did not reach them. */
  gaps(): string[] {
    return [...operations.keys()].filter((id) => (this.byOperation.get(id)?.ok ?? 0) === 0);
  }

  table(): string {
    const lines = [
      `${"operation".padEnd(24)} ${"sent".padStart(6)} ${"2xx".padStart(6)} ${"4xx".padStart(6)} ${"5xx".padStart(5)}`,
    ];
    for (const [id, r] of this.byOperation)
      lines.push(
        `${id.padEnd(24)} ${String(r.sent).padStart(6)} ${String(r.ok).padStart(6)} ${String(r.clientErrors).padStart(6)} ${String(r.serverErrors).padStart(5)}`,
      );
    const kinds = [...this.byKind]
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k} ${n}`)
      .join(", ");
    const statuses = [...this.byStatus]
      .sort((a, b) => a[0] - b[0])
      .map(([s, n]) => `${s}: ${n}`)
      .join(", ");
    return [...lines, "", `kinds: ${kinds}`, `statuses: ${statuses}`].join("\n");
  }
}
