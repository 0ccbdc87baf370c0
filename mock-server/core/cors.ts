/** CORS for browser apps on any origin: the mock holds no cookies, so a wildcard is safe. */

/** On every reply. */
export const CORS_HEADERS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers": "X-Request-Id, Allow, Preference-Applied",
} as const;

/** The answer to a preflight (OPTIONS with Access-Control-Request-Method), whatever the path. */
export function preflightHeaders(requestHeaders: string | undefined): Record<string, string> {
  return {
    "Access-Control-Allow-Methods": "GET, POST, PUT, PATCH, DELETE, OPTIONS",
    "Access-Control-Allow-Headers": requestHeaders ?? "X-API-Key, Content-Type, Prefer",
    "Access-Control-Max-Age": "600",
  };
}
