import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { Db } from '@aim/supabase/db';
import { createTestDb } from '@aim/supabase/testing';
import { renderWebhooksSection } from '../src/openapi/webhooks-section.ts';
import { testApp } from './helpers.ts';

interface Operation {
  summary?: string;
  security?: Record<string, string[]>[];
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
  responses: Record<string, { content?: Record<string, { schema: { $ref?: string }; example?: unknown }> }>;
}
interface Doc {
  openapi: string;
  servers: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, { example?: unknown }> };
}

const ACCOUNT_PATHS = ['/auth/revokeAndCreateNewAPIKey', '/auth/updateWebhookURL', '/auth/update-onboarding-status', '/auth/recordReference'];
const GENERATION_PATHS = [
  '/upload',
  '/pro/imagine',
  '/pro/variations',
  '/pro/upscale',
  '/pro/reroll',
  '/pro/seed',
  '/fetch',
  '/fetch-many',
  '/cancel',
  '/flux/imagine',
  '/ideogram/imagine',
  '/faceswap',
  '/ai-photo-upload',
  '/ai-photo-train',
  '/ai-photo-generate',
];
// what anyone may read without a key: the health check, stored media (URLs handed to users) and
// CSV downloads (a one-time link's token from POST /exports instead of the key)
const PUBLIC_OPERATIONS = [
  'GET /health',
  'GET /pricing',
  'GET /media/{key}',
  'GET /openapi.json',
  'GET /docs',
  'GET /exports/task-logs.csv',
  'GET /exports/credit-history.csv',
];

/**
 * What moves money or changes credentials: the signed-in dashboard session beside the API key
 * (docs/decisions/0011-two-credentials.md). A route missing here with that power is a hole.
 */
const SESSION_OPERATIONS = [
  'POST /auth/createCustomer',
  'POST /auth/subscribe',
  'POST /auth/topup',
  'POST /auth/trial',
  'POST /auth/cancel',
  'GET /auth/payment-methods',
  'POST /auth/make-default-payment-method',
  'POST /auth/remove-payment-method',
  'POST /auth/create-setup-intent',
  'POST /auth/add-payment-method',
  'POST /auth/gen-invoice',
  'POST /auth/update-auto-topup',
  'GET /auth/spending-limits',
  'POST /auth/spending-limits',
  'POST /billing/sandbox/confirm',
  'POST /billing/sandbox/advance-clock',
  'POST /billing/sandbox/refund',
  'POST /billing/sandbox/dispute',
  'POST /billing/sandbox/dispute/close',
  'POST /billing/sandbox/fail-renewal',
  'POST /auth/revokeAndCreateNewAPIKey',
  'POST /auth/updateWebhookURL',
  'POST /auth/webhook-events',
  'GET /auth/webhook-signing-secret',
  'POST /auth/webhook-signing-secret/rotate',
  'POST /exports',
  'GET /auth/api-keys',
  'POST /auth/api-keys',
  'POST /auth/api-keys/{id}/revoke',
];

/**
 * Routes the app registers that are not API endpoints, so the document leaves them out: the
 * document itself and its page, Stripe's own calls to us (signed by Stripe, not for clients),
 * and the operators' probes and Prometheus metrics.
 */
const NOT_API_ROUTES = ['GET /openapi.json', 'GET /docs', 'POST /webhooks/stripe', 'GET /livez', 'GET /readyz', 'GET /metrics'];

/** Every error code of server/src/errors.ts with its HTTP status, as the docs page must list them. */
const ERROR_CODES: [string, number][] = [
  ['validation_failed', 400],
  ['invalid_json', 400],
  ['invalid_webhook_url', 400],
  ['bad_request', 400],
  ['engine_unavailable', 400],
  ['missing_api_key', 401],
  ['invalid_api_key', 401],
  ['insufficient_credits', 402],
  ['forbidden', 403],
  ['not_found', 404],
  ['conflict', 409],
  ['payload_too_large', 413],
  ['unsupported_media_type', 415],
  ['too_many_requests', 429],
  ['internal_error', 500],
];

