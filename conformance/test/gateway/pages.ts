/** What the gateway answers by itself: nginx-like HTML pages and the API's own JSON error body. */

const REASONS: Record<number, string> = {
  400: "Bad Request",
  408: "Request Time-out",
  413: "Request Entity Too Large",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Temporarily Unavailable",
  504: "Gateway Time-out",
};

export function reason(status: number): string {
  return REASONS[status] ?? "Error";
}

/** The page nginx serves for `status` (the same one-liner AWS ALB and most nginx-based gateways answer). */
export function htmlPage(status: number): string {
  const title = `${status} ${reason(status)}`;
  return `<html><head><title>${title}</title></head><body><center><h1>${title}</h1></center><hr><center>nginx</center></body></html>\n`;
}

export interface Page {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export function htmlAnswer(status: number, extra: Record<string, string> = {}): Page {
  return {
    status,
    headers: { "content-type": "text/html", server: "nginx", ...extra },
    body: Buffer.from(htmlPage(status)),
  };
}

/** The API's 2.2 error body {timestamp,status,error,message,path}, as a gateway configured to mimic the service answers it. */
export function apiJsonAnswer(status: number, path: string, message: string, extra: Record<string, string> = {}): Page {
  const error = status === 429 ? "Too Many Requests" : reason(status);
  const body = { timestamp: new Date().toISOString(), status, error, message, path };
  return { status, headers: { "content-type": "application/json", ...extra }, body: Buffer.from(JSON.stringify(body)) };
}
