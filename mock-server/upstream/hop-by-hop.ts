/**
 * What a proxy passes on: a message's end-to-end headers. Hop-by-hop headers belong to one
 * connection (RFC 9110, 7.6.1): Connection, the headers it names, Keep-Alive, TE, Trailer,
 * Transfer-Encoding, Upgrade, and the Proxy-* of one hop. Used both ways, on the request the door
 * sends and on the answer it returns, in the Node and the MSW transports alike.
 */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/**
 * The end-to-end headers of `headers` (lower-case names), without `also`: the ones the sender
 * recomputes (Host, Content-Length) or has already dealt with.
 */
export function endToEnd<T extends string | string[]>(
  headers: Readonly<Record<string, T | undefined>>,
  also: readonly string[] = [],
): Record<string, T> {
  const named = new Set(
    [headers.connection ?? []]
      .flat()
      .flatMap((value) => value.split(","))
      .map((name) => name.trim().toLowerCase()),
  );
  const out: Record<string, T> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && !HOP_BY_HOP.has(name) && !named.has(name) && !also.includes(name)) out[name] = value;
  return out;
}
