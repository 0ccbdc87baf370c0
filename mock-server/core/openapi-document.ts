/**
 * Another OpenAPI document as the mock serves it (`--spec FILE`): checked to be OpenAPI 3.0 or 3.1,
 * brought to 3.1 so that ajv's 2020-12 dialect judges its schemas right, and given what the mock
 * needs of every operation (an operationId). Also where it is served: the path of its first server URL.
 *
 * The 3.0 -> 3.1 conversion is @scalar/openapi-upgrader's (plain JavaScript, so it runs in a browser
 * too): `nullable` becomes a null type or an anyOf with null, boolean exclusiveMinimum/Maximum become
 * numbers, a schema's `example` becomes `examples: [example]`, a media type's or parameter's `example`
 * becomes `examples.default`, `format: binary` becomes contentMediaType. One gap of its own is closed
 * here first: a nullable enum also lists null, else null would pass the type and fail the enum.
 */
import { upgrade } from "@scalar/openapi-upgrader";

/** The methods the mock routes (HEAD is served by GET's route; TRACE and OPTIONS are not operations here). */
export const OPERATION_METHODS = ["get", "post", "put", "patch", "delete"] as const;

type Json = Record<string, any>;

/**
 * A 3.1 copy of `input` (an OpenAPI 3.0.x or 3.1.x document, as parsed from JSON or YAML); throws an
 * Error saying what is wrong for a Swagger 2.0 document, another version, or a `$ref` to another file.
 */
export function normalizeDocument(input: unknown): Json {
  if (!input || typeof input !== "object" || Array.isArray(input))
    throw new Error("An OpenAPI document must be an object (parsed JSON or YAML)");
  const given = input as Json;
  if (given.swagger !== undefined)
    throw new Error(
      `Swagger ${String(given.swagger)} is not served: the mock serves OpenAPI 3.0 and 3.1 documents (convert it first, e.g. with swagger2openapi)`,
    );
  const version = typeof given.openapi === "string" ? given.openapi : "";
  if (!/^3\.[01]\.\d+/.test(version))
    throw new Error(
      version
        ? `OpenAPI ${version} is not served: the mock serves OpenAPI 3.0.x and 3.1.x documents`
        : "Not an OpenAPI document: it has no `openapi` version (3.0.x or 3.1.x)",
    );
  const external = externalRef(given);
  if (external)
    throw new Error(`The document refers to another file ($ref: ${external}): bundle it into one document first`);
  let doc = structuredClone(given);
  if (version.startsWith("3.0")) {
    nullableEnums(doc);
    doc = upgrade(doc, "3.1") as Json;
  }
  doc.paths ??= {};
  nameOperations(doc);
  return doc;
}

/**
 * The operationId of an operation that has none: method and path in camel case, path parameters as
 * `By<Name>`: `get /pets/{id}` -> `getPetsById`, `delete /store/order/{orderId}` -> `deleteStoreOrderByOrderId`.
 * The mock, the conformance suite and every report name such an operation by it.
 */
export function derivedOperationId(method: string, path: string): string {
  const words = path
    .split("/")
    .filter(Boolean)
    .map((segment) => {
      const param = /^\{(.+)\}$/.exec(segment);
      return param ? `By ${param[1]}` : segment;
    })
    .flatMap((segment) => segment.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  return method.toLowerCase() + words.map((w) => w[0].toUpperCase() + w.slice(1)).join("");
}

/**
 * Gives every operation without an operationId its derived one, in document order; a derived id that
 * another operation already holds gets a number (`getPets2`), so ids stay unique and stable.
 */
function nameOperations(doc: Json): void {
  const taken = new Set<string>();
  const unnamed: { op: Json; method: string; path: string }[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const method of OPERATION_METHODS) {
      const op = item?.[method];
      if (!op || typeof op !== "object") continue;
      if (typeof op.operationId === "string" && op.operationId !== "") taken.add(op.operationId);
      else unnamed.push({ op, method, path });
    }
  }
  for (const { op, method, path } of unnamed) {
    const base = derivedOperationId(method, path);
    let id = base;
    for (let n = 2; taken.has(id); n++) id = `${base}${n}`;
    taken.add(id);
    op.operationId = id;
  }
}

/** A 3.0 `nullable: true` schema with an enum lists null among its values (the upgrader leaves it out). */
function nullableEnums(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(nullableEnums);
  if (!node || typeof node !== "object") return;
  const schema = node as Json;
  if (schema.nullable === true && Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum.push(null);
  for (const value of Object.values(schema)) nullableEnums(value);
}

/** The first `$ref` that points outside the document, if any. */
function externalRef(node: unknown): string | undefined {
  if (Array.isArray(node)) {
    for (const item of node) {
      const found = externalRef(item);
      if (found) return found;
    }
    return undefined;
  }
  if (!node || typeof node !== "object") return undefined;
  for (const [key, value] of Object.entries(node)) {
    if (key === "$ref" && typeof value === "string" && !value.startsWith("#")) return value;
    const found = externalRef(value);
    if (found) return found;
  }
  return undefined;
}

/**
 * Where the document is served: the path of its first server URL with its variables at their
 * defaults, without a trailing slash. `https://petstore3.swagger.io/api/v3` and `/api/v3` -> `/api/v3`;
 * this kit's `{base_url}` (default `https://api.example.com`) and no servers at all -> ``.
 */
export function basePathOf(doc: unknown): string {
  const server = (doc as Json)?.servers?.[0];
  if (!server || typeof server.url !== "string") return "";
  const variables: Json = server.variables ?? {};
  const url = server.url.replace(/\{([^}]+)\}/g, (_: string, name: string) => String(variables[name]?.default ?? ""));
  let path: string;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) || url.startsWith("//")) {
    try {
      path = new URL(url, "http://host").pathname;
    } catch {
      return "";
    }
  } else path = url.split(/[?#]/)[0];
  return `/${path.replace(/^\/+/, "")}`.replace(/\/+$/, "");
}
