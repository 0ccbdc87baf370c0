/**
 * Secrets never leave the upstream door: not into the store (recorded records), the journal, drift
 * findings, logs or reports. Two nets: by name (a header or a field that holds a credential) and by
 * value (a key the client or the door sent, wherever it shows up again, an error message included).
 */
import { withoutSecrets } from "../store/journal.js";

/** Secret values seen on the way (clients' keys) kept for scrubbing text; the door's own are always kept. */
const MAX_REMEMBERED = 10_000;

/** What a secret becomes; the same word as the HAR export uses. */
export const REDACTED = "[redacted]";

const SECRET_HEADERS = new Set([
  "x-api-key",
  "authorization",
  "proxy-authorization",
  "cookie",
  "set-cookie",
  "x-upstream-api-key",
]);

/**
 * Field names that hold credentials in this API and around it: webhook secrets (AgentWebhook.secret),
 * trunk passwords (E13), integration credentials (E5: token, password, apiKey.value), API keys.
 */
const SECRET_FIELD =
  /^(secret|.*Secret|password|.*Password|passwd|token|.*Token|apiKey|api_key|credentials?|authorization|cookie)$/;

/** `apiKey: { key, value }` (E5's API_KEY auth): the header name stays, the value goes. */
const SECRET_INSIDE: Record<string, string> = { apiKey: "value" };

export class Redactor {
  private readonly values = new Set<string>();
  private readonly own: string[];

  /** `known`: secrets the door itself holds (the upstream key). */
  constructor(known: (string | undefined)[] = []) {
    this.own = known.filter((value): value is string => Boolean(value));
  }

  /** A secret seen on its way through (a client's key): scrubbed from any text from now on. */
  remember(value: string | undefined): void {
    // Short values would scrub ordinary words; keys and tokens are longer.
    if (!value || value.length < 6 || this.values.has(value) || this.own.includes(value)) return;
    this.values.add(value);
    // A long-running door meets many keys: the oldest go first (a Set keeps insertion order).
    if (this.values.size > MAX_REMEMBERED) this.values.delete(this.values.values().next().value!);
  }

  /** Remembers the secrets a request carries in its headers. */
  rememberHeaders(headers: Record<string, string | string[] | undefined>): void {
    for (const [name, value] of Object.entries(headers))
      if (SECRET_HEADERS.has(name.toLowerCase())) for (const v of [value].flat()) if (v) this.remember(bearerless(v));
  }

  /**
   * Remembers every value a JSON body holds under a secret field, so that a message quoting it (a drift
   * finding's "got ...") is scrubbed too, not only the copy of the body.
   */
  rememberSecretsIn(value: unknown): void {
    if (Array.isArray(value)) for (const item of value) this.rememberSecretsIn(item);
    else if (value !== null && typeof value === "object")
      for (const [name, field] of Object.entries(value)) {
        const inside = SECRET_INSIDE[name];
        if (inside && field !== null && typeof field === "object" && !Array.isArray(field))
          this.rememberAll((field as Record<string, unknown>)[inside]);
        if (SECRET_FIELD.test(name)) this.rememberAll(field);
        else this.rememberSecretsIn(field);
      }
  }

  private rememberAll(value: unknown): void {
    if (typeof value === "string") this.remember(value);
    else if (value !== null && typeof value === "object") for (const v of Object.values(value)) this.rememberAll(v);
  }

  text(text: string): string {
    let out = text;
    for (const value of this.own) if (out.includes(value)) out = out.split(value).join(REDACTED);
    for (const value of this.values) if (out.includes(value)) out = out.split(value).join(REDACTED);
    return out;
  }

  url(url: string): string {
    return this.text(withoutSecrets(url));
  }

  headers(headers: Record<string, string | string[] | undefined>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (value === undefined) continue;
      out[name] = SECRET_HEADERS.has(name.toLowerCase()) ? REDACTED : this.text([value].flat().join(", "));
    }
    return out;
  }

  /** A deep copy of a JSON value with every secret field and every known secret value replaced. */
  json<T>(value: T): T {
    return this.walk(value) as T;
  }

  private walk(value: unknown): unknown {
    if (typeof value === "string") return this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.walk(item));
    if (value === null || typeof value !== "object") return value;
    const out: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(value)) {
      const inside = SECRET_INSIDE[name];
      if (inside && field !== null && typeof field === "object" && !Array.isArray(field))
        out[name] = { ...(this.walk(field) as object), ...(inside in field && { [inside]: REDACTED }) };
      else if (SECRET_FIELD.test(name) && (typeof field === "string" || field === null || typeof field === "object"))
        out[name] = typeof field === "string" ? REDACTED : field === null ? null : this.redactAll(field);
      else out[name] = this.walk(field);
    }
    return out;
  }

  /** Everything under a secret field (a credentials object): every string goes. */
  private redactAll(value: unknown): unknown {
    if (typeof value === "string") return REDACTED;
    if (Array.isArray(value)) return value.map((item) => this.redactAll(item));
    if (value === null || typeof value !== "object") return value;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.redactAll(v)]));
  }
}

function bearerless(value: string): string {
  return value.replace(/^(Bearer|Basic)\s+/i, "");
}
