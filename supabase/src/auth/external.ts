import type { Context, Hono } from 'hono';
import type { LocalContext } from '../context.ts';
import { AuthError, validationFailed } from './errors.ts';
import { createFlowState, issueAuthCode, parsePkce, type FlowStateRow } from './flow-state.ts';
import { errorRedirectUrl } from './magic-link.ts';
import { resolveRedirect } from './redirect.ts';
import { createSession, sessionFragment } from './sessions.ts';
import { findOrCreateExternalUser, markSignedIn, type ExternalIdentity } from './users.ts';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const FLOW_STATE_EXPIRY_MS = 300_000;

interface GithubUser {
  id: number | string;
  login?: string;
  name?: string | null;
  avatar_url?: string;
  email?: string | null;
}

interface GithubEmail {
  email: string;
  primary: boolean;
  verified: boolean;
}

const upstreamError = (message: string) => new AuthError(500, 'unexpected_failure', message);

async function fetchJson<T>(url: string, init: RequestInit, what: string): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  } catch (e) {
    throw upstreamError(`Error ${what}: ${(e as Error).message}`);
  }
  const text = await res.text();
  if (!res.ok) throw upstreamError(`Error ${what}: HTTP ${res.status}`);
  try {
    return JSON.parse(text) as T;
  } catch {
    throw upstreamError(`Error ${what}: invalid JSON`);
  }
}

/**
 * "Sign in with GitHub" as GoTrue runs it (internal/api/external.go), against the provider
 * endpoints of config.github: the real github.com in principle, the fake one in dev.
 */
export function registerExternal(app: Hono, ctx: LocalContext) {
  const { db, config } = ctx;
  const callbackUrl = `${config.publicUrl}/auth/v1/callback`;

  // GET /authorize – signInWithOAuth navigates here; we remember the flow and send the browser to the provider.
  app.get('/authorize', async (c) => {
    const provider = c.req.query('provider') ?? '';
    if (provider.toLowerCase() !== 'github') throw validationFailed(`Unsupported provider: Provider ${provider} could not be found`);
    const pkce = parsePkce(c.req.query('code_challenge'), c.req.query('code_challenge_method'));
    const referrer = resolveRedirect(config, c.req.query('redirect_to'));
    const flow = await createFlowState(db, { pkce, providerType: 'github', method: 'oauth', referrer });
    const scopes = ['user:email', ...(c.req.query('scopes') ?? '').split(/[\s,]+/).filter(Boolean)];
    const url = new URL(config.github.authorizeUrl);
    url.searchParams.set('client_id', config.github.clientId);
    url.searchParams.set('redirect_uri', callbackUrl);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('scope', [...new Set(scopes)].join(' '));
    url.searchParams.set('state', flow.id);
    if (c.req.query('skip_http_redirect') === 'true') return c.json({ url: url.toString() });
    return c.redirect(url.toString(), 302);
  });

  // GET|POST /callback – the provider sends the browser back with a code; sign in and return to the app.
  const callback = async (c: Context) => {
    const params = new URLSearchParams(c.req.query());
    if (c.req.method === 'POST') {
      const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
      for (const [k, v] of Object.entries(form)) if (typeof v === 'string') params.set(k, v);
    }
    const state = params.get('state') ?? '';
    const flow = UUID_RE.test(state)
      ? (await db.query<FlowStateRow>(`select * from auth.flow_state where id = $1 and provider_type = 'github' and auth_code_issued_at is null`, [state]))
          .rows[0]
      : undefined;
    const referrer = flow?.referrer ?? config.siteUrl;
    const pkce = !!flow?.code_challenge;
    try {
      if (!flow) throw new AuthError(400, 'bad_oauth_state', 'OAuth callback with invalid state');
      const providerError = params.get('error');
      if (providerError) throw new AuthError(403, 'bad_oauth_callback', params.get('error_description') || providerError);
      if (new Date(flow.created_at).getTime() + FLOW_STATE_EXPIRY_MS < Date.now()) throw new AuthError(403, 'flow_state_expired', 'Flow state has expired');
      const code = params.get('code');
      if (!code) throw new AuthError(400, 'bad_oauth_callback', 'OAuth callback with missing authorization code');
      const ext = await readGithubIdentity(code);
      const target = await db.transaction(async (tx) => {
        const user = await markSignedIn(tx, await findOrCreateExternalUser(tx, ext.identity), 'github');
        if (pkce) {
          const authCode = await issueAuthCode(tx, flow.id, { userId: user.id, providerAccessToken: ext.accessToken });
          const u = new URL(referrer);
          u.searchParams.set('code', authCode);
          return u.toString();
        }
        await tx.query('delete from auth.flow_state where id = $1', [flow.id]);
        const session = await createSession(tx, config, user, 'oauth', { userAgent: c.req.header('user-agent'), provider_token: ext.accessToken });
        const u = new URL(referrer);
        u.hash = sessionFragment(session, {});
        return u.toString();
      });
      return c.redirect(target, 302);
    } catch (e) {
      if (!(e instanceof AuthError)) throw e;
      if (e.status >= 500) ctx.log(`[auth] github callback: ${e.message}`);
      return c.redirect(errorRedirectUrl(referrer, e, pkce), 302);
    }
  };
  app.get('/callback', callback);
  app.post('/callback', callback);

  async function readGithubIdentity(code: string): Promise<{ accessToken: string; identity: ExternalIdentity }> {
    const token = await fetchJson<{ access_token?: string; error?: string; error_description?: string }>(
      config.github.tokenUrl,
      {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          client_id: config.github.clientId,
          client_secret: config.github.clientSecret,
          code,
          redirect_uri: callbackUrl,
        }),
      },
      'exchanging the code with GitHub',
    );
    // GitHub answers a bad code with 200 and an error body.
    if (!token.access_token)
      throw new AuthError(500, 'unexpected_failure', `Unable to exchange external code: ${token.error_description ?? token.error ?? code}`);
    const headers = { accept: 'application/vnd.github+json', authorization: `Bearer ${token.access_token}` };
    const user = await fetchJson<GithubUser>(config.github.userUrl, { headers }, 'getting the GitHub user');
    const emails = await fetchJson<GithubEmail[]>(config.github.emailsUrl, { headers }, 'getting the GitHub emails');
    const list = Array.isArray(emails) ? emails : [];
    const chosen = list.find((e) => e.primary && e.verified) ?? list.find((e) => e.verified);
    if (!chosen?.email || user?.id === undefined || user?.id === null) throw upstreamError('Error getting user email from external provider');
    const email = chosen.email.trim().toLowerCase();
    const sub = String(user.id);
    const data = {
      iss: 'https://api.github.com',
      sub,
      name: user.name ?? user.login ?? '',
      full_name: user.name ?? user.login ?? '',
      preferred_username: user.login ?? '',
      user_name: user.login ?? '',
      avatar_url: user.avatar_url ?? '',
      provider_id: sub,
      email,
      email_verified: true,
      phone_verified: false,
    };
    return { accessToken: token.access_token, identity: { provider: 'github', providerId: sub, email, data } };
  }
}
