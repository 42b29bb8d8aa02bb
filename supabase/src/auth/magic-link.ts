import { createHash, randomBytes, randomInt } from 'node:crypto';
import type { Hono } from 'hono';
import type { LocalContext } from '../context.ts';
import type { Queryable } from '../db/index.ts';
import type { Captcha } from './captcha.ts';
import { AuthError, validationFailed } from './errors.ts';
import { createFlowState, issueAuthCode, parsePkce, type FlowStateRow } from './flow-state.ts';
import { resolveRedirect } from './redirect.ts';
import { clientAddress, optionalObject, optionalString, readJsonObject, validateEmail, type JsonObject } from './request.ts';
import { createSession, sessionFragment, type IssuedSession } from './sessions.ts';
import { findOrCreateEmailUser, findUserByEmail, findUserById, markSignedIn, type UserRow } from './users.ts';
import { createAddressLimiter, REQUEST_LIMITS } from './request-limits.ts';
import { createVerifyLimiter } from './verify-limits.ts';

const PKCE_PREFIX = 'pkce_';
const TOKEN_TYPE = 'recovery_token';
const VERIFY_TYPES = new Set(['magiclink', 'signup', 'email']);

/**
 * GoTrue's token hash (crypto.GenerateTokenHash): hex(sha224(email + otp)). Here it names the
 * mailed code only (kept in auth.users.recovery_token, checked with the email, counted per
 * email). The link carries `linkToken()` instead: GoTrue's link hash has only the code's 10^6
 * values, so anyone knowing the email could try them on the link forms, which no per-email
 * count can see (docs/decisions/0015-verify-brute-force.md).
 */
const tokenHash = (email: string, otp: string) =>
  createHash('sha224')
    .update(email + otp)
    .digest('hex');

/** The link's token: 224 random bits, in the shape of GoTrue's hash (56 hex digits). */
const linkToken = () => randomBytes(28).toString('hex');

const otpExpired = () => new AuthError(403, 'otp_expired', 'Email link is invalid or has expired');

function describeSeconds(s: number): string {
  if (s % 3600 === 0 && s >= 3600) return s === 3600 ? '1 hour' : `${s / 3600} hours`;
  if (s % 60 === 0 && s >= 60) return s === 60 ? '1 minute' : `${s / 60} minutes`;
  return s === 1 ? '1 second' : `${s} seconds`;
}

/** GoTrue's error redirect (prepErrorRedirectURL): fragment always, query too in PKCE flow. */
export function errorRedirectUrl(redirectTo: string, err: AuthError, pkce: boolean): string {
  const errorId = err.status === 400 ? 'invalid_request' : err.status === 401 ? 'unauthorized_client' : err.status === 403 ? 'access_denied' : 'server_error';
  const u = new URL(redirectTo);
  const fields: [string, string][] = [
    ['error', errorId],
    ['error_code', err.code],
    ['error_description', err.message],
  ];
  if (pkce) for (const [k, v] of fields) u.searchParams.set(k, v);
  u.hash = new URLSearchParams([...fields, ['sb', '']]).toString();
  return u.toString();
}

/**
 * Consumes the outstanding link and code of a user (single use, both at once) and returns the
 * user if they are still fresh: by the link's token, or by the code's hashes with its email.
 */
async function consumeToken(q: Queryable, otpExp: number, by: { link: string } | { email: string; codeHashes: string[] }): Promise<UserRow> {
  const r =
    'link' in by
      ? await q.query<{ user_id: string }>(`delete from auth.one_time_tokens where token_type = $1 and token_hash = $2 returning user_id`, [
          TOKEN_TYPE,
          by.link,
        ])
      : await q.query<{ user_id: string }>(
          `delete from auth.one_time_tokens t using auth.users u
           where t.token_type = $1 and t.relates_to = $2 and u.id = t.user_id and u.recovery_token = any($3::text[])
           returning t.user_id`,
          [TOKEN_TYPE, by.email, by.codeHashes],
        );
  const userId = r.rows[0]?.user_id;
  const user = userId ? await findUserById(q, userId, true) : undefined;
  if (!user?.recovery_sent_at || new Date(user.recovery_sent_at).getTime() + otpExp * 1000 < Date.now()) throw otpExpired();
  await q.query(`update auth.users set recovery_token = '' where id = $1`, [user.id]);
  return markSignedIn(q, user, 'email');
}

