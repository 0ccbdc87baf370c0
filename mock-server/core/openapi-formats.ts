/**
 * The formats every validator of the kit checks: ajv-formats' full set plus the OpenAPI registry's
 * numeric formats. createOpenApiAjv registers them; generated/validators.js bundles this file, as
 * standalone code refers to formats by name here.
 * No imports but ajv-formats' plain formats: this file ends up in a browser bundle.
 */
import { fullFormats } from "ajv-formats/dist/formats.js";

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

export const openApiFormats = {
  ...fullFormats,
  // https://spec.openapis.org/registry/format/
  int32: { type: "number", validate: (n: number) => Number.isInteger(n) && n >= INT32.min && n <= INT32.max },
  int64: { type: "number", validate: (n: number) => Number.isSafeInteger(n) },
  float: { type: "number", validate: (n: number) => Number.isFinite(n) },
  double: { type: "number", validate: (n: number) => Number.isFinite(n) },
} as const;
