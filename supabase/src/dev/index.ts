import { Hono } from 'hono';
import type { LocalSupabaseConfig } from '../config.ts';
import type { LocalContext } from '../context.ts';
import { createFakeGithub } from './github.ts';

const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** The origin part of a URL or redirect glob (`http://localhost:3000/**`); none when the origin itself is a pattern. */
function originOf(urlOrGlob: string): string | undefined {
  const m = /^(https?:\/\/[^/?#]+)/i.exec(urlOrGlob.trim());
  if (!m?.[1] || /[*?[\]{}]/.test(m[1])) return undefined;
  try {
    return new URL(m[1]).origin;
  } catch {
    return undefined;
  }
}

/**
 * CORS of /_dev: the mailbox holds everyone's magic links and codes, so a page may read it
 * cross-origin only from the dashboard (the site URL, or an exact origin of the redirect
 * allow-list). Any other origin gets no Access-Control-Allow-Origin: its script cannot read
 * the answer. Scripts and tests outside a browser send no Origin and are not concerned.
 */
export function devCorsOrigin(config: Pick<LocalSupabaseConfig, 'siteUrl' | 'redirectAllowList'>): (origin: string) => string | null {
  const allowed = new Set([config.siteUrl, ...config.redirectAllowList].map(originOf).filter((o): o is string => o !== undefined));
  return (origin) => (allowed.has(origin) ? origin : null);
}

/** Dev-only pages: the mailbox (page + JSON). and the fake GitHub provider. */
export function createDevApp(ctx: LocalContext) {
  const app = new Hono();
  app.route('/github', createFakeGithub(ctx));
  app.get('/mailbox.json', (c) => c.json({ messages: ctx.mailbox.list(c.req.query('to') ?? undefined) }));
  app.get('/mailbox', (c) => {
    const to = c.req.query('to') ?? undefined;
    const rows = ctx.mailbox
      .list(to)
      .map(
        (m) => `<article><header><strong>${esc(m.subject)}</strong> → ${esc(m.to)} <time>${esc(m.createdAt)}</time></header>
<pre>${esc(m.text)}</pre>${m.link ? `<p><a href="${esc(m.link)}">Open the magic link</a></p>` : ''}</article>`,
      )
      .join('\n');
    return c.html(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Dev mailbox</title>
<meta name="color-scheme" content="dark light"><style>body{font:15px system-ui;max-width:860px;margin:2rem auto;padding:0 1rem}
article{border:1px solid #8884;border-radius:8px;padding:1rem;margin:1rem 0}pre{white-space:pre-wrap}time{opacity:.6;font-size:.85em}</style></head>
<body><h1>Dev mailbox</h1><p>Emails sent by the local auth service (embedded mode). JSON: <a href="/_dev/mailbox.json">/_dev/mailbox.json</a>${to ? '' : ' (add <code>?to=email</code> to filter)'}.</p>
${rows || '<p>No messages yet.</p>'}</body></html>`);
  });
  return app;
}
