/**
 * Signing in, for a mock started with --control-token: its control plane answers 401 without the token
 * or a workspace's key, so when it does the page asks for one (a password field, which of the two it
 * is, Sign in) instead of showing views full of refusals. The secret is checked with one request before
 * it is kept, kept in the tab's sessionStorage (session.ts: a reload keeps it, closing the tab ends
 * it), sent on every request and the event stream, and never shown, logged or put in the URL. A 401
 * later (a mock restarted with another token, a deleted workspace's key) signs out with the mock's
 * message. A dashboard given its token or key by mountDashboard's options never asks.
 */
import { html } from "htm/preact";
import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import { type Connection, ControlError, createDashboardApi } from "./api.js";
import { type Account, App, type AppProps } from "./app.js";
import {
  forgetSession,
  readSession,
  type SecretKind,
  type Session,
  saveSession,
  tabStorage,
  withSession,
} from "./session.js";

export interface DashboardProps extends Omit<AppProps, "account"> {
  /** Where the session is kept; default the tab's sessionStorage. */
  storage?: Storage;
}

type Phase =
  /** Asking the mock whether it lets this page in (with the saved session, if any). */
  { name: "checking" } | { name: "signed-out"; message?: string } | { name: "in"; session?: Session };

const SIGNED_IN_WITH: Record<SecretKind, string> = {
  token: "Signed in with the control token",
  key: "Signed in with a workspace key",
};

/** The 401's message when the mock refuses `connection`, else undefined (let in, or it did not answer). */
async function refusalOf(connection: Connection): Promise<ControlError | undefined> {
  try {
    // The lightest read every secret may make: with a key it lists that workspace alone.
    await createDashboardApi(connection).workspaces();
    return undefined;
  } catch (e) {
    return e instanceof ControlError ? e : new ControlError(0, String(e));
  }
}

export function Dashboard({ storage = tabStorage(), ...props }: DashboardProps) {
  const { connection } = props;
  const given = Boolean(connection.controlToken || connection.apiKey);
  const [phase, setPhase] = useState<Phase>(given ? { name: "in" } : { name: "checking" });

  const signOut = useCallback(
    (message?: string) => {
      forgetSession(storage, connection.baseUrl);
      setPhase({ name: "signed-out", ...(message && { message }) });
    },
    [storage, connection.baseUrl],
  );

  useEffect(() => {
    if (given) return;
    let current = true;
    const saved = readSession(storage, connection.baseUrl);
    refusalOf(withSession(connection, saved)).then((refusal) => {
      if (!current) return;
      // Only a 401 asks for a secret: a mock that did not answer shows as offline in the views.
      if (refusal?.status !== 401) return setPhase({ name: "in", ...(saved && { session: saved }) });
      forgetSession(storage, connection.baseUrl);
      setPhase({ name: "signed-out", ...(saved && { message: refusal.message }) });
    });
    return () => void (current = false);
  }, [given, connection]);

  const session = phase.name === "in" ? phase.session : undefined;
  const signedIn = useMemo<Connection>(
    () => (given ? connection : { ...withSession(connection, session), onUnauthorized: signOut }),
    [given, connection, session, signOut],
  );
  const account = useMemo<Account | undefined>(
    () => session && { label: SIGNED_IN_WITH[session.kind], signOut: () => signOut() },
    [session, signOut],
  );

  const signIn = async (next: Session): Promise<string | undefined> => {
    const refusal = await refusalOf(withSession(connection, next));
    if (refusal) return refusal.message;
    saveSession(storage, connection.baseUrl, next);
    setPhase({ name: "in", session: next });
    return undefined;
  };

  if (phase.name === "in") return html`<${App} ...${props} connection=${signedIn} account=${account} />`;
  const body =
    phase.name === "checking"
      ? html`<p class="muted" role="status">Connecting…</p>`
      : html`<${SignInForm} message=${phase.message} onSignIn=${signIn} />`;
  const header = html`<header class="top"><h1>Agent Platform mock</h1></header>`;
  // The same landmarks as App's: the /__mock/ui page is the document, a mounted dashboard one region.
  return props.deepLinks
    ? html`<div class="dash">${header}<main class="view">${body}</main></div>`
    : html`<section class="dash" aria-label="Mock dashboard">${header}<div class="view">${body}</div></section>`;
}

/** The form: the secret, which it is, Sign in; a refusal's message under it, the field focused again. */
export function SignInForm({
  message,
  onSignIn,
}: {
  /** Why the page asks again (the saved session was refused): the mock's message. */
  message?: string;
  /** Resolves with the mock's message when it refused the secret, undefined when it let it in. */
  onSignIn: (session: Session) => Promise<string | undefined>;
}) {
  const [kind, setKind] = useState<SecretKind>("token");
  const [secret, setSecret] = useState("");
  const [error, setError] = useState<string | undefined>(message);
  const [busy, setBusy] = useState(false);
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => field.current?.focus(), []);

  const refused = (text: string) => {
    setBusy(false);
    setError(text);
    field.current?.focus();
    field.current?.select();
  };
  const submit = (e: Event) => {
    e.preventDefault();
    if (busy) return;
    const typed = secret.trim();
    if (!typed) return refused("Type the mock's control token or a workspace's API key.");
    setBusy(true);
    setError(undefined);
    onSignIn({ kind, secret: typed }).then((text) => text !== undefined && refused(text));
  };
  const choice = (value: SecretKind, label: string) =>
    html`<label class="check"
      ><input
        type="radio"
        name="signin-kind"
        value=${value}
        checked=${kind === value}
        onChange=${() => setKind(value)}
      />
      ${label}</label
    >`;

  return html`<form class="panel signin" noValidate onSubmit=${submit} aria-labelledby="signin-title">
    <h2 id="signin-title">Sign in</h2>
    <p id="signin-why">
      This mock's control plane asks for its control token (<code>--control-token</code>), or a workspace's
      API key to see and control that workspace only. It is kept in this tab until you sign out or close it.
    </p>
    <div class="field">
      <label for="signin-secret">Control token or workspace API key</label>
      <input
        id="signin-secret"
        ref=${field}
        type="password"
        autocomplete="off"
        autocapitalize="off"
        spellcheck=${false}
        value=${secret}
        aria-invalid=${error ? "true" : undefined}
        aria-describedby=${error ? "signin-why signin-error" : "signin-why"}
        onInput=${(e: Event) => setSecret((e.target as HTMLInputElement).value)}
      />
    </div>
    <fieldset class="choice">
      <legend>It is</legend>
      <div class="row">${choice("token", "the control token")} ${choice("key", "a workspace API key")}</div>
    </fieldset>
    ${
      error &&
      html`<div class="error" role="alert" id="signin-error">
      <strong>${error}</strong>
    </div>`
    }
    <button type="submit" class="primary" disabled=${busy}>${busy ? "Signing in…" : "Sign in"}</button>
  </form>`;
}
