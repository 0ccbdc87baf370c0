/**
 * The kit as another repository gets it: `npm pack`, the tarball installed in fresh projects, then
 * everything a user does with it, on each Node.js a user runs (scripts/test/lib/node-versions.ts: 20, 22
 * and 24 at exact versions, their executables installed from the npm registry's `node` package by the
 * test and kept in node_modules/.cache/tested-node/, the machine's own used where it is exactly one of
 * them). Two projects: `alone` holds the kit and
 * nothing else (what an install pulls in, the bins), `app` is a frontend app with its own tools (msw,
 * vitest, jsdom, typescript, esbuild, @types/node of each tested Node) and the files of
 * scripts/test/consumer/. The tools come in at the versions this repo runs, from npm's cache where it
 * has them.
 *
 * The tarball is packed once and each project installed once, by the machine's npm and Node. Installing
 * per Node would change nothing on disk: no package the kit brings has an install script or anything
 * built natively (checked below), so npm writes the same files whichever Node runs it. What npm run by
 * another Node does differently is its engines check: that one runs per Node (`npm install --dry-run`,
 * which writes nothing). Everything else a user runs runs on each Node, the Nodes side by side: the bins
 * (the server, the docs, an OpenAPI 3.0 `--spec`, the conformance suite through npx), the entries
 * imported as ES modules and through require(), the Node side type-checked against that Node's
 * @types/node, and the app's vitest tests with the MSW handlers. What does not depend on the Node (the
 * tarball's files, the browser bundles and the browser side's types, a checkout's `npm start`) runs once,
 * on the machine's Node. A failure names the Node it ran on.
 */
import {
  access,
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  realpath,
  rm,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installedPackages, processTree } from "../bench/installed.js";
import { MACHINE_NODE, must, type NodeUnderTest, run, startListening, stop } from "./lib/consumer-processes.js";
import { installedNode, majorOf, TESTED_NODES } from "./lib/node-versions.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const FIXTURE = fileURLToPath(new URL("./consumer", import.meta.url));
const APP_TOOLS = ["msw", "vitest", "jsdom", "typescript", "esbuild", "@types/node"];
/**
 * What a user's app must never get from the kit: dev tools, a TypeScript loader, the optional Express,
 * and swagger-ui-dist, whose dependency @scarf/scarf is a telemetry postinstall (the build copies
 * Swagger UI's files into dist/ instead).
 */
const NEVER_INSTALLED = [
  "tsx",
  "typescript",
  "esbuild",
  "express",
  "ioredis",
  "vitest",
  "@redocly/cli",
  "dredd",
  // yaml is not listed: the mock reads a `--spec FILE` in YAML with it (mock-server/node/spec-file.ts).
  "swagger-ui-dist",
  "@scarf/scarf",
  // Optional peers of the kit: only an install that exports traces adds them (@opentelemetry/api comes with prom-client).
  "@opentelemetry/sdk-trace-base",
  "@opentelemetry/exporter-trace-otlp-http",
  "@opentelemetry/resources",
  "@opentelemetry/semantic-conventions",
];
/** The lifecycle scripts npm runs when it installs a package; a binding.gyp means `node-gyp rebuild` as install. */
const INSTALL_SCRIPTS = ["preinstall", "install", "postinstall"];

async function versionOf(name: string): Promise<string> {
  return JSON.parse(await readFile(path.join(ROOT, "node_modules", name, "package.json"), "utf8")).version;
}

const exists = (file: string): Promise<boolean> =>
  access(file).then(
    () => true,
    () => false,
  );

/**
 * Every package under a project's node_modules, nested node_modules included, that npm runs an install
 * script of when it installs it, as `name: script`. The kit is one of them: its own `prepare` does not
 * run from a tarball or the registry, but a preinstall, install or postinstall of its would.
 */

async function packagesWithInstallScripts(project: string): Promise<string[]> {
  const found: string[] = [];
  const visit = async (modules: string): Promise<void> => {
    const entries = await readdir(modules).catch(() => [] as string[]);
    for (const entry of entries) {
      if (entry.startsWith(".")) continue;
      if (entry.startsWith("@")) {
        await visit(path.join(modules, entry));
        continue;
      }
      const dir = path.join(modules, entry);
      const manifest = JSON.parse(await readFile(path.join(dir, "package.json"), "utf8").catch(() => "{}"));
      for (const script of INSTALL_SCRIPTS)
        if (manifest.scripts?.[script]) found.push(`${manifest.name}: ${script} ${manifest.scripts[script]}`);
      if (await exists(path.join(dir, "binding.gyp"))) found.push(`${manifest.name}: binding.gyp`);
      await visit(path.join(dir, "node_modules"));
    }
  };
  await visit(path.join(project, "node_modules"));
  return found;
}

