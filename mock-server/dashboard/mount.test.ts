// @vitest-environment jsdom
/**
 * mountDashboard under jsdom, over a fake control plane (a fetch that answers from a table): it renders
 * in a shadow root, goes live, shows a streamed request and its detail, filters, sends its own header
 * and the credentials it was given on every request without ever showing them, and shows a refusal's
 * field errors. The real thing, in Chromium against the real mock, is test/dashboard/.
 */
import { afterEach, describe, expect, it } from "vitest";
import { mountDashboard, type MountedDashboard } from "./mount.js";

const BASE = "https://api.test/mock";
const TOKEN = "control-token-secret";
const KEY = "workspace-key-secret";

interface Sent {
  method: string;
  url: string;
  headers: Headers;
  body?: string;
}

function fakeMock() {
  const sent: Sent[] = [];
  let push: (text: string) => void = () => undefined;
  const entry = {
    id: "7",
    at: "2026-11-01T09:30:01.000Z",
    method: "GET",
    path: "/mock/v1/calls",
    query: "size=5",
    operationId: "listCalls",
    workspaceId: "default",
    status: 200,
    durationMs: 3,
    faultId: null,
  };
  const json = (body: unknown, status = 200) =>
    new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
  const fetch = (async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input));
    const method = init.method ?? "GET";
    sent.push({ method, url: url.href, headers: new Headers(init.headers), body: init.body as string | undefined });
    const path = url.pathname.replace("/mock/__mock", "");
    if (path === "/events")
      return new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            push = (text) => controller.enqueue(new TextEncoder().encode(text));
            push(": connected\n\n");
          },
        }),
        { headers: { "Content-Type": "text/event-stream" } },
      );
    if (path === "/requests") return json([]);
    if (path === "/requests/7")
      return json({
        ...entry,
        fault: null,
        drift: [],
        har: {
          request: {
            method: "GET",
            url: "http://api.test/mock/v1/calls?size=5",
            headers: [{ name: "x-api-key", value: "[redacted]" }],
            queryString: [{ name: "size", value: "5" }],
          },
          response: {
            status: 200,
            statusText: "OK",
            headers: [{ name: "content-type", value: "application/json" }],
            content: { mimeType: "application/json", text: '{"data":[],"totalCount":0}' },
          },
        },
      });
    if (path === "/workspaces") return json([{ workspaceId: "default", apiKey: "mock-api-key", counts: { calls: 3 } }]);
    if (path === "/operations")
      return json([
        {
          operationId: "listCalls",
          method: "GET",
          path: "/v1/calls",
          tag: "Calls",
          summary: null,
          statuses: [200, 400, 401, 500],
        },
      ]);
    if (path === "/faults" && method === "POST")
      return json(
        {
          status: 400,
          error: "Bad Request",
          message: "Request validation failed: probability: must be <= 1",
          validationErrors: { probability: "must be <= 1" },
        },
        400,
      );
    if (path === "/faults") return json([]);
    return json({ status: 404, error: "Not Found", message: `no ${path}` }, 404);
  }) as typeof globalThis.fetch;
  return {
    fetch,
    sent,
    entry,
    push: (type: string, data: unknown) => push(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`),
  };
}

let mounted: MountedDashboard | undefined;
afterEach(() => {
  mounted?.unmount();
  mounted = undefined;
  document.body.innerHTML = "";
});

function setUp() {
  const mock = fakeMock();
  const host = document.createElement("div");
  document.body.append(host);
  mounted = mountDashboard(host, { baseUrl: `${BASE}/`, fetch: mock.fetch, controlToken: TOKEN, apiKey: KEY });
  const root = host.shadowRoot!;
  const text = () => root.textContent ?? "";
  return { mock, root, text };
}

describe("mountDashboard", () => {
  it("goes live in a shadow root and shows a streamed request, filtered and in detail", async () => {
    const { mock, root, text } = setUp();
    expect(root).not.toBeNull();
    await expect.poll(() => root.querySelector("[data-live]")?.getAttribute("data-live")).toBe("live");
    mock.push("request", mock.entry);
    await expect
      .poll(() => root.querySelector('tr[data-request-id="7"]')?.textContent ?? "")
      .toContain("/mock/v1/calls?size=5");

    const search = root.querySelector<HTMLInputElement>("#filter-text")!;
    search.value = "knowledge";
    search.dispatchEvent(new Event("input", { bubbles: true }));
    await expect.poll(text).toContain("No request matches the filters.");
    search.value = "calls 200";
    search.dispatchEvent(new Event("input", { bubbles: true }));
    await expect.poll(() => root.querySelector('tr[data-request-id="7"]')).not.toBeNull();

    root.querySelector<HTMLAnchorElement>('tr[data-request-id="7"] a')!.click();
    await expect
      .poll(() => root.querySelector('[data-testid="curl"]')?.textContent ?? "")
      .toBe(`curl 'http://api.test/mock/v1/calls?size=5' -H "x-api-key: $MOCK_API_KEY"`);
    expect(text()).toContain('"totalCount": 0');
    // Without deep links, the host page's URL is left alone.
    expect(location.hash).toBe("");
  });

  it("sends its header and the credentials on every request, and never shows them", async () => {
    const { mock, root, text } = setUp();
    await expect.poll(() => mock.sent.length).toBeGreaterThanOrEqual(4);
    await expect.poll(text).toContain("listCalls");
    for (const request of mock.sent) {
      expect(request.url.startsWith(`${BASE}/__mock/`), request.url).toBe(true);
      expect(request.headers.get("X-Mock-Dashboard")).toBe("1");
      expect(request.headers.get("Authorization")).toBe(`Bearer ${TOKEN}`);
      expect(request.headers.get("X-API-Key")).toBe(KEY);
    }
    expect(root.innerHTML).not.toContain(TOKEN);
    expect(root.innerHTML).not.toContain(KEY);
  });

  it("shows the message and the field errors of a refused fault rule", async () => {
    const { mock, root, text } = setUp();
    await expect.poll(() => root.querySelector("[data-live]")?.getAttribute("data-live")).toBe("live");
    Array.from(root.querySelectorAll<HTMLAnchorElement>("nav a"))
      .find((a) => a.textContent === "Faults")!
      .click();
    await expect.poll(() => root.querySelector("#fault-operation option[value=listCalls]")).not.toBeNull();
    const operation = root.querySelector<HTMLSelectElement>("#fault-operation")!;
    operation.value = "listCalls";
    operation.dispatchEvent(new Event("change", { bubbles: true }));
    // The picked operation's documented errors, not every status.
    await expect
      .poll(() => Array.from(root.querySelectorAll("#fault-status option")).map((o) => o.textContent))
      .toEqual(["400", "401", "500"]);
    const probability = root.querySelector<HTMLInputElement>("#fault-probability")!;
    probability.value = "2";
    probability.dispatchEvent(new Event("input", { bubbles: true }));
    // A person submits after the field's change has been drawn (Preact draws on the next tick).
    await new Promise((resolve) => setTimeout(resolve, 0));
    root.querySelector<HTMLFormElement>("form.panel")!.requestSubmit();
    await expect
      .poll(() => root.querySelector('[role="alert"]')?.textContent ?? "")
      .toContain("probability: must be <= 1");
    const posted = mock.sent.find((r) => r.method === "POST")!;
    expect(JSON.parse(posted.body!)).toEqual({ operationId: "listCalls", kind: "status", status: 500, probability: 2 });
    expect(text()).toContain("Request validation failed");
  });
});
