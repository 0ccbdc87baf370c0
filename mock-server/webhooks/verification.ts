/**
 * A delivery as the control plane and the event stream show it: with `verified`, whether its signature
 * verifies with the webhook's current secret, as its receiver would check it (and `verifyError`, why not).
 */
import type { Delivery, Workspace } from "../store/workspace.js";
import { signatureProblem } from "./sign.js";

export async function withVerification(delivery: Delivery, workspace: Workspace | undefined): Promise<Delivery> {
  if (delivery.signature === "") return { ...delivery, verified: null };
  const secret = workspace?.collections.webhooks.get(delivery.webhookId)?.secret;
  const problem =
    secret === undefined
      ? `the webhook ${delivery.webhookId} no longer exists`
      : await signatureProblem(delivery.payload, delivery.signature, secret);
  return { ...delivery, verified: problem === undefined, ...(problem && { verifyError: problem }) };
}
