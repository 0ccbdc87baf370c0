/**
 * The call lifecycle, in one pure place, so seeded calls, control-plane calls and the clock-driven
 * simulation all obey the same rules (the reference leaves transitions "not shown"; the kit assumes):
 *
 *   scheduled -> in_progress | not_connected | error
 *   in_progress -> ended | error
 *
 * Field rules by status:
 *   startTime          set once the call reached in_progress (in_progress, ended, error after connect)
 *   endTime, duration  set when a connected call is final (ended, error after connect); duration is
 *                      round((endTime - startTime) / 1000) seconds
 *   terminationReason  null until final; ended -> the 7 conversation reasons, not_connected -> dial_*,
 *                      error -> error_*
 *   recordingUrl       only for an ended call that connected (null when recording is off, and for chat)
 *   transcript         only for an ended call
 * No Math.random or clock reads here: randomness comes in as `rand`, time as `at`.
 */
import type { Call, CallStatus } from "../store/records.js";
import type { components } from "../../generated/schema.js";

export type TerminationReason = components["schemas"]["TerminationReason"];

export const ENDED_REASONS = [
  "silence_timed_out",
  "agent_ended_call",
  "user_ended_call",
  "voicemail_detected",
  "ivr_detected",
  "agent_transferred_call",
  "max_call_duration_exceeded",
] as const satisfies readonly TerminationReason[];

export const NOT_CONNECTED_REASONS = [
  "dial_telephony_permission_denied",
  "dial_invalid_destination",
  "dial_no_answer",
  "dial_user_declined",
  "dial_busy",
  "dial_failed",
] as const satisfies readonly TerminationReason[];

export const ERROR_REASONS = [
  "error_credit_limit_reached",
  "error_llm",
  "error_tts",
  "error_asr",
  "error_service",
  "error_telephony",
  "error_unknown",
] as const satisfies readonly TerminationReason[];

export const ALL_TERMINATION_REASONS: readonly TerminationReason[] = [
  ...ENDED_REASONS,
  ...NOT_CONNECTED_REASONS,
  ...ERROR_REASONS,
];

export const CALL_STATUSES: readonly CallStatus[] = ["scheduled", "in_progress", "ended", "not_connected", "error"];

/** Where each status may go next; final statuses go nowhere. */
export const NEXT_STATUSES: Readonly<Record<CallStatus, readonly CallStatus[]>> = {
  scheduled: ["in_progress", "not_connected", "error"],
  in_progress: ["ended", "error"],
  ended: [],
  not_connected: [],
  error: [],
};

export function canTransition(from: CallStatus, to: CallStatus): boolean {
  return NEXT_STATUSES[from].includes(to);
}

export function isFinal(status: CallStatus): boolean {
  return status === "ended" || status === "not_connected" || status === "error";
}

/** The termination reasons that fit a status; empty for the non-final statuses. */
export function terminationReasonsFor(status: CallStatus): readonly TerminationReason[] {
  switch (status) {
    case "ended":
      return ENDED_REASONS;
    case "not_connected":
      return NOT_CONNECTED_REASONS;
    case "error":
      return ERROR_REASONS;
    default:
      return [];
  }
}

/** The final status a termination reason belongs to. */
export function statusOfReason(reason: TerminationReason): CallStatus {
  if ((ENDED_REASONS as readonly string[]).includes(reason)) return "ended";
  if ((NOT_CONNECTED_REASONS as readonly string[]).includes(reason)) return "not_connected";
  return "error";
}

/** Limits of the handling agent that bound a conversation (agentSettings, in minutes). */
export interface CallLimits {
  maxCallMinutes: number;
  silenceMinutes: number;
}

export const DEFAULT_LIMITS: CallLimits = { maxCallMinutes: 60, silenceMinutes: 5 };

const between = (rand: () => number, min: number, max: number) => min + Math.floor(rand() * (max - min + 1));

/**
 * A plausible connected duration, in seconds, for a reason: voicemail and IVR are detected within
 * seconds, a silence timeout takes at least the silence window, and max_call_duration_exceeded
 * lasts exactly the agent's maximum.
 */
