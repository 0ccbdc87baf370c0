/**
 * Plain Node, no loader: imports every entry of the package and uses each once. Prints one JSON
 * line that the consumer test reads.
 */
import { createRequire } from "node:module";
import * as client from "agent-platform-mock-kit/client";
import * as server from "agent-platform-mock-kit/server";
import * as webhooks from "agent-platform-mock-kit/webhooks";
import spec from "agent-platform-mock-kit/openapi.json" with { type: "json" };

const out = {
  client: Object.keys(client).sort(),
  server: Object.keys(server).sort(),
  webhooks: Object.keys(webhooks).sort(),
  specTitle: spec.info.title,
  specOperations: Object.values(spec.paths).flatMap((item) => Object.values(item).filter((op) => op?.operationId))
    .length,
};
try {
  out.msw = Object.keys(await import("agent-platform-mock-kit/msw")).sort();
} catch (error) {
  out.msw = `import failed: ${error.message.split("\n")[0]}`;
}
try {
  server.createApp();
  out.createApp = "ok";
} catch (error) {
  out.createApp = error.message;
}
const mock = await server.startMock({ port: 0, apiKey: "smoke-key" });
const api = client.createPlatformClient({ baseUrl: mock.url, apiKey: "smoke-key" });
const agents = await api.GET("/v1/agents", { params: { query: { size: 3 } } });
out.startMock = { status: agents.response.status, agents: agents.data?.data.length };
await mock.close();
out.resolved = createRequire(import.meta.url).resolve("agent-platform-mock-kit/openapi.json");
console.log(JSON.stringify(out));
