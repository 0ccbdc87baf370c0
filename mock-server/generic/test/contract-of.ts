/**
 * A Contract of any OpenAPI document, its validators compiled at run time the way `npm run generate`
 * builds generated/validators.js (scripts/lib/standalone-validators.ts): the generic layer's tests
 * serve throwaway documents through it. (core/compile-spec.ts does the same for `--spec`.)
 */
import { anchored, createOpenApiAjv, SPEC_ID } from "../../core/openapi-ajv.js";
import { Contract } from "../../core/contract.js";
import { derefIn, type GeneratedSpec } from "../../core/spec.js";
import type { CompiledValidator, GeneratedValidators } from "../../core/validation.js";

const METHODS = ["get", "post", "put", "patch", "delete"];

type Doc = { paths?: Record<string, any>; components?: Record<string, any> };

function paramsSchema(params: { name: string; in: string; required?: boolean; schema?: unknown }[], at: string) {
  const own = params.filter((p) => p.in === at);
  return {
    type: "object",
    properties: Object.fromEntries(own.map((p) => [p.name, p.schema ?? {}])),
    required: own.filter((p) => p.required || at === "path").map((p) => p.name),
  };
}

export function compileValidators(document: Doc): GeneratedValidators {
  const exact = createOpenApiAjv({ discriminator: true });
  const params = createOpenApiAjv({ discriminator: true, coerceTypes: true, useDefaults: true });
  for (const ajv of [exact, params]) ajv.addSchema(anchored(document) as object, SPEC_ID);
  const compile = (ajv: typeof exact, schema: unknown) => ajv.compile(anchored(schema) as object) as CompiledValidator;
  const operationValidators: Record<string, any> = {};
  for (const rawItem of Object.values(document.paths ?? {})) {
    const item = derefIn<Record<string, any>>(document, rawItem);
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const list = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => derefIn<any>(document, p));
      const body = op.requestBody ? derefIn<any>(document, op.requestBody) : undefined;
      const bodyType = body ? Object.keys(body.content)[0] : undefined;
      operationValidators[op.operationId] = {
        params: compile(params, {
          type: "object",
          properties: { path: paramsSchema(list, "path"), query: paramsSchema(list, "query") },
        }),
        ...(bodyType && { body: compile(exact, body.content[bodyType].schema ?? {}) }),
        responses: Object.fromEntries(
          Object.entries<unknown>(op.responses ?? {}).map(([code, ref]) => {
            const schema = derefIn<any>(document, ref)?.content?.["application/json"]?.schema;
            return [code, schema ? compile(exact, schema) : null];
          }),
        ),
      };
    }
  }
  const schemaValidators = Object.fromEntries(
    Object.keys(document.components?.schemas ?? {}).map((name) => [
      name,
      compile(exact, { $ref: `#/components/schemas/${name}` }),
    ]),
  );
  return { operationValidators, schemaValidators } as unknown as GeneratedValidators;
}

/** A Contract serving `document` (an OpenAPI 3.1 document, or a 3.0 one with 3.1-style schemas). */
export function contractOf(document: object): Contract {
  const spec = { document, validators: compileValidators(document as Doc) } as unknown as GeneratedSpec;
  return new Contract(spec);
}
