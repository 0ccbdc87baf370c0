// @vitest-environment jsdom
/**
 * The sign-in view under jsdom, over a fake control plane that wants a bearer token or a workspace's key
 * (as a mock started with --control-token): a 401 shows the form, a wrong secret the mock's message, the
 * right one the views with the secret on every request and in sessionStorage only, a new mount (a reload)
 * signs in from the tab's storage, Sign out forgets it, a key scopes the views to its workspace, and a
 * later 401 signs out. The real thing, in Chromium against the real mock, is test/dashboard/signin.test.ts.
 */
import { afterEach, describe, expect, it } from "vitest";
import { mountDashboard, type MountedDashboard } from "./mount.js";
import { storageNameOf } from "./session.js";

const BASE = "https://api.test";
const TOKEN = "right-control-token";
const KEY = "key-of-workspace-one";

interface Sent {
  path: string;
  headers: Headers;
}

/** The control plane of a mock with a token: the token sees both workspaces, KEY only its own. */
function guardedMock() {
  const sent: Sent[] = [];
  const state = { token: TOKEN };
  const json = (body: unknown, status = 200) =>
    new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
  const workspaces = [
    { workspaceId: "default", apiKey: "mock-api-key", counts: {} },
    { workspaceId: "one", apiKey: KEY, counts: { calls: 2 } },
  ];
  const fetch = (async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input));
    const headers = new Headers(init.headers);
    const path = url.pathname.replace("/__mock", "");
    sent.push({ path, headers });
    const bearer = headers.get("Authorization") === `Bearer ${state.token}`;
    const key = headers.get("X-API-Key") === KEY;
    if (!bearer && !key)
      return json(
        { status: 401, error: "Unauthorized", message: "The control plane needs its token or a workspace key.", path },
        401,
      );
    if (path === "/events")
      return new Response(
        new ReadableStream<Uint8Array>({
          start: (controller) => controller.enqueue(new TextEncoder().encode(": connected\n\n")),
        }),
        { headers: { "Content-Type": "text/event-stream" } },
      );
    if (path === "/workspaces") return json(bearer ? workspaces : workspaces.slice(1));
    if (path === "/requests" || path === "/operations") return json([]);
    return json({ status: 404, error: "Not Found", message: `no ${path}`, path }, 404);
  }) as typeof globalThis.fetch;
  return { fetch, sent, state };
}

let mounted: MountedDashboard | undefined;
afterEach(() => {
  mounted?.unmount();
  mounted = undefined;
  document.body.innerHTML = "";
  sessionStorage.clear();
  localStorage.clear();
});

function mount(mock: ReturnType<typeof guardedMock>, options: { controlToken?: string } = {}) {
  mounted?.unmount();
  document.body.innerHTML = "";
  const host = document.createElement("div");
  document.body.append(host);
  mounted = mountDashboard(host, { baseUrl: BASE, fetch: mock.fetch, ...options });
  const root = host.shadowRoot!;
  return {
    root,
    form: () => root.querySelector<HTMLFormElement>("form.signin"),
    live: () => root.querySelector("[data-live]")?.getAttribute("data-live"),
    alert: () => root.querySelector('[role="alert"]')?.textContent ?? "",
  };
}

/** Types the secret, picks its kind and presses Enter (a submit of the form). */
async function signIn(root: ShadowRoot, secret: string, kind: "token" | "key") {
  const field = root.querySelector<HTMLInputElement>("#signin-secret")!;
  field.value = secret;
  field.dispatchEvent(new Event("input", { bubbles: true }));
  const radio = root.querySelector<HTMLInputElement>(`input[name="signin-kind"][value="${kind}"]`)!;
  radio.checked = true;
  radio.dispatchEvent(new Event("change", { bubbles: true }));
  await new Promise((resolve) => setTimeout(resolve, 0));
  root.querySelector<HTMLFormElement>("form.signin")!.requestSubmit();
}

