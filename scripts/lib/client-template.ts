/** Source of generated/client.ts: the typed fetch clients of the platform and of the control plane. */
export const clientSource = `import createClient, { type Client, type Middleware } from "openapi-fetch";
import type { paths } from "./schema.js";
import type { paths as MockControlPaths } from "./mock-control.js";

export type { paths, components, operations, webhooks } from "./schema.js";
export type {
  paths as MockControlPaths,
  components as MockControlComponents,
} from "./mock-control.js";

export type PlatformClient = Client<paths>;
export type MockControlClient = Client<MockControlPaths>;

export interface PlatformClientOptions {
  /** Deployment root, without /v1: the paths carry it. */
  baseUrl: string;
  apiKey: string;
  fetch?: (input: Request) => Promise<Response>;
  headers?: Record<string, string>;
}

/** Sets X-API-Key on every request, so no call site can forget it. */
export function apiKeyMiddleware(apiKey: string): Middleware {
  return {
    onRequest({ request }) {
      request.headers.set("X-API-Key", apiKey);
      return request;
    },
  };
}

/** Typed client of the platform API. Never throws on an HTTP error: it returns { data, error, response }. */
export function createPlatformClient(options: PlatformClientOptions): PlatformClient {
  const { apiKey, ...rest } = options;
  const client = createClient<paths>(rest);
  client.use(apiKeyMiddleware(apiKey));
  return client;
}

export interface ControlClientOptions extends Omit<PlatformClientOptions, "apiKey"> {
  /** The mock's control token (--control-token): the whole control plane. */
  controlToken?: string;
  /** A workspace's API key instead: the control plane of that workspace only. */
  apiKey?: string;
}

/**
 * Typed client of the mock's /__mock control plane. A mock started with --control-token wants the token
 * (sent as Authorization: Bearer) or a workspace's key; one without wants neither.
 */
export function createControlClient(options: ControlClientOptions): MockControlClient {
  const { controlToken, apiKey, ...rest } = options;
  const client = createClient<MockControlPaths>(rest);
  if (controlToken)
    client.use({
      onRequest({ request }) {
        request.headers.set("Authorization", \`Bearer \${controlToken}\`);
        return request;
      },
    });
  else if (apiKey) client.use(apiKeyMiddleware(apiKey));
  return client;
}
`;
