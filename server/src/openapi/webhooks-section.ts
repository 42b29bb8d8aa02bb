/**
 * @module The docs page's Webhooks section (events, payload, headers, signature verification
 * samples, retry schedule, what counts as success), as an HTML fragment docs-page.ts renders.
 * The samples are the files in docs/webhooks/, shown as they are (test/webhooks-interop.test.ts
 * runs each against real deliveries).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MAX_SNIPPET_CHARS } from '../webhooks/send-webhook.ts';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../webhooks/retry-schedule.ts';
import { SIGNING_SECRET_OVERLAP_MS } from '../webhooks/signing-secret.ts';
import { TEST_EVENT_LIMITS } from '../webhooks/console.ts';
import { DEFAULT_BREAKER, DEFAULT_TIMEOUT_MS } from '../webhooks/webhook-service.ts';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
const code = (s: string) => `<code>${escapeHtml(s)}</code>`;

/** A copy-able block, as docs-page.ts's examples (its script adds the Copy button). */
const example = (text: string, label: string) =>
  `<div class="example"><pre tabindex="0" aria-label="${escapeHtml(label)}"><code>${escapeHtml(text)}</code></pre></div>`;

const SAMPLES = [
  { file: 'verify.mjs', title: 'Node.js', note: 'With the official Standard Webhooks library (<code>npm install standardwebhooks</code>).' },
  {
    file: 'verify.py',
    title: 'Python',
    note: 'Standard library only, following the algorithm of the official library (PyPI <code>standardwebhooks</code>: <code>Webhook(secret).verify(body, headers)</code>), which you may use instead. We test this sample against real deliveries; the official Python library could not be tested here (our build machines cannot reach PyPI).',
  },
  { file: 'verify.php', title: 'PHP', note: 'No extension beyond the standard ones; run it with <code>php -S</code> or put it behind your web server.' },
  {
    file: 'verify-curl.sh',
    title: 'curl and openssl',
    note: 'Checks a captured delivery from a shell, and sends your receiver a request signed exactly as we sign deliveries.',
  },
] as const;

function sample(file: string): string {
  try {
    return readFileSync(fileURLToPath(new URL(`../../../docs/webhooks/${file}`, import.meta.url)), 'utf8');
  } catch {
    return `See docs/webhooks/${file} in the repository.`;
  }
}

