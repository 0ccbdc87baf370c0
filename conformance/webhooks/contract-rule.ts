/**
 * The webhook contract, on the kit's mock only (a webhook pointing at loopback can only be made
 * through the control plane): a conversation started through E16 is delivered to a receiver on
 * loopback, the payload validates against the spec's `webhooks` schema, and its signature verifies
 * with verifyWebhookSignature (on the receiver's own clock), which rejects a tampered body and an old timestamp.
 */
import { verifyWebhookSignature } from "../../mock-server/webhooks/signature.js";
import { schemaIssues } from "../lib/conforms.js";
import type { RuleSpec } from "../lib/rule.js";
import { startReceiver, type Delivery } from "./receiver.js";

const header = (d: Delivery, name: string) => {
  const v = d.headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
};

export const webhookContractRule: RuleSpec = {
  id: "conversationStartedEvent.signed-delivery",
  operationId: "createChat",
  level: "assumed",
  readOnly: false,
  description:
    "E16 delivers conversation_started to the agent's webhook, valid and signed (assumptions on payload and signature).",
  run: async (t) => {
    const control = t.fixtures.control;
    const agentId = t.fixtures.agentId;
    if (!control || !agentId) return t.skip("needs the mock's control plane to point a webhook at a loopback receiver");
    const receiver = await startReceiver();
    let hookId: string | undefined;
    try {
      // An agent of its own: the receiver closes after this rule, and later rules' conversations with
      // the fixture agent must not be sent to it (each would fail, be retried and be logged).
      const own = await control!.createRecord("agents", { agentName: `${t.fixtures.runId} webhook contract agent` });
      const hook = await control!.createRecord("webhooks", {
        agentId: own.agentId,
        url: receiver.url,
        active: true,
        events: "conversation_started",
      });
      hookId = hook.webhookId;
      const chat = await t.call("createChat", {
        method: "POST",
        path: "/v1/chat",
        body: { agentId: own.agentId, conversation: "Hello", variables: { customerName: "Dana" } },
      });
      if (!t.expectStatus(chat, 200)) return;
      const isStarted = (d: Delivery) =>
        header(d, "X-Webhook-Id") === hook.webhookId && header(d, "X-Webhook-Event") === "conversation_started";
      let delivery = await receiver.waitFor(isStarted, 1500);
      if (!delivery) {
        // Under a virtual clock deliveries wait for time to move.
        await t.fixtures.advanceClock(1);
        delivery = await receiver.waitFor(isStarted, 3000);
      }
      if (
        !t.expect(!!delivery, {
          pointer: "",
          expected: "a conversation_started delivery",
          actual: `${receiver.deliveries.length} deliveries`,
          message: `webhook ${hook.webhookId} receives conversation_started after E16`,
        }) ||
        !delivery
      )
        return;
      const payload = JSON.parse(delivery.rawBody);
      for (const issue of schemaIssues(
        payload,
        "/webhooks/conversation_started/post/requestBody/content/application~1json/schema",
        t.level,
      )) {
        t.expect(false, { ...issue, message: `delivered payload: ${issue.message}` });
      }
      t.expectEqual(payload.agentId, own.agentId, "/agentId", "the delivery names the agent");
      const signature = header(delivery, "X-Webhook-Signature") ?? "";
      t.expect(/^t=[0-9]+,v1=[0-9a-f]{64}$/.test(signature), {
        pointer: "#header/x-webhook-signature",
        expected: "t=<unix>,v1=<64 hex>",
        actual: signature,
        message: "signature header format",
      });
      const signedAt = Number(/t=(\d+)/.exec(signature)?.[1]);
      // Signatures carry the wall-clock time of the attempt, also under a virtual clock: a receiver
      // checks them with its own clock, as a real one would.
      const now = new Date();
      const secret = hook.secret as string;
      t.expect(verifyWebhookSignature({ payload: delivery.rawBody, header: signature, secret, now }), {
        pointer: "#header/x-webhook-signature",
        expected: "a valid HMAC-SHA256 of t.body",
        actual: signature,
        message: "the signature verifies with the webhook secret",
      });
      t.expect(!verifyWebhookSignature({ payload: `${delivery.rawBody} `, header: signature, secret, now }), {
        pointer: "",
        expected: "rejected",
        actual: "accepted",
        message: "a tampered body is rejected",
      });
      t.expect(
        !verifyWebhookSignature({
          payload: delivery.rawBody,
          header: signature,
          secret,
          now: new Date((signedAt + 301) * 1000),
        }),
        { pointer: "", expected: "rejected", actual: "accepted", message: "a timestamp older than 300 s is rejected" },
      );
      t.expect(!verifyWebhookSignature({ payload: delivery.rawBody, header: signature, secret: `${secret}x`, now }), {
        pointer: "",
        expected: "rejected",
        actual: "accepted",
        message: "another secret is rejected",
      });
    } finally {
      // Every delivery to this receiver settles before it closes. Only conversation_started is subscribed:
      // the conversation's end comes later, on a clock advance, when the receiver is gone.
      for (let waited = 0; hookId && waited < 3000; waited += 25) {
        const pending = (await control!.webhookDeliveries()).filter(
          (d) => d.webhookId === hookId && d.status === "pending",
        );
        if (pending.length === 0) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      await receiver.close();
    }
  },
};
