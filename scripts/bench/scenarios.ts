/**
 * The six requests of the comparison, with ids taken from the mock's seeded default workspace
 * through the control plane (Prism answers any id from its examples).
 */
import type { BenchRequest } from "./load.js";

export interface Scenario {
  name: string;
  request: BenchRequest;
}

export const MB = 1024 * 1024;

/**
 * The frame of a multipart/form-data body with text fields and one file under knowledge_base_files:
 * what goes before the file's bytes and after them. Uploads stream the file between the two.
 */
export function multipartFrame(
  fields: Record<string, string>,
  filename: string,
): { head: Buffer; tail: Buffer; contentType: string } {
  // A boundary as browsers make them.
  const boundary = "----WebKitFormBoundary7MA4YWxkTrZu0gW";
  const parts = Object.entries(fields).map(
    ([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  const fileHeader = `--${boundary}\r\nContent-Disposition: form-data; name="knowledge_base_files"; filename="${filename}"\r\nContent-Type: text/plain\r\n\r\n`;
  return {
    head: Buffer.from(parts.join("") + fileHeader),
    tail: Buffer.from(`\r\n--${boundary}--\r\n`),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

const PROSE =
  "Our support line is open from nine to five on weekdays. To change a booking, give the agent your order number " +
  "and the new date; refunds reach the original card within five working days. Premium customers may ask for a call back.\n";

/**
 * Plain text of `bytes` bytes: help-desk prose repeated, a valid TXT source. (The multipart parser's
 * boundary search is sensitive to content; a file of one repeated letter found in the boundary would
 * be an unrealistically slow case.)
 */
export function textFile(bytes: number): Buffer {
  const text = Buffer.alloc(bytes);
  text.fill(PROSE);
  return text;
}

async function firstId(mockUrl: string, collection: string, field: string): Promise<string> {
  const res = await fetch(`${mockUrl}/__mock/workspaces/default/${collection}`);
  const records = (await res.json()) as Record<string, string>[];
  if (!res.ok || records.length === 0) throw new Error(`no ${collection} in the mock's default workspace`);
  return records[0][field];
}

export async function buildScenarios(mockUrl: string, apiKey: string): Promise<Scenario[]> {
  const [callId, integrationId, agentId] = await Promise.all([
    firstId(mockUrl, "calls", "callId"),
    firstId(mockUrl, "integrations", "integrationId"),
    firstId(mockUrl, "agents", "agentId"),
  ]);
  const key = { "X-API-Key": apiKey };
  const json = { ...key, "Content-Type": "application/json" };
  const upload = multipartFrame({ name: "Bench knowledge base" }, "bench.txt");
  return [
    {
      name: "GET /v1/calls?page=0&size=10",
      request: { method: "GET", path: "/v1/calls?page=0&size=10", headers: key, expect: 200 },
    },
    {
      name: "GET /v1/calls/{callId}",
      request: { method: "GET", path: `/v1/calls/${callId}`, headers: key, expect: 200 },
    },
    {
      name: "GET /v1/webhooks?active=true",
      request: { method: "GET", path: "/v1/webhooks?active=true", headers: key, expect: 200 },
    },
    {
      name: "PATCH /v1/integrations/{integrationId}",
      request: {
        method: "PATCH",
        path: `/v1/integrations/${integrationId}`,
        headers: json,
        body: Buffer.from(JSON.stringify({ name: "Bench CRM", description: "Renamed by the bench" })),
        expect: 200,
      },
    },
    {
      name: "POST /v1/chat",
      request: {
        method: "POST",
        path: "/v1/chat",
        headers: json,
        body: Buffer.from(
          JSON.stringify({
            agentId,
            conversation: "Hello, I would like to check my order.",
            variables: { customerName: "Ada" },
          }),
        ),
        expect: 200,
      },
    },
    {
      name: "POST /v1/knowledge-bases (1 MB file)",
      request: {
        method: "POST",
        path: "/v1/knowledge-bases",
        headers: { ...key, "Content-Type": upload.contentType },
        body: Buffer.concat([upload.head, textFile(MB), upload.tail]),
        expect: 201,
      },
    },
  ];
}
