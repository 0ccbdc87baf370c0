/** CORS for browser apps on any origin: the mock holds no cookies, so a wildcard is safe. */
import type { RequestHandler } from "express";

export function cors(): RequestHandler {
  return function allowCrossOrigin(req, res, next) {
    res.setHeader("Access-Control-Allow-Origin", "*");
    res.setHeader("Access-Control-Expose-Headers", "X-Request-Id, Allow, Preference-Applied");
    if (req.method === "OPTIONS" && req.headers["access-control-request-method"]) {
      res.setHeader("Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE, OPTIONS");
      res.setHeader("Access-Control-Allow-Headers", req.headers["access-control-request-headers"] ?? "X-API-Key, Content-Type, Prefer");
      res.setHeader("Access-Control-Max-Age", "600");
      res.status(204).end();
      return;
    }
    next();
  };
}
