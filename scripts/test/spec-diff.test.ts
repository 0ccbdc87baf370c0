/**
 * npm run spec:diff: each case plants ONE change in a copy of generated/openapi.json and checks how
 * it is classified (breaking or not, from a client's point of view) and where it is reported.
 * The end-to-end tests run the CLI in a throwaway git repository holding a copy of spec/.
 */
import { execFile } from "node:child_process";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareDocuments } from "../spec-diff/compare.js";
import type { DiffResult, Severity } from "../spec-diff/model.js";
import { renderMarkdown, renderText } from "../spec-diff/report.js";
import { loadGenerated, repoRoot } from "./lib/openapi-doc.js";

// The documents are plain JSON: `any` keeps the plantings short.
type Doc = any;

const base: Doc = loadGenerated("openapi.json");
const schemas = (d: Doc): Doc => d.components.schemas;

function diff(plant: (doc: Doc) => void, from: Doc = base): DiffResult {
  const head = structuredClone(from);
  plant(head);
  return compareDocuments(from, head);
}

interface Case {
  plant: (doc: Doc) => void;
  severity: Severity;
  where: string;
  message: string;
}

const cases: Record<string, Case> = {
  "remove an operation": {
    plant: (d) => delete d.paths["/v1/qa-rules/{qaRuleId}"].delete,
    severity: "breaking",
    where: "DELETE /v1/qa-rules/{qaRuleId}",
    message: "operation removed",
  },
  "add an operation": {
    plant: (d) =>
      (d.paths["/v1/agents"].post = {
        ...structuredClone(d.paths["/v1/integrations"].post),
        operationId: "createAgent",
      }),
    severity: "non-breaking",
    where: "POST /v1/agents",
    message: "operation added",
  },
  "remove a query parameter": {
    plant: (d) =>
      (d.paths["/v1/calls"].get.parameters = d.paths["/v1/calls"].get.parameters.filter(
        (p: Doc) => !p.$ref.endsWith("/CallStatusFilter"),
      )),
    severity: "breaking",
    where: "GET /v1/calls query parameter status",
    message: "parameter removed",
  },
  "add an optional parameter": {
    plant: (d) =>
      d.paths["/v1/calls"].get.parameters.push({
        name: "sort",
        in: "query",
        required: false,
        schema: { type: "string" },
      }),
    severity: "non-breaking",
    where: "GET /v1/calls query parameter sort",
    message: "optional parameter added",
  },
  "add a required parameter": {
    plant: (d) =>
      d.paths["/v1/calls"].get.parameters.push({
        name: "sort",
        in: "query",
        required: true,
        schema: { type: "string" },
      }),
    severity: "breaking",
    where: "GET /v1/calls query parameter sort",
    message: "new required parameter",
  },
  "make a parameter required": {
    plant: (d) => (d.components.parameters.CallStatusFilter.required = true),
    severity: "breaking",
    where: "GET /v1/calls query parameter status",
    message: "parameter became required",
  },
  "add a required request body field": {
    plant: (d) => {
      schemas(d).ChatCreate.properties.channel = { type: "string" };
      schemas(d).ChatCreate.required.push("channel");
    },
    severity: "breaking",
    where: "POST /v1/chat request body: channel",
    message: "new required field",
  },
  "add an optional request field": {
    plant: (d) => (schemas(d).ChatCreate.properties.locale = { type: "string" }),
    severity: "non-breaking",
    where: "POST /v1/chat request body: locale",
    message: "optional field added",
  },
  "remove a request field (additionalProperties false)": {
    plant: (d) => delete schemas(d).ChatCreate.properties.variables,
    severity: "breaking",
    where: "POST /v1/chat request body: variables",
    message: "field removed (additionalProperties is false",
  },
  "make a request field optional": {
    plant: (d) => (schemas(d).IntegrationCreate.required = []),
    severity: "non-breaking",
    where: "POST /v1/integrations request body: name",
    message: "field no longer required",
  },
  "remove an enum value from a request enum": {
    plant: (d) => (schemas(d).ApiKeyAuthCreate.properties.apiKey.properties.position.enum = ["header"]),
    severity: "breaking",
    where: "POST /v1/integrations/{integrationId}/auth request body: oneOf[ApiKeyAuthCreate].apiKey.position",
    message: "enum value 'query' removed",
  },
  "add an enum value to a request enum": {
    plant: (d) => schemas(d).ApiKeyAuthCreate.properties.apiKey.properties.position.enum.push("cookie"),
    severity: "non-breaking",
    where: "POST /v1/integrations/{integrationId}/auth request body: oneOf[ApiKeyAuthCreate].apiKey.position",
    message: "enum value 'cookie' added",
  },
  "change a const in a request variant": {
    plant: (d) => (schemas(d).BearerAuthCreate.properties.authType.const = "TOKEN"),
    severity: "breaking",
    where: "POST /v1/integrations/{integrationId}/auth request body: oneOf[BearerAuthCreate].authType",
    message: "const 'BEARER' -> 'TOKEN'",
  },
  "remove a request variant": {
    plant: (d) =>
      (schemas(d).IntegrationAuthCreate.oneOf = schemas(d).IntegrationAuthCreate.oneOf.filter(
        (b: Doc) => !b.$ref.endsWith("/NoneAuthCreate"),
      )),
    severity: "breaking",
    where: "POST /v1/integrations/{integrationId}/auth request body: oneOf[NoneAuthCreate]",
    message: "variant removed",
  },
  "add an enum value to a response enum": {
    plant: (d) => schemas(d).Agent.properties.welcomeMessageType.enum.push("template"),
    severity: "breaking",
    where: "GET /v1/agents 200 response: data[].welcomeMessageType",
    message: "enum value 'template' added",
  },
  "remove an enum value from a response enum": {
    plant: (d) => (schemas(d).Agent.properties.welcomeMessageType.enum = ["static"]),
    severity: "non-breaking",
    where: "GET /v1/agents 200 response: data[].welcomeMessageType",
    message: "enum value 'prompt' removed",
  },
  "remove a response field": {
    plant: (d) => {
      delete schemas(d).Call.properties.recordingUrl;
      schemas(d).Call.required = schemas(d).Call.required.filter((n: string) => n !== "recordingUrl");
    },
    severity: "breaking",
    where: "GET /v1/calls/{callId} 200 response: recordingUrl",
    message: "field removed",
  },
  "make a response field optional": {
    plant: (d) => (schemas(d).Call.required = schemas(d).Call.required.filter((n: string) => n !== "recordingUrl")),
    severity: "breaking",
    where: "GET /v1/calls/{callId} 200 response: recordingUrl",
    message: "no longer required (may now be absent)",
  },
  "add a response field": {
    plant: (d) => (schemas(d).Call.properties.language = { type: "string" }),
    severity: "non-breaking",
    where: "GET /v1/calls/{callId} 200 response: language",
    message: "field added",
  },
  "make a response field nullable (oneOf with null)": {
    plant: (d) =>
      (schemas(d).Campaign.properties.scheduledDate = {
        oneOf: [{ $ref: "#/components/schemas/Timestamp" }, { type: "null" }],
      }),
    severity: "breaking",
    where: "GET /v1/calls 200 response: data[].campaign.scheduledDate",
    message: "became nullable",
  },
  "make a response field nullable (type array)": {
    plant: (d) => (schemas(d).Campaign.properties.campaignName.type = ["string", "null"]),
    severity: "breaking",
    where: "GET /v1/calls 200 response: data[].campaign.campaignName",
    message: "became nullable",
  },
  "widen a response type": {
    plant: (d) => (schemas(d).Call.properties.duration.type = ["integer", "string", "null"]),
    severity: "breaking",
    where: "GET /v1/calls/{callId} 200 response: duration",
    message: "type integer -> integer|string",
  },
  "make a response field non-nullable": {
    plant: (d) => (schemas(d).Call.properties.duration.type = "integer"),
    severity: "non-breaking",
    where: "GET /v1/calls/{callId} 200 response: duration",
    message: "no longer nullable",
  },
  "lower a request maxLength": {
    plant: (d) => (schemas(d).ChatCreate.properties.conversation.maxLength = 1000),
    severity: "breaking",
    where: "POST /v1/chat request body: conversation",
    message: "maxLength 100000 -> 1000",
  },
  "raise a request maxLength": {
    plant: (d) => (schemas(d).ChatCreate.properties.conversation.maxLength = 200000),
    severity: "non-breaking",
    where: "POST /v1/chat request body: conversation",
    message: "maxLength 100000 -> 200000",
  },
  "raise a request minItems": {
    plant: (d) => (schemas(d).BatchRunCreate.properties.testCases.minItems = 2),
    severity: "breaking",
    where: "POST /v1/batch-runs request body: testCases",
    message: "minItems 1 -> 2",
  },
  "tighten a response bound": {
    plant: (d) => (schemas(d).Campaign.properties.concurrentCalls.maximum = 50),
    severity: "non-breaking",
    where: "GET /v1/calls 200 response: data[].campaign.concurrentCalls",
    message: "maximum 50 added",
  },
  "remove a status code": {
    plant: (d) => delete d.paths["/v1/calls"].get.responses["404"],
    severity: "breaking",
    where: "GET /v1/calls 404 response",
    message: "status code removed",
  },
  "change the success status": {
    plant: (d) => {
      const responses = d.paths["/v1/integrations"].post.responses;
      responses["200"] = responses["201"];
      delete responses["201"];
    },
    severity: "breaking",
    where: "POST /v1/integrations",
    message: "success status 201 -> 200",
  },
  "remove a response media type": {
    plant: (d) => {
      const content = d.paths["/v1/calls"].get.responses["200"].content;
      content["application/xml"] = content["application/json"];
      delete content["application/json"];
    },
    severity: "breaking",
    where: "GET /v1/calls 200 response",
    message: "media type application/json removed",
  },
  "change an operation's security": {
    plant: (d) => (d.paths["/v1/calls"].get.security = []),
    severity: "breaking",
    where: "GET /v1/calls",
    message: "security changed: ApiKeyAuth -> none",
  },
  "change a security scheme": {
    plant: (d) => (d.components.securitySchemes.ApiKeyAuth.name = "Authorization"),
    severity: "breaking",
    where: "components.securitySchemes.ApiKeyAuth",
    message: "security scheme changed",
  },
  "remove a field from a webhook payload (the client receives it)": {
    plant: (d) => {
      delete schemas(d).WebhookEvent.properties.workspaceId;
      schemas(d).WebhookEvent.required = schemas(d).WebhookEvent.required.filter((n: string) => n !== "workspaceId");
    },
    severity: "breaking",
    where: "webhook conversation_ended (POST) request body: workspaceId",
    message: "field removed",
  },
  "add a field to a webhook payload": {
    plant: (d) => (schemas(d).WebhookEvent.properties.region = { type: "string" }),
    severity: "non-breaking",
    where: "webhook conversation_ended (POST) request body: region",
    message: "field added",
  },
};