export function typicalDurationSeconds(
  reason: TerminationReason | null,
  rand: () => number,
  limits: CallLimits = DEFAULT_LIMITS,
): number {
  const maxSeconds = Math.round(limits.maxCallMinutes * 60);
  const silence = Math.round(limits.silenceMinutes * 60);
  const cap = (s: number) => Math.max(1, Math.min(s, maxSeconds - 1));
  switch (reason) {
    case "max_call_duration_exceeded":
      return maxSeconds;
    case "silence_timed_out":
      return cap(silence + between(rand, 20, 400));
    case "voicemail_detected":
      return cap(between(rand, 6, 35));
    case "ivr_detected":
      return cap(between(rand, 8, 60));
    case "agent_transferred_call":
      return cap(between(rand, 40, 420));
    case "agent_ended_call":
    case "user_ended_call":
      return cap(between(rand, 25, 900));
    default:
      // error after connect: the failure cut the conversation somewhere along the way
      return cap(between(rand, 4, 300));
  }
}

/**
 * A reason for a call reaching `status`, weighted towards the common ones. For an ended call the
 * elapsed time rules out reasons that cannot have happened yet (no silence timeout before the
 * silence window, no max-duration cut before the maximum).
 */
export function pickTerminationReason(
  status: CallStatus,
  rand: () => number,
  elapsedSeconds?: number,
  limits: CallLimits = DEFAULT_LIMITS,
): TerminationReason | null {
  const reasons = terminationReasonsFor(status);
  if (reasons.length === 0) return null;
  if (status !== "ended") return reasons[Math.floor(rand() * reasons.length)];
  if (elapsedSeconds !== undefined && elapsedSeconds >= limits.maxCallMinutes * 60) return "max_call_duration_exceeded";
  const weights: [TerminationReason, number][] = [
    ["user_ended_call", 40],
    ["agent_ended_call", 30],
    ["agent_transferred_call", 10],
    ["voicemail_detected", 6],
    ["ivr_detected", 4],
    ["silence_timed_out", 6],
  ];
  const allowed = weights.filter(
    ([reason]) =>
      !(reason === "silence_timed_out" && elapsedSeconds !== undefined && elapsedSeconds < limits.silenceMinutes * 60),
  );
  const total = allowed.reduce((sum, [, w]) => sum + w, 0);
  let roll = rand() * total;
  for (const [reason, w] of allowed) {
    if ((roll -= w) < 0) return reason;
  }
  return allowed[0][0];
}

export interface SettleOptions {
  /** Use this reason (ignored unless it fits the status). */
  terminationReason?: TerminationReason | null;
  /** false: recording off; true: recorded (when the call can have a recording); default: 85% recorded. */
  recording?: boolean;
  /** Transcript of an ended call; generated when absent. */
  transcript?: string;
  /** The handling agent's limits, for invented durations. */
  limits?: CallLimits;
}

/**
 * The call moved to `status` at `at`, with every lifecycle field coherent. `at` is when the status
 * was reached (start of in_progress, end of a connected call, or the failed dial attempt). It never
 * lands before the call's creation or start. Transitions outside NEXT_STATUSES are still made coherent
 * (e.g. scheduled -> ended invents a start), so callers can use this to repair a call too.
 */
