/**
 * @module The docs page's Live task events section (server-sent events: the streams, the event
 * format, Last-Event-ID, authentication and limits, client samples), as an HTML fragment
 * docs-page.ts renders. The samples are the files in docs/events/, shown as they are
 * (test/task-events-samples.test.ts runs each against a running API).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEFAULT_MAX_STREAMS_PER_ACCOUNT } from '../services/task-events/task-event-hub.ts';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** A copy-able block, as docs-page.ts's examples (its script adds the Copy button). */
const example = (text: string, label: string) =>
  `<div class="example"><pre tabindex="0" aria-label="${escapeHtml(label)}"><code>${escapeHtml(text)}</code></pre></div>`;

const SAMPLES = [
  { file: 'events.mjs', title: 'Node.js', note: 'Node.js 18+ with its built-in fetch; nothing to install.' },
  { file: 'events.py', title: 'Python', note: 'The standard library only (urllib).' },
  { file: 'events.php', title: 'PHP', note: 'Plain PHP: the http stream wrapper, no extension needed.' },
  { file: 'events-curl.sh', title: 'curl', note: 'The raw stream in a shell; run it again with LAST_EVENT_ID to resume.' },
] as const;

function sample(file: string): string {
  try {
    return readFileSync(fileURLToPath(new URL(`../../../docs/events/${file}`, import.meta.url)), 'utf8');
  } catch {
    return `See docs/events/${file} in the repository.`;
  }
}

const STREAM_EXAMPLE = [
  'retry: 3000',
  ': connected',
  '',
  'event: progress',
  'id: 1041',
  'data: {"task_id":"7d3e1c2b-8a9f-4b6e-a5d4-c3b2a1f0e9d8","task_type":"imagine","status":"processing","percentage":"40",…}',
  '',
  ': heartbeat',
  '',
  'event: completed',
  'id: 1042',
  'data: {"task_id":"7d3e1c2b-8a9f-4b6e-a5d4-c3b2a1f0e9d8","task_type":"imagine","status":"finished","percentage":"100",…}',
  '',
].join('\n');

/** The Live task events section of /docs as an HTML fragment (already escaped). */
export function renderEventsSection(): string {
  const samples = SAMPLES.map(
    (s) => `<h4>${escapeHtml(s.title)} <span class="muted">(docs/events/${escapeHtml(s.file)})</span></h4>
<p>${escapeHtml(s.note)}</p>
${example(sample(s.file), `${s.title} client`)}`,
  ).join('\n');
  return `<section id="events" aria-labelledby="events-title">
<h2 id="events-title">Live task events (server-sent events)</h2>
<p>Instead of polling <code>POST /fetch</code>, follow tasks as they run: <code>GET /tasks/{task_id}/events</code> streams one task (its current state, every change, then <code>completed</code> or <code>failed</code>, after which the stream ends); <code>GET /events</code> streams every task of your account (<code>?type=imagine,faceswap</code> keeps only those types) until you close it.</p>
<h3 id="events-format">Events</h3>
<p>Each event has a name (<code>progress</code>, <code>completed</code> or <code>failed</code>), an <code>id</code> (the task’s version) and one JSON line of <code>data</code>: the task exactly as <code>POST /fetch</code> shows it. Changes made while a client was busy may arrive as one event with the latest state. Lines starting with <code>:</code> are heartbeats, every 15 s.</p>
${example(STREAM_EXAMPLE, 'An event stream')}
<h3 id="events-resume">Reconnecting</h3>
<p>Send the last <code>id</code> you received in a <code>Last-Event-ID</code> header: the stream starts with the current state of every task that changed after it, then goes on live. A task stream asked after its terminal event answers <code>204</code>. When an API instance restarts, its streams end; reconnect (after the <code>retry</code> delay, 3 s) and nothing is lost.</p>
<h3 id="events-auth">Authentication and limits</h3>
<p>The API key goes in <code>Authorization</code> (or the dashboard session in <code>X-Session-Token</code>), never in the URL. The browser’s <code>EventSource</code> cannot send headers: read the stream with <code>fetch</code>, as the samples below do. Connecting counts as one read request against the rate limits. At most ${DEFAULT_MAX_STREAMS_PER_ACCOUNT} streams per account are open at once (more: <code>429 too_many_requests</code>). Another account’s task answers <code>404</code>.</p>
<h3 id="events-samples">Clients</h3>
${samples}
</section>`;
}
