/**
 * Where a request carries the run's credential, as the document's security scheme asks: an API key in a
 * header, the query or a cookie; an HTTP bearer token (also OAuth2 and OpenID Connect: the run is given
 * a token); HTTP basic (`--api-key user:password`). Without a placement the suite sends X-API-Key, as
 * the bundled spec says. The curl lines read the credential from "$API_KEY" whatever its place.
 */
import type { Json, JsonObject } from "../../mock-server/core/exchange-rules/json-document.js";

export type CredentialPlacement = (
  | { type: "apiKey"; in: "header" | "query" | "cookie"; name: string }
  | { type: "bearer" }
  | { type: "basic" }
) & {
  /** The security scheme's name in the document, when it comes from one. */
  scheme?: string;
};

const isObject = (v: Json | undefined): v is JsonObject => !!v && typeof v === "object" && !Array.isArray(v);

/** The placement a security scheme object asks for; undefined for one the suite cannot fill (mutual TLS). */
export function placementOfScheme(scheme: JsonObject | undefined): CredentialPlacement | undefined {
  if (!scheme) return undefined;
  switch (scheme.type) {
    case "apiKey": {
      const where = scheme.in;
      if ((where === "header" || where === "query" || where === "cookie") && typeof scheme.name === "string")
        return { type: "apiKey", in: where, name: scheme.name };
      return undefined;
    }
    case "http":
      if (String(scheme.scheme).toLowerCase() === "basic") return { type: "basic" };
      if (String(scheme.scheme).toLowerCase() === "bearer") return { type: "bearer" };
      return undefined;
    case "oauth2":
    case "openIdConnect":
      return { type: "bearer" };
    default:
      return undefined;
  }
}

/**
 * The placement of the document's credential: the first scheme of the first security requirement (the
 * document's own, else the first operation's) the suite can fill. Undefined when nothing asks for one.
 */
export function credentialPlacement(doc: JsonObject): CredentialPlacement | undefined {
  const schemes = (
    isObject(doc.components) && isObject(doc.components.securitySchemes) ? doc.components.securitySchemes : {}
  ) as JsonObject;
  const requirements: Json[] = [...(Array.isArray(doc.security) ? doc.security : [])];
  for (const item of Object.values(isObject(doc.paths) ? doc.paths : {}))
    if (isObject(item))
      for (const op of Object.values(item))
        if (isObject(op) && Array.isArray(op.security)) requirements.push(...op.security);
  for (const requirement of requirements) {
    if (!isObject(requirement)) continue;
    for (const name of Object.keys(requirement)) {
      const placement = placementOfScheme(schemes[name] as JsonObject | undefined);
      if (placement) return { ...placement, scheme: name };
    }
  }
  return undefined;
}

/** The security requirements of an operation: its own, else the document's (none: open). */
function requirementsOf(doc: JsonObject, path: string, method: string): Json[] {
  const item = (isObject(doc.paths) ? doc.paths[path] : undefined) as JsonObject | undefined;
  const op = (item?.[method.toLowerCase()] ?? {}) as JsonObject;
  const own = op.security ?? doc.security;
  return Array.isArray(own) ? own : [];
}

/** Whether the operation needs a credential: a requirement, and no empty (anonymous) alternative. */
export function requiresCredential(doc: JsonObject, path: string, method: string): boolean {
  const requirements = requirementsOf(doc, path, method);
  return requirements.length > 0 && requirements.every((r) => isObject(r) && Object.keys(r).length > 0);
}

/**
 * Where the credential goes for one operation: the run's placement whenever one of the operation's
 * requirements names the run's scheme (one credential, one place, for the whole run), else the first
 * scheme of the operation's own the suite can fill. Undefined: the run's placement.
 */
export function operationPlacement(
  doc: JsonObject,
  path: string,
  method: string,
  run: CredentialPlacement | undefined,
): CredentialPlacement | undefined {
  const schemes = (
    isObject(doc.components) && isObject(doc.components.securitySchemes) ? doc.components.securitySchemes : {}
  ) as JsonObject;
  const requirements = requirementsOf(doc, path, method).filter(isObject);
  if (requirements.length === 0 || requirements.some((r) => run?.scheme !== undefined && run.scheme in r))
    return undefined;
  for (const requirement of requirements)
    for (const name of Object.keys(requirement)) {
      const placement = placementOfScheme(schemes[name] as JsonObject | undefined);
      if (placement) return { ...placement, scheme: name };
    }
  return undefined;
}

/** Puts `key` where `placement` says: into `headers`, or into `url`'s query. */
export function placeCredential(
  placement: CredentialPlacement,
  key: string,
  headers: Record<string, string>,
  url: URL,
): void {
  switch (placement.type) {
    case "bearer":
      headers.Authorization = `Bearer ${key}`;
      return;
    case "basic":
      headers.Authorization = `Basic ${Buffer.from(key, "utf8").toString("base64")}`;
      return;
    case "apiKey":
      if (placement.in === "header") headers[placement.name] = key;
      else if (placement.in === "query") url.searchParams.set(placement.name, key);
      else headers.Cookie = `${placement.name}=${key}`;
  }
}

/** How the placement is named in one sentence (the run's first lines). */
export function describePlacement(placement: CredentialPlacement | undefined): string {
  if (!placement) return "X-API-Key header";
  if (placement.type === "bearer") return "Authorization: Bearer";
  if (placement.type === "basic") return "Authorization: Basic (user:password)";
  return `${placement.name} ${placement.in === "header" ? "header" : placement.in === "query" ? "query parameter" : "cookie"}`;
}