// The document comes from route schemas only, so one database kind is enough here.
describe('OpenAPI document and docs page', () => {
  let db: Db;
  let app: ReturnType<typeof testApp>;
  let doc: Doc;

  beforeAll(async () => {
    db = await createTestDb('pglite');
    app = testApp(db);
    const res = await app.request('/openapi.json');
    expect(res.status).toBe(200);
    doc = (await res.json()) as Doc;
  });
  afterAll(async () => {
    await db?.close();
  });

  it('should be OpenAPI 3.1 with the public URL and an apiKey scheme in the Authorization header', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: 'http://localhost:8080' }]);
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
  });

  it('should list every route: the account calls as POST with apiKey security, /health as public GET', () => {
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining([...ACCOUNT_PATHS, ...GENERATION_PATHS, '/health']));
    expect(doc.components.securitySchemes.dashboardSession).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Session-Token' });
    // everything but the public reads needs the API key; what moves money or changes credentials, the dashboard session too
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const operation = `${method.toUpperCase()} ${path}`;
        if (PUBLIC_OPERATIONS.includes(operation)) expect(op.security, operation).toBeUndefined();
        else if (SESSION_OPERATIONS.includes(operation)) expect(op.security, operation).toEqual([{ dashboardSession: [], apiKey: [] }]);
        else expect(op.security, operation).toEqual([{ apiKey: [] }]);
      }
    }
    for (const operation of SESSION_OPERATIONS) {
      const [method, path] = operation.split(' ');
      expect(doc.paths[path]?.[method.toLowerCase()], operation).toBeDefined();
      expect(Object.keys(doc.paths[path][method.toLowerCase()].responses), operation).toEqual(expect.arrayContaining(['401', '403']));
    }
    for (const path of ACCOUNT_PATHS) {
      expect(Object.keys(doc.paths[path]), path).toEqual(['post']);
      expect(doc.paths[path].post.security, path).toEqual(
        SESSION_OPERATIONS.includes(`POST ${path}`) ? [{ dashboardSession: [], apiKey: [] }] : [{ apiKey: [] }],
      );
      expect(doc.paths[path].post.summary, path).toBeTruthy();
      expect(Object.keys(doc.paths[path].post.responses), path).toEqual(expect.arrayContaining(['200', '401', '413', '500']));
    }
    for (const path of ['/auth/updateWebhookURL', '/auth/recordReference']) {
      expect(doc.paths[path].post.requestBody, path).toBeDefined();
      expect(Object.keys(doc.paths[path].post.responses), path).toEqual(expect.arrayContaining(['400', '415']));
    }
    expect(doc.paths['/health'].get.security).toBeUndefined();
    // APIFRAME v1: GET /account, and one task schema for /fetch and each /fetch-many entry
    expect(Object.keys(doc.paths['/account'])).toEqual(['get']);
    expect(doc.paths['/fetch'].post.responses['200'].content?.['application/json'].schema.$ref).toBe('#/components/schemas/Task');
    expect(doc.components.schemas.Task.example).toMatchObject({ status: 'finished', percentage: '100' });
  });

  it('should carry an example for every request and success response schema', () => {
    const refs: string[] = [];
    for (const item of Object.values(doc.paths)) {
      for (const op of Object.values(item)) {
        const req = op.requestBody?.content['application/json']?.schema.$ref;
        if (req) refs.push(req);
        const ok = op.responses['200']?.content?.['application/json']?.schema.$ref;
        if (ok) refs.push(ok);
      }
    }
    expect(refs.length).toBeGreaterThanOrEqual(Object.keys(doc.paths).length + 2);
    for (const ref of refs) {
      const name = ref.replace('#/components/schemas/', '');
      expect(doc.components.schemas[name]?.example, name).toBeDefined();
    }
  });

  it('should serve a self-contained HTML page listing every operation with examples', async () => {
    const res = await app.request('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).not.toMatch(/<link[^>]+stylesheet|src="http|cdn/i);
    expect(html).toContain('prefers-color-scheme: dark');
    for (const path of ACCOUNT_PATHS) expect(html).toContain(`POST</span> <code>${path}</code>`);
    expect(html).toContain('GET</span> <code>/health</code>');
    expect(html).toContain('Rotate the API key');
    expect(html).toContain('&#34;reference&#34;: &#34;partner_42&#34;');
    expect(html).toContain('Authorization: YOUR_API_KEY');
    expect(html).toContain('&#34;code&#34;: &#34;invalid_api_key&#34;');
  });

  it('should validate as OpenAPI 3.1 with a standard validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as Record<string, unknown>);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('should document every route the app registers, and nothing it does not (but the non-API routes)', () => {
    const registered = new Set(
      app.routes
        .filter((r) => r.method !== 'ALL')
        // Hono's /media/:key is OpenAPI's /media/{key} (and /estimate/:operation{.+}, /estimate/{operation})
        .map((r) => `${r.method} ${r.path.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, '{$1}')}`),
    );
    const documented = new Set(Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`)));
    const undocumented = [...registered].filter((r) => !documented.has(r) && !NOT_API_ROUTES.includes(r));
    expect(undocumented, 'add a createRoute definition, or list a non-API route in NOT_API_ROUTES').toEqual([]);
    expect([...documented].filter((d) => !registered.has(d))).toEqual([]);
    expect(documented.size).toBeGreaterThan(60);
  });

  it('should give /fetch the task lineage: parent_task_id and child_task_ids', () => {
    const task = doc.components.schemas.Task as { properties: Record<string, { type?: unknown; description?: string }>; example: Record<string, unknown> };
    expect(task.properties.parent_task_id.description).toMatch(/made from/);
    expect(task.properties.child_task_ids).toMatchObject({ type: 'array' });
    expect(task.example.child_task_ids).toEqual([expect.any(String)]);
  });

  describe('the docs page', () => {
    let html: string;
    beforeAll(async () => {
      html = await (await app.request('/docs')).text();
    });

    it('should have a table of contents whose every link lands on the page', () => {
      const nav = html.slice(html.indexOf('<nav aria-label="Contents">'), html.indexOf('</nav>'));
      for (const section of ['authentication', 'errors', 'rate-limits', 'webhooks']) expect(nav).toContain(`href="#${section}"`);
      const targets = [...html.matchAll(/href="#([^"]+)"/g)].map((m) => m[1]);
      expect(targets.length).toBeGreaterThan(Object.keys(doc.paths).length);
      const ids = new Set([...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]));
      expect(targets.filter((t) => !ids.has(t))).toEqual([]);
      // every operation is in the contents, under its tag
      for (const [path, ops] of Object.entries(doc.paths)) {
        for (const method of Object.keys(ops)) expect(nav, `${method} ${path}`).toContain(`href="#${method}-${path.replace(/[^A-Za-z0-9]+/g, '-')}"`);
      }
      expect(nav).toContain('href="#tag-midjourney"');
    });

    it('should list every error code with its HTTP status and the messages endpoints answer', () => {
      const table = html.slice(html.indexOf('<caption>Error codes</caption>'), html.indexOf('</table>', html.indexOf('<caption>Error codes</caption>')));
      for (const [code, status] of ERROR_CODES) expect(table, code).toContain(`<tr id="error-${code}"><td><code>${code}</code></td><td>${status}</td>`);
      for (const msg of ['Invalid API key', 'Missing API key', 'Not enough credits', 'Task not found', 'Malformed JSON in request body'])
        expect(table).toContain(`<li>${msg}</li>`);
      expect(table).toContain('An unexpected error occured, Please refresh and try again!');
      // and each endpoint's own error answers with their code and message
      const upscale = html.slice(html.indexOf('id="post--pro-upscale"'), html.indexOf('</section>', html.indexOf('id="post--pro-upscale"')));
      expect(upscale).toContain(
        '402</span> Your balance does not cover the price of the task; no task was created. <code>insufficient_credits</code> <q>Not enough credits</q>',
      );
    });

    it('should give each endpoint its fields with their limits: prompt length, index meaning, enums', () => {
      const imagine = html.slice(html.indexOf('id="post--pro-imagine"'), html.indexOf('</section>', html.indexOf('id="post--pro-imagine"')));
      expect(imagine).toContain('<caption>Body fields of POST /pro/imagine</caption>');
      expect(imagine).toMatch(/<td><code>prompt<\/code><\/td><td>string<\/td><td>required<\/td><td>1–4000 characters<\/td>/);
      expect(imagine).toContain('<td><code>mode</code></td><td>one of <code>fast</code>, <code>turbo</code></td><td>optional</td>');
      expect(imagine).toContain('<td><code>webhook_secret</code></td><td>string or null</td><td>optional</td><td>at most 256 characters</td>');
      expect(imagine).toContain('<td><code>webhook_url</code></td><td>string or null</td><td>optional</td><td>at most 2048 characters</td>');
      const upscale = html.slice(html.indexOf('id="post--pro-upscale"'), html.indexOf('</section>', html.indexOf('id="post--pro-upscale"')));
      expect(upscale).toContain(
        '<td><code>index</code></td><td>integer</td><td>required</td><td>1–4</td><td>Which image of the parent grid (1 top left, 2 top right, 3 bottom left, 4 bottom right).</td>',
      );
      const many = html.slice(html.indexOf('id="post--fetch-many"'), html.indexOf('</section>', html.indexOf('id="post--fetch-many"')));
      expect(many).toContain('2–20 items');
      // query and path parameters have their own table
      const media = html.slice(html.indexOf('id="get--media-key-"'), html.indexOf('</section>', html.indexOf('id="get--media-key-"')));
      expect(media).toContain('<caption>Parameters of GET /media/{key}</caption>');
      expect(media).toContain('<td><code>key</code></td><td>path</td>');
      // a multipart upload shows its file field and a curl -F example
      const upload = html.slice(html.indexOf('id="post--upload"'), html.indexOf('</section>', html.indexOf('id="post--upload"')));
      expect(upload).toContain('<td><code>image</code></td><td>file</td><td>required</td>');
      expect(upload).toContain('-F &#39;image=@./file&#39;');
    });

    it('should list the request rate limits, and render the Webhooks section', () => {
      expect(html).toContain('<h2 id="rate-limits-title">Rate limits and sizes</h2>');
      expect(html).toContain('<td>120 per API key, 240 per account (all its keys together)</td>');
      expect(html).toContain('<code>429 too_many_requests</code>');
      expect(html).toContain('A JSON body may be at most 1 MB');
      expect(html).toContain(renderWebhooksSection());
    });

    it('should make every example copy-able: focusable blocks, and one inline script its CSP allows by hash', () => {
      const blocks = [...html.matchAll(/<div class="example"><pre tabindex="0" aria-label="([^"]+)">/g)].map((m) => m[1]);
      expect(blocks).toContain('curl example of POST /fetch');
      expect(blocks).toContain('Request body of POST /fetch');
      expect(blocks).toContain('200 answer of POST /fetch');
      expect(blocks.length).toBeGreaterThan(Object.keys(doc.paths).length * 2);
      const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
      expect(scripts).toHaveLength(1);
      expect(html).not.toMatch(/<script[^>]*\ssrc=|\son[a-z]+="/i);
      const hash = `sha256-${createHash('sha256').update(scripts[0]!).digest('base64')}`;
      const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
      expect(csp).toContain(`script-src '${hash}'`);
      expect(csp).toContain("default-src 'none'");
      expect(scripts[0]).toContain('navigator.clipboard.writeText');
    });

    it('should keep headings in order: one h1, then h2 sections, h3 endpoints, h4 parts', () => {
      const levels = [...html.matchAll(/<h([1-6])[\s>]/g)].map((m) => Number(m[1]));
      expect(levels[0]).toBe(1);
      expect(levels.filter((l) => l === 1)).toHaveLength(1);
      for (let i = 1; i < levels.length; i++) expect(levels[i]! - levels[i - 1]!, `heading ${i}`).toBeLessThanOrEqual(1);
    });
  });

  it('should answer GET /health with ok', async () => {
    const res = await app.request('/health');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });
});
