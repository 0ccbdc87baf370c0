/**
 * generated/validators.js: every validator the mock compiled at run time (mock-server/http/operations.ts),
 * compiled here instead with ajv's standalone code and bundled by esbuild into one ESM file with no
 * import, require or eval, so a browser under a strict CSP can validate without compiling a schema.
 * generated/mock-control-validators.js: the same for the /__mock control plane (spec/mock-control.yaml),
 * with each operation's method and path, which the mock routes from.
 * The ajv setup is the kit's one (createOpenApiAjv and anchored in openapi-ajv.ts), which the
 * conformance suite and the tests compile with at run time, so both judge alike.
 */
import { readFile } from "node:fs/promises";
import { _ } from "ajv";
import type { Ajv2020 } from "ajv/dist/2020.js";
import standalone from "ajv/dist/standalone/index.js";
import { build, type Plugin } from "esbuild";
import { derefIn } from "../../mock-server/core/json-ref.js";
import { anchored, createOpenApiAjv, SPEC_ID } from "../../mock-server/core/openapi-ajv.js";
import { operationSchemas, parametersOf, paramsSchema } from "../../mock-server/core/operation-schemas.js";

// CommonJS: under ESM this may arrive wrapped in `default`.
const standaloneCode = standalone.default;

type Spec = { paths: Record<string, Record<string, any>>; components: Record<string, Record<string, unknown>> };
export type Mode = "exact" | "params";

/**
 * "exact" validates request bodies and responses; "params" coerces query and path strings and fills
 * documented defaults. `code` only changes how the code is kept: formats are referred to by name in
 * openApiFormats, which esbuild bundles along.
 */
export function createAjv(mode: Mode): Ajv2020 {
  const coerce = mode === "params";
  return createOpenApiAjv({
    discriminator: true,
    coerceTypes: coerce,
    useDefaults: coerce,
    code: { source: true, esm: true, lines: true, formats: _`openApiFormats` },
  });
}

const METHODS = ["get", "post", "put", "patch", "delete"];
const FORMATS_MODULE = "./mock-server/core/openapi-formats.ts"; // resolved from root, where esbuild runs

/** One ajv instance per mode; equal schemas share one export, so a component is emitted once per mode. */
class Registry {
  readonly ajv: Ajv2020;
  readonly exports: Record<string, string> = {};
  private readonly byJson = new Map<string, string>();

  constructor(
    readonly mode: Mode,
    spec: Spec,
  ) {
    this.ajv = createAjv(mode);
    this.ajv.addSchema(anchored(spec) as object, SPEC_ID);
  }

  /** The export name of `schema`'s validator. Keys have no "/" so "openapi.json#..." refs resolve as at run time. */
  add(schema: unknown): string {
    const prepared = anchored(schema) as object;
    const json = JSON.stringify(prepared);
    let name = this.byJson.get(json);
    if (!name) {
      name = `${this.mode}${this.byJson.size}`;
      this.byJson.set(json, name);
      this.ajv.addSchema(prepared, name);
      this.exports[name] = name;
    }
    return name;
  }

  code(): string {
    return `import { openApiFormats } from ${JSON.stringify(FORMATS_MODULE)};\n${standaloneCode(this.ajv, this.exports)}`;
  }
}

const key = (k: string) => JSON.stringify(k);

/** The entry module: the two tables, referring to the exports of the two standalone modules. */
function entrySource(spec: Spec, exact: Registry, params: Registry): string {
  // Which parameters, body and responses count is core/operation-schemas.ts's decision, shared with
  // the mock that compiles another document at run time (core/compile-spec.ts).
  const ops = operationSchemas(spec).map((op) => {
    const fields = [`params: params.${params.add(op.params)}`];
    if (op.body) fields.push(`body: exact.${exact.add(op.body.schema)}`);
    const responses = op.responses.map(
      ({ code, schema }) => `${key(code)}: ${schema ? `exact.${exact.add(schema)}` : "null"}`,
    );
    fields.push(`responses: { ${responses.join(", ")} }`);
    return `  ${key(op.operationId)}: { ${fields.join(", ")} },`;
  });
  const schemas = Object.keys(spec.components.schemas ?? {}).map(
    (name) =>
      `  ${key(name)}: exact.${exact.add({ $ref: `#/components/schemas/${name.replace(/~/g, "~0").replace(/\//g, "~1")}` })},`,
  );
  return [
    `import * as exact from "virtual:exact";`,
    `import * as params from "virtual:params";`,
    `export const operationValidators = {\n${ops.join("\n")}\n};`,
    `export const schemaValidators = {\n${schemas.join("\n")}\n};`,
  ].join("\n");
}

