/**
 * Secrets never leave the upstream door: not into the store (recorded records), the journal, drift
 * findings, logs or reports. Two nets: by name (a header or a field that holds a credential: the names
 * are core/secrets.ts's) and by value (a key the client or the door sent, wherever it shows up again,
 * an error message included), which this door keeps for as long as it runs.
 */
import {
  MIN_SECRET_LENGTH,
  REDACTED,
  redactHeaders,
  redactJson,
  secretsInHeaders,
  secretsInJson,
} from "../core/secrets.js";
import { withoutSecrets } from "../store/journal.js";

/** Secret values seen on the way (clients' keys) kept for scrubbing text; the door's own are always kept. */
const MAX_REMEMBERED = 10_000;

/** What a secret becomes (core/secrets.ts): the same word as the HAR export uses. */
export { REDACTED };

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
    if (!value || value.length < MIN_SECRET_LENGTH || this.values.has(value) || this.own.includes(value)) return;
    this.values.add(value);
    // A long-running door meets many keys: the oldest go first (a Set keeps insertion order).
    if (this.values.size > MAX_REMEMBERED) this.values.delete(this.values.values().next().value!);
  }

  /** Remembers the secrets a request carries in its headers. */
  rememberHeaders(headers: Record<string, string | string[] | undefined>): void {
    secretsInHeaders(headers, (secret) => this.remember(secret));
  }

  /**
   * Remembers every value a JSON body holds under a secret field, so that a message quoting it (a drift
   * finding's "got ...") is scrubbed too, not only the copy of the body.
   */
  rememberSecretsIn(value: unknown): void {
    secretsInJson(value, (secret) => this.remember(secret));
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
    return redactHeaders(headers, (text) => this.text(text));
  }

  /** A deep copy of a JSON value with every secret field and every known secret value replaced. */
  json<T>(value: T): T {
    return redactJson(value, (text) => this.text(text));
  }
}
