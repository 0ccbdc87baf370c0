/**
 * Which headers, query parameters and JSON fields hold a secret, in one place, and what redacting them
 * means: the upstream door's Redactor (upstream/redact.ts), the HAR export (control/har.ts) and the
 * shared journal (store/redis/journal.ts), which must not let a secret leave the process, all judge
 * by these names. Two nets: by name (this file) and by value (SecretValues: a secret seen once is
 * scrubbed wherever it shows up again). Pure and portable: the MSW door runs it in a browser.
 */

/** What a secret becomes. */
export const REDACTED = "[redacted]";

/** Headers that carry credentials, lower case. */
export const SECRET_HEADERS: ReadonlySet<string> = new Set([
  "x-api-key",
  "authorization",
  "proxy-authorization",
  "cookie",
  "set-cookie",
  "x-upstream-api-key",
]);

export const isSecretHeader = (name: string) => SECRET_HEADERS.has(name.toLowerCase());

/**
 * Field names that hold credentials in this API and around it: webhook secrets (AgentWebhook.secret),
 * trunk passwords (E13), integration credentials (E5: token, password, apiKey.value), API keys.
 */
const SECRET_FIELD =
  /^(secret|.*Secret|password|.*Password|passwd|token|.*Token|apiKey|api_key|credentials?|authorization|cookie)$/;

export const isSecretField = (name: string) => SECRET_FIELD.test(name);

/** `apiKey: { key, value }` (E5's API_KEY auth): the header name stays, the value goes. */
const SECRET_INSIDE: Readonly<Record<string, string>> = { apiKey: "value" };

/**
 * Query parameter names that may carry a secret (a key sent in the query is refused, but kept out all
 * the same). Broader than the field names: a query has no schema to be precise with.
 */
/** Query parameter names that may carry a credential (an API key sent in the URL is refused, but kept out too). */
export const SECRET_QUERY_NAME = /key|token|secret|password|auth/i;

export const isSecretQueryName = (name: string) => SECRET_QUERY_NAME.test(name);

/**
 * Whether a `{ key, value }` pair names a credential (E5's NONE auth sends headers as such pairs:
 * `{ key: "Authorization", value: "Bearer ..." }`): then its value is a secret.
 */
const isSecretPairName = (name: unknown) => typeof name === "string" && (isSecretHeader(name) || isSecretField(name));

/** A header value without its scheme: the part that is the secret. */
export function bearerless(value: string): string {
  return value.replace(/^(Bearer|Basic)\s+/i, "");
}

/** Text as it is (no value to scrub). */
const asIs = (text: string) => text;

/** Headers with every secret header's value replaced and the others scrubbed; repeated values joined. */
export function redactHeaders(
  headers: Record<string, string | string[] | undefined>,
  scrub: (text: string) => string = asIs,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = isSecretHeader(name) ? REDACTED : scrub([value].flat().join(", "));
  }
  return out;
}

/** The secret values a request's headers carry (keys, bearer tokens, cookie values). */
export function secretsInHeaders(
  headers: Record<string, string | string[] | undefined>,
  found: (value: string) => void,
): void {
  for (const [name, value] of Object.entries(headers)) {
    if (!isSecretHeader(name)) continue;
    for (const one of [value ?? []].flat()) {
      found(bearerless(one));
      // A cookie's value is the secret, not the whole `name=value; Path=/` line.
      if (/cookie/i.test(name))
        for (const pair of one.split(";")) {
          const at = pair.indexOf("=");
          if (at > 0) found(pair.slice(at + 1).trim());
        }
    }
  }
}

/**
 * A deep copy of a JSON value with every secret field replaced (everything under `credentials` goes;
 * numbers and booleans stay), and every other string passed through `scrub`.
 */
export function redactJson<T>(value: T, scrub: (text: string) => string = asIs): T {
  return walk(value, scrub) as T;
}

function walk(value: unknown, scrub: (text: string) => string): unknown {
  if (typeof value === "string") return scrub(value);
  if (Array.isArray(value)) return value.map((item) => walk(item, scrub));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  const record = value as Record<string, unknown>;
  const pairSecret = "value" in record && isSecretPairName(record.key);
  for (const [name, field] of Object.entries(record)) {
    const inside = SECRET_INSIDE[name];
    if (inside && field !== null && typeof field === "object" && !Array.isArray(field))
      out[name] = { ...(walk(field, scrub) as object), ...(inside in field && { [inside]: REDACTED }) };
    else if (
      (isSecretField(name) || (pairSecret && name === "value")) &&
      (typeof field === "string" || typeof field === "object")
    )
      out[name] = redactAll(field);
    else out[name] = walk(field, scrub);
  }
  return out;
}

/** Everything under a secret field (a credentials object): every string goes. */
function redactAll(value: unknown): unknown {
  if (typeof value === "string") return REDACTED;
  if (Array.isArray(value)) return value.map(redactAll);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactAll(v)]));
}

/** Every string a JSON value holds under a secret field, for the by-value net. */
export function secretsInJson(value: unknown, found: (value: string) => void): void {
  if (Array.isArray(value)) for (const item of value) secretsInJson(item, found);
  else if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    if ("value" in record && isSecretPairName(record.key)) allStrings(record.value, found);
    for (const [name, field] of Object.entries(record)) {
      const inside = SECRET_INSIDE[name];
      // As redactJson does: `apiKey: { key, value }` gives its value only.
      if (inside && field !== null && typeof field === "object" && !Array.isArray(field)) {
        allStrings((field as Record<string, unknown>)[inside], found);
        secretsInJson(field, found);
      } else if (isSecretField(name)) allStrings(field, found);
      else secretsInJson(field, found);
    }
  }
}

