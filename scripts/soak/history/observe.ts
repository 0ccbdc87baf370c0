/**
 * The observer op of the history checker: a client reads another client's integration with that
 * workspace's key. Each read is a register read (its name, or absent after a reset or delete) that
 * checks.ts holds against the owner's writes; it is not replayed on the model.
 */
import { type Client, type OpOf, pick, type Redirect } from "./client.js";
import { ABSENT } from "./workspace.js";

export async function observe(client: Client, op: OpOf<"observe">, redirect: Redirect): Promise<string> {
  const { other, i, r } = op;
  const peers = client.allClients().filter((c) => c.index !== client.index && c.workspaces.length > 0);
  const peer = pick(peers, other);
  const w = peer && pick(peer.workspaces, i);
  const integration = w && pick(w.integrations, i);
  if (!w || !integration) return redirect({ k: "list", w: i, what: "agents", r });
  const { real, entry } = await client.request(
    {
      label: "observe integration",
      method: "GET",
      path: `/v1/integrations/${integration.real}`,
      key: w.real.key,
      workspace: w,
      role: "observer",
    },
    r,
  );
  if (real) {
    const name = (real.body as { name?: string } | undefined)?.name;
    const value =
      real.status === 200 && name !== undefined
        ? name
        : real.status === 404 || real.status === 401
          ? ABSENT
          : `status ${real.status}`;
    entry.read = { register: `${w.real.id}/${integration.real}`, value };
    client.ctx.figures.registerReads++;
  }
  return "observe";
}
