/**
 * The operations of the spec, each with its validators compiled once, on first use (or by
 * warmValidators once the server listens): compiling them all costs more than half a second, which
 * would otherwise delay the first answer of every start. The app routes from this table, so an
 * operation added to spec/ is routed (and must get a handler) after `npm run generate`.
 */
import type { ValidateFunction } from "ajv";
import { compile, deref, loadSpec } from "./schemas.js";
import type { operations, webhooks } from "../../generated/schema.js";

type WebhookOperation = NonNullable<webhooks[keyof webhooks]["post"]>;
/** Operations under paths; the top-level `webhooks` are deliveries the mock sends, not routes. */
export type OperationId = { [K in keyof operations]: operations[K] extends WebhookOperation ? never : K }[keyof operations];
export type Method = "get" | "post" | "put" | "patch" | "delete";

interface ParameterObject {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  schema: Record<string, unknown>;
}

export interface ResponseInfo {
  status: number;
  /** null: the status is documented with no body (E13's 204). */
  validate: ValidateFunction | null;
  schema: unknown;
  examples: Record<string, unknown>;
}

export interface Operation {
  operationId: OperationId;
  method: Method;
  path: string;
  /** Express 5 route path: /v1/calls/:callId */
  routePath: string;
  tags: string[];
  pathParams: string[];
  queryParams: string[];
  /** Validates `{ path, query }` in place: coerces strings and fills documented defaults. */
  validateParams: ValidateFunction;
  bodyType?: "application/json" | "multipart/form-data";
  bodyRequired: boolean;
  bodySchema?: unknown;
  validateBody?: ValidateFunction;
  responses: Map<number, ResponseInfo>;
  successStatus: number;
}

const METHODS: Method[] = ["get", "post", "put", "patch", "delete"];

function paramsSchema(params: ParameterObject[], location: "path" | "query") {
  const own = params.filter((p) => p.in === location);
  return {
    type: "object",
    properties: Object.fromEntries(own.map((p) => [p.name, p.schema])),
    required: own.filter((p) => p.required || location === "path").map((p) => p.name),
  };
}

/** A value made on first use and kept. */
function once<T>(make: () => T): () => T {
  let made = false;
  let value: T;
  return () => {
    if (!made) (value = make()), (made = true);
    return value;
  };
}

function buildOperation(path: string, method: Method, item: Record<string, any>, op: Record<string, any>): Operation {
  const params: ParameterObject[] = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => deref<ParameterObject>(p));
  const validateParams = once(() =>
    compile("params", { type: "object", properties: { path: paramsSchema(params, "path"), query: paramsSchema(params, "query") } }),
  );
  const body = op.requestBody ? deref<Record<string, any>>(op.requestBody) : undefined;
  const bodyType = body ? (Object.keys(body.content)[0] as Operation["bodyType"]) : undefined;
  const bodySchema = bodyType ? body!.content[bodyType].schema : undefined;
  const responses = new Map<number, ResponseInfo>();
  for (const [code, ref] of Object.entries<Record<string, any>>(op.responses)) {
    const response = deref<Record<string, any>>(ref);
    const media = response.content?.["application/json"];
    const examples = Object.fromEntries(
      Object.entries<Record<string, unknown>>(media?.examples ?? {}).map(([name, ex]) => [name, deref<{ value: unknown }>(ex).value]),
    );
    const validate = once(() => (media?.schema ? compile("response", media.schema) : null));
    responses.set(Number(code), {
      status: Number(code),
      schema: media?.schema,
      get validate() {
        return validate();
      },
      examples,
    });
  }
  const successStatus = [...responses.keys()].find((s) => s >= 200 && s < 300) ?? 200;
  const validateBody = once(() => (bodyType === "application/json" ? compile("request", bodySchema) : undefined));
  return {
    operationId: op.operationId,
    method,
    path,
    routePath: path.replace(/\{([^}]+)\}/g, ":$1"),
    tags: op.tags ?? [],
    pathParams: params.filter((p) => p.in === "path").map((p) => p.name),
    queryParams: params.filter((p) => p.in === "query").map((p) => p.name),
    get validateParams() {
      return validateParams();
    },
    bodyType,
    bodyRequired: Boolean(body?.required),
    bodySchema,
    get validateBody() {
      return validateBody();
    },
    responses,
    successStatus,
  };
}

let cached: Operation[] | undefined;

export function loadOperations(): Operation[] {
  if (cached) return cached;
  const spec = loadSpec();
  cached = [];
  for (const [path, rawItem] of Object.entries(spec.paths)) {
    const item = deref<Record<string, any>>(rawItem);
    for (const method of METHODS) if (item[method]) cached.push(buildOperation(path, method, item, item[method]));
  }
  return cached;
}

/**
 * Compiles every validator ahead of use, one operation per turn of the event loop, so requests that
 * arrive meanwhile are served between steps. Response validators only when they will be used.
 */
export function warmValidators(options: { responses: boolean }): Promise<void> {
  const steps = loadOperations().map((op) => () => {
    void op.validateParams;
    void op.validateBody;
    if (options.responses) for (const response of op.responses.values()) void response.validate;
  });
  return new Promise((resolve) => {
    const next = () => {
      const step = steps.shift();
      if (!step) return resolve();
      step();
      setImmediate(next);
    };
    setImmediate(next);
  });
}

export function findOperation(operationId: string): Operation {
  const op = loadOperations().find((o) => o.operationId === operationId);
  if (!op) throw new Error(`no operation ${operationId} in the spec`);
  return op;
}