function allStrings(value: unknown, found: (value: string) => void): void {
  if (typeof value === "string") found(value);
  else if (value !== null && typeof value === "object") for (const v of Object.values(value)) allStrings(v, found);
}

/** Every secret field name and pair name contains one of these (case aside). */
const MAY_NAME_A_SECRET = /secret|passw|token|api_?key|credential|authorization|cookie|"key"/i;

/** An open object or array while scanning JSON text. */
interface Frame {
  object: boolean;
  /** Everything in it is secret (it is the value of a secret field, or inside one). */
  secret: boolean;
  /** The field of it that is secret however it is named (`value` inside `apiKey`). */
  inside?: string;
  /** Objects: whether the next string is a field name, and the field whose value comes next. */
  expectsName: boolean;
  field?: string;
  /** A `{ key, value }` pair: the name the pair gives, and where its string value is. */
  pairName?: unknown;
  pairValue?: { start: number; end: number; value: string };
}

/**
 * JSON text with the same fields redactJson replaces replaced in place, the rest of the text (its
 * layout included) left as it is. Reads text cut short (a body kept up to a limit) as far as it goes:
 * a secret string the cut splits is replaced up to the end. Text that is not JSON comes back unchanged.
 * `found` hears each secret string replaced, for the by-value net.
 */
export function redactJsonText(text: string, found: (value: string) => void = () => {}): string {
  // Most answers name no secret: read through only when a name that could be one is there.
  if (!MAY_NAME_A_SECRET.test(text)) return text;
  const spans: { start: number; end: number }[] = [];
  const stack: Frame[] = [];
  const secretString = (start: number, end: number, value: string) => {
    spans.push({ start, end });
    found(value);
  };
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i];
    if (c === '"') {
      const { end, value } = readString(text, i);
      const top = stack.at(-1);
      if (top?.object && top.expectsName) {
        top.field = value;
        top.expectsName = false;
      } else if (top) {
        const field = top.object ? top.field : undefined;
        if (field === "key") top.pairName = value;
        if (field === "value") top.pairValue = { start: i, end, value };
        if (top.secret || (field !== undefined && (isSecretField(field) || field === top.inside)))
          secretString(i, end, value);
      }
      i = end;
    } else if (c === "{" || c === "[") {
      const top = stack.at(-1);
      const field = top?.object ? top.field : undefined;
      stack.push({
        object: c === "{",
        // `apiKey: { key, value }` keeps its key: only the field named inside it is secret.
        secret: Boolean(
          top?.secret ||
            (field !== undefined &&
              (field === top?.inside || (isSecretField(field) && !(c === "{" && SECRET_INSIDE[field])))),
        ),
        inside: field === undefined || c !== "{" ? undefined : SECRET_INSIDE[field],
        expectsName: c === "{",
      });
      i++;
    } else if (c === "}" || c === "]") {
      const closed = stack.pop();
      if (closed?.pairValue && !closed.secret && isSecretPairName(closed.pairName))
        secretString(closed.pairValue.start, closed.pairValue.end, closed.pairValue.value);
      i++;
    } else if (c === ",") {
      const top = stack.at(-1);
      if (top?.object) top.expectsName = true;
      i++;
    } else i++;
  }
  // A pair whose object the cut left open still counts.
  for (const open of stack)
    if (open.pairValue && !open.secret && isSecretPairName(open.pairName))
      secretString(open.pairValue.start, open.pairValue.end, open.pairValue.value);
  if (spans.length === 0) return text;
  spans.sort((a, b) => a.start - b.start);
  let out = "";
  let at = 0;
  for (const { start, end } of spans) {
    if (start < at) continue;
    out += `${text.slice(at, start)}"${REDACTED}"`;
    at = end;
  }
  return out + text.slice(at);
}

/**
 * The string token starting at `start` (its opening quote): where it ends, past its closing quote (the
 * text's end when the cut left it open), and its value (as far as it goes when cut).
 */
function readString(text: string, start: number): { end: number; value: string } {
  let i = start + 1;
  for (; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') break;
  }
  const closed = i < text.length;
  // An escape the cut split (`\`, `\u00`) is dropped: what is left still reads.
  const body = closed ? text.slice(start + 1, i) : text.slice(start + 1).replace(/\\(u[0-9a-fA-F]{0,3})?$/, "");
  let value: string;
  try {
    value = JSON.parse(`"${body}"`) as string;
  } catch {
    value = body;
  }
  return { end: closed ? i + 1 : text.length, value };
}

/** Secret values shorter than this are left alone by the by-value net: they would scrub ordinary words. */
export const MIN_SECRET_LENGTH = 6;

/** The by-value net for one piece of work (an exchange): secrets seen once, scrubbed from any text. */
export class SecretValues {
  private readonly values = new Set<string>();

  remember = (value: string | undefined): void => {
    if (value && value.length >= MIN_SECRET_LENGTH && value !== REDACTED) this.values.add(value);
  };

  get size(): number {
    return this.values.size;
  }

  scrub = (text: string): string => {
    let out = text;
    for (const value of this.values) if (out.includes(value)) out = out.split(value).join(REDACTED);
    return out;
  };
}
