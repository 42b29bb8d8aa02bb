import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { createTestDb } from '@aim/supabase/testing';
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
  '/flux/imagine',
  '/ideogram/imagine',
  '/faceswap',
  '/ai-photo-upload',
  '/ai-photo-train',
  '/ai-photo-generate',
];
// what anyone may read without a key: the health check and stored media (URLs handed to users)
const PUBLIC_OPERATIONS = ['GET /health', 'GET /media/{key}', 'GET /openapi.json', 'GET /docs'];

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
    // everything but the public reads needs the API key
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (PUBLIC_OPERATIONS.includes(`${method.toUpperCase()} ${path}`)) expect(op.security, `${method} ${path}`).toBeUndefined();
        else expect(op.security, `${method} ${path}`).toEqual([{ apiKey: [] }]);
      }
    }
    for (const path of ACCOUNT_PATHS) {
      expect(Object.keys(doc.paths[path]), path).toEqual(['post']);
      expect(doc.paths[path].post.security, path).toEqual([{ apiKey: [] }]);
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
    expect(html).not.toMatch(/<script|<link[^>]+stylesheet|src="http|cdn/i);
    expect(html).toContain('prefers-color-scheme: dark');
    for (const path of ACCOUNT_PATHS) expect(html).toContain(`POST</span> <code>${path}</code>`);
    expect(html).toContain('GET</span> <code>/health</code>');
    expect(html).toContain('Rotate the API key');
    expect(html).toContain('&#34;reference&#34;: &#34;partner_42&#34;');
    expect(html).toContain('Authorization: YOUR_API_KEY');
    expect(html).toContain('&#34;code&#34;: &#34;invalid_api_key&#34;');
  });

  it('should answer GET /health with ok', async () => {
    const res = await app.request('/health');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });
});
