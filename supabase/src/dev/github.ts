import { createHash, randomBytes } from 'node:crypto';
import { Hono, type Context } from 'hono';
import type { LocalContext } from '../context.ts';

/**
 * A fake GitHub OAuth provider for embedded mode (no network): the authorize page where a
 * developer picks who they are, the token exchange and the two API calls GoTrue makes.
 * Mounted at /_dev/github; config.github points the auth service here by default.
 * Tests drive it without a browser: GET the authorize URL with `login`, `email`, `auto=1`.
 */
interface FakeIdentity {
  id: number;
  login: string;
  email: string;
  name: string;
}

interface Grant {
  identity: FakeIdentity;
  clientId: string;
  redirectUri: string;
  scope: string;
  expiresAt: number;
}

const CODE_TTL_MS = 10 * 60_000;
const LOGIN_RE = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const PRESETS: Omit<FakeIdentity, 'id'>[] = [
  { login: 'octocat', email: 'octocat@example.com', name: 'The Octocat' },
  { login: 'dev-user', email: 'dev-user@example.com', name: 'Dev User' },
  { login: 'second-dev', email: 'second-dev@example.com', name: 'Second Dev' },
];

const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** A stable numeric id per login, so the same login is the same GitHub account every time. */
const idForLogin = (login: string) => (createHash('sha256').update(login.toLowerCase()).digest().readUInt32BE(0) % 900_000_000) + 100_000_000;

function parseIdentity(fields: Record<string, string | undefined>): FakeIdentity | string {
  const login = (fields.login ?? '').trim();
  const email = (fields.email ?? '').trim();
  const idText = (fields.id ?? '').trim();
  if (!LOGIN_RE.test(login)) return 'Login: 1 to 39 letters, digits or hyphens, not starting with a hyphen.';
  if (!EMAIL_RE.test(email)) return 'Email: enter an address like name@example.com.';
  if (idText && !/^[1-9][0-9]{0,14}$/.test(idText)) return 'Id: a positive whole number, or leave it empty.';
  return { login, email, id: idText ? Number(idText) : idForLogin(login), name: (fields.name ?? '').trim() || login };
}

