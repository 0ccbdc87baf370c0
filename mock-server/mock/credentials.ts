/**
 * The security of another document (`--spec FILE`): which credential a request carries, and the
 * workspace it is. The operation's `security` counts, else the document's; each requirement is an
 * alternative (OR), the schemes within one are all needed (AND); `{}` among them, or none at all,
 * leaves the operation open. Schemes: apiKey in a header, the query or a cookie; http bearer, basic or
 * another http scheme (the Authorization header); oauth2 and openIdConnect as a bearer token;
 * mutualTLS cannot be seen here and counts as met.
 *
 * Each distinct credential is its own workspace, created empty on its first request through the
 * store (so replicas on one Redis share it). Its id and key are derived from a SHA-256 of the
 * credential: the credential itself is kept nowhere. An open operation serves the default workspace.
 * The kit's own spec keeps its X-API-Key rule (auth.ts).
 */
import type { Contract } from "../core/contract.js";
import { DEFAULT_WORKSPACE_ID } from "../core/defaults.js";
import { ApiError } from "../core/errors.js";
import type { RequestHead } from "../core/exchange.js";
import { derefIn } from "../core/json-ref.js";
import type { Operation } from "../core/operations.js";
import { webCryptoSha256, type Sha256 } from "../store/registry.js";
import type { Store } from "../store/store.js";
import type { Workspace } from "../store/workspace.js";
import { parseQuery } from "./request-parts.js";

interface SecurityScheme {
  type: "apiKey" | "http" | "oauth2" | "openIdConnect" | "mutualTLS";
  in?: "header" | "query" | "cookie";
  name?: string;
  scheme?: string;
}

/** One alternative: the schemes (by name) that must all be met. An empty one leaves the operation open. */
type Requirement = { name: string; scheme: SecurityScheme }[];

/** What an operation asks: its alternatives, and whether it is open without any (`{}`, or no security). */
interface Security {
  alternatives: Requirement[];
  open: boolean;
}

const securityCache = new WeakMap<Operation, Security>();

/** The security an operation of the contract's document asks for. */
export function securityOf(contract: Contract, op: Operation): Security {
  let security = securityCache.get(op);
  if (security) return security;
  const doc = contract.document as Record<string, any>;
  const item = derefIn<Record<string, any>>(doc, doc.paths?.[op.path]);
  const declared: Record<string, string[]>[] | undefined = item?.[op.method]?.security ?? doc.security;
  const schemes: Record<string, unknown> = doc.components?.securitySchemes ?? {};
  const alternatives: Requirement[] = [];
  let open = !declared || declared.length === 0;
  for (const requirement of declared ?? []) {
    const names = Object.keys(requirement ?? {});
    if (names.length === 0) open = true;
    else
      alternatives.push(
        names.map((name) => {
          const scheme = derefIn<SecurityScheme>(doc, schemes[name]);
          if (!scheme?.type)
            throw new Error(
              `${op.operationId} requires the security scheme ${name}, which the document does not define`,
            );
          return { name, scheme };
        }),
      );
  }
  security = { alternatives, open };
  securityCache.set(op, security);
  return security;
}

/** How a client sends one scheme's credential: for a 401's message and the start log. */
export function describeScheme({ scheme }: Requirement[number]): string {
  switch (scheme.type) {
    case "apiKey":
      return scheme.in === "query"
        ? `the ${scheme.name} query parameter`
        : scheme.in === "cookie"
          ? `the ${scheme.name} cookie`
          : `the ${scheme.name} header`;
    case "http":
      return `Authorization: ${httpScheme(scheme)} <${PLACEHOLDER[httpScheme(scheme)] ?? "credentials"}>`;
    case "oauth2":
    case "openIdConnect":
      return "Authorization: Bearer <token>";
    default:
      return "a client certificate (not checked)";
  }
}

export const describeRequirement = (requirement: Requirement) => requirement.map(describeScheme).join(" and ");

const PLACEHOLDER: Record<string, string> = { Bearer: "token", Basic: "base64 of user:password" };

/** The http scheme as the Authorization header spells it (Bearer, Basic, Digest...). */
function httpScheme(scheme: SecurityScheme): string {
  const name = scheme.scheme ?? "bearer";
  return name[0].toUpperCase() + name.slice(1).toLowerCase();
}

