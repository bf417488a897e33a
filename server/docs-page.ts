import { tokenizeInlineMarkdown } from "./docs-markdown.js";

/**
 * The API reference at `/docs`: one self-contained page that renders `/openapi.json` in the
 * browser, its descriptions' Markdown included. No framework, no network beyond the control
 * plane itself; text goes into the page only as text nodes.
 */
export const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>workcell API reference</title>
<style>
  :root { color-scheme: light dark; --muted: #6b7280; --line: #d1d5db; --get: #2563eb; --post: #16a34a; --patch: #b45309; --delete: #dc2626; }
  body { font: 15px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; }
  h1 { margin-bottom: 0; } .lead { color: var(--muted); margin-top: .25rem; }
  h2 { text-transform: capitalize; border-bottom: 1px solid var(--line); padding-bottom: .25rem; margin-top: 2rem; }
  details { border: 1px solid var(--line); border-radius: 6px; margin: .5rem 0; }
  summary { cursor: pointer; padding: .5rem .75rem; display: flex; gap: .75rem; align-items: baseline; }
  .method { font: 600 12px ui-monospace, monospace; text-transform: uppercase; min-width: 4rem; }
  .get { color: var(--get); } .post { color: var(--post); } .patch { color: var(--patch); } .delete { color: var(--delete); }
  code, pre { font-family: ui-monospace, monospace; font-size: 13px; }
  .body { padding: 0 .75rem .75rem; } .summary-text { color: var(--muted); }
  pre { overflow: auto; background: rgba(127,127,127,.1); padding: .5rem; border-radius: 4px; max-height: 24rem; }
  table { border-collapse: collapse; } td, th { text-align: left; padding: .15rem .75rem .15rem 0; vertical-align: top; }
</style>
</head>
<body>
<h1>workcell API reference</h1>
<p class="lead" id="lead">Loading <a href="/openapi.json">/openapi.json</a>…</p>
<main id="api"></main>
<script>
const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  for (const child of children) node.append(child);
  return node;
};
const pretty = (schema) => el("pre", {}, JSON.stringify(schema, null, 2));
const tokenizeInlineMarkdown = ${tokenizeInlineMarkdown.toString()};
const md = (tag, text, attrs = {}) => {
  const node = el(tag, attrs);
  for (const token of tokenizeInlineMarkdown(String(text ?? ""))) {
    if (token.kind === "text") node.append(token.text);
    else if (token.kind === "link") node.append(el("a", { href: token.href }, token.text));
    else node.append(el(token.kind, {}, token.text));
  }
  return node;
};
fetch("/openapi.json").then((response) => response.json()).then((doc) => {
  document.getElementById("lead").replaceChildren(md("span", doc.info.description + " Version " + doc.info.version + "."));
  const byTag = new Map();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const tag = (op.tags || ["other"])[0];
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag).push({ path, method, op });
    }
  }
  const main = document.getElementById("api");
  for (const [tag, ops] of byTag) {
    main.append(el("h2", {}, tag));
    for (const { path, method, op } of ops) {
      const body = el("div", { class: "body" }, md("p", op.summary));
      if (op.parameters) {
        const rows = op.parameters.map((p) => el("tr", {}, el("td", {}, el("code", {}, p.name)), el("td", {}, p.in + (p.required ? ", required" : "")), el("td", {}, el("code", {}, JSON.stringify(p.schema)))));
        body.append(el("h4", {}, "Parameters"), el("table", {}, ...rows));
      }
      const request = op.requestBody && op.requestBody.content["application/json"];
      if (request) body.append(el("h4", {}, "Request body" + (op.requestBody.required ? "" : " (optional)")), pretty(request.schema));
      for (const [status, response] of Object.entries(op.responses)) {
        const content = response.content && Object.entries(response.content)[0];
        body.append(md("h4", status + " — " + response.description));
        if (content && content[1].schema && !content[1].schema.$ref) body.append(pretty(content[1].schema));
      }
      main.append(el("details", { id: op.operationId }, el("summary", {}, el("span", { class: "method " + method }, method), el("code", {}, path), md("span", op.summary, { class: "summary-text" })), body));
    }
  }
}).catch((error) => { document.getElementById("lead").textContent = "Could not load /openapi.json: " + error; });
</script>
</body>
</html>
`;