describe("signing in to a mock with a control token", () => {
  it("asks on a 401, shows a refusal's message, then lets the right token in and keeps it in the tab", async () => {
    const mock = guardedMock();
    const page = mount(mock);
    await expect.poll(page.form).not.toBeNull();
    const field = page.root.querySelector<HTMLInputElement>("#signin-secret")!;
    expect(field.type).toBe("password");
    expect(page.root.querySelector(`label[for="signin-secret"]`)?.textContent).toBe(
      "Control token or workspace API key",
    );
    await expect.poll(() => page.root.activeElement).toBe(field);

    await signIn(page.root, "wrong-token", "token");
    await expect.poll(page.alert).toContain("The control plane needs its token or a workspace key.");
    expect(field.getAttribute("aria-invalid")).toBe("true");
    await expect.poll(() => page.root.activeElement).toBe(field);
    expect(sessionStorage.length).toBe(0);

    await signIn(page.root, TOKEN, "token");
    await expect.poll(page.live).toBe("live");
    expect(page.form()).toBeNull();
    expect(page.root.querySelector('[data-testid="account"]')?.textContent).toBe("Signed in with the control token");
    const after = mock.sent.slice(mock.sent.findIndex((s) => s.headers.get("Authorization") === `Bearer ${TOKEN}`));
    expect(after.map((s) => s.path)).toContain("/events");
    for (const request of after) expect(request.headers.get("Authorization")).toBe(`Bearer ${TOKEN}`);
    expect(JSON.parse(sessionStorage.getItem(storageNameOf(BASE))!)).toEqual({ kind: "token", secret: TOKEN });
    expect(localStorage.length).toBe(0);
    expect(location.href).not.toContain(TOKEN);
    expect(page.root.innerHTML).not.toContain(TOKEN);
  });

  it("signs in again from the tab's storage on a new page, and Sign out forgets it", async () => {
    const mock = guardedMock();
    sessionStorage.setItem(storageNameOf(BASE), JSON.stringify({ kind: "token", secret: TOKEN }));
    const page = mount(mock);
    await expect.poll(page.live).toBe("live");
    expect(mock.sent.every((s) => s.headers.get("Authorization") === `Bearer ${TOKEN}`)).toBe(true);

    Array.from(page.root.querySelectorAll("button"))
      .find((b) => b.textContent === "Sign out")!
      .click();
    await expect.poll(page.form).not.toBeNull();
    expect(page.alert()).toBe("");
    expect(sessionStorage.getItem(storageNameOf(BASE))).toBeNull();
    await expect.poll(() => page.root.activeElement?.id).toBe("signin-secret");
  });

  it("with a workspace key, shows that workspace only and turns off creating one, saying why", async () => {
    const mock = guardedMock();
    const page = mount(mock);
    await expect.poll(page.form).not.toBeNull();
    await signIn(page.root, KEY, "key");
    await expect.poll(page.live).toBe("live");
    expect(page.root.querySelector('[data-testid="account"]')?.textContent).toBe("Signed in with a workspace key");
    const options = () =>
      Array.from(page.root.querySelectorAll<HTMLOptionElement>("#filter-workspace option")).map((o) => o.value);
    await expect.poll(options).toEqual(["one"]);

    Array.from(page.root.querySelectorAll<HTMLAnchorElement>("nav a"))
      .find((a) => a.textContent === "Workspaces")!
      .click();
    await expect.poll(() => page.root.querySelectorAll("article[data-workspace-id]").length).toBe(1);
    const creator = page.root.querySelector<HTMLFieldSetElement>("form.panel fieldset")!;
    expect(creator.disabled).toBe(true);
    expect(page.root.querySelector(`#${creator.getAttribute("aria-describedby")}`)?.textContent).toContain(
      "needs the control token",
    );
  });

  it("signs out with the mock's message when a signed-in request answers 401", async () => {
    const mock = guardedMock();
    sessionStorage.setItem(storageNameOf(BASE), JSON.stringify({ kind: "token", secret: TOKEN }));
    const page = mount(mock);
    await expect.poll(page.live).toBe("live");
    // The mock restarted with another token: the next control request (the Faults view's list) is refused.
    mock.state.token = "another-token";
    Array.from(page.root.querySelectorAll<HTMLAnchorElement>("nav a"))
      .find((a) => a.textContent === "Faults")!
      .click();
    await expect.poll(page.form).not.toBeNull();
    expect(page.alert()).toContain("needs its token");
    expect(sessionStorage.getItem(storageNameOf(BASE))).toBeNull();
  });

  it("never asks when mountDashboard was given the token: a refusal shows in the views", async () => {
    const mock = guardedMock();
    const page = mount(mock, { controlToken: "wrong-token" });
    await expect.poll(() => page.root.querySelector("nav")).not.toBeNull();
    Array.from(page.root.querySelectorAll<HTMLAnchorElement>("nav a"))
      .find((a) => a.textContent === "Faults")!
      .click();
    await expect.poll(() => page.root.querySelector('[role="alert"]')).not.toBeNull();
    expect(page.form()).toBeNull();
    expect(page.alert()).toContain("needs its token");
  });
});