export const validatorsDts = `import type { ErrorObject } from "ajv";
export interface CompiledValidator {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}
export interface OperationValidators {
  /** Validates { path: {...}, query: {...} } IN PLACE, coercing strings and filling documented defaults. */
  params: CompiledValidator;
  /** The requestBody schema of the operation (JSON or multipart/form-data alike); absent when it has no body. */
  body?: CompiledValidator;
  /** By status code ("200", "404"); null when that status is documented without a body schema. */
  responses: Record<string, CompiledValidator | null>;
}
/** By operationId: every operation under paths (not the top-level webhooks). */
export declare const operationValidators: Record<string, OperationValidators>;
/** Every #/components/schemas/<Name>, exact mode. */
export declare const schemaValidators: Record<string, CompiledValidator>;
`;

/** generated/validators.js, starting with `banner`. Deterministic: same spec, same bytes. */
export async function validatorsModule(spec: Spec, root: string, banner: string): Promise<string> {
  const exact = new Registry("exact", spec);
  const params = new Registry("params", spec);
  const entry = entrySource(spec, exact, params); // registers every schema before the code is made
  return bundleValidators("validators.js", entry, { exact: exact.code(), params: params.code() }, root, banner);
}

/**
 * The control plane (spec/mock-control.yaml) as a table the mock routes and validates from: each
 * operation's method, path and parameter names, its params validator (query and path strings coerced,
 * a repeated name refused as it is no array, filters closed to other names), its JSON body
 * validator and whether the body is required, and a validator per documented response.
 */
function controlEntrySource(spec: Spec, exact: Registry, params: Registry): string {
  const ops: string[] = [];
  for (const [path, rawItem] of Object.entries(spec.paths)) {
    const item = derefIn<Record<string, any>>(spec, rawItem);
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const list = parametersOf(spec, item, op);
      const names = (location: string) => JSON.stringify(list.filter((p) => p.in === location).map((p) => p.name));
      // An operation with query filters refuses a name it does not have: a misspelt filter would
      // otherwise match everything. One with none ignores the query, as the mock always has.
      const filters = list.some((p) => p.in === "query");
      const schema = {
        type: "object",
        properties: { path: paramsSchema(list, "path", true), query: paramsSchema(list, "query", filters) },
      };
      const fields = [
        `operationId: ${key(op.operationId)}`,
        `method: ${key(method.toUpperCase())}`,
        `path: ${key(path)}`,
        `pathParams: ${names("path")}`,
        `queryParams: ${names("query")}`,
        `params: params.${params.add(schema)}`,
      ];
      const body = op.requestBody ? derefIn<Record<string, any>>(spec, op.requestBody) : undefined;
      const json = body?.content?.["application/json"];
      if (body && !json) throw new Error(`${op.operationId}: the control plane takes JSON bodies only`);
      if (json) fields.push(`body: { required: ${Boolean(body.required)}, validate: exact.${exact.add(json.schema)} }`);
      const responses = Object.entries<unknown>(op.responses).map(([code, ref]) => {
        const schema = derefIn<Record<string, any>>(spec, ref).content?.["application/json"]?.schema;
        return `${key(code)}: ${schema ? `exact.${exact.add(schema)}` : "null"}`;
      });
      fields.push(`responses: { ${responses.join(", ")} }`);
      ops.push(`  { ${fields.join(", ")} },`);
    }
  }
  return [
    `import * as exact from "virtual:exact";`,
    `import * as params from "virtual:params";`,
    `export const controlOperations = [\n${ops.join("\n")}\n];`,
  ].join("\n");
}

