/** Where a request the MSW door takes goes, read from its URL without parsing it when it need not be. */

/**
 * The path and query after the prefix, as the core takes them, and the URL's host. A request the
 * handlers match starts with the base's origin (fetch's URLs are normalized as new URL's are), so
 * they are cut from the text; anything else is parsed. As new URL's: no fragment, and no "?" alone.
 */
export function targetOf(url: string, base: URL, prefix: string): { path: string; host: string } {
  if (!url.startsWith(base.origin) || url.charCodeAt(base.origin.length) !== 47 /* / */) {
    const parsed = new URL(url);
    return { path: parsed.pathname.slice(prefix.length) + parsed.search, host: parsed.host };
  }
  const hash = url.indexOf("#");
  let path = url.slice(base.origin.length + prefix.length, hash === -1 ? url.length : hash);
  if (path.endsWith("?") && path.indexOf("?") === path.length - 1) path = path.slice(0, -1);
  return { path, host: base.host };
}
