/**
 * @module The human docs page at /docs, rendered on the server from the OpenAPI document:
 * plain HTML and inline CSS (no CDN), readable in light and dark color schemes. A table of
 * contents, authentication, every error code with its HTTP status and messages, rate limits,
 * the Webhooks section (webhooks-section.ts), then every endpoint by tag with its fields and
 * their limits, its answers and a curl example. Examples are focusable `<pre>` blocks; one
 * small inline script (allowed by its hash in the page's own Content-Security-Policy, nothing
 * else may run) adds a Copy button to each.
 */
import { createHash } from 'node:crypto';
import { DEFAULT_MAX_BODY_BYTES } from '../config.ts';
import { DEFAULT_RATE_LIMITS } from '../middleware/rate-limit/limits.ts';
import { ApiError, type ErrorCode, UNEXPECTED_ERROR_MESSAGE } from '../errors.ts';
import { IDEMPOTENCY_KEY_IN_USE_MESSAGE, idempotencyUnsupportedMessage, INVALID_IDEMPOTENCY_KEY_MESSAGE } from '../middleware/idempotency/index.ts';
import type { OpenApiDocument } from './document.ts';
import { SESSION_SCHEME } from './schemas.ts';
import { SESSION_INVALID_MESSAGE, SESSION_REQUIRED_MESSAGE } from '../services/auth/authenticate-session.ts';
import { renderWebhooksSection } from './webhooks-section.ts';
import { renderEventsSection } from './events-section.ts';