export const controlValidatorsDts = `import type { ErrorObject } from "ajv";
import type { operations } from "./mock-control.js";
export interface CompiledValidator {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}
/** One operation of spec/mock-control.yaml, with its validators. */
export interface ControlOperationValidators {
  operationId: keyof operations;
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** The path template, /__mock included: \`/__mock/workspaces/{workspaceId}\`. */
  path: string;
  pathParams: string[];
  queryParams: string[];
  /**
   * Validates { path: {...}, query: {...} } IN PLACE, coercing strings and filling documented defaults;
   * refuses a name given twice (an array) and, where the operation has query parameters, any other name.
   */
  params: CompiledValidator;
  /** The JSON requestBody; absent when the operation documents none. */
  body?: { required: boolean; validate: CompiledValidator };
  /** By status code ("200", "404"); null when that status is documented without a body schema. */
  responses: Record<string, CompiledValidator | null>;
}
/** Every operation under the control spec's paths, in the spec's order. */
export declare const controlOperations: readonly ControlOperationValidators[];
`;

/** generated/mock-control-validators.js, starting with `banner`. Deterministic: same spec, same bytes. */
export async function controlValidatorsModule(spec: Spec, root: string, banner: string): Promise<string> {
  const exact = new Registry("exact", spec);
  const params = new Registry("params", spec);
  const entry = controlEntrySource(spec, exact, params);
  return bundleValidators(
    "mock-control-validators.js",
    entry,
    { exact: exact.code(), params: params.code() },
    root,
    banner,
  );
}

/** One ESM file of the entry and its standalone modules (`virtual:<name>`), with nothing to load or evaluate at run time. */
async function bundleValidators(
  file: string,
  entry: string,
  sources: Record<string, string>,
  root: string,
  banner: string,
): Promise<string> {
  const virtual: Plugin = {
    name: "virtual",
    setup(b) {
      b.onResolve({ filter: /^virtual:/ }, (args) => ({
        path: args.path.slice("virtual:".length),
        namespace: "virtual",
      }));
      b.onLoad({ filter: /.*/, namespace: "virtual" }, (args) => ({
        contents: sources[args.path],
        loader: "js",
        resolveDir: root,
      }));
      // ajv's runtime helpers carry `f.code = 'require("ajv/dist/runtime/f")...'`: how ajv names them in
      // the code it generates, dead text once bundled, and a `require(` that would fail the check below.
      b.onLoad({ filter: /[\\/]ajv[\\/]dist[\\/]runtime[\\/][^\\/]+\.js$/ }, async (args) => ({
        contents: (await readFile(args.path, "utf8")).replace(/^\s*[\w.]+\.code = 'require\([^\n]*\n/gm, ""),
        loader: "js",
      }));
    },
  };
  const result = await build({
    stdin: { contents: entry, loader: "js", resolveDir: root, sourcefile: file.replace(/\.js$/, "-entry.js") },
    absWorkingDir: root,
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    // ajv's runtime helpers require CommonJS packages (fast-deep-equal): resolve them by `main`.
    mainFields: ["module", "main"],
    // Module paths end up in the output (comments, wrapper keys): keep them node_modules/..., relative to
    // root, even where node_modules is a symlink, so the bytes do not depend on the checkout.
    preserveSymlinks: true,
    target: "es2022",
    charset: "utf8",
    legalComments: "none",
    banner: { js: banner.trimEnd() },
    plugins: [virtual],
    logLevel: "silent",
  });
  // esbuild names its CommonJS wrapper `function __require()`; a name only, renamed so that no
  // `require(` text is left for a reader (or a CSP review) to wonder about.
  const js = result.outputFiles[0]!.text.replace(
    "var __commonJS = (cb, mod) => function __require() {",
    "var __commonJS = (cb, mod) => function __load() {",
  );
  // The CSP promise: nothing loaded or evaluated at run time.
  const forbidden = [/require\(/, /^\s*import[\s{*]/m, /new Function/, /\beval\(/, /node:/].find((re) => re.test(js));
  if (forbidden) throw new Error(`generated/${file} contains ${forbidden}: the bundle is not self-contained`);
  return js;
}

/** generated/openapi-document.js: the bundled spec as an ESM default export (JSON.parse loads fastest). */
export function documentModule(spec: unknown, banner: string): string {
  return `${banner}export default JSON.parse(${JSON.stringify(JSON.stringify(spec))});\n`;
}

export const documentDts = `declare const document: {
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
};
export default document;
`;