async function newProject(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(
    path.join(dir, "package.json"),
    JSON.stringify({ name: path.basename(dir), private: true, type: "module" }, null, 2),
  );
}

/** The strictest settings an app may have, under one module resolution. */
function strictOptions(resolution: "bundler" | "nodenext"): Record<string, unknown> {
  return {
    target: "ES2022",
    module: resolution === "bundler" ? "ESNext" : "NodeNext",
    moduleResolution: resolution,
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    erasableSyntaxOnly: true,
    verbatimModuleSyntax: true,
    noUnusedLocals: true,
    noUnusedParameters: true,
    noFallthroughCasesInSwitch: true,
    noUncheckedSideEffectImports: true,
    skipLibCheck: false,
    noEmit: true,
  };
}

/**
 * Writes `config` into the app as `name` and type-checks it with the app's tsc on `node`, once: with
 * --listFiles tsc prints every file it read (absolute paths) before its diagnostics. Asserts that the
 * check passes and that of the kit it read only .d.ts files; returns the files read.
 */
async function typeCheck(name: string, config: object, node: NodeUnderTest): Promise<string[]> {
  await writeFile(path.join(app, name), JSON.stringify(config, null, 2));
  const tsc = path.join(app, "node_modules", "typescript", "bin", "tsc");
  const result = await run(node.binary, [tsc, "-p", name, "--listFiles"], app, node);
  const lines = result.stdout.split("\n");
  const diagnostics = lines.filter((line) => !line.startsWith("/")).join("\n");
  expect(result.code, `on Node ${node.version}, ${name}:\n${diagnostics}${result.stderr}`).toBe(0);
  const files = lines.filter((line) => line.startsWith("/"));
  const kitFiles = files.filter((f) => f.includes("/agent-platform-mock-kit/"));
  expect(kitFiles.length, name).toBeGreaterThan(0);
  expect(
    kitFiles.filter((f) => !f.endsWith(".d.ts")),
    name,
  ).toEqual([]);
  return files;
}

const NPM_INSTALL = ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"];

/** An OpenAPI 3.0 document with a `nullable` field: `--spec` brings it to 3.1 with @scalar/openapi-upgrader. */
const OPENAPI_30 = {
  openapi: "3.0.3",
  info: { title: "Pets", version: "1" },
  servers: [{ url: "/v1" }],
  paths: {
    "/pets/{petId}": {
      get: {
        operationId: "getPet",
        parameters: [{ name: "petId", in: "path", required: true, schema: { type: "string" } }],
        responses: {
          "200": {
            description: "A pet",
            content: {
              "application/json": { schema: { $ref: "#/components/schemas/Pet" }, example: { id: "p1", tag: null } },
            },
          },
        },
      },
    },
  },
  components: {
    schemas: {
      Pet: {
        type: "object",
        required: ["id", "tag"],
        properties: { id: { type: "string" }, tag: { type: "string", nullable: true } },
      },
    },
  },
};

