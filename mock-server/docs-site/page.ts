/**
 * /docs: a self-contained, interactive reference page rendered from the bundled spec: every
 * operation by tag, with its parameters, body, statuses and assumptions, and a "Try it" form that
 * calls the mock with the API key typed in. No external assets: it works offline.
 * The core serves it only to a door that brings no docs site (MSW); the Node doors bring Swagger UI
 * (site.ts).
 */
import type { Contract } from "../core/contract.js";
import type { Operation } from "../core/operations.js";

const escape = (text: unknown) =>
  String(text ?? "").replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );

function schemaName(schema: unknown): string {
  const ref = (schema as { $ref?: string })?.$ref;
  return ref ? ref.split("/").pop()! : "object";
}

type Deref = <T = Record<string, any>>(node: unknown) => T;

function firstJsonExample(deref: Deref, op: Record<string, any>): unknown {
  const body = op.requestBody ? deref<Record<string, any>>(op.requestBody) : undefined;
  const first = Object.values<unknown>(body?.content?.["application/json"]?.examples ?? {})[0];
  return first ? deref<{ value: unknown }>(first).value : {};
}

function operationSection(deref: Deref, op: Operation, raw: Record<string, any>): string {
  const params = [...(raw.item.parameters ?? []), ...(raw.op.parameters ?? [])].map((p: unknown) =>
    deref<Record<string, any>>(p),
  );
  const rows = params
    .map((p) => {
      const s = deref<Record<string, any>>(p.schema);
      const bounds = [
        s.default !== undefined && `default ${s.default}`,
        s.minimum !== undefined && `>= ${s.minimum}`,
        s.enum && `one of ${s.enum.join(", ")}`,
        s.pattern && `pattern ${s.pattern}`,
      ]
        .filter(Boolean)
        .join("; ");
      return `<tr><td><code>${escape(p.name)}</code></td><td>${escape(p.in)}</td><td>${escape(s.type ?? "")}${s.format ? ` (${escape(s.format)})` : ""}</td><td>${escape(bounds)}</td></tr>`;
    })
    .join("");
  const statuses = [...op.responses.keys()].map((s) => `<span class="status s${String(s)[0]}">${s}</span>`).join(" ");
  const assumption = raw.op["x-assumption"]
    ? `<p class="assumption">Assumption: ${escape(raw.op["x-assumption"])}</p>`
    : "";
  const body = op.bodyType
    ? `<p>Body <code>${escape(op.bodyType)}</code>: <code>${escape(schemaName(op.bodySchema))}</code></p>`
    : "";
  const sample =
    op.bodyType === "application/json" ? escape(JSON.stringify(firstJsonExample(deref, raw.op), null, 2)) : "";
  return `<section class="operation" id="${op.operationId}" data-operation-id="${op.operationId}">
  <h3><span class="method ${op.method}">${op.method.toUpperCase()}</span> <code>${escape(op.path)}</code> <small>${escape(op.operationId)}</small></h3>
  <p><strong>${escape(raw.op.summary)}</strong>. ${escape(raw.op.description)}</p>${assumption}
  ${rows ? `<table><tr><th>Parameter</th><th>In</th><th>Type</th><th>Rules</th></tr>${rows}</table>` : ""}
  ${body}<p>Responses: ${statuses}</p>
  <details><summary>Try it</summary><form class="try" data-method="${op.method}" data-path="${escape(op.path)}" data-body="${op.bodyType ?? ""}">
    ${params
      .filter((p) => p.in !== "header")
      .map((p) => `<label>${escape(p.name)} <input name="${escape(p.in)}:${escape(p.name)}"></label>`)
      .join(" ")}
    ${op.bodyType === "application/json" ? `<textarea name="body" rows="6">${sample}</textarea>` : ""}
    ${op.bodyType === "multipart/form-data" ? `<label>name <input name="form:name"></label> <input type="file" name="file" multiple>` : ""}
    <button type="submit">Send</button><pre class="result"></pre></form></details>
</section>`;
}

const SCRIPT = `
document.querySelectorAll("form.try").forEach((form) => form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const data = new FormData(form);
  let path = form.dataset.path; const query = new URLSearchParams(); let body; const headers = { "X-API-Key": document.getElementById("api-key").value };
  for (const [key, value] of data) {
    const [where, name] = key.split(":");
    if (where === "path") path = path.replace("{" + name + "}", encodeURIComponent(value));
    if (where === "query" && value !== "") query.set(name, value);
  }
  if (form.dataset.body === "application/json") { body = data.get("body"); headers["Content-Type"] = "application/json"; }
  if (form.dataset.body === "multipart/form-data") { body = new FormData(); body.set("name", data.get("form:name")); for (const f of data.getAll("file")) if (f.size) body.append("knowledge_base_files", f); }
  const out = form.querySelector(".result");
  const response = await fetch(path + (query.size ? "?" + query : ""), { method: form.dataset.method.toUpperCase(), headers, body });
  const text = await response.text();
  try { out.textContent = response.status + "\\n" + JSON.stringify(JSON.parse(text), null, 2); } catch { out.textContent = response.status + "\\n" + text; }
}));`;

const STYLE = `body{font:14px/1.5 system-ui,sans-serif;margin:0 auto;max-width:1000px;padding:1rem;color:#222}
h2{border-bottom:2px solid #ddd;margin-top:2rem}.operation{border:1px solid #ddd;border-radius:6px;padding:.5rem 1rem;margin:.75rem 0}
.method{display:inline-block;min-width:4rem;text-align:center;border-radius:4px;color:#fff;font-size:.8rem;padding:2px 6px}
.get{background:#2b7a3d}.post{background:#1f5fa8}.patch{background:#a86b1f}.delete{background:#a82b2b}.put{background:#6b1fa8}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ddd;padding:2px 8px;text-align:left}
.status{border-radius:3px;padding:0 5px;background:#eee}.s2{background:#d6f0dc}.s4{background:#f7e3c8}.s5{background:#f4cccc}
.assumption{background:#fff8d6;border-left:3px solid #e0c341;padding:2px 8px}textarea{width:100%;font-family:monospace}pre{background:#f6f6f6;padding:.5rem;overflow:auto}`;

/** The page of a contract's spec; the core keeps it as long as it serves that contract. */
export function docsPage(contract: Contract): string {
  const spec = contract.document as Record<string, any>;
  const operations = contract.operations;
  const deref: Deref = (node) => contract.deref(node);
  const sections = (spec.tags as { name: string; description: string }[])
    .map((tag) => {
      const ops = operations.filter((op) => op.tags.includes(tag.name));
      const html = ops.map((op) => {
        const item = deref<Record<string, any>>(spec.paths[op.path]);
        return operationSection(deref, op, { item, op: item[op.method] });
      });
      return `<h2 id="tag-${escape(tag.name)}">${escape(tag.name)}</h2><p>${escape(tag.description)}</p>${html.join("\n")}`;
    })
    .join("\n");
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(spec.info.title)} (mock)</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>${STYLE}</style></head><body>
<h1>${escape(spec.info.title)} <small>v${escape(spec.info.version)}</small></h1>
<p>${escape(spec.info.summary)} ${operations.length} operations. The bundled document: <a href="/openapi.json">/openapi.json</a>.</p>
<p><label>API key <input id="api-key" size="40" value=""></label> (printed by <code>npm start</code>)</p>
${sections}<script>${SCRIPT}</script></body></html>`;
  return html;
}