/** Burns the mailed code of `email` (too many wrong tries): its link and its digits stop working. */
async function burnToken(q: Queryable, email: string) {
  await q.query(
    `with burned as (delete from auth.one_time_tokens where token_type = $1 and relates_to = $2 returning user_id)
     update auth.users set recovery_token = '' where id in (select user_id from burned)`,
    [TOKEN_TYPE, email],
  );
}

export function registerMagicLink(app: Hono, ctx: LocalContext, captcha: Captcha) {
  const { db, config } = ctx;
  const maxFrequency = config.emailMaxFrequency;
  const limiter = createVerifyLimiter(config.verifyLimits, config.otpExp);
  const otpLimiter = createAddressLimiter(REQUEST_LIMITS.otp);

  // POST /otp – signInWithOtp: captcha, find or create the user, mail a magic link and code.
  app.post('/otp', async (c) => {
    otpLimiter.take(clientAddress(c));
    const body = await readJsonObject(c);
    const security = optionalObject(body, 'gotrue_meta_security');
    await captcha.verify(security ? optionalString(security, 'captcha_token') : undefined);
    if (optionalString(body, 'phone')) throw new AuthError(422, 'phone_provider_disabled', 'Unsupported phone provider');
    const email = validateEmail(optionalString(body, 'email'));
    if (body.create_user !== undefined && body.create_user !== null && typeof body.create_user !== 'boolean') {
      throw validationFailed('create_user must be a boolean');
    }
    optionalObject(body, 'data');
    const pkce = parsePkce(optionalString(body, 'code_challenge'), optionalString(body, 'code_challenge_method'));
    const redirectTo = resolveRedirect(config, c.req.query('redirect_to'));

    const otp = String(randomInt(1_000_000)).padStart(6, '0');
    const prefix = pkce ? PKCE_PREFIX : '';
    const hash = prefix + linkToken();
    const codeHash = prefix + tokenHash(email, otp);
    await db.transaction(async (tx) => {
      const existing = await findUserByEmail(tx, email);
      if (!existing && body.create_user === false) throw new AuthError(422, 'otp_disabled', 'Signups not allowed for otp');
      const user = existing ?? (await findOrCreateEmailUser(tx, email));
      const locked = await findUserById(tx, user.id, true);
      const last = locked?.recovery_sent_at ? new Date(locked.recovery_sent_at).getTime() : 0;
      const wait = Math.ceil((last + maxFrequency * 1000 - Date.now()) / 1000);
      if (wait > 0) throw new AuthError(429, 'over_email_send_rate_limit', `For security purposes, you can only request this after ${wait} seconds.`);
      if (pkce) await createFlowState(tx, { userId: user.id, pkce, providerType: 'email', method: 'magiclink' });
      await tx.query(
        `insert into auth.one_time_tokens (id, user_id, token_type, token_hash, relates_to, created_at, updated_at)
         values (gen_random_uuid(), $1, $2, $3, $4, now(), now())
         on conflict (user_id, token_type) do update set token_hash = excluded.token_hash, relates_to = excluded.relates_to, created_at = now(), updated_at = now()`,
        [user.id, TOKEN_TYPE, hash, email],
      );
      await tx.query('update auth.users set recovery_token = $2, recovery_sent_at = now(), updated_at = now() where id = $1', [user.id, codeHash]);
    });
    limiter.reset(email);

    const link = `${config.publicUrl}/auth/v1/verify?${new URLSearchParams({ token: hash, type: 'magiclink', redirect_to: redirectTo })}`;
    ctx.mailbox.send({
      to: email,
      subject: 'Your magic link',
      text: [
        'Follow this link to sign in:',
        link,
        '',
        `Or enter this code: ${otp}`,
        '',
        `The link and the code expire in ${describeSeconds(config.otpExp)} and work once. If you did not ask to sign in, ignore this email.`,
      ].join('\n'),
      link,
      otp,
    });
    return c.json({});
  });

  // GET /verify – the magic link itself (browser navigation): 303 back to the app.
  app.get('/verify', async (c) => {
    const token = c.req.query('token') ?? '';
    const type = c.req.query('type') ?? '';
    const redirectTo = resolveRedirect(config, c.req.query('redirect_to'));
    const pkce = token.startsWith(PKCE_PREFIX);
    // Over the limit GoTrue's limiter answers before the handler: JSON, not a redirect.
    const attempt = limiter.begin(clientAddress(c));
    try {
      if (!VERIFY_TYPES.has(type)) throw validationFailed('Unsupported verification type');
      if (!token) throw validationFailed('Verify requires a token or a token hash');
      const target = await db.transaction(async (tx) => {
        const user = await consumeToken(tx, config.otpExp, { link: token });
        if (!pkce) {
          const session = await createSession(tx, config, user, 'otp', { userAgent: c.req.header('user-agent') });
          const u = new URL(redirectTo);
          u.hash = sessionFragment(session, { type: 'magiclink' });
          return u.toString();
        }
        const flows = await tx.query<FlowStateRow>(
          `select * from auth.flow_state where user_id = $1 and authentication_method = 'magiclink' order by created_at desc limit 1 for update`,
          [user.id],
        );
        if (!flows.rows[0]) throw new AuthError(404, 'flow_state_not_found', 'invalid flow state, no valid flow state found');
        const code = await issueAuthCode(tx, flows.rows[0].id, { userId: user.id });
        const u = new URL(redirectTo);
        u.searchParams.set('code', code);
        return u.toString();
      });
      attempt.release();
      return c.redirect(target, 303);
    } catch (e) {
      if (!(e instanceof AuthError)) {
        attempt.release();
        throw e;
      }
      // A link's token is 224 random bits (linkToken): guessing one is hopeless, and a wrong
      // one names no email, so a failed link counts against the address only.
      attempt.fail();
      return c.redirect(errorRedirectUrl(redirectTo, e, pkce), 303);
    }
  });

  // POST /verify – verifyOtp({email, token, type}) or ({token_hash, type}): the session as JSON.
  app.post('/verify', async (c) => {
    const body: JsonObject = await readJsonObject(c);
    const type = optionalString(body, 'type');
    if (!type) throw validationFailed('Verify requires a verification type');
    if (!VERIFY_TYPES.has(type)) throw validationFailed('Unsupported verification type');
    const tokenHashParam = optionalString(body, 'token_hash');
    const otp = optionalString(body, 'token');
    let by: { link: string } | { email: string; codeHashes: string[] };
    let email: string | undefined;
    if (tokenHashParam) {
      by = { link: tokenHashParam };
    } else {
      if (!otp) throw validationFailed('Verify requires a token or a token hash');
      email = validateEmail(optionalString(body, 'email'));
      const h = tokenHash(email, otp.trim());
      by = { email, codeHashes: [h, PKCE_PREFIX + h] };
    }
    // The 6-digit form is the guessable one: it counts against the email's code too.
    const attempt = limiter.begin(clientAddress(c), email);
    let session: IssuedSession;
    try {
      session = await db.transaction(async (tx) => {
        const user = await consumeToken(tx, config.otpExp, by).catch((e: unknown) => {
          // The JSON path speaks of tokens, not links (GoTrue's ErrorCodeOTPExpired message).
          throw e instanceof AuthError && e.code === 'otp_expired' ? new AuthError(403, 'otp_expired', 'Token has expired or is invalid') : e;
        });
        return createSession(tx, config, user, 'otp', { userAgent: c.req.header('user-agent') });
      });
    } catch (e) {
      if (!(e instanceof AuthError && e.code === 'otp_expired')) {
        attempt.release();
        throw e;
      }
      if (attempt.fail() && email) await burnToken(db, email);
      throw e;
    }
    attempt.release();
    return c.json(session);
  });
}
