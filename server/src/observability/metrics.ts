/**
 * @module Prometheus metrics (prom-client): one registry per process, served at `/metrics` by
 * the API and by each worker's health port. Every metric is defined here and documented in
 * docs/operations/observability.md (name, type, labels, meaning). Counters count in the
 * process where the event happens (sum them over processes); the queue gauges are read from
 * the database at scrape time, cluster-wide, by the API only (take max, not sum, over API
 * instances).
 */
import type { Queryable } from '@aim/supabase/db';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** The process-wide registry; `role` (api or worker) is a default label on every series. */
const metricsRegistry = new Registry();

let started = false;

/** Labels every series with the process role and adds Node's default process metrics (once). */
export function initMetrics(role: 'api' | 'worker'): void {
  if (started) return;
  started = true;
  metricsRegistry.setDefaultLabels({ role });
  collectDefaultMetrics({ register: metricsRegistry });
}

/** The text exposition format for a scrape. */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  return { contentType: metricsRegistry.contentType, body: await metricsRegistry.metrics() };
}

const registers = [metricsRegistry];

// ---- HTTP ------------------------------------------------------------------------------

const httpRequests = new Counter({
  name: 'aim_http_requests_total',
  help: 'API requests answered, by method, route pattern and status.',
  labelNames: ['method', 'route', 'status'] as const,
  registers,
});

const httpDuration = new Histogram({
  name: 'aim_http_request_duration_seconds',
  help: 'Time from request to response, by method, route pattern and status.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers,
});

/** One answered request; `route` is the matched pattern (`/media/:id`), never the raw path. */
export function recordHttpRequest(method: string, route: string, status: number, seconds: number): void {
  const labels = { method, route, status: String(status) };
  httpRequests.inc(labels);
  httpDuration.observe(labels, seconds);
}

// ---- jobs ------------------------------------------------------------------------------

/** How one run of a job ended (workers/task-worker.ts through observability/job-log.ts). */
export type JobOutcome = 'success' | 'failed' | 'requeued' | 'abandoned';

const jobs = new Counter({
  name: 'aim_jobs_total',
  help: 'Job runs ended, by engine and outcome (success, failed, requeued, abandoned).',
  labelNames: ['engine', 'outcome'] as const,
  registers,
});

const jobDuration = new Histogram({
  name: 'aim_job_duration_seconds',
  help: 'Time from claim to the end of a job run, by engine and outcome.',
  labelNames: ['engine', 'outcome'] as const,
  buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800],
  registers,
});

export function recordJob(engine: string, outcome: JobOutcome, seconds: number): void {
  jobs.inc({ engine, outcome });
  jobDuration.observe({ engine, outcome }, seconds);
}

// ---- webhooks --------------------------------------------------------------------------

const webhookAttempts = new Counter({
  name: 'aim_webhook_attempts_total',
  help: 'Webhook delivery attempts, by event and outcome (delivered, retry, failed, refused).',
  labelNames: ['event', 'outcome'] as const,
  registers,
});

/**
 * One attempt of a delivery and what it led to: `pending` (another attempt is scheduled) counts
 * as outcome `retry`; delivered, failed (retries exhausted) and refused (target not allowed)
 * are final.
 */
export function recordWebhookAttempt(event: string, status: string): void {
  webhookAttempts.inc({ event, outcome: status === 'pending' ? 'retry' : status });
}

// ---- credits ---------------------------------------------------------------------------

const creditsGranted = new Counter({
  name: 'aim_credits_granted_total',
  help: 'Credits granted by payments, by kind (topup, trial, auto_topup, subscription).',
  labelNames: ['kind'] as const,
  registers,
});

const creditsSpent = new Counter({
  name: 'aim_credits_spent_total',
  help: 'Credits held by new tasks, by task type.',
  labelNames: ['kind'] as const,
  registers,
});

const creditsRefunded = new Counter({
  name: 'aim_credits_refunded_total',
  help: 'Credits given back by failed tasks, by task type.',
  labelNames: ['kind'] as const,
  registers,
});

const creditCounters = { granted: creditsGranted, spent: creditsSpent, refunded: creditsRefunded };

/** Credits moved once (after the ledger accepted the movement): granted by a payment, held by a task, refunded. */
export function recordCredits(direction: keyof typeof creditCounters, kind: string, credits: number): void {
  if (credits > 0) creditCounters[direction].inc({ kind }, credits);
}

// ---- the queue (read at scrape time) ---------------------------------------------------

interface QueueSource {
  db: Queryable;
  engines: readonly string[];
}

let queueSource: QueueSource | undefined;
let snapshot: Promise<Map<string, QueueRow>> | undefined;

interface QueueRow {
  engine: string;
  queued: number;
  running: number;
  oldest_seconds: number;
}

/**
 * The queue gauges read `db` at scrape time (the API's; the engines named are reported even
 * when empty). The last call wins.
 */
export function watchQueues(db: Queryable, engines: readonly string[]): void {
  queueSource = { db, engines };
}

/**
 * One query per scrape (the three gauges share it), each half on a partial index of
 * task_jobs (state queued / active), so done jobs are never read.
 */
async function readQueues(source: QueueSource): Promise<Map<string, QueueRow>> {
  const { rows } = await source.db.query<QueueRow>(
    `select engine, sum(queued)::int as queued, sum(running)::int as running,
            coalesce(extract(epoch from now() - min(oldest)), 0)::float8 as oldest_seconds
       from (select queue as engine, count(*) as queued, 0 as running, min(created_at) as oldest
               from public.task_jobs where state = 'queued' group by queue
             union all
             select queue, 0, count(*), null from public.task_jobs where state = 'active' group by queue) q
      group by engine`,
  );
  const byEngine = new Map<string, QueueRow>(source.engines.map((engine) => [engine, { engine, queued: 0, running: 0, oldest_seconds: 0 }]));
  for (const row of rows) byEngine.set(row.engine, row);
  return byEngine;
}

/** The snapshot of this scrape: the gauges collect concurrently and share one query. */
function queueSnapshot(source: QueueSource): Promise<Map<string, QueueRow>> {
  snapshot ??= readQueues(source).finally(() => {
    snapshot = undefined;
  });
  return snapshot;
}

function queueGauge(name: string, help: string, value: (row: QueueRow) => number) {
  return new Gauge({
    name,
    help,
    labelNames: ['engine'] as const,
    registers,
    async collect() {
      this.reset();
      if (!queueSource) return;
      // a database that cannot answer leaves the gauge empty; the rest of the scrape still answers
      const rows = await queueSnapshot(queueSource).catch(() => new Map<string, QueueRow>());
      for (const row of rows.values()) this.set({ engine: row.engine }, value(row));
    },
  });
}

queueGauge(
  'aim_queue_depth',
  'Jobs waiting to run (queued, retries waiting for their time included), by engine. Cluster-wide, from the database.',
  (r) => r.queued,
);
queueGauge('aim_queue_running_jobs', 'Jobs running now (live or expired lease), by engine. Cluster-wide, from the database.', (r) => r.running);
queueGauge(
  'aim_queue_oldest_job_age_seconds',
  'Age of the oldest waiting job (since it was enqueued), by engine; 0 when none waits. Cluster-wide, from the database.',
  (r) => r.oldest_seconds,
);