describe("spec:diff classification, one planted change per case", () => {
  it("finds nothing between a document and its copy", () => {
    const result = diff(() => {});
    expect(result.changes).toEqual([]);
    expect(result.documentation).toEqual([]);
  });

  it.each(Object.entries(cases))("%s", (_name, c) => {
    const result = diff(c.plant);
    const hit = result.changes.find((x) => x.where === c.where && x.message.includes(c.message));
    expect(
      hit,
      `no change "${c.message}" at "${c.where}" in\n${renderText(result, { base: "a", head: "b", spec: "s" })}`,
    ).toBeDefined();
    expect(hit!.severity).toBe(c.severity);
    // A non-breaking planting must not be reported as breaking anywhere else either.
    if (c.severity === "non-breaking") expect(result.changes.filter((x) => x.severity === "breaking")).toEqual([]);
  });

  it("classifies one enum by direction: a removed value breaks the query parameter, not the response", () => {
    const result = diff(
      (d) => (schemas(d).CallStatus.enum = schemas(d).CallStatus.enum.filter((v: string) => v !== "error")),
    );
    const at = (where: string) =>
      result.changes.find((x) => x.where === where && x.message === "enum value 'error' removed");
    expect(at("GET /v1/calls query parameter status")?.severity).toBe("breaking");
    expect(at("GET /v1/calls 200 response: data[].status")?.severity).toBe("non-breaking");
    expect(at("GET /v1/calls 200 response: data[].status")?.origin).toBe("components.schemas.CallStatus");
  });

  it("reports a description or x-assumption edit only as documentation, counted per owner", () => {
    const result = diff((d) => {
      schemas(d).CallStatus["x-assumption"] = "Transitions are decided by the platform.";
      schemas(d).Call.properties.transcript.description = "The transcript.";
      d.paths["/v1/calls"].get.description = "Lists calls.";
    });
    expect(result.changes).toEqual([]);
    expect(result.documentation).toEqual(
      expect.arrayContaining([
        { owner: "components.schemas.CallStatus", count: 1, keys: ["x-assumption"] },
        { owner: "components.schemas.Call", count: 1, keys: ["description"] },
        { owner: "GET /v1/calls", count: 1, keys: ["description"] },
      ]),
    );
  });

  it("ignores a renamed path parameter (the URL a client builds is the same)", () => {
    const result = diff((d) => {
      d.paths["/v1/calls/{id}"] = d.paths["/v1/calls/{callId}"];
      delete d.paths["/v1/calls/{callId}"];
      d.components.parameters.CallId.name = "id";
    });
    expect(result.changes).toEqual([]);
  });

  it("terminates on a recursive schema and still sees a change inside it", () => {
    const recursive = structuredClone(base);
    schemas(recursive).Node = {
      type: "object",
      properties: {
        name: { type: "string", maxLength: 50 },
        children: { type: "array", items: { $ref: "#/components/schemas/Node" } },
      },
    };
    schemas(recursive).ChatCreate.properties.tree = { $ref: "#/components/schemas/Node" };
    const result = diff((d) => (schemas(d).Node.properties.name.maxLength = 10), recursive);
    const hit = result.changes.find((x) => x.where === "POST /v1/chat request body: tree.name");
    expect(hit).toMatchObject({
      severity: "breaking",
      message: "maxLength 50 -> 10",
      origin: "components.schemas.Node.properties.name",
    });
  });

  it("groups a shared component's change into one report entry listing where clients meet it", () => {
    const result = diff(
      (d) =>
        (schemas(d).Campaign.properties.scheduledDate = {
          oneOf: [{ $ref: "#/components/schemas/Timestamp" }, { type: "null" }],
        }),
    );
    const markdown = renderMarkdown(result, { base: "HEAD~1", head: "working tree", spec: "spec/openapi.yaml" });
    expect(markdown).toContain("## API spec diff: `HEAD~1` → working tree");
    expect(markdown).toContain("**1 breaking change**");
    expect(markdown).toMatch(
      /\| `GET \/v1\/calls 200 response: data\[\]\.campaign\.scheduledDate`<br>also `GET \/v1\/calls\/\{callId\} 200 response: campaign\.scheduledDate` \| became nullable \| `components\.schemas\.Campaign\.properties\.scheduledDate` \|/,
    );
    expect(markdown).toMatch(/### Non-breaking\n\nNone\./);
  });
});

describe("npm run spec:diff in a git repository", () => {
  const TIMEOUT = 120_000;
  const run = promisify(execFile);
  let repo: string;
  const git = (...args: string[]) =>
    run("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false", ...args], {
      cwd: repo,
    });
  const cli = async (...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
    try {
      const { stdout, stderr } = await run(
        path.join(repoRoot, "node_modules", ".bin", "tsx"),
        [path.join(repoRoot, "scripts", "spec-diff.ts"), ...args],
        { cwd: repo },
      );
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code?: number; stdout?: string; stderr?: string };
      return { code: typeof e.code === "number" ? e.code : -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
    }
  };

  beforeAll(async () => {
    repo = await mkdtemp(path.join(tmpdir(), "spec-diff-repo-"));
    await git("init", "-q");
    await writeFile(path.join(repo, "README.md"), "no spec yet\n");
    await git("add", "-A");
    await git("commit", "-q", "-m", "before the spec");
    await cp(path.join(repoRoot, "spec"), path.join(repo, "spec"), { recursive: true });
    await git("add", "-A");
    await git("commit", "-q", "-m", "spec");
    const file = path.join(repo, "spec", "components", "schemas", "ChatCreate.yaml");
    const text = await readFile(file, "utf8");
    expect(text).toContain("maxLength: 100000");
    await writeFile(file, text.replace("maxLength: 100000", "maxLength: 1000"));
  }, TIMEOUT);
  afterAll(async () => {
    if (repo) await rm(repo, { recursive: true, force: true });
  });

  it(
    "exits 1 on an uncommitted breaking change and writes the Markdown report",
    async () => {
      const markdown = path.join(repo, "report.md");
      const result = await cli("HEAD", "--markdown", markdown);
      expect(result.stdout).toContain("POST /v1/chat request body: conversation: maxLength 100000 -> 1000");
      expect(result.stderr).toContain("--allow-breaking");
      expect(result.code).toBe(1);
      const report = await readFile(markdown, "utf8");
      expect(report).toContain("## API spec diff: `HEAD` → working tree");
      expect(report).toMatch(
        /### Breaking\n\n\| Where \| Change \| Defined at \|\n\|---\|---\|---\|\n\| `POST \/v1\/chat request body: conversation` \| maxLength 100000 -> 1000 \|/,
      );
    },
    TIMEOUT,
  );

  it(
    "exits 0 with --allow-breaking and still reports",
    async () => {
      const result = await cli("HEAD", "--allow-breaking", "--format", "markdown");
      expect(result.stdout).toContain("| `POST /v1/chat request body: conversation` | maxLength 100000 -> 1000 |");
      expect(result.code).toBe(0);
    },
    TIMEOUT,
  );

  it(
    "exits 2 with one line for a ref that does not exist or has no spec",
    async () => {
      const missing = await cli("no-such-ref");
      expect(missing.code).toBe(2);
      expect(missing.stderr.trim()).toBe("spec:diff: 'no-such-ref' is not a commit of this repository");
      const empty = await cli("HEAD~1");
      expect(empty.code).toBe(2);
      expect(empty.stderr.trim()).toBe("spec:diff: HEAD~1 has no spec/openapi.yaml");
    },
    TIMEOUT,
  );
});
