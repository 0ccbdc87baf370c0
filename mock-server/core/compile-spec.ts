/**
 * compileSpec: another OpenAPI document made servable at run time. The same validator table
 * `npm run generate` writes into generated/validators.js (operationValidators: params coerced with
 * their defaults, the body, a response validator per status; schemaValidators: every component
 * schema), from the same decisions (operation-schemas.ts), compiled here with createOpenApiAjv
 * instead of as standalone code.
 *
 * Compiling evaluates generated code (ajv's `new Function`): fine in Node; in a browser under a CSP
 * without 'unsafe-eval' only the bundled spec (compiled at `npm run generate`) can be served. The MSW
 * door loads this module only when it is given another document, as a chunk of its own.
 */
import type { Ajv2020, Options } from "ajv/dist/2020.js";
import { derefIn } from "./json-ref.js";
import { anchored, createOpenApiAjv, SPEC_ID } from "./openapi-ajv.js";
import { basePathOf, normalizeDocument } from "./openapi-document.js";
import { openApiFormats } from "./openapi-formats.js";
import { operationSchemas } from "./operation-schemas.js";
import type { GeneratedSpec, OpenApiDocument } from "./spec.js";
import type { CompiledValidator, GeneratedValidators } from "./validation.js";

type OperationValidators = GeneratedValidators["operationValidators"][string];

/**
 * Validators compiled from one document: equal schemas share one validator. A schema the strict
 * setup refuses (a discriminator ajv cannot use, a pattern that is no Unicode regular expression) is
 * compiled again by a lenient one before it counts as an error.
 */
class Compiler {
  private readonly cache = new Map<string, CompiledValidator>();
  private strict: Ajv2020 | undefined;
  private lenient: Ajv2020 | undefined;

  constructor(
    private readonly document: object,
    private readonly options: Options,
    private readonly unknownFormats: string[],
  ) {}

  compile(schema: unknown, what: () => string): CompiledValidator {
    const prepared = anchored(schema) as object;
    const json = JSON.stringify(prepared);
    let validate = this.cache.get(json);
    if (validate) return validate;
    try {
      validate = (this.strict ??= this.ajv(this.options)).compile(prepared) as CompiledValidator;
    } catch {
      try {
        this.lenient ??= this.ajv({ ...this.options, discriminator: false, unicodeRegExp: false });
        validate = this.lenient.compile(prepared) as CompiledValidator;
      } catch (error) {
        throw new Error(`${what()} cannot be compiled: ${(error as Error).message}`);
      }
    }
    this.cache.set(json, validate);
    return validate;
  }

  private ajv(options: Options): Ajv2020 {
    const ajv = createOpenApiAjv(options);
    // A format the kit does not know (`phone`, `currency`) is an annotation, as JSON Schema has it.
    for (const name of this.unknownFormats) ajv.addFormat(name, true);
    ajv.addSchema(anchored(this.document) as object, SPEC_ID);
    return ajv;
  }
}

/** The `format` names the document uses that ajv-formats and the OpenAPI registry do not define. */
function unknownFormats(node: unknown, found = new Set<string>()): string[] {
  if (Array.isArray(node)) for (const item of node) unknownFormats(item, found);
  else if (node && typeof node === "object")
    for (const [key, value] of Object.entries(node)) {
      if (key === "format" && typeof value === "string" && !Object.hasOwn(openApiFormats, value)) found.add(value);
      else unknownFormats(value, found);
    }
  return [...found];
}

/**
 * A copy of the document whose `required` lists leave out the properties marked `flag`: OpenAPI's
 * readOnly properties are required in responses only, writeOnly ones in requests only. A record
 * schema that requires its readOnly `id` must still accept a create request without one.
 */
function requiredWithout(document: object, flag: "readOnly" | "writeOnly"): object {
  const marked = (schema: unknown) => derefIn<Record<string, unknown>>(document, schema)?.[flag] === true;
  const copy = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(copy);
    if (!node || typeof node !== "object") return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) out[key] = copy(value);
    const { properties, required } = node as { properties?: unknown; required?: unknown };
    if (properties && typeof properties === "object" && Array.isArray(required))
      out.required = required.filter((name) => !marked((properties as Record<string, unknown>)[name]));
    return out;
  };
  return copy(document) as object;
}

/**
 * The validator table of a document already normalised (normalizeDocument: OpenAPI 3.1, every
 * operation named). Throws when a schema cannot be compiled, naming the operation and the part.
 * Requests are judged by the document without readOnly requirements, responses and stored records
 * (schemaValidators) without writeOnly ones.
 */
export function compileValidators(document: object): GeneratedValidators {
  const formats = unknownFormats(document);
  const requests = requiredWithout(document, "readOnly");
  const responses = requiredWithout(document, "writeOnly");
  const exact = new Compiler(responses, { discriminator: true }, formats);
  const bodies = new Compiler(requests, { discriminator: true }, formats);
  const params = new Compiler(requests, { discriminator: true, coerceTypes: true, useDefaults: true }, formats);
  const operationValidators: Record<string, OperationValidators> = {};
  // The two views have one shape: the same operations in the same order.
  const answered = operationSchemas(responses);
  for (const [i, op] of operationSchemas(requests).entries()) {
    const name = `${op.method.toUpperCase()} ${op.path} (${op.operationId})`;
    operationValidators[op.operationId] = {
      params: params.compile(op.params, () => `The parameters of ${name}`),
      ...(op.body && { body: bodies.compile(op.body.schema, () => `The ${op.body!.mediaType} body of ${name}`) }),
      responses: Object.fromEntries(
        answered[i].responses.map(({ code, schema }) => [
          code,
          schema ? exact.compile(schema, () => `The ${code} response of ${name}`) : null,
        ]),
      ),
    };
  }
  const components = (document as { components?: { schemas?: Record<string, unknown> } }).components;
  const schemaValidators: Record<string, CompiledValidator> = {};
  for (const name of Object.keys(components?.schemas ?? {}))
    schemaValidators[name] = exact.compile(
      { $ref: `#/components/schemas/${name.replace(/~/g, "~0").replace(/\//g, "~1")}` },
      () => `The schema ${name}`,
    );
  return { operationValidators, schemaValidators } as GeneratedValidators;
}

/**
 * Another OpenAPI 3.0 or 3.1 document (parsed), ready to serve: normalised to 3.1, compiled, and
 * marked as a document the generic layer serves alone, under the path of its first server URL.
 */
export function compileSpec(input: unknown): GeneratedSpec {
  const document = normalizeDocument(input);
  return {
    document: document as OpenApiDocument,
    validators: compileValidators(document),
    origin: { kind: "document", basePath: basePathOf(document) },
  };
}
