/**
 * The kit as another repository gets it: `npm pack`, the tarball installed in fresh projects, then
 * everything a user does with it. Two projects: `alone` holds the kit and nothing else (what an
 * install pulls in, the bins), `app` is a frontend app with its own tools (msw, vitest, jsdom,
 * typescript, esbuild, @types/node) and the files of scripts/test/consumer/. The tools come in at the
 * versions this repo runs, from npm's cache where it has them.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { access, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installedPackages, processTree } from "../bench/installed.js";

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

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment without npm's own variables: vitest may run under `npm test`, and a nested npm must not inherit them. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ""}`,
  };
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(npm_|INIT_CWD$|PATH$|NODE_OPTIONS$|VITEST|MOCK_|PORT$|HOST$)/.test(name)) env[name] = value;
  }
  return env;
}

async function run(command: string, args: string[], cwd: string): Promise<Run> {
  try {
    const { stdout, stderr } = await promisify(execFile)(command, args, {
      cwd,
      env: cleanEnv(),
      maxBuffer: 64 * 2 ** 20,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string; message: string };
    return { code: typeof e.code === "number" ? e.code : -1, stdout: e.stdout ?? "", stderr: e.stderr ?? e.message };
  }
}

async function must(command: string, args: string[], cwd: string): Promise<Run> {
  const result = await run(command, args, cwd);
  if (result.code !== 0)
    throw new Error(`${command} ${args.join(" ")} exited ${result.code}:\n${result.stdout}\n${result.stderr}`);
  return result;
}

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

const NPM_INSTALL = ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"];

/** Starts a program and resolves with its URL once it prints `listening on URL/v1`. */
function startListening(
  command: string,
  args: string[],
  cwd: string,
  options: { detached?: boolean } = {},
): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(command, args, {
    cwd,
    env: cleanEnv(),
    stdio: ["ignore", "pipe", "pipe"],
    detached: options.detached ?? false,
  });
  let output = "";
  child.stdout!.on("data", (c) => (output += c));
  child.stderr!.on("data", (c) => (output += c));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} printed no URL within 30 s:\n${output}`)), 30_000);
    child.stdout!.on("data", () => {
      const found = /listening on (http:\/\/\S+)\/v1/.exec(output);
      if (found) clearTimeout(timer), resolve({ child, url: found[1]!, output: () => output });
    });
    child.once(
      "exit",
      (code) => (clearTimeout(timer), reject(new Error(`${command} exited ${code} before listening:\n${output}`))),
    );
  });
}

async function stop(child: ChildProcess, group = false): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  if (group) process.kill(-child.pid!, "SIGTERM");
  else child.kill("SIGTERM");
  await exited;
}

let work: string;
let packed: { filename: string; files: { path: string }[] };
let alone: string;
let app: string;

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), "kit-consumer-"));
  // prepack builds dist/ when a source is newer than the last build.
  const pack = await must("npm", ["pack", "--json", "--pack-destination", work], ROOT);
  packed = JSON.parse(pack.stdout)[0];
  const tarball = path.join(work, packed.filename);
  alone = path.join(work, "alone");
  app = path.join(work, "app");
  await Promise.all([newProject(alone), newProject(app)]);
  await cp(FIXTURE, app, { recursive: true });
  const tools = await Promise.all(APP_TOOLS.map(async (name) => `${name}@${await versionOf(name)}`));
  await Promise.all([
    must("npm", [...NPM_INSTALL, tarball], alone),
    must("npm", [...NPM_INSTALL, tarball, ...tools], app),
  ]);
}, 240_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe("the packed tarball", () => {
  it("holds the compiled package and nothing of the repo's tests, benchmarks or sources", () => {
    const files = packed.files.map((f) => f.path);
    expect(packed.filename).toBe("agent-platform-mock-kit-0.1.0.tgz");
    expect(files.filter((f) => !f.startsWith("dist/") && f !== "package.json" && f !== "README.md")).toEqual([]);
    expect(files.filter((f) => /\.test\.|\/test\/|bench|\.ts$/.test(f) && !f.endsWith(".d.ts"))).toEqual([]);
    // Every module has its types beside it.
    const js = files.filter(
      (f) => f.endsWith(".js") && !/^dist\/mock-server\/(docs-site\/(assets|vendor)|dashboard\/assets)\//.test(f),
    );
    expect(js.filter((f) => !files.includes(f.replace(/\.js$/, ".d.ts")))).toEqual([]);
    expect(files).toEqual(
      expect.arrayContaining([
        "dist/generated/openapi.json",
        "dist/mock-server/main.js",
        // The agent-platform-mock bin: the server, or one of its commands (drift).
        "dist/conformance/agent-platform-mock.js",
        "dist/conformance/drift/command.js",
        "dist/conformance/cli.js",
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
});

describe("the bins", () => {
  it("agent-platform-mock runs as one process with no loader and serves the API and the docs", async () => {
    const bin = path.join(alone, "node_modules", ".bin", "agent-platform-mock");
    const help = await must(bin, ["--help"], alone);
    expect(help.stdout).toMatch(/^Usage: agent-platform-mock/);
    expect(help.stdout).toMatch(/agent-platform-mock drift --url URL/);
    const driftHelp = await must(bin, ["drift", "--help"], alone);
    expect(driftHelp.stdout).toMatch(/^usage: agent-platform-mock drift --url URL/);
    const { child, url } = await startListening(
      bin,
      ["--port", "0", "--host", "127.0.0.1", "--log-format", "off"],
      alone,
    );
    try {
      expect(await processTree(child.pid!)).toEqual([child.pid]);
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

  it("agent-platform-conformance passes against the mock started with npx agent-platform-mock", async () => {
    const { child, url } = await startListening(
      "npx",
      ["--no-install", "agent-platform-mock", "--port", "0", "--host", "127.0.0.1", "--log-format", "off"],
      alone,
      { detached: true },
    );
    try {
      const report = path.join(work, "conformance.json");
      const result = await run(
        path.join(alone, "node_modules", ".bin", "agent-platform-conformance"),
        ["--base-url", url, "--api-key", "mock-api-key", "--json", report],
        alone,
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
});

describe("a checkout of the repo with only the production dependencies (npm ci --omit=dev)", () => {
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

describe("an app that depends on the kit", () => {
  it("imports every entry from plain Node and runs the server entry", async () => {
    const { stdout } = await must(process.execPath, ["smoke.mjs"], app);
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
  }, 60_000);

  it.each(["bundler", "nodenext"])(
    "type-checks under moduleResolution %s with strict settings, reading only .d.ts files of the kit",
    async (resolution) => {
      const strict = {
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
      // The browser code sees no Node types; the Node side has @types/node, as such an app would.
      const configs = {
        [`tsconfig.browser.${resolution}.json`]: {
          compilerOptions: { ...strict, lib: ["ES2022", "DOM", "DOM.Iterable"], types: [] },
          files: ["src/app.ts", "src/dashboard.ts"],
        },
        [`tsconfig.node.${resolution}.json`]: {
          compilerOptions: { ...strict, lib: ["ES2022", "DOM"], types: ["node"] },
          files: ["src/node-side.ts"],
        },
      };
      for (const [name, config] of Object.entries(configs)) {
        await writeFile(path.join(app, name), JSON.stringify(config, null, 2));
        const result = await run(
          process.execPath,
          [path.join(app, "node_modules", "typescript", "bin", "tsc"), "-p", name, "--listFilesOnly"],
          app,
        );
        expect(result.code, result.stdout + result.stderr).toBe(0);
        const kitFiles = result.stdout.split("\n").filter((f) => f.includes("/agent-platform-mock-kit/"));
        expect(kitFiles.length).toBeGreaterThan(0);
        expect(kitFiles.filter((f) => !f.endsWith(".d.ts"))).toEqual([]);
        const checked = await run(
          process.execPath,
          [path.join(app, "node_modules", "typescript", "bin", "tsc"), "-p", name],
          app,
        );
        expect(checked.code, `${name}:\n${checked.stdout}${checked.stderr}`).toBe(0);
      }
    },
    120_000,
  );

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

  it("passes its vitest tests: ./msw under jsdom, and the server of a global setup", async () => {
    const report = path.join(app, "vitest.json");
    const result = await run(
      process.execPath,
      [path.join(app, "node_modules", "vitest", "vitest.mjs"), "run", "--reporter=json", `--outputFile=${report}`],
      app,
    );
    const summary = JSON.parse(await readFile(report, "utf8"));
    expect(result.code, JSON.stringify(summary.testResults?.map((t: { message: string }) => t.message))).toBe(0);
    expect({ passed: summary.numPassedTests, failed: summary.numFailedTests }).toEqual({ passed: 4, failed: 0 });
  }, 120_000);
});
