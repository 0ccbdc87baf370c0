/**
 * Section 5: every operation answers 401 with the error body when the X-API-Key header is missing or
 * holds a key the service never issued. Writes are sent too (they cannot change state without a key),
 * except under --read-only, which promises no request that could.
 */
import { request as rawRequest } from "undici";
import { operations } from "../lib/spec.js";
import { buildUrl, dispatcherFor, parseJson, TargetUnreachable, type RequestSpec } from "../lib/http.js";
import type { Answer } from "../transport/answer-kind.js";
import { defineRules, type RuleContext, type RuleSpec } from "../lib/rule.js";
import { SAMPLED_OPERATIONS, sampleRequest } from "./samples.js";

const WRONG_KEY = "conformance-invalid-key-0000000000";

function authRule(operationId: string, method: string): RuleSpec {
  return {
    id: `${operationId}.auth`,
    operationId,
    level: "documented",
    readOnly: method === "GET",
    description: "A missing or invalid API key answers 401 with the error body (section 5).",
    run: async (t) => {
      for (const [label, key] of [
        ["without a key", null],
        ["with a wrong key", WRONG_KEY],
      ] as const) {
        const ex = await t.call(operationId, { ...sampleRequest(operationId, t.fixtures), key });
        t.expectStatus(ex, 401, `${method} ${ex.request.path} ${label} must answer 401`);
      }
    },
  };
}

/**
 * Near misses of the run's key: keys the service never issued, so 401 (section 5). Keys are compared
 * exactly: a key is not a name, and no case folding or whitespace clean-up inside it is documented.
 * Labels only, never the key, appear in failures.
 */
function nearMisses(key: string): [label: string, variant: string][] {
  const letter = [...key].findIndex((c) => c.toLowerCase() !== c.toUpperCase());
  const flipped =
    letter < 0
      ? key
      : key.slice(0, letter) +
        (key[letter] === key[letter].toUpperCase() ? key[letter].toLowerCase() : key[letter].toUpperCase()) +
        key.slice(letter + 1);
  const mid = Math.floor(key.length / 2);
  const variants: [string, string][] = [
    ["the key in upper case", key.toUpperCase()],
    ["the key in lower case", key.toLowerCase()],
    ["the key with the case of one letter changed", flipped],
    ["the key with a space inside", `${key.slice(0, mid)} ${key.slice(mid)}`],
    ["the key with a tab inside", `${key.slice(0, mid)}\t${key.slice(mid)}`],
    ["the key with a character appended", `${key}x`],
    ["the key without its last character", key.slice(0, -1)],
  ];
  // A key with no letters (or already all one case) has no such variant: it would be the key itself.
  return variants.filter(([, variant]) => variant !== key && variant.length > 0);
}

/**
 * Whitespace around a header value is not part of it (RFC 9110 5.5: a field value excludes leading and
 * trailing whitespace; parsers and the Fetch standard strip it), so a key sent with spaces or tabs
 * around it IS the key. fetch would strip them before sending: they are sent as raw bytes here.
 */
const SURROUNDED: [string, (key: string) => string][] = [
  ["the key with spaces around it", (key) => `  ${key}  `],
  ["the key with tabs around it", (key) => `\t${key}\t`],
];

/**
 * The status answered to `spec` with `rawKey` as the header's bytes, unnormalised (undici sends values
 * as given); undefined when the target cannot be reached that way although fetch reaches it (MSW
 * intercepts fetch only).
 */