export function createFakeGithub(ctx: LocalContext) {
  const { config } = ctx;
  const app = new Hono();
  const codes = new Map<string, Grant>();
  const tokens = new Map<string, { identity: FakeIdentity; scope: string }>();
  const base = `${config.publicUrl}/_dev/github`;

  function checkClient(clientId: string | undefined, redirectUri: string | undefined): string | undefined {
    if (clientId !== config.github.clientId) return `Unknown client_id "${clientId ?? ''}".`;
    try {
      // Like a registered OAuth app: callbacks only go back to these local services.
      if (new URL(redirectUri ?? '').origin !== new URL(config.publicUrl).origin) return 'The redirect_uri is not registered for this application.';
    } catch {
      return 'The redirect_uri is missing or not a URL.';
    }
    return undefined;
  }

  function redirectWithCode(c: Context, p: Record<string, string | undefined>, identity: FakeIdentity) {
    const code = randomBytes(10).toString('hex');
    const now = Date.now();
    for (const [k, g] of codes) if (g.expiresAt < now) codes.delete(k);
    codes.set(code, { identity, clientId: p.client_id!, redirectUri: p.redirect_uri!, scope: p.scope ?? '', expiresAt: now + CODE_TTL_MS });
    const u = new URL(p.redirect_uri!);
    u.searchParams.set('code', code);
    if (p.state) u.searchParams.set('state', p.state);
    return c.redirect(u.toString(), 302);
  }

  function page(c: Context, p: Record<string, string | undefined>, error?: string) {
    const login = p.login ?? 'dev-user';
    const hidden = ['client_id', 'redirect_uri', 'state', 'scope'].map((k) => `<input type="hidden" name="${k}" value="${esc(p[k] ?? '')}">`).join('');
    const presets = PRESETS.map(
      (x) => `<form method="post" action="${base}/login/oauth/authorize">${hidden}
<input type="hidden" name="login" value="${esc(x.login)}"><input type="hidden" name="email" value="${esc(x.email)}"><input type="hidden" name="name" value="${esc(x.name)}">
<button type="submit">Continue as ${esc(x.login)} <span class="muted">(${esc(x.email)})</span></button></form>`,
    ).join('\n');
    const status = error ? 400 : 200;
    return c.html(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in with GitHub (local)</title><meta name="color-scheme" content="dark light">
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:2.5rem auto;padding:0 1rem}
label{display:block;margin-top:.9rem;font-weight:600}
input{width:100%;box-sizing:border-box;padding:.5rem .6rem;font:inherit;border:1px solid #8889;border-radius:6px;background:Field;color:FieldText}
button{font:inherit;padding:.55rem 1rem;border-radius:6px;border:1px solid #8889;background:ButtonFace;color:ButtonText;cursor:pointer}
button.primary{background:#1f883d;border-color:#1f883d;color:#fff;font-weight:600}
:focus-visible{outline:3px solid #4c9aff;outline-offset:2px}
.row{display:flex;gap:.75rem;margin-top:1.25rem;flex-wrap:wrap}.muted{opacity:.75;font-size:.9em}
.error{border:1px solid #d1242f;border-radius:6px;padding:.6rem .8rem}
section{margin-top:2rem}section form{margin:.5rem 0}
</style></head><body><main>
<h1>Sign in with GitHub</h1>
<p>This is the <strong>local fake GitHub</strong> of the development setup. Choose who you are; nothing leaves this machine.</p>
${error ? `<p class="error" role="alert">${esc(error)}</p>` : ''}
<form method="post" action="${base}/login/oauth/authorize">${hidden}
<label for="login">GitHub login</label><input id="login" name="login" required autocomplete="username" value="${esc(login)}">
<label for="email">Primary email (verified)</label><input id="email" name="email" type="email" required autocomplete="email" value="${esc(p.email ?? `${login}@example.com`)}">
<label for="name">Display name <span class="muted">(optional)</span></label><input id="name" name="name" value="${esc(p.name ?? '')}">
<label for="id">Numeric user id <span class="muted">(optional, derived from the login when empty)</span></label><input id="id" name="id" inputmode="numeric" value="${esc(p.id ?? '')}">
<div class="row"><button class="primary" type="submit">Continue</button>
<button type="submit" name="deny" value="1" formnovalidate>Cancel</button></div>
</form>
<section aria-labelledby="presets"><h2 id="presets">Or pick an identity</h2>
${presets}
</section></main></body></html>`,
      status,
    );
  }

  // GET /login/oauth/authorize – the consent page (or, with auto=1, straight back with a code).
  app.get('/login/oauth/authorize', (c) => {
    const p = c.req.query();
    const bad = checkClient(p.client_id, p.redirect_uri);
    if (bad)
      return c.html(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>OAuth error</title></head><body><main><h1>OAuth error</h1><p>${esc(bad)}</p></main></body></html>`,
        400,
      );
    if (p.auto === '1') {
      const identity = parseIdentity({ login: 'dev-user', email: `${p.login ?? 'dev-user'}@example.com`, ...p });
      return typeof identity === 'string' ? c.json({ error: identity }, 400) : redirectWithCode(c, p, identity);
    }
    return page(c, p);
  });

  // POST /login/oauth/authorize – the page's form: Continue (with an identity) or Cancel.
  app.post('/login/oauth/authorize', async (c) => {
    const form = await c.req.parseBody().catch(() => ({}));
    const p: Record<string, string | undefined> = {};
    for (const [k, v] of Object.entries(form)) if (typeof v === 'string') p[k] = v;
    const bad = checkClient(p.client_id, p.redirect_uri);
    if (bad)
      return c.html(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>OAuth error</title></head><body><main><h1>OAuth error</h1><p>${esc(bad)}</p></main></body></html>`,
        400,
      );
    if (p.deny) {
      const u = new URL(p.redirect_uri!);
      u.searchParams.set('error', 'access_denied');
      u.searchParams.set('error_description', 'The user has denied your application access.');
      if (p.state) u.searchParams.set('state', p.state);
      return c.redirect(u.toString(), 302);
    }
    const identity = parseIdentity(p);
    return typeof identity === 'string' ? page(c, p, identity) : redirectWithCode(c, p, identity);
  });

  // POST /login/oauth/access_token – code → token. Like GitHub, failures are 200 with an error body.
  app.post('/login/oauth/access_token', async (c) => {
    const type = c.req.header('content-type') ?? '';
    let p: Record<string, unknown> = {};
    if (type.includes('application/json')) p = await c.req.json<Record<string, unknown>>().catch(() => ({}));
    else p = await c.req.parseBody().catch(() => ({}));
    const str = (k: string) => (typeof p[k] === 'string' ? (p[k] as string) : undefined);
    if (str('client_id') !== config.github.clientId || str('client_secret') !== config.github.clientSecret) {
      return c.json({ error: 'incorrect_client_credentials', error_description: 'The client_id and/or client_secret passed are incorrect.' });
    }
    const code = str('code') ?? '';
    const grant = codes.get(code);
    codes.delete(code);
    if (!grant || grant.expiresAt < Date.now() || grant.clientId !== str('client_id')) {
      return c.json({ error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' });
    }
    if (str('redirect_uri') && str('redirect_uri') !== grant.redirectUri) {
      return c.json({ error: 'redirect_uri_mismatch', error_description: 'The redirect_uri MUST match the registered callback URL for this application.' });
    }
    const accessToken = `gho_${randomBytes(18).toString('hex')}`;
    tokens.set(accessToken, { identity: grant.identity, scope: grant.scope });
    return c.json({ access_token: accessToken, token_type: 'bearer', scope: grant.scope });
  });

  function identityOf(c: Context): FakeIdentity | undefined {
    const m = /^(?:bearer|token)\s+(\S+)$/i.exec(c.req.header('authorization') ?? '');
    return m ? tokens.get(m[1])?.identity : undefined;
  }
  const badCredentials = (c: Context) => c.json({ message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' }, 401);

  // GET /api/user – the authenticated user.
  app.get('/api/user', (c) => {
    const who = identityOf(c);
    if (!who) return badCredentials(c);
    return c.json({
      login: who.login,
      id: who.id,
      node_id: Buffer.from(`04:User${who.id}`).toString('base64'),
      avatar_url: `${base}/avatars/${encodeURIComponent(who.login)}.svg`,
      html_url: `${base}/${encodeURIComponent(who.login)}`,
      type: 'User',
      site_admin: false,
      name: who.name,
      email: who.email,
    });
  });

  // GET /api/user/emails – one primary, verified address.
  app.get('/api/user/emails', (c) => {
    const who = identityOf(c);
    if (!who) return badCredentials(c);
    return c.json([{ email: who.email, primary: true, verified: true, visibility: 'public' }]);
  });

  // GET /avatars/:login.svg – a letter avatar, so avatar_url points at something real.
  app.get('/avatars/:file', (c) => {
    const login = c.req.param('file').replace(/\.svg$/, '');
    const hue = idForLogin(login) % 360;
    const letter = esc((login[0] ?? '?').toUpperCase());
    c.header('Content-Type', 'image/svg+xml');
    c.header('Cache-Control', 'public, max-age=86400');
    return c.body(
      `<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96" viewBox="0 0 96 96"><rect width="96" height="96" rx="48" fill="hsl(${hue} 55% 45%)"/><text x="48" y="62" font-family="system-ui,sans-serif" font-size="44" text-anchor="middle" fill="#fff">${letter}</text></svg>`,
    );
  });

  return app;
}
