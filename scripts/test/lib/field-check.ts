/**
 * Compares what the reference says about a field (a FieldWant) with the spec's schema for it.
 * Returns readable problems, each naming the JSON pointer, so a table row fails with the reason.
 */
import type { FieldWant } from "../reference/fields.js";
import { type FieldShape, fieldShape, objectParts } from "./field-shape.js";
import { type Json, type JsonObject, isObject, pointer } from "./openapi-doc.js";
import type { DocumentValidator } from "./schema-validator.js";

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

export function shapeProblems(want: FieldWant, shape: FieldShape, at: string): string[] {
  const problems: string[] = [];
  const expect = (key: keyof FieldShape & keyof FieldWant): void => {
    if (want[key] !== undefined && !same(shape[key], want[key])) {
      problems.push(`${at}: ${key} is ${JSON.stringify(shape[key])}, the reference says ${JSON.stringify(want[key])}`);
    }
  };
  for (const key of [
    "type",
    "format",
    "enum",
    "default",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "ref",
    "values",
  ] as const)
    expect(key);
  // Anything the schema says beyond the reference is a decision, and a decision carries x-assumption.
  for (const key of ["format", "minimum", "maximum", "minLength", "maxLength"] as const) {
    if (shape[key] !== undefined && want[key] === undefined && !shape.assumption) {
      problems.push(`${at}: ${key} ${JSON.stringify(shape[key])} is not in the reference and carries no x-assumption`);
    }
  }
  if (shape.pattern !== undefined && !want.patterned && !shape.assumption) {
    problems.push(
      `${at}: pattern ${JSON.stringify(shape.pattern)} is not in the reference and carries no x-assumption`,
    );
  }
  if (shape.enum !== undefined && want.enum === undefined && !shape.assumption) {
    problems.push(`${at}: enum ${JSON.stringify(shape.enum)} is not in the reference and carries no x-assumption`);
  }
  if (want.open && shape.enum !== undefined)
    problems.push(`${at}: the reference leaves the values open; an enum closes them`);
  if (want.nullable && !shape.nullable) problems.push(`${at}: must allow null (3.1 type array or oneOf with null)`);
  if (!want.nullable && shape.nullable && !shape.assumption) {
    problems.push(`${at}: allows null, which the reference does not say, without x-assumption`);
  }
  if (want.default === undefined && shape.default !== undefined && !shape.assumption) {
    problems.push(
      `${at}: default ${JSON.stringify(shape.default)} is not in the reference and carries no x-assumption`,
    );
  }
  if (want.assumed && !shape.assumption) problems.push(`${at}: the reference leaves this open; x-assumption expected`);
  if (want.items) {
    if (!shape.items) problems.push(`${at}: items missing`);
    else problems.push(...shapeProblems(want.items, shape.items, `${at}/items`));
  }
  return problems;
}

/** Problems of one field: its shape, its required-ness and the values its schema must accept or refuse. */
export function fieldProblems(
  doc: JsonObject,
  validator: DocumentValidator,
  want: FieldWant,
  field: { node: Json | undefined; at: string; required: boolean },
): string[] {
  const problems = shapeProblems(want, fieldShape(doc, field.node), field.at);
  if (want.required !== undefined && want.required !== field.required) {
    problems.push(`${field.at}: required is ${field.required}, the reference says ${want.required}`);
  }
  if (want.accepts !== undefined && validator.errors(field.at, want.accepts).length > 0) {
    problems.push(`${field.at}: refuses ${JSON.stringify(want.accepts)}`);
  }
  if (want.refuses !== undefined && validator.errors(field.at, want.refuses).length === 0) {
    problems.push(`${field.at}: accepts ${JSON.stringify(want.refuses)}`);
  }
  return problems;
}

/**
 * Problems of an object schema against the reference's field list: a missing field, a field the reference
 * does not have, and each field's own problems (named at the component that declares it, allOf included).
 */
export function propertiesProblems(
  doc: JsonObject,
  validator: DocumentValidator,
  schemaAt: string,
  want: Record<string, FieldWant>,
): string[] {
  const { properties, required } = objectParts(doc, { $ref: `#${schemaAt}` });
  const schemas = isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : {};
  const have = Object.keys(properties);
  const expected = Object.keys(want);
  const problems = [
    ...expected.filter((n) => !have.includes(n)).map((n) => `${schemaAt}: field ${n} is missing`),
    ...have.filter((n) => !expected.includes(n)).map((n) => `${schemaAt}: field ${n} is not in the reference`),
  ];
  for (const name of expected.filter((n) => have.includes(n))) {
    const owner = Object.entries(schemas).find(
      ([, s]) => isObject(s) && isObject(s.properties) && s.properties[name] === properties[name],
    );
    const at = owner
      ? pointer(["components", "schemas", owner[0], "properties", name])
      : `${schemaAt}/properties/${name}`;
    problems.push(
      ...fieldProblems(doc, validator, want[name], { node: properties[name], at, required: required.includes(name) }),
    );
  }
  return problems;
}
