/**
 * @module The human docs page at /docs, rendered on the server from the OpenAPI document:
 * plain HTML and inline CSS (no CDN, no script), readable in light and dark color schemes.
 */
import type { OpenApiDocument } from './document.ts';

// The slice of OpenAPI 3.1 this page reads.
interface SchemaLike {
  $ref?: string;
  example?: unknown;
  examples?: unknown[];
}
interface MediaLike {
  schema?: SchemaLike;
  example?: unknown;
}
interface OperationLike {
  summary?: string;
  description?: string;
  security?: Record<string, string[]>[];
  requestBody?: { required?: boolean; content?: Record<string, MediaLike> };
  responses?: Record<string, { description?: string; content?: Record<string, MediaLike> }>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

function exampleOf(media: MediaLike | undefined, schemas: Record<string, SchemaLike>): unknown {
  if (!media) return undefined;
  if (media.example !== undefined) return media.example;
  let schema = media.schema;
  if (schema?.$ref) schema = schemas[schema.$ref.replace('#/components/schemas/', '')];
  return schema?.example ?? schema?.examples?.[0];
}

function anchorId(method: string, path: string): string {
  return `${method}-${path.replace(/[^A-Za-z0-9]+/g, '-')}`;
}

function codeBlock(value: unknown): string {
  return `<pre><code>${escapeHtml(JSON.stringify(value, null, 2))}</code></pre>`;
}

function curlSample(baseUrl: string, method: string, path: string, op: OperationLike, body: unknown): string {
  const lines = [`curl -X ${method.toUpperCase()} '${baseUrl}${path}'`];
  if (op.security?.length) lines.push(`  -H 'Authorization: YOUR_API_KEY'`);
  if (body !== undefined) lines.push(`  -H 'Content-Type: application/json'`, `  -d '${JSON.stringify(body)}'`);
  return `<pre><code>${escapeHtml(lines.join(' \\\n'))}</code></pre>`;
}

function renderOperation(baseUrl: string, method: string, path: string, op: OperationLike, schemas: Record<string, SchemaLike>): string {
  const id = anchorId(method, path);
  const requestExample = exampleOf(op.requestBody?.content?.['application/json'], schemas);
  // Success answers show their example; error answers all share the contract shown once at the top.
  const responses = Object.entries(op.responses ?? {})
    .map(([status, res]) => {
      const example = status.startsWith('2') ? exampleOf(res.content?.['application/json'], schemas) : undefined;
      return `<li><span class="status s${escapeHtml(status[0] ?? '')}">${escapeHtml(status)}</span> ${escapeHtml(res.description ?? '')}${
        example === undefined ? '' : codeBlock(example)
      }</li>`;
    })
    .join('');
  return `<section class="op" id="${escapeHtml(id)}">
  <h3><span class="method ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h3>
  ${op.summary ? `<p class="summary">${escapeHtml(op.summary)}</p>` : ''}
  ${op.description ? `<p>${escapeHtml(op.description)}</p>` : ''}
  <p class="auth">${op.security?.length ? 'Requires your API key in the <code>Authorization</code> header.' : 'No authentication.'}</p>
  ${
    op.requestBody ? `<h4>Request body${op.requestBody.required ? '' : ' (optional)'}</h4>${requestExample === undefined ? '' : codeBlock(requestExample)}` : ''
  }
  <h4>Example</h4>${curlSample(baseUrl, method, path, op, requestExample)}
  <h4>Responses</h4><ul class="responses">${responses}</ul>
</section>`;
}

const STYLE = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1a1a1a; --muted: #5c5c66; --card: #f5f6f8; --line: #d9dbe1; --accent: #2857d6; }
@media (prefers-color-scheme: dark) { :root { --bg: #111318; --fg: #e8e9ed; --muted: #a3a6b2; --card: #1b1e25; --line: #30343e; --accent: #8fb0ff; } }
body { margin: 0; background: var(--bg); color: var(--fg); font: 15px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; }
main { max-width: 920px; margin: 0 auto; padding: 32px 20px 64px; }
a { color: var(--accent); }
nav ul { list-style: none; padding: 0; columns: 2; }
.op { border: 1px solid var(--line); border-radius: 10px; padding: 4px 18px 12px; margin: 20px 0; background: var(--card); }
.method { display: inline-block; min-width: 52px; text-align: center; border-radius: 6px; padding: 1px 6px; font-size: 13px; color: #fff; background: #4b5563; }
.method.post { background: #1f7a4d; } .method.get { background: #2857d6; } .method.delete { background: #b42318; }
.summary { font-weight: 600; } .auth, .muted { color: var(--muted); }
pre { background: var(--bg); border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; overflow-x: auto; font-size: 13px; }
.responses { list-style: none; padding: 0; } .responses li { margin: 8px 0; }
.status { font-weight: 700; font-family: ui-monospace, monospace; } .status.s2 { color: #1f9d5c; } .status.s4 { color: #c77700; } .status.s5 { color: #d92d20; }
`;

/** The whole docs page for `doc`. Every string from the document is HTML-escaped. */
export function renderDocsPage(doc: OpenApiDocument): string {
  const baseUrl = doc.servers?.[0]?.url ?? '';
  const schemas = (doc.components?.schemas ?? {}) as Record<string, SchemaLike>;
  const ops: { method: string; path: string; op: OperationLike }[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = (item as Record<string, OperationLike | undefined>)[method];
      if (op) ops.push({ method, path, op });
    }
  }
  const errorExample = schemas.ErrorResponse?.example;
  const toc = ops
    .map(
      ({ method, path, op }) =>
        `<li><a href="#${escapeHtml(anchorId(method, path))}">${method.toUpperCase()} ${escapeHtml(path)}</a>${
          op.summary ? ` <span class="muted">– ${escapeHtml(op.summary)}</span>` : ''
        }</li>`,
    )
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(doc.info.title)} – reference</title>
<style>${STYLE}</style>
</head>
<body><main>
<h1>${escapeHtml(doc.info.title)} <span class="muted">v${escapeHtml(doc.info.version)}</span></h1>
${doc.info.description ? `<p>${escapeHtml(doc.info.description)}</p>` : ''}
<p class="muted">Base URL <code>${escapeHtml(baseUrl)}</code> · Machine-readable document: <a href="/openapi.json">/openapi.json</a></p>
<nav><h2>Endpoints</h2><ul>${toc}</ul></nav>
<h2>Errors</h2>
<p>Every error answers with a 4xx or 5xx status and the same body; show <code>errors[0].msg</code> (or <code>message</code>, the same text, where APIFRAME v1 clients read it) to the user and branch on <code>code</code>.</p>
${errorExample === undefined ? '' : codeBlock(errorExample)}
<h2>Reference</h2>
${ops.map(({ method, path, op }) => renderOperation(baseUrl, method, path, op, schemas)).join('\n')}
</main></body>
</html>`;
}
