import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createOpenApiAjv } from "../openapi-ajv.js";
import { defaultContract } from "../contract.js";
import { sampleAny, sampleValid, seededSampler } from "./sample.js";

const REF_DATE = new Date("2026-11-01T00:00:00.000Z");
const noRefs = (node: unknown) => node;
const ajv = createOpenApiAjv();

function draw(schema: unknown, seed = 1, deref = noRefs) {
  return seededSampler(deref, seed, REF_DATE).value(schema);
}

function valid(schema: object, value: unknown): boolean {
  const validate = ajv.compile(schema);
  const ok = validate(value);
  if (!ok) console.error(JSON.stringify(schema), JSON.stringify(value), validate.errors);
  return ok;
}

describe("the schema sampler", () => {
  it("draws the same value from the same seed, another from another", () => {
    const schema = {
      type: "object",
      required: ["name", "email", "age"],
      properties: { name: { type: "string" }, email: { type: "string", format: "email" }, age: { type: "integer" } },
    };
    expect(draw(schema, 7)).toEqual(draw(schema, 7));
    expect(draw(schema, 7)).not.toEqual(draw(schema, 8));
  });

  it("takes realistic values by property name", () => {
    const value = draw({
      type: "object",
      properties: {
        email: { type: "string" },
        city: { type: "string" },
        phone: { type: "string" },
        website: { type: "string" },
        latitude: { type: "number" },
      },
    }) as Record<string, any>;
    expect(value.email).toMatch(/^[^@\s]+@[^@\s]+\.[a-z]+$/);
    expect(value.phone).toMatch(/^\+1[2-9]\d{9}$/);
    expect(value.website).toMatch(/^https?:\/\//);
    expect(value.latitude).toBeGreaterThanOrEqual(-90);
    expect(value.latitude).toBeLessThanOrEqual(90);
    expect(typeof value.city).toBe("string");
  });

  it("honours formats, patterns, bounds and lengths", () => {
    const schema = {
      type: "object",
      required: ["at", "day", "id", "ip", "code", "count", "ratio", "short", "e164", "stamp"],
      properties: {
        at: { type: "string", format: "date-time" },
        day: { type: "string", format: "date" },
        id: { type: "string", format: "uuid" },
        ip: { type: "string", format: "ipv4" },
        code: { type: "string", pattern: "^[A-Z]{3}-[0-9]{4}$" },
        count: { type: "integer", minimum: 5000, maximum: 5010, multipleOf: 2 },
        ratio: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 },
        short: { type: "string", minLength: 12, maxLength: 12 },
        e164: { type: "string", pattern: "^\\+[1-9]\\d{1,14}$" },
        stamp: {
          type: "string",
          format: "date-time",
          pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-]00:00)$",
        },
      },
    };
    for (let seed = 0; seed < 30; seed++) expect(valid(schema, draw(schema, seed))).toBe(true);
  });

  it("folds allOf, picks a non-null branch of oneOf, resolves refs", () => {
    const document = {
      components: {
        schemas: {
          Base: { type: "object", required: ["id"], properties: { id: { type: "integer", minimum: 1 } } },
          Named: {
            allOf: [
              { $ref: "#/components/schemas/Base" },
              { type: "object", required: ["name"], properties: { name: { type: "string", minLength: 1 } } },
            ],
          },
        },
      },
    };
    const deref = (node: unknown) => {
      const ref = (node as { $ref?: string })?.$ref;
      return ref
        ? ref
            .split("/")
            .slice(1)
            .reduce<any>((at, key) => at[key], document)
        : node;
    };
    const schema = { oneOf: [{ type: "null" }, { $ref: "#/components/schemas/Named" }] };
    const value = draw(schema, 3, deref) as Record<string, unknown>;
    expect(value).toMatchObject({ id: expect.any(Number), name: expect.any(String) });
  });

  it("draws valid values for generated schemas (property)", () => {
    let firstTry = 0;
    let runs = 0;
    fc.assert(
      fc.property(schemaArbitrary(), fc.nat(), (schema, seed) => {
        const validate = ajv.compile(schema as object);
        runs++;
        if (validate(draw(schema, seed))) firstTry++;
        const { value, ok } = sampleValid(schema, { deref: noRefs, seed, refDate: REF_DATE, check: validate });
        if (!ok) console.error(JSON.stringify(schema), JSON.stringify(value), validate.errors);
        return ok;
      }),
      { numRuns: 300, seed: 42 },
    );
    // The retries are for the rare value a oneOf's overlapping branches both accept, not the rule.
    expect(firstTry / runs).toBeGreaterThan(0.95);
  });
});