export function settleCall(
  call: Call,
  status: CallStatus,
  at: Date,
  rand: () => number,
  options: SettleOptions = {},
): Call {
  const created = Date.parse(call.createdAt);
  const previousStart = status === "scheduled" || status === "not_connected" ? null : call.startTime;
  let atMs = Math.max(at.getTime(), created, previousStart ? Date.parse(previousStart) : -Infinity);
  const limits = options.limits ?? DEFAULT_LIMITS;
  const given = options.terminationReason;
  const fits = (reason: TerminationReason | null | undefined): reason is TerminationReason =>
    !!reason && terminationReasonsFor(status).includes(reason);

  let startTime: string | null = null;
  let endTime: string | null = null;
  let terminationReason: TerminationReason | null = null;
  let recordingUrl: string | null = null;
  let transcript: string | null = null;

  switch (status) {
    case "scheduled":
      break;
    case "in_progress":
      startTime = previousStart ?? new Date(atMs).toISOString();
      break;
    case "not_connected":
      terminationReason = fits(given) ? given : pickTerminationReason(status, rand);
      break;
    case "error": {
      terminationReason = fits(given) ? given : pickTerminationReason(status, rand);
      // An error after connect closes the conversation; an error before connect never opened one.
      if (previousStart) {
        startTime = previousStart;
        endTime = new Date(atMs).toISOString();
      }
      break;
    }
    case "ended": {
      let startMs: number;
      if (previousStart) {
        startMs = Date.parse(previousStart);
        terminationReason = fits(given) ? given : pickTerminationReason(status, rand, (atMs - startMs) / 1000, limits);
      } else {
        // Never started (scheduled -> ended is not a real transition): invent a start that fits.
        terminationReason = fits(given) ? given : pickTerminationReason(status, rand, undefined, limits);
        startMs = Math.max(created, atMs - typicalDurationSeconds(terminationReason, rand, limits) * 1000);
      }
      atMs = Math.max(atMs, startMs);
      startTime = new Date(startMs).toISOString();
      endTime = new Date(atMs).toISOString();
      const recorded = options.recording ?? rand() < 0.85;
      // Chat has no audio to record.
      if (recorded && call.callType !== "chat")
        recordingUrl = `https://recordings.example.com/calls/${call.callId}.wav`;
      transcript =
        options.transcript ??
        (typeof call.transcript === "string" ? call.transcript : makeTranscript(call, terminationReason, rand));
      break;
    }
  }

  const duration = startTime && endTime ? Math.round((Date.parse(endTime) - Date.parse(startTime)) / 1000) : null;
  return {
    ...call,
    status,
    transcript,
    startTime,
    endTime,
    duration,
    terminationReason,
    recordingUrl,
    updatedAt: new Date(Math.max(atMs, created)).toISOString(),
  };
}

const OPENERS = [
  "Hi, I'm calling about my order.",
  "Hello, I need to reschedule my appointment.",
  "Hi there, I have a question about my last invoice.",
  "Good morning, can you tell me your opening hours?",
  "Hi, I'd like to update the address on my account.",
];
const MIDDLES = [
  ["Agent", "Sure, could you give me your reference number?"],
  ["Customer", "Yes, it's in the email you sent me yesterday."],
  ["Agent", "Thanks, I can see it here. One moment while I check."],
  ["Customer", "No problem."],
  ["Agent", "All done. Is there anything else I can help with?"],
] as const;
const CLOSERS: Partial<Record<TerminationReason, string>> = {
  agent_transferred_call: "Agent: Let me transfer you to a colleague who can help with that.",
  voicemail_detected: "Agent: (voicemail greeting detected, hanging up)",
  ivr_detected: "Agent: (automated menu detected, hanging up)",
  silence_timed_out: "Agent: Are you still there? I'll end the call now, feel free to call back.",
  max_call_duration_exceeded: "Agent: We've reached the maximum call length, I'll have to end the call here.",
  agent_ended_call: "Agent: Thanks for calling, have a great day!",
  user_ended_call: "Customer: That's all, thanks. Bye!",
};

/** A short plausible transcript, one "Speaker: text" turn per line, closing in line with the reason. */
function makeTranscript(call: Call, reason: TerminationReason | null, rand: () => number): string {
  const closer = (reason && CLOSERS[reason]) ?? "Agent: Goodbye.";
  if (reason === "voicemail_detected" || reason === "ivr_detected") return closer;
  const lines = [`Agent: Hello, this is ${call.agent.name}. How can I help you today?`];
  lines.push(`Customer: ${OPENERS[Math.floor(rand() * OPENERS.length)]}`);
  // An odd number of middle turns, so the agent speaks last before the closing line.
  const turns = 1 + 2 * Math.floor(rand() * 3);
  for (const [who, text] of MIDDLES.slice(0, turns)) lines.push(`${who}: ${text}`);
  lines.push(closer);
  return lines.join("\n");
}
