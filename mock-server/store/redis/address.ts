/**
 * What `--store` names: `redis[s]://[[USER]:PASSWORD@]HOST:PORT[,HOST:PORT...][/DB]`. One address is
 * one Redis, or the seed of a Redis Cluster (the link asks it); several are seeds of a Cluster. Read by
 * hand: a comma list is no URL, and the password must never reach a message (`where`).
 */

export interface StoreAddress {
  tls: boolean;
  username?: string;
  password?: string;
  seeds: { host: string; port: number }[];
  /** The database asked for (`/DB`); a Cluster has only 0 and refuses it. */
  db?: number;
}

const DEFAULT_PORT = 6379;

export function parseStoreAddress(url: string): StoreAddress {
  const scheme = /^(rediss?):\/\//i.exec(url);
  if (!scheme) throw new Error(`--store ${where(url)}: expected redis://HOST:PORT[,HOST:PORT...][/DB]`);
  let rest = url.slice(scheme[0].length);
  const query = rest.indexOf("?");
  if (query !== -1) rest = rest.slice(0, query);
  const slash = rest.indexOf("/");
  const path = slash === -1 ? "" : rest.slice(slash + 1);
  if (slash !== -1) rest = rest.slice(0, slash);
  const at = rest.lastIndexOf("@");
  const auth = at === -1 ? "" : rest.slice(0, at);
  const hosts = at === -1 ? rest : rest.slice(at + 1);
  const colon = auth.indexOf(":");
  const username = decodeURIComponent(colon === -1 ? auth : auth.slice(0, colon));
  const password = colon === -1 ? "" : decodeURIComponent(auth.slice(colon + 1));
  const seeds = hosts.split(",").map((seed) => {
    const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(seed);
    const plain = /^([^:]+)(?::(\d+))?$/.exec(seed);
    const match = bracket ?? plain;
    if (!match?.[1]) throw new Error(`--store ${where(url)}: cannot read the address "${seed}"`);
    return { host: match[1], port: match[2] ? Number(match[2]) : DEFAULT_PORT };
  });
  if (path !== "" && !/^\d+$/.test(path)) throw new Error(`--store ${where(url)}: the database must be a number`);
  return {
    tls: scheme[1].toLowerCase() === "rediss",
    ...(username && { username }),
    ...(password && { password }),
    seeds,
    ...(path !== "" && { db: Number(path) }),
  };
}

/** The address as it may be shown: no password (nor query, which could hold one), no trailing slash. */
export function where(url: string): string {
  return url
    .replace(/\?.*$/, "")
    .replace(/\/$/, "")
    .replace(/^([a-z]+:\/\/)([^@/]*)@/i, (_, scheme: string, auth: string) => {
      const user = auth.split(":")[0];
      return user ? `${scheme}${user}@` : scheme;
    });
}
