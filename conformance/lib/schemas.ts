/**
 * JSON Schema validators compiled once per level from the bundled spec: the leveled validators of
 * mock-server/core/exchange-rules/leveled-validators.ts (which say what each level relaxes or closes),
 * bound to generated/openapi.json.
 */
import type { ErrorObject, ValidateFunction } from "ajv";
import { leveledValidators, type Level } from "../../mock-server/core/exchange-rules/leveled-validators.js";
import { spec } from "./spec.js";

export type { ErrorObject, Level };

/** Validator of the schema at `pointer` (a JSON pointer into generated/openapi.json) at `level`. */
export function validatorFor(pointer: string, level: Level): ValidateFunction {
  return leveledValidators(spec).validatorFor(pointer, level);
}
