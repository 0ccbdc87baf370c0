/**
 * The secret a person signed in with (a mock started with --control-token): the control token, or a
 * workspace's API key. Kept in the tab's sessionStorage, so a reload keeps the session and closing the
 * tab ends it; never in localStorage (it would outlive the tab and reach every tab of the origin), never
 * in the URL (it would land in the history, in logs and in pasted links). One entry per mock (its base
 * URL), so two dashboards of one page over two mocks keep their own.
 */
import type { Connection } from "./api.js";

/** Which secret it is: it decides the header it is sent in and what the dashboard offers. */
export type SecretKind = "token" | "key";

export interface Session {
  kind: SecretKind;
  secret: string;
}

/** What the dashboard may do: the whole mock, or the one workspace of a key (its lists show only it). */
export type Scope = "mock" | "workspace";

/** The sessionStorage name of a mock's session. */
export function storageNameOf(baseUrl: string): string {
  return `agent-platform-mock:dashboard:${baseUrl}`;
}

/** The tab's sessionStorage, or none when the browser refuses it (storage disabled, a sandboxed frame). */
export function tabStorage(): Storage | undefined {
  try {
    return globalThis.sessionStorage ?? undefined;
  } catch {
    return undefined;
  }
}

export function readSession(storage: Storage | undefined, baseUrl: string): Session | undefined {
  let text: string | null = null;
  try {
    text = storage?.getItem(storageNameOf(baseUrl)) ?? null;
  } catch {
    return undefined;
  }
  if (!text) return undefined;
  try {
    const parsed = JSON.parse(text) as Partial<Session>;
    if ((parsed.kind === "token" || parsed.kind === "key") && typeof parsed.secret === "string" && parsed.secret)
      return { kind: parsed.kind, secret: parsed.secret };
  } catch {
    // Not ours, or damaged: as if signed out.
  }
  return undefined;
}

/** Saves the session; false when the storage refused it (the session then lasts until the page goes). */
export function saveSession(storage: Storage | undefined, baseUrl: string, session: Session): boolean {
  try {
    storage?.setItem(storageNameOf(baseUrl), JSON.stringify(session));
    return storage !== undefined;
  } catch {
    return false;
  }
}

export function forgetSession(storage: Storage | undefined, baseUrl: string): void {
  try {
    storage?.removeItem(storageNameOf(baseUrl));
  } catch {
    // Nothing was kept.
  }
}

/** The connection with the session's secret in its header (none: as it was). */
export function withSession(connection: Connection, session: Session | undefined): Connection {
  if (!session) return connection;
  return session.kind === "token"
    ? { ...connection, controlToken: session.secret }
    : { ...connection, apiKey: session.secret };
}

/** A key without the token controls its workspace only; the token, or no secret at all, the whole mock. */
export function scopeOf(connection: Pick<Connection, "controlToken" | "apiKey">): Scope {
  return !connection.controlToken && connection.apiKey ? "workspace" : "mock";
}
