/**
 * Prism-compatible controls through the Prefer header:
 *   code=NNN     answer with that status if the operation declares it (400 otherwise)
 *   example=NAME serve that named example of the spec
 *   dynamic=true generate the body from the schema
 *   delay=MS     wait first (at most 60 s: more is refused with 400, not cut short unseen)
 * A preferred reply changes no state: it is served instead of the handler.
 */
import { ApiError, STATUS_TEXT } from "./errors.js";
import type { Contract } from "./contract.js";
import type { Operation } from "./operations.js";
import type { Reply } from "./exchange.js";
import type { Clock } from "./clock.js";
import { MAX_DELAY_MS } from "./faults.js";

export function parsePrefer(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? "").split(/[,;]/)) {
    const [k, ...v] = part.trim().split("=");
    if (k) out[k.toLowerCase()] = v.join("=").replace(/^"|"$/g, "").trim();
  }
  return out;
}

/** `op`: an operation of `contract`, the spec in use; `path`: the request path as sent, for a forced error's body. */
export async function preferredReply(
  contract: Contract,
  op: Operation,
  header: string,
  clock: Clock,
  path: string,
): Promise<Reply | undefined> {
  if (header.length === 0) return undefined;
  const prefer = parsePrefer(header);
  if (prefer.delay !== undefined) {
    const ms = Number(prefer.delay);
    if (prefer.delay === "" || !Number.isFinite(ms) || ms < 0)
      throw new ApiError(400, `Prefer: delay must be a number of milliseconds, got "${prefer.delay}"`);
    if (ms > MAX_DELAY_MS)
      throw new ApiError(400, `Prefer: delay=${prefer.delay} is over the mock's cap of ${MAX_DELAY_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, ms));
  }
  if (prefer.code === undefined && prefer.example === undefined && prefer.dynamic !== "true") return undefined;

  const status = prefer.code === undefined ? op.successStatus : Number(prefer.code);
  const response = op.responses.get(status);
  if (!response) {
    const declared = [...op.responses.keys()].join(", ");
    throw new ApiError(
      400,
      `Prefer: code=${prefer.code} is not declared for ${op.operationId} (declared: ${declared})`,
    );
  }
  if (response.check === null) return { status };
  if (prefer.example !== undefined) {
    if (!(prefer.example in response.examples)) {
      const names = Object.keys(response.examples).join(", ") || "none";
      throw new ApiError(
        400,
        `Prefer: example=${prefer.example} is not an example of ${op.operationId} ${status} (examples: ${names})`,
      );
    }
    return { status, body: response.examples[prefer.example] };
  }
  const check = response.check;
  const sample = () => contract.sample(response.schema, { check, now: clock.now() });
  if (prefer.dynamic === "true") return { status, body: sample() };
  if (status >= 400) {
    return {
      status,
      body: {
        timestamp: clock.iso(),
        status,
        error: STATUS_TEXT[status] ?? "Error",
        message: `${STATUS_TEXT[status] ?? "Error"} (forced by Prefer: code=${status})`,
        path,
      },
    };
  }
  const first = Object.values(response.examples)[0];
  return { status, body: first ?? sample() };
}
