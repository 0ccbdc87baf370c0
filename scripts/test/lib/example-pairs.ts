/**
 * The named examples of each operation, read as Specmatic and Microcks pair them: a name in the
 * `examples` of a parameter (path, query, header) or of the request body is one part of the request
 * example of that name, and the response example of the same name (or, for a response without content,
 * a name in its `x-microcks-refs`) is what that request gets. One reading for the tests that check the
 * pairing (scripts/test/spec/spec-example-pairs.test.ts) and that replay the pairs against the mock
 * (scripts/test/spec-example-replay.test.ts).
 */
import { type Json, type JsonObject, deref, derefObject, isObject, operationsOf } from "./openapi-doc.js";

export interface ResponseExample {
  /** `operationId status name`, as reported. */
  key: string;
  status: number;
  name: string;
  /** The Response Object, `$ref` followed. */
  response: JsonObject;
  /** The example's value; null for a name of `x-microcks-refs`. */
  value: Json;
}

/** The parts of one named request example, by where each is given. */
export interface RequestExample {
  /** `query page`, `path callId`, `header X-Trace`, `body`: one entry per part. */
  where: string[];
  path: Record<string, Json>;
  query: Record<string, Json>;
  header: Record<string, Json>;
  body?: Json;
  /** The media type of the body's example, when there is one. */
  mediaType?: string;
}

export interface OperationExamples {
  operationId: string;
  method: string;
  /** The path template (`/v1/calls/{callId}`), or the webhook's name. */
  path: string;
  requests: Map<string, RequestExample>;
  /** Required parameters (`path callId`) and `body` when the body is required. */
  required: string[];
  responses: ResponseExample[];
  /** The first declared status below 300 (0 if none): the status a success example shows. */
  successStatus: number;
  /** Query parameter -> its schema's default. */
  queryDefaults: Map<string, Json>;
}

export const examplesOf = (node: Json | undefined): JsonObject =>
  isObject(node) && isObject(node.examples) ? node.examples : {};

/** An Example Object's `value`, `$ref` followed; null when it has none. */
export function exampleValue(doc: JsonObject, example: Json): Json {
  const resolved = deref(doc, example);
  return isObject(resolved) ? (resolved.value ?? null) : null;
}

const PLACES = new Set(["path", "query", "header"]);

/** The named examples of each operation of a document (`paths` under pathPrefix, or `webhooks`). */
export function operationExamples(
  doc: JsonObject,
  pathPrefix = "/",
  section: "paths" | "webhooks" = "paths",
): OperationExamples[] {
  return operationsOf(doc, section)
    .filter((op) => op.path.startsWith(pathPrefix))
    .map(({ path, method, operation, parameters }) => {
      const operationId = String(operation.operationId ?? `${method} ${path}`);
      const requests = new Map<string, RequestExample>();
      const requestOf = (name: string): RequestExample => {
        const found = requests.get(name) ?? { where: [], path: {}, query: {}, header: {} };
        requests.set(name, found);
        return found;
      };
      // An operation's parameter replaces its path item's of the same name and place (OpenAPI 3.1, 4.8.10).
      const byPlace = new Map<string, JsonObject>();
      for (const raw of parameters) {
        const param = derefObject(doc, raw, `${operationId} parameter`);
        byPlace.set(`${param.in} ${param.name}`, param);
      }
      const required: string[] = [];
      const queryDefaults = new Map<string, Json>();
      for (const [where, param] of byPlace) {
        if (param.required === true) required.push(where);
        const schema = deref(doc, param.schema);
        if (param.in === "query" && isObject(schema) && "default" in schema)
          queryDefaults.set(String(param.name), schema.default);
        for (const [name, example] of Object.entries(examplesOf(param))) {
          const request = requestOf(name);
          request.where.push(where);
          const place = String(param.in);
          if (PLACES.has(place))
            request[place as "path" | "query" | "header"][String(param.name)] = exampleValue(doc, example);
        }
      }
      const body = deref(doc, operation.requestBody);
      if (isObject(body)) {
        if (body.required === true) required.push("body");
        for (const [mediaType, media] of Object.entries(isObject(body.content) ? body.content : {}))
          for (const [name, example] of Object.entries(examplesOf(media))) {
            const request = requestOf(name);
            request.where.push("body");
            if (request.mediaType !== undefined) continue; // the first media type's example is the one sent
            request.body = exampleValue(doc, example);
            request.mediaType = mediaType;
          }
      }
      const responses: ResponseExample[] = [];
      let successStatus = 0;
      for (const [code, raw] of Object.entries(isObject(operation.responses) ? operation.responses : {})) {
        const response = derefObject(doc, raw, `${operationId} ${code}`);
        const status = Number(code);
        if (status < 300 && !successStatus) successStatus = status;
        const example = (name: string, value: Json): ResponseExample => ({
          key: `${operationId} ${code} ${name}`,
          status,
          name,
          response,
          value,
        });
        for (const media of Object.values(isObject(response.content) ? response.content : {}))
          for (const [name, raw] of Object.entries(examplesOf(media)))
            responses.push(example(name, exampleValue(doc, raw)));
        // A response without content names its examples here, for Microcks (a 204's request examples).
        const refs = response["x-microcks-refs"];
        for (const name of Array.isArray(refs) ? refs.map(String) : []) responses.push(example(name, null));
      }
      return { operationId, method, path, requests, required, responses, successStatus, queryDefaults };
    });
}