/** JSON Schemas of the kinds OpenAPI documents use, each satisfiable. */
function schemaArbitrary(): fc.Arbitrary<object> {
  const format = fc.constantFrom("date-time", "date", "email", "uri", "uuid", "ipv4", "ipv6", "hostname", "time");
  const pattern = fc.constantFrom("^[a-z]{2,8}$", "^\\d{3}-\\d{2}$", "^(Z|[+-]00:00)$", "^[A-Z][a-z]+( [A-Z][a-z]+)?$");
  const named = fc.constantFrom("name", "email", "city", "description", "id", "price", "age", "title", "x", "tags");
  const leaf: fc.Arbitrary<object> = fc.oneof(
    fc.record({ type: fc.constant("string"), format }),
    fc.record({ type: fc.constant("string"), pattern }),
    fc
      .tuple(fc.nat(10), fc.nat(20))
      .map(([min, extra]) => ({ type: "string", minLength: min, maxLength: min + extra })),
    fc
      .tuple(fc.integer({ min: -1000, max: 1000 }), fc.nat(500), fc.constantFrom(1, 3, 5))
      .map(([min, span, step]) => ({ type: "integer", minimum: min, maximum: min + span + step, multipleOf: step })),
    fc
      .tuple(fc.integer({ min: -100, max: 100 }), fc.integer({ min: 1, max: 100 }))
      .map(([min, span]) => ({ type: "number", exclusiveMinimum: min, exclusiveMaximum: min + span })),
    fc.constant({ type: "boolean" }),
    fc.constant({ type: ["string", "null"] }),
    fc.constant({ enum: ["a", "b", "c"] }),
    fc.constant({ const: "fixed" }),
    fc.constant({ type: "integer", format: "int32" }),
  );
  const { tree } = fc.letrec<{ tree: object }>((tie) => ({
    tree: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      leaf,
      fc
        .tuple(fc.uniqueArray(fc.tuple(named, tie("tree")), { selector: ([n]) => n, maxLength: 4 }), fc.boolean())
        .map(([props, closed]) => ({
          type: "object",
          properties: Object.fromEntries(props),
          required: props.filter((_, i) => i % 2 === 0).map(([n]) => n),
          ...(closed && { additionalProperties: false }),
        })),
      fc
        .tuple(tie("tree"), fc.nat(2), fc.nat(3))
        .map(([items, min, extra]) => ({ type: "array", items, minItems: min, maxItems: min + extra })),
      fc.constant({ type: "object", additionalProperties: { type: "integer" }, minProperties: 1 }),
      fc.constant({
        allOf: [
          { type: "object", required: ["a"], properties: { a: { type: "string" } } },
          { type: "object", required: ["b"], properties: { b: { type: "integer", minimum: 3 } } },
        ],
      }),
      fc.constant({ oneOf: [{ type: "string", format: "email" }, { type: "integer" }, { type: "null" }] }),
      fc.constant({ anyOf: [{ type: "number", minimum: 10 }, { type: "boolean" }] }),
      fc.constant({ type: "array", items: { enum: [1, 2, 3, 4] }, uniqueItems: true, minItems: 2, maxItems: 4 }),
      fc.constant({ type: "array", prefixItems: [{ type: "string" }, { type: "integer" }], items: false }),
    ),
  }));
  return tree;
}

describe("the sampler on schemas that refer to themselves", () => {
  it("ends, with a finite value", () => {
    const document = {
      components: {
        schemas: {
          Loop: { oneOf: [{ $ref: "#/components/schemas/Loop" }, { $ref: "#/components/schemas/Loop" }] },
          Tree: {
            type: "object",
            required: ["name"],
            properties: {
              name: { type: "string" },
              children: { type: "array", items: { $ref: "#/components/schemas/Tree" } },
            },
          },
        },
      },
    };
    const deref = (node: unknown) => {
      const ref = (node as { $ref?: string })?.$ref;
      return ref
        ? ref
            .split("/")
            .slice(1)
            .reduce<any>((at, key) => at[key], document)
        : node;
    };
    expect(draw({ $ref: "#/components/schemas/Loop" }, 1, deref)).toBeNull();
    const tree = draw({ $ref: "#/components/schemas/Tree" }, 1, deref);
    expect(tree).toMatchObject({ name: expect.any(String) });
    expect(JSON.stringify(tree).length).toBeLessThan(100_000);
  });
});

describe("unseeded draws (Prefer: dynamic=true)", () => {
  const schema = {
    type: "object",
    required: ["email", "day", "at"],
    properties: {
      email: { type: "string", format: "email" },
      day: { type: "string", format: "date" },
      at: { type: "string", format: "date-time" },
    },
  };

  it("draws another valid value each time, dated around the time given", () => {
    const validate = ajv.compile(schema);
    const drawn = Array.from({ length: 10 }, () =>
      sampleAny(schema, { deref: noRefs, refDate: REF_DATE, check: validate }),
    );
    expect(drawn.every((d) => d.ok)).toBe(true);
    expect(new Set(drawn.map((d) => JSON.stringify(d.value))).size).toBeGreaterThan(1);
    for (const { value } of drawn) {
      const at = Date.parse((value as { at: string }).at);
      expect(Math.abs(at - REF_DATE.getTime())).toBeLessThan(200 * 86_400_000);
    }
  });

  it("is what Contract.sample draws for a schema of the document, checked by the validator given", () => {
    const contract = defaultContract();
    const op = contract.operation("getCall");
    const info = op.responses.get(200)!;
    for (let i = 0; i < 5; i++) {
      const value = contract.sample(info.schema, { check: info.check!, now: REF_DATE });
      expect(info.check!(value), JSON.stringify(info.errors())).toBe(true);
    }
    let asked = 0;
    // A check that refuses everything is asked again a few times, then the last value drawn goes.
    expect(contract.sample(schema, { check: () => (asked++, false) })).toMatchObject({ email: expect.any(String) });
    expect(asked).toBeGreaterThan(1);
  });
});
