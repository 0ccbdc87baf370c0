/**
 * Calls (2.9) and the campaigns embedded in them (2.11). A call is built as it would have lived:
 * created scheduled, moved to in_progress at its start, then settled at its end, all through
 * settleCall, so seeded, control-plane and simulated calls obey exactly the same lifecycle rules.
 *
 * What is given anchors the rest: the status (or a termination reason, which implies one), the
 * times, the agent. Where a given combination cannot be coherent (a phone number on a web call, a
 * campaign on an inbound call, a reason of another status) the lifecycle rules win.
 */
import type { Call, CallStatus, Campaign, PhoneNumber, AgentReference } from "../store/records.js";
import { agentReference, iso, parseTime, MINUTE, SECOND, type BuildContext } from "./context.js";
import {
  DEFAULT_LIMITS,
  pickTerminationReason,
  settleCall,
  statusOfReason,
  terminationReasonsFor,
  typicalDurationSeconds,
  type CallLimits,
  type TerminationReason,
} from "./call-lifecycle.js";
import { buildPhoneNumber } from "./phone-numbers.js";

type CallType = Call["callType"];

export function buildCall(ctx: BuildContext, partial: Partial<Call> = {}): Call {
  const { faker } = ctx;
  const rand = () => faker.number.float();
  const nowMs = ctx.now.getTime();

  const givenReason = partial.terminationReason ?? undefined;
  const status: CallStatus = partial.status ?? (givenReason ? statusOfReason(givenReason) : inferStatus(ctx, partial));
  const reasonFits = !!givenReason && terminationReasonsFor(status).includes(givenReason);

  const callType: CallType =
    partial.callType ??
    (partial.campaign || status === "not_connected"
      ? "outbound"
      : faker.helpers.weightedArrayElement([
          { weight: 30, value: "inbound" as const },
          { weight: 35, value: "outbound" as const },
          { weight: 20, value: "web" as const },
          { weight: 15, value: "chat" as const },
        ]));
  const agent = agentReference(ctx, partial.agent ?? partial.campaign?.agent);
  const limits = limitsOf(ctx, agent.agentId);

  // Web and chat use no phone number; phone calls always show one, a number of the workspace.
  const givenNumber = partial.phoneNumber ?? partial.campaign?.phoneNumber;
  const phoneNumber =
    callType === "web" || callType === "chat"
      ? null
      : givenNumber
        ? numberAsGiven(ctx, givenNumber)
        : pickPhoneNumber(ctx, callType, agent.agentId);

  const dynamicVariables =
    partial.dynamicVariables !== undefined
      ? partial.dynamicVariables
      : faker.helpers.weightedArrayElement([
            { weight: 2, value: "null" as const },
            { weight: 1, value: "empty" as const },
            { weight: 4, value: "some" as const },
          ]) === "some"
        ? {
            customerName: faker.person.fullName(),
            ...(faker.datatype.boolean() ? { orderId: `A-${faker.string.numeric(4)}` } : {}),
          }
        : faker.datatype.boolean()
          ? {}
          : null;

  // --- times: work out created, start and the final instant, from whatever was given ---
  const given = {
    created: parseTime(partial.createdAt),
    start: parseTime(partial.startTime),
    end: parseTime(partial.endTime),
  };
  const ring = faker.number.int({ min: 2 * SECOND, max: 25 * SECOND });
  const connected =
    status === "in_progress" ||
    status === "ended" ||
    (status === "error" &&
      (given.start !== undefined ||
        given.end !== undefined ||
        partial.duration != null ||
        (partial.startTime !== null && faker.datatype.boolean(0.4))));
  const reason: TerminationReason | null = reasonFits
    ? givenReason!
    : connected && status !== "in_progress"
      ? given.start !== undefined && given.end !== undefined
        ? pickTerminationReason(status, rand, (given.end - given.start) / 1000, limits)
        : pickTerminationReason(status, rand, undefined, limits)
      : pickTerminationReason(status, rand);

  let created: number;
  let start: number | undefined;
  let finalAt: number | undefined;
  if (status === "scheduled") {
    created = given.created ?? nowMs;
  } else if (status === "in_progress") {
    start =
      given.start ??
      (given.created !== undefined
        ? given.created + ring
        : nowMs - faker.number.int({ min: 5 * SECOND, max: 15 * MINUTE }));
    start = Math.min(start, nowMs);
    created = given.created ?? start - ring;
  } else if (connected) {
    const durationMs =
      partial.duration != null
        ? partial.duration * 1000
        : given.start !== undefined && given.end !== undefined
          ? given.end - given.start
          : typicalDurationSeconds(reason, rand, limits) * 1000 + faker.number.int({ min: 0, max: 999 });
    let end: number;
    if (given.end !== undefined) {
      end = given.end;
      start = given.start ?? end - durationMs;
    } else if (given.start !== undefined) {
      start = given.start;
      end = start + durationMs;
    } else if (given.created !== undefined) {
      start = given.created + ring;
      end = start + durationMs;
    } else {
      end = nowMs - faker.number.int({ min: 0, max: 10 * SECOND });
      start = end - durationMs;
    }
    // Nothing ends in the future: a call built from a very recent creation is cut short at now.
    end = Math.min(end, nowMs);
    start = Math.min(start, end);
    created = given.created ?? start - ring;
    finalAt = end;
  } else {
    // Never connected: the dial attempt (or the failure) resolved a little after creation.
    const outcomeDelay = faker.number.int({ min: 3 * SECOND, max: 45 * SECOND });
    created = given.created ?? nowMs - outcomeDelay;
    finalAt = Math.min(created + outcomeDelay, nowMs);
  }
  if (start !== undefined) start = Math.max(start, created);

  // Only outbound calls belong to campaigns; the campaign started before its call was created.
  let campaign: Campaign | null = null;
  if (callType === "outbound") {
    const where = { agent, phoneNumber, callCreated: created, callStatus: status };
    if (partial.campaign) campaign = buildCampaign(ctx, partial.campaign, where);
    else if (partial.campaign === undefined && faker.datatype.boolean(0.35)) campaign = buildCampaign(ctx, {}, where);
  }

  let call: Call = {
    callId: partial.callId ?? faker.string.uuid(),
    callType,
    phoneNumber,
    campaign,
    status: "scheduled",
    transcript: null,
    startTime: null,
    endTime: null,
    duration: null,
    terminationReason: null,
    createdAt: iso(created),
    updatedAt: iso(created),
    dynamicVariables,
    recordingUrl: null,
    agent,
  };
  if (start !== undefined) call = settleCall(call, "in_progress", new Date(start), rand);
  if (finalAt !== undefined) {
    call = settleCall(call, status, new Date(finalAt), rand, {
      terminationReason: reason,
      recording: partial.recordingUrl === null ? false : typeof partial.recordingUrl === "string" ? true : undefined,
      transcript: typeof partial.transcript === "string" ? partial.transcript : undefined,
      limits,
    });
    if (typeof partial.recordingUrl === "string" && call.recordingUrl !== null)
      call = { ...call, recordingUrl: partial.recordingUrl };
    // A finished call's record is touched once more when processing (recording, transcript) is done.
    const processed = Math.min(Date.parse(call.updatedAt) + faker.number.int({ min: SECOND, max: 20 * SECOND }), nowMs);
    call = { ...call, updatedAt: iso(Math.max(processed, Date.parse(call.updatedAt))) };
  }
  const givenUpdated = parseTime(partial.updatedAt);
  if (givenUpdated !== undefined && givenUpdated >= Date.parse(call.updatedAt))
    call = { ...call, updatedAt: iso(givenUpdated) };
  return call;
}