function cookie(head: RequestHead, name: string): string | undefined {
  const raw = head.headers.cookie;
  for (const part of (Array.isArray(raw) ? raw.join("; ") : (raw ?? "")).split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** The Authorization header's credentials when they are of this scheme. */
function authorization(head: RequestHead, scheme: string): string | undefined {
  const raw = head.headers.authorization;
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim() ?? "";
  const space = value.indexOf(" ");
  if (space < 0 || value.slice(0, space).toLowerCase() !== scheme.toLowerCase()) return undefined;
  return value.slice(space + 1).trim();
}

/** The credential the request carries for one scheme; "" for one the mock cannot see (mutualTLS). */
function credentialFor(head: RequestHead, query: () => Record<string, string | string[]>, scheme: SecurityScheme) {
  let value: string | string[] | undefined;
  switch (scheme.type) {
    case "apiKey":
      if (!scheme.name) return undefined;
      value =
        scheme.in === "query"
          ? query()[scheme.name]
          : scheme.in === "cookie"
            ? cookie(head, scheme.name)
            : head.headers[scheme.name.toLowerCase()];
      break;
    case "http":
      value = authorization(head, scheme.scheme ?? "bearer");
      break;
    case "oauth2":
    case "openIdConnect":
      value = authorization(head, "bearer");
      break;
    default:
      return "";
  }
  if (Array.isArray(value)) value = value[0];
  return value ? value : undefined;
}

const hex = (digest: Uint8Array) => Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");

export class CredentialWorkspaces {
  constructor(
    private readonly store: Store,
    /** The default workspace's key: it is made again with it when it was deleted. */
    private readonly defaultApiKey: string,
    private readonly sha256: Sha256 = webCryptoSha256,
  ) {}

  /**
   * The workspace of the request's credential for `op`, created empty on first use; the default
   * workspace for an open operation; 401 (with how to authenticate) when no alternative is met.
   */
  async workspaceFor(contract: Contract, op: Operation, head: RequestHead, rawQuery: string): Promise<Workspace> {
    const { alternatives, open } = securityOf(contract, op);
    let query: Record<string, string | string[]> | undefined;
    const queryOf = () => (query ??= parseQuery(rawQuery));
    for (const requirement of alternatives) {
      const values = requirement.map(({ scheme }) => credentialFor(head, queryOf, scheme));
      if (values.some((value) => value === undefined)) continue;
      // mutualTLS alone identifies no one: the default workspace, as an open operation.
      if (values.every((value) => value === "")) return this.defaultWorkspace();
      const identity = requirement.map(({ name }, i) => `${name}=${values[i]}`).join("\n");
      return this.workspaceOf(identity);
    }
    if (open) return this.defaultWorkspace();
    const how = alternatives.map(describeRequirement).join(", or ");
    const challenges = [
      ...new Set(
        alternatives.flatMap((requirement) =>
          requirement.flatMap(({ scheme }) =>
            scheme.type === "http"
              ? [`${httpScheme(scheme)} realm="mock"`]
              : scheme.type === "apiKey"
                ? []
                : ["Bearer"],
          ),
        ),
      ),
    ];
    throw new ApiError(
      401,
      `Credentials are missing: send ${how}`,
      undefined,
      challenges.length > 0 ? { "WWW-Authenticate": challenges.join(", ") } : undefined,
    );
  }

  private async defaultWorkspace(): Promise<Workspace> {
    // Read through authenticate, as every request's workspace is (up to date on a shared store).
    // On a shared store the key is the one the first process made it with.
    const found = await this.store.authenticate(this.store.get(DEFAULT_WORKSPACE_ID)?.apiKey ?? this.defaultApiKey);
    if (found) return found;
    // Deleted through the control plane (here or by another replica): made again, empty.
    await this.store.control(() => {
      if (!this.store.get(DEFAULT_WORKSPACE_ID))
        this.store.add(
          { workspaceId: DEFAULT_WORKSPACE_ID, apiKey: this.defaultApiKey, seed: 1, empty: true, readOnly: false },
          { seed: false },
        );
    });
    return this.existing(this.store.get(DEFAULT_WORKSPACE_ID)?.apiKey ?? this.defaultApiKey);
  }

  private async existing(apiKey: string): Promise<Workspace> {
    const workspace = await this.store.authenticate(apiKey);
    if (!workspace) throw new ApiError(500, "The workspace of this credential could not be made");
    return workspace;
  }

  /** The workspace of one credential (its schemes' names and values): found by its derived key, else made. */
  private async workspaceOf(identity: string): Promise<Workspace> {
    const digest = this.sha256(`agent-platform-mock credential\n${identity}`);
    const hash = hex(digest instanceof Promise ? await digest : digest);
    const apiKey = `credential_${hash}`;
    const found = await this.store.authenticate(apiKey);
    if (found) return found;
    const workspaceId = `cred-${hash.slice(0, 16)}`;
    await this.store.control(() => {
      if (!this.store.get(workspaceId))
        this.store.add(
          { workspaceId, apiKey, seed: Number.parseInt(hash.slice(0, 8), 16), empty: true, readOnly: false },
          { seed: false },
        );
    });
    return this.existing(apiKey);
  }
}

/**
 * How a client authenticates to another document, for the start log: each way its operations accept,
 * and how many are open. Names the schemes only: no credential is known to the mock, or shown.
 */
export function describeSecurity(contract: Contract): string {
  const ways = new Set<string>();
  let open = 0;
  for (const op of contract.operations) {
    const security = securityOf(contract, op);
    if (security.open) open++;
    for (const requirement of security.alternatives) ways.add(describeRequirement(requirement));
  }
  const total = contract.operations.length;
  if (ways.size === 0) return "none: every operation is open (the default workspace)";
  const openNote = open > 0 ? `; ${open} of ${total} operations open to anyone, on the default workspace` : "";
  return `${[...ways].join(", or ")} (any value: each distinct credential is a workspace of its own${openNote})`;
}
