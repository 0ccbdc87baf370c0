/**
 * A mock listening beyond this machine without a control token would let anyone who reaches it reset,
 * delete or rewind every team's workspace: it refuses to start, unless told that is meant
 * (`--insecure-control`, `insecureControl`). Loopback is a developer's own machine, as before.
 */
import net from "node:net";

/** 127.0.0.0/8, ::1 and the name localhost: reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  if (bare === "localhost") return true;
  if (net.isIPv4(bare)) return bare.startsWith("127.");
  if (net.isIPv6(bare)) return bare === "::1" || /^::ffff:127\./.test(bare);
  return false;
}

/** Throws the one line `npm start` exits 2 with when the control plane would be open to the network. */
export function refuseOpenControl(host: string, controlToken: string | undefined, insecureControl = false): void {
  if (controlToken || insecureControl || isLoopbackHost(host)) return;
  throw new Error(
    `Refusing to listen on ${host} with an open control plane: anyone who reaches it could reset or delete every workspace. Set --control-token (or MOCK_CONTROL_TOKEN), or pass --insecure-control to accept that.`,
  );
}