/** A status when none is given: from the given times if any, else mostly finished calls. */
function inferStatus(ctx: BuildContext, partial: Partial<Call>): CallStatus {
  if (partial.endTime || partial.duration != null) return "ended";
  if (partial.startTime) return "in_progress";
  return ctx.faker.helpers.weightedArrayElement([
    { weight: 70, value: "ended" as const },
    { weight: 12, value: "not_connected" as const },
    { weight: 6, value: "error" as const },
    { weight: 6, value: "in_progress" as const },
    { weight: 6, value: "scheduled" as const },
  ]);
}

/** The handling agent's limits, which bound invented durations. */
function limitsOf(ctx: BuildContext, agentId: string): CallLimits {
  const settings = ctx.workspace.collections.agents.get(agentId)?.agentSettings;
  if (!settings) return DEFAULT_LIMITS;
  return { maxCallMinutes: settings.maxCallDuration, silenceMinutes: settings.endCallOnSilenceDuration };
}

/**
 * A number of the workspace for a phone call: one whose default agent for this direction is the
 * call's agent if there is one, else any active number, else any number, else (a fill) a new active
 * number of the call's agent stored for it, else a made-up one.
 */
export function pickPhoneNumber(ctx: BuildContext, callType: CallType, agentId: string): PhoneNumber {
  const numbers = ctx.workspace.collections.phoneNumbers.all();
  const own = numbers.filter(
    (n) => n.active && (callType === "inbound" ? n.inboundAgentId : n.outboundAgentId) === agentId,
  );
  const active = numbers.filter((n) => n.active);
  const pool = own.length > 0 ? own : active.length > 0 ? active : numbers;
  if (pool.length > 0) return ctx.faker.helpers.arrayElement(pool);
  if (!ctx.createMissing) return buildPhoneNumber(ctx, { active: true });
  // The new number answers (or places) the call's agent's calls, when that agent exists.
  const known = ctx.workspace.collections.agents.has(agentId);
  return ctx.createMissing("phoneNumbers", {
    active: true,
    ...(known ? { [callType === "inbound" ? "inboundAgentId" : "outboundAgentId"]: agentId } : {}),
  });
}