let work: string;
let packed: { filename: string; files: { path: string }[] };
let tarball: string;
let alone: string;
let app: string;
/** Each tested Node's executable, by version. */
const nodes = new Map<string, NodeUnderTest>();

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), "kit-consumer-"));
  alone = path.join(work, "alone");
  app = path.join(work, "app");
  const installNodes = async (): Promise<void> => {
    for (const node of await Promise.all(TESTED_NODES.map(({ version }) => installedNode(version))))
      nodes.set(node.version, node);
  };
  const packAndInstall = async (): Promise<void> => {
    // prepack builds dist/ when a source is newer than the last build.
    const pack = await must("npm", ["pack", "--json", "--pack-destination", work], ROOT);
    packed = JSON.parse(pack.stdout)[0];
    tarball = path.join(work, packed.filename);
    await Promise.all([newProject(alone), newProject(app)]);
    await cp(FIXTURE, app, { recursive: true });
    const tools = await Promise.all(APP_TOOLS.map(async (name) => `${name}@${await versionOf(name)}`));
    // Each tested Node's @types/node beside the tools' own, under an alias that types-node-<major>/node points at.
    const types = TESTED_NODES.map(({ version, types }) => `@types/node-${majorOf(version)}@npm:@types/node@${types}`);
    await Promise.all([
      must("npm", [...NPM_INSTALL, tarball], alone),
      must("npm", [...NPM_INSTALL, tarball, ...tools, ...types], app),
    ]);
    for (const { version } of TESTED_NODES) {
      const major = majorOf(version);
      await mkdir(path.join(app, `types-node-${major}`));
      await symlink(
        path.join(app, "node_modules", "@types", `node-${major}`),
        path.join(app, `types-node-${major}`, "node"),
      );
    }
  };
  await Promise.all([
    installNodes(),
    packAndInstall(),
    writeFile(path.join(work, "pets-3.0.json"), JSON.stringify(OPENAPI_30)),
  ]);
}, 240_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe("the packed tarball", () => {
  it("holds the compiled package and nothing of the repo's tests, benchmarks or sources", async () => {
    const files = packed.files.map((f) => f.path);
    expect(packed.filename).toBe("agent-platform-mock-kit-0.1.0.tgz");
    expect(files.filter((f) => !f.startsWith("dist/") && f !== "package.json" && f !== "README.md")).toEqual([]);
    expect(files.filter((f) => /\.test\.|\/test\/|bench|\.ts$/.test(f) && !f.endsWith(".d.ts"))).toEqual([]);
    // Every module has its types beside it.
    const js = files.filter(
      (f) => f.endsWith(".js") && !/^dist\/mock-server\/(docs-site\/(assets|vendor)|dashboard\/assets)\//.test(f),
    );
    expect(js.filter((f) => !files.includes(f.replace(/\.js$/, ".d.ts")))).toEqual([]);
    // The bins, where package.json puts them: agent-platform-mock (the server, or one of its commands) and the suite.
    const manifest = JSON.parse(await readFile(path.join(ROOT, "package.json"), "utf8"));
    const bins = Object.values(manifest.bin as Record<string, string>).map((file) => path.posix.normalize(file));
    expect(bins).toHaveLength(2);
    expect(files).toEqual(
      expect.arrayContaining([
        ...bins,
        "dist/generated/openapi.json",
        "dist/mock-server/main.js",
        "dist/conformance/drift/command.js",
        "dist/mock-server/docs-site/assets/docs.css",
        // Swagger UI, copied from the dev dependency swagger-ui-dist by the build, with its licence.
        "dist/mock-server/docs-site/vendor/swagger-ui/swagger-ui-bundle.js",
        "dist/mock-server/docs-site/vendor/swagger-ui/LICENSE",
        // The dashboard: the /__mock/ui script and the ./dashboard entry, bundled with preact by the build.
        "dist/mock-server/dashboard/assets/dashboard.js",
        "dist/mock-server/dashboard/mount.js",
        "dist/mock-server/dashboard/mount.d.ts",
      ]),
    );
  });

  it("installs alone without a dev dependency, a TypeScript loader or Express", async () => {
    const installed = await installedPackages(alone);
    expect(installed).toContain("agent-platform-mock-kit");
    expect(installed.filter((name) => NEVER_INSTALLED.includes(name) || name.startsWith("@types/"))).toEqual([]);
    // The kit's own dependencies and theirs: faker, ajv, busboy, openapi-fetch, undici, fast-check, prom-client,
    // randexp (the generic layer's patterns), and for --spec documents yaml and @scalar/openapi-upgrader (3).
    expect(installed.length, installed.join(", ")).toBeLessThan(30);
  });

  it("runs no install script of any package it brings (no telemetry, nothing built at install)", async () => {
    expect(await packagesWithInstallScripts(alone)).toEqual([]);
  });

  it("says in engines the majors it is tested on", async () => {
    const { engines } = JSON.parse(await readFile(path.join(ROOT, "package.json"), "utf8"));
    const majors = [...(engines.node as string).matchAll(/(?:\^|>=)(\d+)\./g)].map((m) => Number(m[1]));
    expect(majors).toEqual(TESTED_NODES.map(({ version }) => majorOf(version)));
  });
});