function duration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${ms / 1000} s`;
}

const TASK_EXAMPLE = {
  task_id: '7d3e1c2b-8a9f-4b6e-a5d4-c3b2a1f0e9d8',
  task_type: 'imagine',
  status: 'finished',
  percentage: '100',
  original_image_url: 'https://api.example.com/media/7d3e1c2b-grid.png',
  image_urls: ['https://api.example.com/media/7d3e1c2b-1.png', 'https://api.example.com/media/7d3e1c2b-2.png'],
};

const TEST_EXAMPLE = {
  event: 'webhook.test',
  message: 'A test event from the API Keys screen. Verify its signature as you would a task event.',
  created_at: '2026-11-24T07:30:00.000Z',
};

const row = (...cells: string[]) => `<tr>${cells.map((c, i) => (i === 0 ? `<th scope="row">${c}</th>` : `<td>${c}</td>`)).join('')}</tr>`;
const table = (caption: string, head: string[], rows: string[]) =>
  `<div class="table"><table><caption>${escapeHtml(caption)}</caption><thead><tr>${head.map((h) => `<th scope="col">${h}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table></div>`;

/** The Webhooks section of /docs as an HTML fragment (already escaped). */
export function renderWebhooksSection(): string {
  const overlapHours = SIGNING_SECRET_OVERLAP_MS / 3_600_000;
  const schedule = RETRY_DELAYS_MS.map((ms, i) => row(String(i + 2), `${duration(ms)} after attempt ${i + 1} failed`)).join('');
  const samples = SAMPLES.map(
    (s) => `<h4 id="webhooks-sample-${s.file.replace(/\W+/g, '-')}">${escapeHtml(s.title)} <span class="muted">(docs/webhooks/${escapeHtml(s.file)})</span></h4>
<p>${s.note}</p>
${example(sample(s.file), `${s.title} verification sample`)}`,
  ).join('\n');

  return `<section id="webhooks" aria-labelledby="webhooks-title">
<h2 id="webhooks-title">Webhooks</h2>
<p>We POST a task's progress and result to a URL of yours: the request's ${code('webhook_url')} when it gave one (every generation endpoint takes ${code('webhook_url')} and ${code('webhook_secret')}), otherwise your account webhook URL (API Keys screen, or ${code('POST /auth/updateWebhookURL')}). The API Keys screen lists your recent deliveries with every attempt, resends one and sends a test event.</p>

<h3 id="webhooks-events">Events and when they fire</h3>
${table(
  'Webhook events (header x-webhook-event)',
  ['Event', 'When'],
  [
    row(
      code('task.progress'),
      'While the task runs, at each progress step. Best-effort: a step still waiting to be sent is replaced by a newer one, and none comes after the final event.',
    ),
    row(code('task.completed'), 'Once, when the task finished (status <code>finished</code>).'),
    row(code('task.failed'), 'Once, when the task failed (its credits are refunded); the body’s <code>message</code> says why.'),
    row(
      code('webhook.test'),
      'When you press Send test event on the API Keys screen (or call <code>POST /auth/webhook-test</code>); always to the account webhook URL.',
    ),
  ],
)}
<p>Choose which task events are sent: your account filter (${code('POST /auth/webhook-events')} with ${code('{"events": ["completed", "failed"]}')}, or the webhook card of the API Keys screen) and, per request, ${code('webhook_events')} beside ${code('webhook_url')} (${code('progress')}, ${code('completed')}, ${code('failed')}). A request's list replaces the account filter for its task; none given means every event. Events left out are never recorded, so they do not appear among your deliveries either; ${code('webhook.test')} is always sent.</p>
<p>One task's events reach one URL in order. A delivery is retried until it succeeds, so the same event can arrive more than once: drop repeats by ${code('webhook-id')}.</p>

<h3 id="webhooks-payload">Payload</h3>
<p>The body is JSON: the task exactly as ${code('POST /fetch')} answers at that moment (see the <code>Task</code> schema below). Keys may come in another order than /fetch's.</p>
${example(JSON.stringify(TASK_EXAMPLE, null, 2), 'task.completed body')}
<p>A test event's body:</p>
${example(JSON.stringify(TEST_EXAMPLE, null, 2), 'webhook.test body')}

<h3 id="webhooks-headers">Headers</h3>
${table(
  'Headers of every delivery',
  ['Header', 'Value'],
  [
    row(code('content-type'), code('application/json')),
    row(code('user-agent'), code('AIM-Webhooks/1.0')),
    row(code('x-webhook-event'), 'The event, e.g. <code>task.completed</code>.'),
    row(code('webhook-id'), 'The delivery id: the same on every retry and resend of it. Use it to drop duplicates.'),
    row(code('webhook-timestamp'), 'Unix seconds when this attempt was signed.'),
    row(
      code('webhook-signature'),
      `<code>v1,&lt;base64 signature&gt;</code>; during the ${overlapHours} h after a secret rotation two entries separated by a space (new secret first). Accept the message when any entry matches.`,
    ),
    row(
      code('x-webhook-secret'),
      'Only when the request gave a <code>webhook_secret</code>: that secret, echoed for APIFRAME v1 clients that compare it. Checking the signature is the safer test.',
    ),
  ],
)}

<h3 id="webhooks-signatures">Verifying signatures</h3>
<p>Deliveries are signed the <a href="https://www.standardwebhooks.com">Standard Webhooks</a> way: HMAC-SHA256 over ${code('<webhook-id>.<webhook-timestamp>.<raw body>')} with the secret's key, base64-encoded. Verify the raw body exactly as received (not re-serialised JSON), refuse timestamps more than 5 minutes from your clock, and compare in constant time. Any Standard Webhooks library does all of this.</p>
${table(
  'Which secret signs a delivery',
  ['Delivery', 'Secret', 'Key for a Standard Webhooks library'],
  [
    row(
      'To your account webhook URL (and test events)',
      'Your account signing secret, <code>whsec_</code> + base64 of 32 random bytes: reveal and copy it on the API Keys screen (or <code>GET /auth/webhook-signing-secret</code>).',
      'Pass it as shown: <code>new Webhook("whsec_…")</code>.',
    ),
    row(
      'To a request’s <code>webhook_url</code>, with its <code>webhook_secret</code>',
      'That <code>webhook_secret</code>.',
      'A <code>whsec_</code> + base64 value is used as is. Any other string is the key as its UTF-8 bytes: give the library <code>"whsec_" + base64(UTF-8 bytes of the secret)</code> (in Node <code>new Webhook(Buffer.from(secret, "utf8"), { format: "raw" })</code>).',
    ),
    row('To a request’s <code>webhook_url</code>, without a secret', 'Your account signing secret.', 'As above.'),
  ],
)}
<p><strong>Rotation.</strong> Rotate the account secret on the API Keys screen (or <code>POST /auth/webhook-signing-secret/rotate</code>). For ${overlapHours} hours the replaced secret keeps signing beside the new one, both signatures in <code>webhook-signature</code>, so a receiver still holding the old secret keeps verifying while you deploy the new one; then the old secret is dropped. Rotating again within those hours drops the oldest at once.</p>
${samples}

<h3 id="webhooks-retries">Success and retries</h3>
<p>A delivery succeeds when your endpoint answers any <strong>2xx</strong> status within ${duration(DEFAULT_TIMEOUT_MS)}. Anything else is a failed attempt: another status (redirects are not followed), no answer in time, or a connection error. Answer quickly and do slow work afterwards. Each attempt is recorded with its status code, latency and the first ${MAX_SNIPPET_CHARS} characters of your answer.</p>
${table('Retry schedule (each delay ±20 % jitter)', ['Attempt', 'When'], [row('1', 'At once'), schedule])}
<p>After ${MAX_ATTEMPTS} failed attempts (about ${Math.round(RETRY_DELAYS_MS.reduce((a, b) => a + b, 0) / 3_600_000)} hours) the delivery is <code>failed</code>; Resend on the API Keys screen (or <code>POST /auth/webhook-deliveries/{id}/resend</code>) sends it again with the same <code>webhook-id</code>. A URL that points at a private, loopback or link-local address is <code>refused</code> and not retried.</p>

<h3 id="webhooks-paused">Paused URLs (circuit breaker) and fairness</h3>
<p>After ${DEFAULT_BREAKER.threshold} failed attempts in a row to one of your URLs (timeouts, connection errors, non-2xx answers), we pause deliveries to that URL for ${duration(DEFAULT_BREAKER.cooldownMs)}; each further pause in a row doubles it, up to ${duration(DEFAULT_BREAKER.maxCooldownMs)}. Its pending deliveries wait meanwhile: they are not failed and no attempt is counted. After the pause its deliveries are tried again: a success closes the breaker, a failure pauses it again at once. The API Keys screen shows a paused URL with why and until when, and its <strong>Resume</strong> button (or ${code('POST /auth/webhook-endpoint/resume')} with ${code('{"url": "…"}')}; ${code('GET /auth/webhook-endpoints/paused')} lists them) sends the waiting deliveries at once. Each delivery is sent on its own and an account has at most a few deliveries in flight at once, so a slow or silent endpoint delays only its own account’s deliveries, never another account’s.</p>
<p><strong>Test events</strong> are limited to ${TEST_EVENT_LIMITS.perMinute} a minute per account, with at most ${TEST_EVENT_LIMITS.pending} waiting to be delivered at once; beyond that ${code('POST /auth/webhook-test')} answers 429 ${code('too_many_requests')}.</p>
</section>`;
}