/**
 * A number named by a partial: the workspace's record of it when it holds one (the embedded copy never
 * disagrees with the number), else the given number kept, its missing fields filled but not stored.
 */
function numberAsGiven(ctx: BuildContext, given: Partial<PhoneNumber>): PhoneNumber {
  // Not an object at all: kept, for the record check to refuse with the field named.
  if (typeof given !== "object" || Array.isArray(given)) return given as PhoneNumber;
  const stored =
    typeof given.sipPhoneNumber === "string"
      ? ctx.workspace.collections.phoneNumbers.get(given.sipPhoneNumber)
      : undefined;
  return stored ?? buildPhoneNumber(ctx, given);
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const CAMPAIGN_NAMES = [
  "Renewals",
  "Appointment reminders",
  "Payment follow-up",
  "Win-back",
  "Customer survey",
  "Webinar invites",
];
const ROW_ERRORS = [
  "Row 14: phone number is not in E.164 format",
  "Row 31: missing value for variable customerName",
  "Row 52: duplicate phone number",
];

export interface CampaignCall {
  agent: AgentReference;
  phoneNumber: PhoneNumber | null;
  callCreated: number;
  callStatus: CallStatus;
}

/**
 * A campaign as embedded in a call: its agent and number are the call's. It was scheduled before
 * the call was created, except that a still-scheduled call may wait for a campaign start in the future.
 */
export function buildCampaign(ctx: BuildContext, partial: Partial<Campaign>, call: CampaignCall): Campaign {
  const { faker } = ctx;
  const { agent, phoneNumber } = call;
  const future = call.callStatus === "scheduled" && faker.datatype.boolean(0.5);
  const scheduledMs =
    parseTime(partial.scheduledDate) ??
    (future
      ? Math.max(call.callCreated, ctx.now.getTime()) + faker.number.int({ min: MINUTE, max: 120 * MINUTE })
      : call.callCreated - faker.number.int({ min: 0, max: 10 * 24 * 60 * MINUTE }));
  return {
    campaignId: partial.campaignId ?? faker.string.uuid(),
    campaignName:
      partial.campaignName ??
      `${faker.helpers.arrayElement(CAMPAIGN_NAMES)} ${MONTHS[new Date(scheduledMs).getUTCMonth()]}`,
    campaignStatus: partial.campaignStatus ?? "live",
    scheduledDate: iso(scheduledMs),
    concurrentCalls: partial.concurrentCalls ?? faker.number.int({ min: 1, max: 10 }),
    agent,
    // A campaign dials from a number; a call filled without one still gets a campaign that has one.
    phoneNumber:
      phoneNumber ??
      (partial.phoneNumber ? numberAsGiven(ctx, partial.phoneNumber) : pickPhoneNumber(ctx, "outbound", agent.agentId)),
    errors:
      partial.errors ??
      (faker.datatype.boolean(0.3) ? faker.helpers.arrayElements(ROW_ERRORS, { min: 1, max: 2 }) : []),
    scheduled: partial.scheduled ?? true,
  };
}
