/**
 * What the dashboard writes for a person: a curl line that repeats a request (keys as shell variables,
 * never their values), bodies pretty-printed, times on the mock's clocks and relative to them, masked keys.
 * Pure functions, so they are tested without a browser.
 */

/** The parts of a HAR 1.2 entry's request the curl line needs (GET /__mock/requests/{id} `har`). */
export interface HarRequestLike {
  method: string;
  url: string;
  headers: { name: string; value: string }[];
  postData?: { mimeType?: string; text?: string; params?: { name: string; value?: string; fileName?: string }[] };
}

/** Headers a client sends on its own or that only describe the connection: noise in a line to paste. */
const NOISE =
  /^(host|content-length|connection|keep-alive|transfer-encoding|accept-encoding|accept-language|user-agent|origin|referer|cookie|priority|pragma|cache-control|x-mock-dashboard|x-forwarded-.*|sec-.*)$/i;

/** Headers whose value is a secret: the line names a shell variable instead. */
const SECRET_VARIABLES: Record<string, string> = { "x-api-key": "MOCK_API_KEY", authorization: "MOCK_AUTHORIZATION" };

/** Quoted for a POSIX shell: nothing inside is expanded. */
export function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The variable that stands for a secret header's value (`$MOCK_API_KEY` for X-API-Key). */
function variableOf(name: string): string {
  return SECRET_VARIABLES[name.toLowerCase()] ?? `MOCK_${name.toUpperCase().replace(/[^A-Z0-9]+/g, "_")}`;
}

/**
 * A curl command that sends the request again. `url` replaces the HAR's URL when given (the dashboard
 * knows where the mock is; the HAR knows only the Host the client named). Secret headers (the API key, a
 * redacted value) become shell variables in double quotes, so the shell fills them in from the environment.
 */
export function curlOf(request: HarRequestLike, url = request.url): string {
  const data = request.postData;
  // A multipart form: curl builds the body and its boundary again from the fields (-F), so not the header.
  const form = data?.params !== undefined && data.params.length > 0;
  const parts = ["curl"];
  if (request.method !== "GET" || data) parts.push("-X", request.method);
  parts.push(shellQuote(url));
  for (const { name, value } of request.headers) {
    if (NOISE.test(name) || (form && name.toLowerCase() === "content-type")) continue;
    // What curl sends anyway.
    if (name.toLowerCase() === "accept" && value === "*/*") continue;
    if (SECRET_VARIABLES[name.toLowerCase()] || value === "[redacted]")
      parts.push("-H", `"${name}: $${variableOf(name)}"`);
    else parts.push("-H", shellQuote(`${name}: ${value}`));
  }
  if (form)
    for (const p of data!.params!)
      parts.push("-F", shellQuote(p.fileName ? `${p.name}=@${p.fileName}` : `${p.name}=${p.value ?? ""}`));
  else if (data?.text !== undefined && data.text !== "") parts.push("--data-raw", shellQuote(data.text));
  return parts.join(" ");
}

/** A body for reading: JSON indented, anything else as it came; "" for none. */
export function prettyBody(text: string | undefined | null): string {
  if (text === undefined || text === null || text === "") return "";
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** `HH:MM:SS.mmm` of an ISO time (UTC, as the mock's clocks are written); the input when it is not one. */
export function clockTime(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : new Date(ms).toISOString().slice(11, 23);
}

/** `YYYY-MM-DD HH:MM:SS` UTC of an ISO time. */
export function clockDateTime(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : `${new Date(ms).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** How far `iso` is from `nowIso` (a clock's now), for a person: "in 25 s", "3 min ago", "now". */
export function relativeTo(iso: string, nowIso: string): string {
  const diff = Date.parse(iso) - Date.parse(nowIso);
  if (Number.isNaN(diff)) return "";
  const abs = Math.abs(diff);
  if (abs < 1000) return "now";
  const span =
    abs < 60_000
      ? `${Math.round(abs / 1000)} s`
      : abs < 3_600_000
        ? `${Math.round(abs / 60_000)} min`
        : abs < 86_400_000
          ? `${Math.round(abs / 3_600_000)} h`
          : `${Math.round(abs / 86_400_000)} d`;
  return diff > 0 ? `in ${span}` : `${span} ago`;
}

/** A key as the page shows it until asked: its last four characters only. */
export function maskKey(key: string): string {
  return key.length > 8 ? `••••••••${key.slice(-4)}` : "••••••••";
}

/** The class of a status for colour (and the text filter `4xx`): "2xx", "4xx", "5xx", or "reset". */
export function statusClass(status: number | null): string {
  return status === null ? "reset" : `${Math.floor(status / 100)}xx`;
}

/** Whether an entry's status passes the Status filter: empty, an exact status, or a class like `4xx`. */
export function statusMatches(filter: string, status: number | null): boolean {
  const wanted = filter.trim().toLowerCase();
  if (wanted === "") return true;
  if (/^[1-5]xx$/.test(wanted)) return status !== null && Math.floor(status / 100) === Number(wanted[0]);
  if (wanted === "reset") return status === null;
  return String(status) === wanted;
}
