/**
 * Reading schemas of a document by JSON pointer: $ref chains followed, an object's properties merged
 * across allOf, each property with the pointer of its own schema (so a validator can be compiled for it
 * and a failure can name it).
 */
import { resolvePointer, type Json, type JsonObject } from "../../mock-server/core/exchange-rules/json-document.js";

export type Schema = Record<string, any>;

export interface SchemaAt {
  schema: Schema;
  /** Where the schema sits once its $ref chain is followed. */
  pointer: string;
}

export interface PropertyAt extends SchemaAt {
  required: boolean;
}

/** The schema at `pointer`, its $ref chain followed (at most 20 hops); undefined when absent. */
export function schemaAt(doc: JsonObject, pointer: string): SchemaAt | undefined {
  let at = pointer;
  let node = resolvePointer(doc, at) as Json | undefined;
  for (let hops = 0; hops < 20 && isRef(node); hops++) {
    at = (node as { $ref: string }).$ref.replace(/^#/, "");
    node = resolvePointer(doc, at);
  }
  return node && typeof node === "object" && !Array.isArray(node) ? { schema: node as Schema, pointer: at } : undefined;
}

const isRef = (node: Json | undefined): boolean =>
  !!node && typeof node === "object" && !Array.isArray(node) && typeof (node as JsonObject).$ref === "string";

/** The types a schema allows (`type` as a list; none when it says nothing). */
export function typesOf(schema: Schema): string[] {
  return Array.isArray(schema.type) ? schema.type : typeof schema.type === "string" ? [schema.type] : [];
}

/** The properties of the object schema at `pointer`, allOf members merged, each with its pointer. */
export function propertiesOf(doc: JsonObject, pointer: string, depth = 0): Record<string, PropertyAt> {
  const at = schemaAt(doc, pointer);
  if (!at || depth > 8) return {};
  const out: Record<string, PropertyAt> = {};
  const { schema } = at;
  if (Array.isArray(schema.allOf))
    schema.allOf.forEach((_: unknown, i: number) =>
      Object.assign(out, propertiesOf(doc, `${at.pointer}/allOf/${i}`, depth + 1)),
    );
  const required = new Set<string>(Array.isArray(schema.required) ? schema.required : []);
  for (const name of Object.keys(schema.properties ?? {})) {
    const property = schemaAt(doc, `${at.pointer}/properties/${escape(name)}`);
    if (property) out[name] = { ...property, required: required.has(name) };
  }
  for (const name of required) if (out[name]) out[name].required = true;
  return out;
}

export function escape(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}
