/** E2-E5: integrations and their credentials. Credentials go to the workspace's secrets only. */
import type { HandlerTable } from "./context.js";
import type { Integration, IntegrationAuth } from "../store/records.js";
import { laterThan } from "./timestamps.js";

export const integrationHandlers: HandlerTable<
  "createIntegration" | "getIntegration" | "updateIntegration" | "createIntegrationAuth"
> = {
  createIntegration: ({ workspace, body }) => {
    const now = workspace.clock.iso();
    const integration: Integration = {
      integrationId: workspace.random.uuid(),
      name: body.name,
      description: body.description ?? null,
      authentication: null,
      tools: [],
      createdAt: now,
      updatedAt: now,
    };
    return { status: 201, body: workspace.collections.integrations.create(integration) };
  },

  getIntegration: ({ workspace, params }) => ({
    status: 200,
    body: workspace.collections.integrations.require(params.integrationId, "Integration"),
  }),

  updateIntegration: ({ workspace, params, body }) => {
    const current = workspace.collections.integrations.require(params.integrationId, "Integration");
    // Partial update: only supplied fields change.
    const next: Integration = {
      ...current,
      ...(body.name !== undefined && { name: body.name }),
      ...(body.description !== undefined && { description: body.description }),
      updatedAt: laterThan(current.updatedAt, workspace.clock.iso()),
    };
    return { status: 200, body: workspace.collections.integrations.replace(current.integrationId, next) };
  },

  createIntegrationAuth: ({ workspace, params, body }) => {
    const current = workspace.collections.integrations.require(params.integrationId, "Integration");
    const now = workspace.clock.iso();
    const auth: IntegrationAuth = {
      authId: workspace.random.uuid(),
      integrationId: current.integrationId,
      authType: body.authType,
      headers: body.headers ?? [],
      createdAt: now,
      updatedAt: now,
    };
    workspace.credentials.set(current.integrationId, body);
    workspace.collections.integrations.replace(current.integrationId, {
      ...current,
      authentication: auth,
      updatedAt: laterThan(current.updatedAt, now),
    });
    return { status: 200, body: auth };
  },
};