// The slice of OpenAPI 3.1 / JSON Schema this page reads.
interface SchemaLike {
  $ref?: string;
  type?: string | string[];
  format?: string;
  description?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: SchemaLike[];
  oneOf?: SchemaLike[];
  items?: SchemaLike;
  properties?: Record<string, SchemaLike>;
  required?: string[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  default?: unknown;
  example?: unknown;
  examples?: unknown[];
}
interface MediaLike {
  schema?: SchemaLike;
  example?: unknown;
}
interface ParameterLike {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: SchemaLike;
}
interface ResponseLike {
  description?: string;
  content?: Record<string, MediaLike>;
}
interface OperationLike {
  tags?: string[];
  summary?: string;
  description?: string;
  security?: Record<string, string[]>[];
  parameters?: ParameterLike[];
  requestBody?: { required?: boolean; content?: Record<string, MediaLike> };
  responses?: Record<string, ResponseLike>;
}
interface Op {
  method: string;
  path: string;
  op: OperationLike;
}
type Schemas = Record<string, SchemaLike>;

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/**
 * Every error code (the type makes a new code fail to compile until it is described here),
 * when it is answered, and messages no endpoint example shows. Statuses come from errors.ts.
 */
const ERROR_CODES: Record<ErrorCode, { meaning: string; messages?: string[] }> = {
  validation_failed: {
    meaning: 'A field is missing or fails its rule: one entry per invalid field (up to 10), each message starting with the field’s path.',
  },
  invalid_json: { meaning: 'The body is not valid JSON.' },
  invalid_webhook_url: { meaning: 'A webhook URL that is not an http:// or https:// URL, is too long, or points at a private address.' },
  bad_request: { meaning: 'A request the endpoint cannot act on, for a reason its message gives.' },
  engine_unavailable: { meaning: 'No engine runs this kind of task on this server (e.g. a simulated engine outside embedded mode); nothing was charged.' },
  invalid_idempotency_key: {
    meaning: 'An Idempotency-Key that is not 1 to 255 printable ASCII characters, or one sent to an upload, which does not take it.',
    messages: [INVALID_IDEMPOTENCY_KEY_MESSAGE, idempotencyUnsupportedMessage('POST', '/upload')],
  },
  missing_api_key: { meaning: 'No Authorization header.', messages: ['Missing API key'] },
  invalid_api_key: { meaning: 'The key is unknown (rotated keys stop working at once), or a named key was revoked.' },
  api_key_expired: { meaning: 'A named API key past its expiry date.', messages: ['API key expired'] },
  invalid_session: {
    meaning: 'A dashboard-session call whose session token (X-Session-Token) is invalid, expired, or from a session that signed out.',
    messages: [SESSION_INVALID_MESSAGE],
  },
  session_required: {
    meaning:
      'A call that moves money or changes credentials (plans, top-ups, cards, auto top-up, API keys, webhook URL and signing secret, exports) sent with the API key alone: it needs the signed-in dashboard session.',
    messages: [SESSION_REQUIRED_MESSAGE],
  },
  insufficient_credits: { meaning: 'Your balance does not cover the task’s price; no task was created.' },
  api_key_credit_limit: {
    meaning:
      'The named API key’s monthly credit limit (its tasks this calendar month, UTC, refunds deducted, plus this one) would be exceeded; no task was created.',
    messages: ["This API key's monthly credit limit (5000) is reached"],
  },
  account_on_hold: {
    meaning:
      'The account is on hold: a payment was disputed, the balance is negative after a refund, or (for top-ups) the last renewal payment failed. No task or payment was started.',
  },
  forbidden: { meaning: 'The thing exists but may not be used this way (e.g. an expired download link).' },
  insufficient_scope: {
    meaning:
      'A named API key without the scope the endpoint needs: `generate` to submit tasks and upload, `read` for /account and the webhook deliveries (either for /fetch); account and billing calls take the primary key only.',
    messages: ['This API key lacks the generate scope', 'This API key lacks the read scope'],
  },
  not_found: { meaning: 'No such thing of yours: an unknown id and another account’s id answer the same.' },
  conflict: { meaning: 'The request does not fit the current state, e.g. a follow-up of a task that has not finished.' },
  idempotency_key_in_use: {
    meaning:
      'A request with the same Idempotency-Key is still running (a retry waits for it up to 2 s first). Retry after Retry-After seconds to get its answer.',
    messages: [IDEMPOTENCY_KEY_IN_USE_MESSAGE],
  },
  idempotency_key_reused: {
    meaning:
      'The Idempotency-Key was already used, within 24 hours, for another request (another path or another body); nothing was done. Use a new key for each action.',
  },
  payload_too_large: { meaning: 'The body is over its size limit (see Rate limits and sizes).' },
  unsupported_media_type: { meaning: 'A body that is not JSON, or a file type the endpoint does not take.' },
  too_many_requests: {
    meaning:
      'Over a request rate limit (per API key, per account or per client address; see Rate limits and sizes): nothing was done. Wait the Retry-After seconds (the RateLimit-Reset header) and send it again.',
    messages: [
      'Too many requests: at most 120 submits per minute for this API key. Retry in 17 s.',
      'Too many requests: at most 1200 requests per minute for this address. Retry in 5 s.',
    ],
  },
  internal_error: { meaning: 'Something broke on our side; it is logged with the X-Request-Id of the answer.', messages: [UNEXPECTED_ERROR_MESSAGE] },
};

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

const code = (s: string) => `<code>${escapeHtml(s)}</code>`;

function resolve(schema: SchemaLike | undefined, schemas: Schemas): SchemaLike | undefined {
  return schema?.$ref ? schemas[schema.$ref.replace('#/components/schemas/', '')] : schema;
}

function exampleOf(media: MediaLike | undefined, schemas: Schemas): unknown {
  if (!media) return undefined;
  if (media.example !== undefined) return media.example;
  const schema = resolve(media.schema, schemas);
  return schema?.example ?? schema?.examples?.[0];
}

function anchorId(method: string, path: string): string {
  return `${method}-${path.replace(/[^A-Za-z0-9]+/g, '-')}`;
}

function tagId(tag: string): string {
  return `tag-${tag.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
}

/** A copy-able example: a focusable block (keyboard users can scroll and select it) the script gives a Copy button. */
function example(text: string, label: string): string {
  return `<div class="example"><pre tabindex="0" aria-label="${escapeHtml(label)}"><code>${escapeHtml(text)}</code></pre></div>`;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** "string or null", "integer", "one of fast, turbo", "array of string (uuid)", "file" … */
function typeOf(s: SchemaLike | undefined, schemas: Schemas): string {
  const schema = resolve(s, schemas);
  if (!schema) return 'any';
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return [...new Set(alternatives.map((a) => typeOf(a, schemas)))].join(' or ');
  if (schema.const !== undefined) return `exactly ${code(JSON.stringify(schema.const))}`;
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const nullable = types.includes('null');
  let text: string;
  if (schema.enum) text = `one of ${schema.enum.map((v) => code(String(v))).join(', ')}`;
  else {
    const base = types.filter((t) => t !== 'null')[0] ?? (schema.properties ? 'object' : 'any');
    if (base === 'array') text = `array of ${typeOf(schema.items, schemas)}`;
    else if (schema.format === 'binary') text = 'file';
    else text = schema.format ? `${base} (${escapeHtml(schema.format)})` : escapeHtml(base);
  }
  return nullable ? `${text} or null` : text;
}

function range(min: number | undefined, max: number | undefined, unit: string): string | undefined {
  if (min !== undefined && max !== undefined) return min === max ? `exactly ${min}${unit}` : `${min}–${max}${unit}`;
  if (max !== undefined) return `at most ${max}${unit}`;
  if (min !== undefined) return `at least ${min}${unit}`;
  return undefined;
}

/** The limits a schema (and each of its alternatives) puts on a value: lengths, ranges, sizes, pattern, default. */
function limitsOf(s: SchemaLike | undefined, schemas: Schemas): string[] {
  const schema = resolve(s, schemas);
  if (!schema) return [];
  const limits = [
    range(schema.minLength, schema.maxLength, ' characters'),
    range(schema.minimum, schema.maximum, ''),
    schema.exclusiveMinimum !== undefined ? `above ${schema.exclusiveMinimum}` : undefined,
    schema.exclusiveMaximum !== undefined ? `below ${schema.exclusiveMaximum}` : undefined,
    range(schema.minItems, schema.maxItems, ' items'),
  ]
    .filter((l): l is string => l !== undefined)
    .map(escapeHtml);
  if (schema.pattern) limits.push(`pattern ${code(schema.pattern)}`);
  if (schema.default !== undefined) limits.push(`default ${code(JSON.stringify(schema.default))}`);
  for (const alternative of schema.anyOf ?? schema.oneOf ?? []) limits.push(...limitsOf(alternative, schemas));
  if (schema.items) limits.push(...limitsOf(schema.items, schemas).map((l) => `each ${l}`));
  return [...new Set(limits)];
}

interface FieldRow {
  name: string;
  where?: string;
  required: boolean;
  schema: SchemaLike | undefined;
  description?: string;
}

function fieldTable(rows: FieldRow[], schemas: Schemas, caption: string): string {
  if (rows.length === 0) return '';
  const withWhere = rows.some((r) => r.where);
  const body = rows
    .map((r) => {
      const schema = resolve(r.schema, schemas);
      const description = r.description ?? schema?.description ?? '';
      return `<tr><td>${code(r.name)}</td>${withWhere ? `<td>${escapeHtml(r.where ?? '')}</td>` : ''}<td>${typeOf(r.schema, schemas)}</td><td>${
        r.required ? 'required' : 'optional'
      }</td><td>${limitsOf(r.schema, schemas).join('; ') || '–'}</td><td>${escapeHtml(description)}</td></tr>`;
    })
    .join('');
  return `<div class="table"><table><caption>${escapeHtml(caption)}</caption><thead><tr><th scope="col">Field</th>${
    withWhere ? '<th scope="col">In</th>' : ''
  }<th scope="col">Type</th><th scope="col">Required</th><th scope="col">Limits</th><th scope="col">Meaning</th></tr></thead><tbody>${body}</tbody></table></div>`;
}

/** The fields of a request body schema, one row each. */
function bodyFields(schema: SchemaLike | undefined, schemas: Schemas): FieldRow[] {
  const resolved = resolve(schema, schemas);
  const required = new Set(resolved?.required ?? []);
  return Object.entries(resolved?.properties ?? {}).map(([name, s]) => ({ name, required: required.has(name), schema: s }));
}

/** Operations that move money or change credentials (openapi/schemas.ts dashboardSecurity). */
function needsSession(op: { security?: Record<string, string[]>[] }): boolean {
  return Boolean(op.security?.some((s) => SESSION_SCHEME in s));
}

function curlSample(baseUrl: string, { method, path, op }: Op, contentType: string | undefined, body: unknown, schemas: Schemas): string {
  const lines = [`curl -X ${method.toUpperCase()} '${baseUrl}${path}'`];
  if (op.security?.length) lines.push(`  -H 'Authorization: YOUR_API_KEY'`);
  if (needsSession(op)) lines.push(`  -H 'X-Session-Token: YOUR_DASHBOARD_ACCESS_TOKEN'`);
  if (contentType === 'multipart/form-data') {
    const fields = bodyFields(op.requestBody?.content?.[contentType]?.schema, schemas);
    for (const f of fields) lines.push(`  -F '${f.name}=${resolve(f.schema, schemas)?.format === 'binary' ? '@./file' : 'value'}'`);
  } else if (body !== undefined) lines.push(`  -H 'Content-Type: application/json'`, `  -d '${JSON.stringify(body).replace(/'/g, "'\\''")}'`);
  return lines.join(' \\\n');
}

