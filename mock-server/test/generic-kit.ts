/**
 * The kit's spec as a spec author leaves it after adding operations (generic/test/documents.ts), served
 * as the kit's own: the hand-written handlers for the 17, the generic layer for what is new. Compiled
 * as `--spec` compiles a document, then without its origin, so the mock does not take it for another
 * document served by the generic layer alone.
 */
import { compileSpec } from "../core/compile-spec.js";
import type { GeneratedSpec } from "../core/spec.js";
import { kitWithVoiceProfiles } from "../generic/test/documents.js";

export function kitSpecWith(document: object): GeneratedSpec {
  const { origin: _origin, ...spec } = compileSpec(structuredClone(document));
  return spec;
}

/** The kit's spec plus voice profiles (a collection), a usage report and a preview (schema answers). */
export function kitWithVoiceProfilesSpec(): GeneratedSpec {
  return kitSpecWith(kitWithVoiceProfiles());
}
