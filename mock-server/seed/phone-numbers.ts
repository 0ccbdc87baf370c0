/**
 * Phone numbers (2.10). Numbers come from ranges reserved for fiction (US 555-01XX, UK Ofcom drama
 * range 020 7946 0XXX, Australian 02 5550 XXXX), so seed data can never ring a real line.
 */
import type { PhoneNumber } from "../store/records.js";
import { agentReference, agentsOf, lowerAlnum, type BuildContext } from "./context.js";

export const PROVIDERS: readonly PhoneNumber["provider"][] = ["<carrier_a>", "<carrier_b>", "byo"];

const US_AREA_CODES = ["415", "628", "212", "646", "312", "617", "206", "512"];

/** An E.164 number (^\+[1-9][0-9]{1,14}$) from a fictional range, mostly US. */
export function fictionalE164(ctx: BuildContext): string {
  const { faker } = ctx;
  const country = faker.helpers.weightedArrayElement([
    { weight: 7, value: "US" },
    { weight: 2, value: "GB" },
    { weight: 1, value: "AU" },
  ]);
  switch (country) {
    case "GB":
      return `+442079460${faker.string.numeric(3)}`;
    case "AU":
      return `+6125550${faker.string.numeric(4)}`;
    default:
      return `+1${faker.helpers.arrayElement(US_AREA_CODES)}55501${faker.string.numeric(2)}`;
  }
}

/** A fictional number the workspace does not hold yet (sipPhoneNumber is the store id). */
export function unusedE164(ctx: BuildContext): string {
  const store = ctx.workspace.collections.phoneNumbers;
  for (let i = 0; i < 50; i++) {
    const candidate = fictionalE164(ctx);
    if (!store.has(candidate)) return candidate;
  }
  // 50 collisions means the fictional ranges are crowded: fall back to a long US-style number.
  return `+1415555${ctx.faker.string.numeric(7)}`;
}

const LABELS = [
  "Support line",
  "Sales line",
  "Main office",
  "After hours",
  "Billing desk",
  "Bookings",
  "Campaigns",
  "Front desk",
];

export function buildPhoneNumber(ctx: BuildContext, partial: Partial<PhoneNumber> = {}): PhoneNumber {
  const { faker } = ctx;
  const agents = agentsOf(ctx);
  const agentIdOrNull = (p: number) =>
    agents.length > 0 && faker.datatype.boolean(p) ? faker.helpers.arrayElement(agents).agentId : null;
  // A fill in a workspace without agents: the number answers a new agent rather than none.
  const newAgentId =
    partial.inboundAgentId === undefined && agents.length === 0 && ctx.createMissing
      ? agentReference(ctx).agentId
      : undefined;
  const sipPhoneNumber = partial.sipPhoneNumber ?? unusedE164(ctx);
  const city = sipPhoneNumber.startsWith("+44")
    ? "London"
    : sipPhoneNumber.startsWith("+61")
      ? "Sydney"
      : faker.location.city();
  return {
    sipPhoneNumber,
    provider: partial.provider ?? faker.helpers.arrayElement(PROVIDERS),
    inboundAgentId: partial.inboundAgentId !== undefined ? partial.inboundAgentId : (newAgentId ?? agentIdOrNull(0.8)),
    outboundAgentId: partial.outboundAgentId !== undefined ? partial.outboundAgentId : agentIdOrNull(0.6),
    // Usually calls go out from the number itself; sometimes from a shared caller id.
    outboundPhoneNumber:
      partial.outboundPhoneNumber !== undefined
        ? partial.outboundPhoneNumber
        : faker.helpers.weightedArrayElement([
            { weight: 5, value: sipPhoneNumber },
            { weight: 2, value: null },
            { weight: 2, value: fictionalE164(ctx) },
          ]),
    active: partial.active ?? faker.datatype.boolean(0.8),
    terminationSipURI:
      partial.terminationSipURI !== undefined
        ? partial.terminationSipURI
        : `sip:trunk-${lowerAlnum(ctx, 2)}.example.com`,
    friendlyName:
      partial.friendlyName !== undefined ? partial.friendlyName : `${faker.helpers.arrayElement(LABELS)} (${city})`,
  };
}