// Each Node's checks side by side, and beside the ones run once (every suite from here on is concurrent).
for (const { version, types, engineWarnings } of TESTED_NODES)
  describe.concurrent(`a consumer on Node ${version}`, () => {
    const major = majorOf(version);
    const node = (): NodeUnderTest => nodes.get(version)!;

    it("gets from npm, run on this Node, no engine warning but the known ones", async () => {
      const project = path.join(work, `engines-${major}`);
      await newProject(project);
      const result = await must(
        "npm",
        ["install", "--dry-run", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=warn", tarball],
        project,
        node(),
      );
      const warned = [...`${result.stdout}${result.stderr}`.matchAll(/EBADENGINE\s+package: '(@?[^@']+)@/g)].map(
        (m) => m[1],
      );
      expect(warned.sort(), `npm's EBADENGINE warnings on Node ${version}`).toEqual(engineWarnings);
    }, 60_000);

    it("runs agent-platform-mock as one process of this Node with no loader, serving the API and the docs", async () => {
      const bin = path.join(alone, "node_modules", ".bin", "agent-platform-mock");
      const help = await must(bin, ["--help"], alone, node());
      expect(help.stdout).toMatch(/^Usage: agent-platform-mock/);
      expect(help.stdout).toMatch(/agent-platform-mock drift --url URL/);
      const driftHelp = await must(bin, ["drift", "--help"], alone, node());
      expect(driftHelp.stdout).toMatch(/^usage: agent-platform-mock drift --url URL/);
      const { child, url } = await startListening(
        bin,
        ["--port", "0", "--host", "127.0.0.1", "--log-format", "off"],
        alone,
        { node: node() },
      );
      try {
        expect(await processTree(child.pid!)).toEqual([child.pid]);
        expect(await readlink(`/proc/${child.pid}/exe`), `the Node running the bin`).toBe(
          await realpath(node().binary),
        );
        const cmdline = (await readFile(`/proc/${child.pid}/cmdline`, "utf8")).split("\0");
        expect(path.basename(cmdline[0]!)).toMatch(/^node/);
        expect(cmdline.join(" ")).not.toMatch(/tsx|--import|--loader/);
        expect(await (await fetch(`${url}/__mock/health`)).json()).toMatchObject({
          status: "ok",
          kit: "agent-platform-mock-kit",
        });
        const agents = await fetch(`${url}/v1/agents?size=2`, { headers: { "X-API-Key": "mock-api-key" } });
        expect(agents.status).toBe(200);
        expect(((await agents.json()) as { data: unknown[] }).data).toHaveLength(2);
        expect((await fetch(`${url}/docs`)).status).toBe(200);
        // The dashboard's script was bundled by the build: neither esbuild nor preact is installed here.
        const page = await fetch(`${url}/__mock/ui`);
        expect([page.status, page.headers.get("content-security-policy")]).toEqual([
          200,
          expect.stringContaining("script-src 'self'"),
        ]);
        const script = await fetch(`${url}/__mock/ui/dashboard.js`);
        expect(script.status).toBe(200);
        expect((await script.text()).length).toBeGreaterThan(10_000);
        // Swagger UI's files come from the package's own copy: swagger-ui-dist is not installed.
        for (const asset of ["swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png", "favicon-16x16.png"]) {
          const answer = await fetch(`${url}/docs/${asset}`);
          expect(answer.status, asset).toBe(200);
          expect((await answer.arrayBuffer()).byteLength, asset).toBeGreaterThan(0);
        }
      } finally {
        await stop(child);
      }
    }, 60_000);

    it("serves an OpenAPI 3.0 document with agent-platform-mock --spec (brought to 3.1 by @scalar/openapi-upgrader)", async () => {
      const bin = path.join(alone, "node_modules", ".bin", "agent-platform-mock");
      const { child, url } = await startListening(
        bin,
        ["--spec", path.join(work, "pets-3.0.json"), "--port", "0", "--host", "127.0.0.1", "--log-format", "off"],
        alone,
        { node: node() },
      );
      try {
        // `nullable: true` read as 3.1's null type: the mock's response validation lets the example's null through.
        const pet = await fetch(`${url}/v1/pets/p1`);
        expect([pet.status, await pet.json()]).toEqual([200, { id: "p1", tag: null }]);
      } finally {
        await stop(child);
      }
    }, 60_000);

    it("passes agent-platform-conformance against the mock started with npx agent-platform-mock", async () => {
      const { child, url } = await startListening(
        "npx",
        ["--no-install", "agent-platform-mock", "--port", "0", "--host", "127.0.0.1", "--log-format", "off"],
        alone,
        { detached: true, node: node() },
      );
      try {
        const report = path.join(work, `conformance-${major}.json`);
        const result = await run(
          path.join(alone, "node_modules", ".bin", "agent-platform-conformance"),
          ["--base-url", url, "--api-key", "mock-api-key", "--json", report],
          alone,
          node(),
        );
        expect(result.code, `${result.stdout.slice(-3000)}\n${result.stderr}`).toBe(0);
        expect(result.stdout).toMatch(/the kit's mock/i);
        const summary = JSON.parse(await readFile(report, "utf8")).summary;
        expect(summary.failed).toBe(0);
        expect(summary.passed).toBeGreaterThan(100);
      } finally {
        await stop(child, true);
      }
    }, 180_000);

    it("imports every entry as ES modules and through require(), and runs the server entry", async () => {
      const { stdout } = await must(node().binary, ["smoke.mjs"], app, node());
      const out = JSON.parse(stdout.trim().split("\n").pop()!);
      expect(out.client).toEqual(expect.arrayContaining(["createPlatformClient", "createControlClient"]));
      expect(out.server).toEqual(expect.arrayContaining(["startMock", "createApp"]));
      expect(out.msw).toEqual(expect.arrayContaining(["createMockHandlers"]));
      expect(out.webhooks).toEqual(expect.arrayContaining(["verifyWebhookSignature"]));
      expect(out.specTitle).toBe("Conversational Agent Platform API");
      expect(out.specOperations).toBe(17);
      expect(out.startMock).toEqual({ status: 200, agents: 3 });
      // Express is an optional peer: without it createApp says what to install.
      expect(out.createApp).toMatch(/needs Express.*npm install express/);
      expect(out.resolved).toMatch(/node_modules\/agent-platform-mock-kit\/dist\/generated\/openapi\.json$/);

      const required = JSON.parse(
        (await must(node().binary, ["require.cjs"], app, node())).stdout.trim().split("\n").pop()!,
      );
      expect(required).toEqual({
        client: expect.arrayContaining(["createPlatformClient", "createControlClient"]),
        server: expect.arrayContaining(["startMock", "createApp"]),
        msw: expect.arrayContaining(["createMockHandlers"]),
        webhooks: expect.arrayContaining(["verifyWebhookSignature"]),
        dashboard: expect.any(Array),
        specTitle: "Conversational Agent Platform API",
      });
    }, 60_000);

    it(`type-checks its Node side against @types/node@${types} under moduleResolution nodenext`, async () => {
      const files = await typeCheck(
        `tsconfig.node.v${major}.json`,
        {
          compilerOptions: {
            ...strictOptions("nodenext"),
            lib: ["ES2022", "DOM"],
            types: ["node"],
            // An app on this Node has this @types/node as node_modules/@types/node; here it sits under an alias.
            typeRoots: [`./types-node-${major}`],
          },
          files: ["src/node-side.ts"],
        },
        node(),
      );
      expect(files.filter((f) => /\/@types\/node[^/]*\/index\.d\.ts$/.test(f))).toEqual([
        path.join(app, "node_modules", "@types", `node-${major}`, "index.d.ts"),
      ]);
    }, 120_000);

    it("passes its vitest tests: ./msw under jsdom, and the server of a global setup", async () => {
      const report = path.join(app, `vitest-${major}.json`);
      // No results cache: the apps's vitest runs once per Node, side by side.
      const result = await run(
        node().binary,
        [
          path.join(app, "node_modules", "vitest", "vitest.mjs"),
          "run",
          "--no-cache",
          "--reporter=json",
          `--outputFile=${report}`,
        ],
        app,
        node(),
      );
      const summary = JSON.parse(await readFile(report, "utf8"));
      expect(result.code, JSON.stringify(summary.testResults?.map((t: { message: string }) => t.message))).toBe(0);
      expect({ passed: summary.numPassedTests, failed: summary.numFailedTests }).toEqual({ passed: 4, failed: 0 });
    }, 120_000);
  });

