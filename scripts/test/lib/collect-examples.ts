/**
 * Finds every example of an OpenAPI 3.1 document with the schema it must satisfy:
 * Media Type Object `example`/`examples` (section 4.8.14), Parameter Object `example`/`examples`
 * (section 4.8.12) and Schema Object `examples`/`example` (section 4.8.24), at any depth.
 * Component examples (section 4.8.19) are checked where they are used, through their `$ref`.
 */
import { type Json, type JsonObject, atPointer, isObject, pointer } from "./openapi-doc.js";

export interface ExampleCase {
  /** JSON pointer of the example in the document (where a `$ref` leads elsewhere, `-> target`). */
  at: string;
  /** JSON pointer of the schema the example must satisfy. */
  schema: string;
  value: Json;
  /** Component example the value came from, if any. */
  ref?: string;
}

type Path = (string | number)[];

/** Keywords of JSON Schema 2020-12 whose value is a subschema, a list or a map of subschemas. */
const SUBSCHEMA = [
  "items",
  "not",
  "additionalProperties",
  "propertyNames",
  "contains",
  "if",
  "then",
  "else",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contentSchema",
];
const SUBSCHEMA_LIST = ["allOf", "anyOf", "oneOf", "prefixItems"];
const SUBSCHEMA_MAP = ["properties", "patternProperties", "$defs", "dependentSchemas"];

function schemaExamples(doc: JsonObject, node: Json, at: Path, out: ExampleCase[]): void {
  if (!isObject(node)) return;
  const schema = pointer(at);
  if (Array.isArray(node.examples)) {
    node.examples.forEach((value, i) => out.push({ at: pointer([...at, "examples", i]), schema, value }));
  }
  if ("example" in node) out.push({ at: pointer([...at, "example"]), schema, value: node.example });
  for (const key of SUBSCHEMA) if (key in node) schemaExamples(doc, node[key], [...at, key], out);
  for (const key of SUBSCHEMA_LIST) {
    const list = node[key];
    if (Array.isArray(list)) list.forEach((sub, i) => schemaExamples(doc, sub, [...at, key, i], out));
  }
  for (const key of SUBSCHEMA_MAP) {
    const map = node[key];
    if (isObject(map)) for (const [name, sub] of Object.entries(map)) schemaExamples(doc, sub, [...at, key, name], out);
  }
}

/** `example` and the named `examples` (Example Objects or `$ref`s to them) next to a `schema`. */
function namedExamples(doc: JsonObject, node: JsonObject, at: Path, schemaAt: Path, out: ExampleCase[]): void {
  const schema = pointer(schemaAt);
  if ("example" in node) out.push({ at: pointer([...at, "example"]), schema, value: node.example });
  if (!isObject(node.examples)) return;
  for (const [name, raw] of Object.entries(node.examples)) {
    let example = raw;
    let ref: string | undefined;
    if (isObject(raw) && typeof raw.$ref === "string") {
      ref = raw.$ref;
      example = atPointer(doc, ref.replace(/^#/, "")) ?? null;
    }
    if (isObject(example) && "value" in example) {
      const where = pointer([...at, "examples", name]);
      out.push({ at: ref ? `${where} -> ${ref}` : where, schema, value: example.value, ref });
    }
  }
}

function walk(doc: JsonObject, node: Json, at: Path, out: ExampleCase[]): void {
  if (Array.isArray(node)) {
    node.forEach((item, i) => walk(doc, item, [...at, i], out));
    return;
  }
  if (!isObject(node)) return;
  const parentKey = at[at.length - 2];
  const isMediaType = parentKey === "content" && "schema" in node;
  const isParameter = typeof node.in === "string" && typeof node.name === "string" && "schema" in node;
  if (isMediaType || isParameter) namedExamples(doc, node, at, [...at, "schema"], out);
  for (const [key, value] of Object.entries(node)) {
    if (key === "schema") schemaExamples(doc, value, [...at, key], out);
    else if (key === "example" || key === "examples")
      continue; // values, not document structure
    else walk(doc, value, [...at, key], out);
  }
}

export function collectExamples(doc: JsonObject): ExampleCase[] {
  const out: ExampleCase[] = [];
  for (const [key, value] of Object.entries(doc)) {
    if (key === "components" && isObject(value)) {
      for (const [kind, group] of Object.entries(value)) {
        if (kind === "schemas" && isObject(group)) {
          for (const [name, schema] of Object.entries(group)) {
            schemaExamples(doc, schema, ["components", "schemas", name], out);
          }
        } else if (kind !== "examples") {
          walk(doc, group, ["components", kind], out);
        }
      }
    } else {
      walk(doc, value, [key], out);
    }
  }
  return out;
}