/** The error entries an answer's example shows. */
function errorEntries(res: ResponseLike | undefined): { msg: string; code: string }[] {
  const ex = res?.content?.['application/json']?.example as { errors?: { msg?: unknown; code?: unknown }[] } | undefined;
  return (ex?.errors ?? []).flatMap((e) => (typeof e.msg === 'string' && typeof e.code === 'string' ? [{ msg: e.msg, code: e.code }] : []));
}

function renderOperation(baseUrl: string, entry: Op, schemas: Schemas): string {
  const { method, path, op } = entry;
  const id = anchorId(method, path);
  const title = `${method.toUpperCase()} ${path}`;
  const [contentType, media] = Object.entries(op.requestBody?.content ?? {})[0] ?? [];
  const requestExample = contentType === 'application/json' ? exampleOf(media, schemas) : undefined;
  const params = fieldTable(
    (op.parameters ?? []).map((p) => ({ name: p.name, where: p.in, required: !!p.required, schema: p.schema, description: p.description })),
    schemas,
    `Parameters of ${title}`,
  );
  const fields = fieldTable(bodyFields(media?.schema, schemas), schemas, `Body fields of ${title}`);
  const responses = Object.entries(op.responses ?? {})
    .map(([status, res]) => {
      const ok = status.startsWith('2');
      const answer = ok ? exampleOf(res.content?.['application/json'], schemas) : undefined;
      const errors = ok ? [] : errorEntries(res);
      return `<li><span class="status s${escapeHtml(status[0] ?? '')}">${escapeHtml(status)}</span> ${escapeHtml(res.description ?? '')}${errors
        .map((e) => ` ${code(e.code)} <q>${escapeHtml(e.msg)}</q>`)
        .join('')}${answer === undefined ? '' : example(json(answer), `${status} answer of ${title}`)}</li>`;
    })
    .join('');
  return `<section class="op" id="${escapeHtml(id)}" aria-labelledby="${escapeHtml(id)}-title">
  <h3 id="${escapeHtml(id)}-title"><span class="method ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h3>
  ${op.summary ? `<p class="summary">${escapeHtml(op.summary)}</p>` : ''}
  ${op.description ? `<p>${escapeHtml(op.description)}</p>` : ''}
  <p class="auth">${
    needsSession(op)
      ? 'Dashboard only: moves money or changes credentials, so it needs the signed-in dashboard session (<code>X-Session-Token</code>) beside your API key. The API key alone answers 403 <code>session_required</code>.'
      : op.security?.length
        ? 'Requires your API key in the <code>Authorization</code> header.'
        : 'No authentication.'
  }</p>
  ${params ? `<h4>Parameters</h4>${params}` : ''}
  ${
    op.requestBody
      ? `<h4>Request body${op.requestBody.required ? '' : ' (optional)'}${contentType ? ` <span class="muted">${escapeHtml(contentType)}</span>` : ''}</h4>${fields}${
          requestExample === undefined ? '' : example(json(requestExample), `Request body of ${title}`)
        }`
      : ''
  }
  <h4>Example</h4>${example(curlSample(baseUrl, entry, contentType, requestExample, schemas), `curl example of ${title}`)}
  <h4>Responses</h4><ul class="responses">${responses}</ul>
</section>`;
}

