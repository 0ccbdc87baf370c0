/**
 * One spec as a mock serves it: the document, the validators compiled from it, and what is derived
 * from them (the operation table, the document as JSON, the objects its validators passed). Each mock
 * owns its Contract, so two mocks in one process may serve two specs; `npm start -- --watch` gives
 * the running mock a new Contract and drops the old one with everything derived from it.
 *
 *   const contract = new Contract(generatedSpec());   // or a spec of your own, with its validators
 *   contract.operation("listCalls").responses.get(200)
 */
import { basePathOf } from "./openapi-document.js";
import { buildOperations, type Operation, type OperationSource } from "./operations.js";
import { sampleAny } from "./sampling/sample.js";
import { derefIn, generatedSpec, type GeneratedSpec, type OpenApiDocument } from "./spec.js";
import { PassedObjects, type CompiledValidator, type GeneratedValidators } from "./validation.js";

export class Contract implements OperationSource {
  readonly document: OpenApiDocument;
  readonly validators: GeneratedValidators;
  /** Where the operations are routed: `basePath + op.path`. The kit's spec: `` (its paths carry /v1). */
  readonly basePath: string;
  /**
   * Whether the hand-written handlers (routes/) and the kit's world apply: the kit's own spec. Another
   * document (`--spec FILE`) is served by the generic layer alone, its workspaces empty, its security
   * its own (mock/credentials.ts), its errors in its own shape.
   */
  readonly handwritten: boolean;
  private readonly passed = new PassedObjects();
  private apiPrefixes: string[] | undefined;
  private table: { list: Operation[]; byId: Map<string, Operation> } | undefined;
  private text: string | undefined;

  constructor(private readonly source: GeneratedSpec) {
    this.document = source.document;
    this.validators = source.validators;
    this.basePath = source.origin?.basePath ?? basePathOf(source.document);
    this.handwritten = source.origin?.kind !== "document";
  }

  /** The document and validators this contract was made from. */
  get spec(): GeneratedSpec {
    return this.source;
  }

  /**
   * Whether a request path is the API's (journaled with its exchange for the HAR export, marked with
   * X-Mock-Source in front of an upstream): under the base path when there is one; else under the first
   * segment of an operation's path (the kit's `/v1`), so a 404 under the API counts as the API's too.
   */
  isApiPath(urlPath: string): boolean {
    const prefixes = (this.apiPrefixes ??= this.basePath
      ? [this.basePath]
      : [
          ...new Set(
            Object.keys((this.document as { paths?: object }).paths ?? {})
              .map((path) => `/${path.split("/")[1] ?? ""}`)
              .filter((prefix) => prefix !== "/" && !prefix.includes("{")),
          ),
        ]);
    return prefixes.some((prefix) => urlPath === prefix || urlPath.startsWith(`${prefix}/`));
  }

  /** The operations under the document's paths, built on first use; throws when one has no validators. */
  get operations(): Operation[] {
    return this.built().list;
  }

  get operationsById(): ReadonlyMap<string, Operation> {
    return this.built().byId;
  }

  /** The operation of that id; throws when the spec has none. */
  operation(operationId: string): Operation {
    const op = this.built().byId.get(operationId);
    if (!op) throw new Error(`no operation ${operationId} in the spec`);
    return op;
  }

  /** Resolves a `$ref` to a component of this document (parameters, responses, schemas, examples). */
  deref<T = Record<string, unknown>>(node: unknown): T {
    return derefIn<T>(this.document, node);
  }

  /** `validate(value)`, answered from memory for an object the validator passed before (validation.ts). */
  validateCached(validate: CompiledValidator, value: unknown): boolean {
    return this.passed.validate(validate, value);
  }

  /**
   * A random value of a schema of this document (Prefer: dynamic=true), another each time: drawn by the
   * sampler the generic layer uses (sampling/sample.ts), valid against the schema's formats, bounds and
   * patterns; `check` (a response's validator) has it drawn again, a few times, until it passes.
   * Dates fall around `now` (the workspace's clock; the wall clock when not given).
   */
  sample(schema: unknown, options: { check?: (value: unknown) => boolean; now?: Date } = {}): unknown {
    return sampleAny(schema, {
      deref: (node) => this.deref(node),
      refDate: options.now ?? new Date(),
      ...(options.check && { check: options.check }),
    }).value;
  }

  /** The document as JSON text (/openapi.json), written once. */
  json(): string {
    this.text ??= JSON.stringify(this.document);
    return this.text;
  }

  private built(): { list: Operation[]; byId: Map<string, Operation> } {
    if (!this.table) {
      const list = buildOperations(this);
      this.table = { list, byId: new Map(list.map((op) => [op.operationId, op])) };
    }
    return this.table;
  }
}

/** A new Contract of the spec bundled into generated/: what a mock serves unless given another. */
export function defaultContract(): Contract {
  return new Contract(generatedSpec());
}
