/**
 * A browser app's use of the client, type-checked by the consumer test under moduleResolution bundler
 * and nodenext with the strictest settings, and bundled for the browser with esbuild.
 * The @ts-expect-error lines prove the types are the API's own: were they `any`, those lines would
 * be unused expectations, which tsc reports as errors.
 */
import {
  createControlClient,
  createPlatformClient,
  type components,
  type operations,
  type paths,
} from "agent-platform-mock-kit/client";

type Agent = components["schemas"]["Agent"];
type ListAgentsQuery = operations["listAgents"]["parameters"]["query"];
type AgentsPath = paths["/v1/agents"];

export async function firstAgentName(baseUrl: string, apiKey: string): Promise<string | undefined> {
  const api = createPlatformClient({ baseUrl, apiKey });
  const query: ListAgentsQuery = { page: 0, size: 5 };
  const { data, error } = await api.GET("/v1/agents", { params: { query } });
  if (error) return `${error.status} ${error.message}`;
  const first: Agent | undefined = data.data[0];
  return first?.agentName;
}

export async function resetMock(baseUrl: string): Promise<number> {
  const control = createControlClient({ baseUrl });
  const { response } = await control.POST("/__mock/reset", { body: {} });
  return response.status;
}

export async function typesAreReal(baseUrl: string): Promise<void> {
  const api = createPlatformClient({ baseUrl, apiKey: "k" });
  // @ts-expect-error: not a path of the API
  await api.GET("/v1/no-such-thing");
  // @ts-expect-error: size is a number
  await api.GET("/v1/agents", { params: { query: { size: "ten" } } });
  const get: AgentsPath["get"] = undefined as unknown as AgentsPath["get"];
  void get;
}

// What the page runs: the bundle must carry everything above without any Node module.
const root = globalThis.document?.getElementById("app");
if (root) void firstAgentName(location.origin, "mock-api-key").then((name) => (root.textContent = name ?? "no agents"));