/** Every error code: its status, when it is answered, and the messages the endpoints document for it. */
function renderErrorTable(ops: Op[]): string {
  const messages = new Map<string, { status: string; msgs: Set<string> }>();
  const note = (errorCode: string, status: string, msg: string) => {
    const entry = messages.get(errorCode) ?? { status, msgs: new Set<string>() };
    entry.msgs.add(msg);
    messages.set(errorCode, entry);
  };
  for (const [errorCode, { messages: extra = [] }] of Object.entries(ERROR_CODES)) {
    for (const msg of extra) note(errorCode, String(new ApiError(errorCode as ErrorCode, msg).status), msg);
  }
  for (const { op } of ops) {
    for (const [status, res] of Object.entries(op.responses ?? {})) {
      if (!status.startsWith('2')) for (const e of errorEntries(res)) note(e.code, status, e.msg);
    }
  }
  const codes = [...new Set([...Object.keys(ERROR_CODES), ...messages.keys()])];
  const statusOf = (c: string) => (c in ERROR_CODES ? String(new ApiError(c as ErrorCode, '').status) : (messages.get(c)?.status ?? ''));
  codes.sort((a, b) => Number(statusOf(a)) - Number(statusOf(b)));
  const rows = codes
    .map((c) => {
      const msgs = [...(messages.get(c)?.msgs ?? [])];
      const meaning = ERROR_CODES[c as ErrorCode]?.meaning ?? 'See the endpoint that answers it.';
      return `<tr id="error-${escapeHtml(c)}"><td>${code(c)}</td><td>${escapeHtml(statusOf(c))}</td><td>${escapeHtml(meaning)}</td><td>${
        msgs.length ? `<ul>${msgs.map((m) => `<li>${escapeHtml(m)}</li>`).join('')}</ul>` : '–'
      }</td></tr>`;
    })
    .join('');
  return `<div class="table"><table><caption>Error codes</caption><thead><tr><th scope="col">Code</th><th scope="col">HTTP status</th><th scope="col">When</th><th scope="col">Messages</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

const MB = 1024 * 1024;

function renderRateLimits(): string {
  return `<section id="rate-limits" aria-labelledby="rate-limits-title">
<h2 id="rate-limits-title">Rate limits and sizes</h2>
<p>Requests are counted per one-minute window (UTC minutes). The defaults below are far above what a normal integration sends; the operator may change them. Over a limit the answer is <code>429 too_many_requests</code>, nothing is done, and the message says which limit and when to retry:</p>
<div class="table"><table><caption>Request rate limits (defaults)</caption><thead><tr><th scope="col">Calls</th><th scope="col">Limit per minute</th></tr></thead><tbody>
<tr><td>Submits: every call that creates a task, and the uploads</td><td>${DEFAULT_RATE_LIMITS.submitPerKey} per API key, ${DEFAULT_RATE_LIMITS.submitPerAccount} per account (all its keys together)</td></tr>
<tr><td>Reads: <code>/fetch</code>, <code>/fetch-many</code>, <code>GET /account</code> and the other GET calls</td><td>${DEFAULT_RATE_LIMITS.readPerKey} per API key (or dashboard session)</td></tr>
<tr><td>Account calls: the <code>/auth/*</code> calls that are not GETs (keys, webhooks, billing) and exports</td><td>${DEFAULT_RATE_LIMITS.accountPerAccount} per account</td></tr>
<tr><td>Every request from one client address (health checks excepted)</td><td>${DEFAULT_RATE_LIMITS.perAddress}</td></tr>
</tbody></table></div>
<p>Every answer of a limited call carries <code>RateLimit-Limit</code>, <code>RateLimit-Remaining</code> and <code>RateLimit-Reset</code> (seconds until the window ends) for the tightest limit that applies; a <code>429</code> adds <code>Retry-After</code> (seconds). A refused request uses up nothing. Other bounds:</p>
<ul>
<li><strong>Credits.</strong> A task holds its price when it is created; without enough credits the submit answers <code>402 insufficient_credits</code> and nothing is created. A failed task is refunded.</li>
<li><strong>Queueing.</strong> Tasks run on a fair queue: accounts take turns, so a burst of your tasks waits its turn instead of being refused. An operator may cap how many of one account’s tasks run at once; the others stay <code>pending</code>.</li>
<li><strong>Body sizes.</strong> A JSON body may be at most ${DEFAULT_MAX_BODY_BYTES / MB} MB (<code>413 payload_too_large</code>); uploads have their own limits, given with each upload endpoint below.</li>
<li><strong>Polling.</strong> <code>POST /fetch</code> counts as a read; a webhook (below) saves you the polling.</li>
</ul>
</section>`;
}

// Adds a Copy button to each example; allowed by its hash in the page's CSP (no other script may run).
const COPY_SCRIPT = `(function () {
  var status = document.getElementById('copy-status');
  document.querySelectorAll('.example').forEach(function (box) {
    var pre = box.querySelector('pre');
    var button = document.createElement('button');
    button.type = 'button';
    button.className = 'copy';
    button.textContent = 'Copy';
    button.setAttribute('aria-label', 'Copy ' + pre.getAttribute('aria-label'));
    button.addEventListener('click', function () {
      var text = pre.textContent;
      var done = function (message) { status.textContent = message; button.textContent = message === 'Copied' ? 'Copied' : 'Copy'; setTimeout(function () { button.textContent = 'Copy'; }, 1500); };
      var select = function () { var range = document.createRange(); range.selectNodeContents(pre); var sel = getSelection(); sel.removeAllRanges(); sel.addRange(range); pre.focus(); done('Selected: press Ctrl+C to copy'); };
      if (navigator.clipboard) navigator.clipboard.writeText(text).then(function () { done('Copied'); }, select); else select();
    });
    box.insertBefore(button, pre);
  });
})();`;

/** The hash the page's Content-Security-Policy allows COPY_SCRIPT by. */
const COPY_SCRIPT_HASH = `sha256-${createHash('sha256').update(COPY_SCRIPT).digest('base64')}`;

const CSP = `default-src 'none'; script-src '${COPY_SCRIPT_HASH}'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'`;

const STYLE = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1a1a1a; --muted: #5c5c66; --card: #f5f6f8; --line: #d9dbe1; --accent: #2250c8; }
@media (prefers-color-scheme: dark) { :root { --bg: #111318; --fg: #e8e9ed; --muted: #a3a6b2; --card: #1b1e25; --line: #30343e; --accent: #8fb0ff; } }
body { margin: 0; background: var(--bg); color: var(--fg); font: 15px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; }
main { max-width: 1040px; margin: 0 auto; padding: 32px 20px 64px; }
a { color: var(--accent); }
nav ul { list-style: none; padding-left: 0; } nav ul ul { padding-left: 18px; columns: 2; } nav li { break-inside: avoid; }
.op { border: 1px solid var(--line); border-radius: 10px; padding: 4px 18px 12px; margin: 20px 0; background: var(--card); }
.method { display: inline-block; min-width: 52px; text-align: center; border-radius: 6px; padding: 1px 6px; font-size: 13px; color: #fff; background: #4b5563; }
.method.post { background: #1a6b43; } .method.get { background: #2250c8; } .method.delete { background: #b42318; }
.summary { font-weight: 600; } .auth, .muted { color: var(--muted); }
.example { position: relative; }
pre { background: var(--bg); border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; overflow-x: auto; font-size: 13px; user-select: all; }
pre:focus-visible, button:focus-visible, a:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
.copy { position: absolute; top: 6px; right: 6px; font: inherit; font-size: 12px; padding: 2px 10px; border-radius: 6px; border: 1px solid var(--line); background: var(--card); color: var(--fg); cursor: pointer; }
.table { overflow-x: auto; } table { border-collapse: collapse; width: 100%; font-size: 14px; margin: 8px 0; }
caption { text-align: left; color: var(--muted); font-size: 13px; padding-bottom: 4px; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; } td ul { margin: 0; padding-left: 16px; }
.responses { list-style: none; padding: 0; } .responses li { margin: 8px 0; }
.status { font-weight: 700; font-family: ui-monospace, monospace; } .status.s2 { color: #16794a; } .status.s4 { color: #9a5b00; } .status.s5 { color: #c4261b; }
@media (prefers-color-scheme: dark) { .status.s2 { color: #4cc38a; } .status.s4 { color: #f0a945; } .status.s5 { color: #ff7b72; } }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;

/** The operation with each parameter as an object (a `$ref` to components/parameters, e.g. Idempotency-Key, resolved). */
function withParameters(op: OperationLike, parameters: Record<string, ParameterLike>): OperationLike {
  if (!op.parameters) return op;
  return {
    ...op,
    parameters: op.parameters.map((p) => {
      const ref = (p as { $ref?: string }).$ref;
      return (ref && parameters[ref.replace('#/components/parameters/', '')]) || p;
    }),
  };
}

/** The whole docs page for `doc`. Every string from the document is HTML-escaped. */
export function renderDocsPage(doc: OpenApiDocument): string {
  const baseUrl = doc.servers?.[0]?.url ?? '';
  const schemas = (doc.components?.schemas ?? {}) as Schemas;
  const parameters = (doc.components?.parameters ?? {}) as Record<string, ParameterLike>;
  const ops: Op[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = (item as Record<string, OperationLike | undefined>)[method];
      if (op) ops.push({ method, path, op: withParameters(op, parameters) });
    }
  }
  // endpoints grouped by their first tag, in the order the tags first appear
  const byTag = new Map<string, Op[]>();
  for (const entry of ops) {
    const tag = entry.op.tags?.[0] ?? 'Other';
    byTag.set(tag, [...(byTag.get(tag) ?? []), entry]);
  }
  const errorExample = schemas.ErrorResponse?.example;
  const toc = [...byTag]
    .map(
      ([tag, entries]) =>
        `<li><a href="#${tagId(tag)}">${escapeHtml(tag)}</a><ul>${entries
          .map(
            ({ method, path, op }) =>
              `<li><a href="#${escapeHtml(anchorId(method, path))}">${method.toUpperCase()} ${escapeHtml(path)}</a>${
                op.summary ? ` <span class="muted">– ${escapeHtml(op.summary)}</span>` : ''
              }</li>`,
          )
          .join('')}</ul></li>`,
    )
    .join('');
  const reference = [...byTag]
    .map(
      ([tag, entries]) =>
        `<section id="${tagId(tag)}" aria-label="${escapeHtml(tag)} endpoints"><h2>${escapeHtml(tag)}</h2>\n${entries
          .map((entry) => renderOperation(baseUrl, entry, schemas))
          .join('\n')}</section>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<title>${escapeHtml(doc.info.title)} – reference</title>
<style>${STYLE}</style>
</head>
<body><main>
<h1>${escapeHtml(doc.info.title)} <span class="muted">v${escapeHtml(doc.info.version)}</span></h1>
${doc.info.description ? `<p>${escapeHtml(doc.info.description)}</p>` : ''}
<p class="muted">Base URL <code>${escapeHtml(baseUrl)}</code> · Machine-readable document: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1)</p>
<nav aria-label="Contents"><h2>Contents</h2><ul>
<li><a href="#authentication">Authentication</a></li>
<li><a href="#errors">Errors</a></li>
<li><a href="#rate-limits">Rate limits and sizes</a></li>
<li><a href="#webhooks">Webhooks</a></li>
<li><a href="#events">Live task events</a></li>
<li>Endpoints<ul>${toc}</ul></li>
</ul></nav>
<section id="authentication" aria-labelledby="authentication-title">
<h2 id="authentication-title">Authentication</h2>
<p>Put the API key from the dashboard’s API Keys page in the <code>Authorization</code> header, as the raw key or as <code>Bearer &lt;key&gt;</code>. Rotating the key invalidates the old one at once. Without a key: <code>401 missing_api_key</code>; with an unknown one: <code>401 invalid_api_key</code>.</p>
</section>
<section id="errors" aria-labelledby="errors-title">
<h2 id="errors-title">Errors</h2>
<p>Every error answers with a 4xx or 5xx status and the same body; show <code>errors[0].msg</code> (or <code>message</code>, the same text, where APIFRAME v1 clients read it) to the user and branch on <code>code</code>.</p>
${errorExample === undefined ? '' : example(json(errorExample), 'Error answer')}
${renderErrorTable(ops)}
</section>
${renderRateLimits()}
${renderWebhooksSection()}
${renderEventsSection()}
<p id="copy-status" class="sr-only" role="status" aria-live="polite"></p>
${reference}
</main>
<script>${COPY_SCRIPT}</script>
</body>
</html>`;
}