async function statusWithRawKey(t: RuleContext, spec: RequestSpec, rawKey: string): Promise<number | undefined> {
  const dispatcher = dispatcherFor(t.target.tls);
  const url = buildUrl(t.target.baseUrl, spec.path, spec.query);
  const { transport } = t.target;
  const timeoutMs = t.target.timeoutMs ?? transport?.timeoutMs ?? 30_000;
  const once = async (): Promise<Answer> => {
    try {
      const response = await rawRequest(url, {
        method: spec.method as "GET",
        headers: { accept: "application/json", "x-api-key": rawKey },
        ...(dispatcher ? { dispatcher } : {}),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const text = await response.body.text();
      const headers = new Headers();
      for (const [name, value] of Object.entries(response.headers))
        if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : String(value));
      return { status: response.statusCode, headers, text, json: parseJson(text) };
    } catch (error) {
      throw new TargetUnreachable(`${spec.method} ${url}: ${(error as Error).message}`, { cause: error });
    }
  };
  // Paced and retried like every request of the run (a 429 here is the gateway's, not an answer to the key).
  try {
    const answer = transport
      ? await transport.send(
          { method: spec.method, describe: `${spec.method} ${spec.path}`, passNetworkErrors: true },
          once,
        )
      : await once();
    return answer.status;
  } catch (error) {
    if (error instanceof TargetUnreachable) return undefined;
    throw error;
  }
}

function keyVariantsRule(operationId: string, method: string): RuleSpec {
  return {
    id: `${operationId}.key-variants`,
    operationId,
    level: "documented",
    readOnly: method === "GET",
    description:
      "A near miss of the valid key (other letter case, a space or tab inside, a character more or less) is a key the service never issued: 401 (section 5). Surrounding spaces or tabs are not part of a header value (RFC 9110 5.5), so the key sent with them is the key: answered as the key itself (assumption: the reference does not say; read operations only).",
    run: async (t) => {
      const request = sampleRequest(operationId, t.fixtures);
      for (const [label, key] of nearMisses(t.target.apiKey)) {
        const ex = await t.call(operationId, { ...request, key });
        t.expectStatus(
          ex,
          401,
          `${method} ${ex.request.path} with ${label} must answer 401 (the curl line sends $API_KEY: change it that way to reproduce)`,
        );
      }
      // Sent only where it changes nothing: with a key that is valid, a write would take effect.
      if (method !== "GET") return;
      const exact = await t.call(operationId, request);
      for (const [label, surround] of SURROUNDED) {
        const status = await statusWithRawKey(t, request, surround(t.target.apiKey));
        if (status === undefined) {
          t.fixtures.notCovered.push(
            `${operationId}.key-variants: ${label} not sent (raw header bytes cannot reach the target, which fetch reaches)`,
          );
          return;
        }
        t.expect(status === exact.status, {
          pointer: "#status",
          expected: `${exact.status}, as with the key itself`,
          actual: status,
          message: `${method} ${exact.request.path} with ${label} (raw header bytes) is answered as with the key`,
          exchange: exact,
          assumed: true,
        });
      }
    },
  };
}

/**
 * x-assumption of the 403 response: a valid read-only key answers 403 on an operation that changes
 * state. Only the kit's mock can issue such a key (POST /__mock/workspaces {"readOnly": true}).
 */
function forbiddenRule(operationId: string): RuleSpec {
  return {
    id: `${operationId}.read-only-key`,
    operationId,
    level: "assumed",
    readOnly: false,
    description:
      "A read-only API key answers 403 with the error body on an operation that changes state (x-assumption).",
    run: async (t) => {
      const control = t.fixtures.control;
      if (!control) return t.skip("needs the mock's control plane to issue a read-only key");
      const { apiKey } = await control.createWorkspace({ empty: true, readOnly: true });
      const ex = await t.call(operationId, { ...sampleRequest(operationId, t.fixtures), key: apiKey });
      t.expectStatus(ex, 403, `${ex.request.method} ${ex.request.path} with a read-only key must answer 403`);
    },
  };
}

// The reference's operations, each with its sample request; one a spec author adds is checked by generic rules.
const reference = [...operations.values()].filter((op) => SAMPLED_OPERATIONS.has(op.operationId));
const writes = reference.filter((op) => op.method !== "GET");

export const authRules = defineRules("auth", [
  ...reference.map((op) => authRule(op.operationId, op.method)),
  ...reference.map((op) => keyVariantsRule(op.operationId, op.method)),
  ...writes.map((op) => forbiddenRule(op.operationId)),
]);