describe.concurrent("a checkout of the repo with only the production dependencies (npm ci --omit=dev)", () => {
  it("runs the mock with npm start once dist/ is built, and says what to do before that", async () => {
    const checkout = path.join(work, "checkout");
    const tracked = (await must("git", ["ls-files", "-z"], ROOT)).stdout.split("\0").filter(Boolean);
    await Promise.all(
      tracked.map((file) =>
        cp(path.join(ROOT, file), path.join(checkout, file), { recursive: true }).catch(() => undefined),
      ),
    );
    await must(
      "npm",
      ["ci", "--omit=dev", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"],
      checkout,
    );
    const installed = await installedPackages(checkout);
    expect(installed.filter((name) => NEVER_INSTALLED.includes(name))).toEqual([]);

    const unbuilt = await run("npm", ["start", "--", "--port", "0"], checkout);
    expect(unbuilt.code).not.toBe(0);
    expect(unbuilt.stderr).toMatch(
      /the build needs the dev dependencies \(TypeScript\): run `npm ci` first, then `npm run build`/,
    );

    // dist/ as `npm ci && npm run build` left it before the production-only install.
    await cp(path.join(ROOT, "dist"), path.join(checkout, "dist"), { recursive: true });
    const { child, url } = await startListening(
      "npm",
      ["start", "--", "--port", "0", "--host", "127.0.0.1", "--log-format", "off"],
      checkout,
      { detached: true },
    );
    try {
      expect((await fetch(`${url}/v1/calls?size=1`, { headers: { "X-API-Key": "mock-api-key" } })).status).toBe(200);
      expect((await fetch(`${url}/docs/swagger-ui-bundle.js`)).status).toBe(200);
    } finally {
      await stop(child, true);
    }
  }, 120_000);
});

describe.concurrent("an app that depends on the kit, whatever its Node", () => {
  it.each(["bundler", "nodenext"] as const)(
    "type-checks its browser side under moduleResolution %s with strict settings, reading only .d.ts files of the kit",
    async (resolution) => {
      // The browser code sees no Node types.
      await typeCheck(
        `tsconfig.browser.${resolution}.json`,
        {
          compilerOptions: { ...strictOptions(resolution), lib: ["ES2022", "DOM", "DOM.Iterable"], types: [] },
          files: ["src/app.ts", "src/dashboard.ts"],
        },
        MACHINE_NODE,
      );
    },
    120_000,
  );

  it("type-checks its Node side under moduleResolution bundler (nodenext: on each Node, above)", async () => {
    await typeCheck(
      "tsconfig.node.bundler.json",
      {
        compilerOptions: { ...strictOptions("bundler"), lib: ["ES2022", "DOM"], types: ["node"] },
        files: ["src/node-side.ts"],
      },
      MACHINE_NODE,
    );
  }, 120_000);

  /** `src/<name>.ts` of the app bundled for the browser with the app's esbuild: its inputs and its text. */
  async function browserBundle(name: string): Promise<{ inputs: string[]; text: string }> {
    const meta = path.join(app, `meta-${name}.json`);
    const result = await run(
      path.join(app, "node_modules", ".bin", "esbuild"),
      [
        `src/${name}.ts`,
        "--bundle",
        "--platform=browser",
        "--format=esm",
        `--outfile=out/${name}.js`,
        `--metafile=${meta}`,
        "--log-level=warning",
      ],
      app,
    );
    expect(result.code, result.stderr).toBe(0);
    return {
      inputs: Object.keys(JSON.parse(await readFile(meta, "utf8")).inputs as Record<string, unknown>),
      text: await readFile(path.join(app, "out", `${name}.js`), "utf8"),
    };
  }
  const NODE_MODULE = /from\s*["']node:|require\(["']node:/;

  it("bundles ./client for the browser with no Node module, Express, faker or ajv in it", async () => {
    const { inputs, text } = await browserBundle("app");
    expect(inputs.some((f) => f.includes("agent-platform-mock-kit/dist/generated/client.js"))).toBe(true);
    expect(inputs.filter((f) => /^node:|node_modules\/(express|@faker-js|ajv|busboy|undici)\//.test(f))).toEqual([]);
    expect(
      inputs.filter(
        (f) => f.includes("node_modules/") && !/node_modules\/(agent-platform-mock-kit|openapi-fetch)\//.test(f),
      ),
    ).toEqual([]);
    expect(text).not.toMatch(NODE_MODULE);
  }, 60_000);

  it("bundles ./dashboard for the browser whole: preact inside, no Node module, nothing else installed", async () => {
    const { inputs, text } = await browserBundle("dashboard");
    expect(inputs.filter((f) => f.includes("node_modules/"))).toEqual([
      "node_modules/agent-platform-mock-kit/dist/mock-server/dashboard/mount.js",
    ]);
    expect(text).not.toMatch(NODE_MODULE);
  }, 60_000);
});
