/**
 * A Contract of any OpenAPI document (3.0 or 3.1), compiled at run time as `--spec` does
 * (core/compile-spec.ts): the generic layer's tests serve throwaway documents through it.
 */
import { compileSpec } from "../../core/compile-spec.js";
import { Contract } from "../../core/contract.js";

export function contractOf(document: object): Contract {
  return new Contract(compileSpec(structuredClone(document)));
}
