/**
 * Vocabulary of the reference tables: what the reference says about one field or parameter.
 * A `FieldWant` lists only what the reference states; the checks treat anything the spec says beyond it
 * (a default, nullability) as a decision that must carry `x-assumption`.
 */
import type { Json } from "../lib/openapi-doc.js";

export interface FieldWant {
  /** JSON Schema type without "null" ("integer", "number", "string", "boolean", "object", "array"). */
  type?: string;
  format?: string;
  enum?: Json[];
  default?: Json;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  /** The reference states a form that the schema's pattern encodes (E.164, UTC timestamps). */
  patterned?: boolean;
  /** The reference leaves the set of values open: the schema must not close it with an enum. */
  open?: boolean;
  /** The reference says the field may be null (expressed with a 3.1 type array or a oneOf with null). */
  nullable?: boolean;
  /** Component the (non-null) schema is a `$ref` to. */
  ref?: string;
  items?: FieldWant;
  /** Type of the values of a map (`additionalProperties`). */
  values?: string;
  /** Whether the field is in `required` (only where the reference says so). */
  required?: boolean;
  /** The reference leaves this open: the field or its schema must carry `x-assumption`. */
  assumed?: boolean;
  /** A value the schema must accept and one it must refuse (for patterns such as E.164). */
  accepts?: Json;
  refuses?: Json;
}

export const string: FieldWant = { type: "string" };
export const boolean: FieldWant = { type: "boolean" };
export const integer: FieldWant = { type: "integer" };
export const dateTime: FieldWant = { type: "string", format: "date-time", patterned: true };
/** A count of records or pages: never negative. */
export const count = (more: FieldWant = {}): FieldWant => ({ type: "integer", minimum: 0, ...more });
/** A string whose values the reference gives as examples only ("example `static`", "not shown"). */
export const openString: FieldWant = { type: "string", open: true };
export const int32 = (more: FieldWant = {}): FieldWant => ({ type: "integer", format: "int32", ...more });
export const double = (more: FieldWant = {}): FieldWant => ({ type: "number", format: "double", ...more });
export const ref = (name: string, more: FieldWant = {}): FieldWant => ({ ref: name, ...more });
export const arrayOf = (items: FieldWant, more: FieldWant = {}): FieldWant => ({ type: "array", items, ...more });
export const stringMap: FieldWant = { type: "object", values: "string" };
export const e164: FieldWant = { type: "string", patterned: true, accepts: "+14155550123", refuses: "14155550123" };

export const CALL_STATUSES = ["scheduled", "in_progress", "ended", "not_connected", "error"];
export const CALL_TYPES = ["inbound", "outbound", "web", "chat"];
export const AUTH_TYPES = ["API_KEY", "BEARER", "BASIC", "NONE"];
export const PROVIDERS = ["<carrier_a>", "<carrier_b>", "byo"];
export const TERMINATION_REASONS = [
  "silence_timed_out",
  "agent_ended_call",
  "user_ended_call",
  "voicemail_detected",
  "ivr_detected",
  "agent_transferred_call",
  "max_call_duration_exceeded",
  "dial_telephony_permission_denied",
  "dial_invalid_destination",
  "dial_no_answer",
  "dial_user_declined",
  "dial_busy",
  "dial_failed",
  "error_credit_limit_reached",
  "error_llm",
  "error_tts",
  "error_asr",
  "error_service",
  "error_telephony",
  "error_unknown",
];
