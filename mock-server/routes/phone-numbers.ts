/**
 * E14-E15: phone numbers, addressed by E.164 value. The trunk name, user and password of E15 are kept
 * in the workspace's secrets: the 2.10 shape shows none of them.
 */
import type { HandlerTable } from "./context.js";
import { pageOf } from "../core/pagination.js";
import type { PhoneNumber } from "../store/records.js";

export const phoneNumberHandlers: HandlerTable<"listPhoneNumbers" | "updatePhoneNumber"> = {
  listPhoneNumbers: ({ workspace, query }) => ({
    status: 200,
    body: pageOf(
      workspace.collections.phoneNumbers,
      { order: "newest", page: query.page!, size: query.size! },
      { totalField: "totalCounts" },
    ),
  }),

  updatePhoneNumber: ({ workspace, params, body }) => {
    const current = workspace.collections.phoneNumbers.require(params.phoneNumber, "Phone number");
    for (const field of ["inboundAgentId", "outboundAgentId"] as const) {
      if (body[field] !== undefined) workspace.collections.agents.require(body[field], "Agent");
    }
    const next: PhoneNumber = {
      ...current,
      ...(body.friendlyName !== undefined && { friendlyName: body.friendlyName }),
      ...(body.inboundAgentId !== undefined && { inboundAgentId: body.inboundAgentId }),
      ...(body.outboundAgentId !== undefined && { outboundAgentId: body.outboundAgentId }),
      ...(body.terminationSipUri !== undefined && { terminationSipURI: body.terminationSipUri }),
    };
    const trunk = { ...workspace.trunks.get(current.sipPhoneNumber) };
    if (body.sipTrunkName !== undefined) trunk.sipTrunkName = body.sipTrunkName;
    if (body.trunkUsername !== undefined) trunk.trunkUsername = body.trunkUsername;
    if (body.trunkPassword !== undefined) trunk.trunkPassword = body.trunkPassword;
    workspace.trunks.set(current.sipPhoneNumber, trunk);
    return { status: 200, body: workspace.collections.phoneNumbers.replace(current.sipPhoneNumber, next) };
  },
};
