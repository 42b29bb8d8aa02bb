-- The task engine's bookkeeping: the job queue the workers claim from, the per-request
-- webhook of a task, and the one settlement of each task's credit hold. All three are
-- server-only: RLS on with no policies, and no grants to the client roles.

-- One job per task. `queue` is the engine that runs it; the workers limit concurrency per
-- queue. A claim sets `lease_token` and `lease_expires_at`; the worker extends the lease
-- while it works (heartbeat), so an active job whose lease expired belongs to a worker that
-- died and is claimed again. Every write of a worker is fenced by its lease token.
create table public.task_jobs (
  task_id uuid primary key references public.tasks (id) on delete cascade,
  queue text not null,
  state text not null default 'queued' check (state in ('queued', 'active', 'done', 'failed')),
  attempts integer not null default 0 check (attempts >= 0),
  max_attempts integer not null default 3 check (max_attempts >= 1),
  run_at timestamptz not null default now(),
  lease_token uuid,
  locked_by text,
  lease_expires_at timestamptz,
  -- the id an upstream engine gave the job, so a retry resumes it instead of paying twice
  upstream_id text,
  last_error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint task_jobs_active_lease check (state <> 'active' or (lease_token is not null and lease_expires_at is not null))
);
create index task_jobs_ready_idx on public.task_jobs (queue, run_at, created_at) where state = 'queued';
create index task_jobs_active_idx on public.task_jobs (queue, lease_expires_at) where state = 'active';

-- The per-request webhook_url / webhook_secret of POST /pro/imagine. Kept apart from tasks
-- because tasks are readable (and streamed) to the dashboard and the secret must not be.
-- A secret without a URL applies to the account's webhook URL.
create table public.task_webhooks (
  task_id uuid primary key references public.tasks (id) on delete cascade,
  url text,
  secret text,
  created_at timestamptz not null default now(),
  constraint task_webhooks_not_empty check (url is not null or secret is not null)
);

-- How each task's hold ended: kept as the charge (success) or refunded (failure). The
-- primary key makes the settlement happen once; the refund's ledger row (source key
-- refund:<task_id>) is written in the same transaction. No FK to tasks: settled tasks
-- move to the archive.
create table public.task_settlements (
  task_id uuid primary key,
  user_id uuid not null references public.mdusers (id) on delete cascade,
  outcome text not null check (outcome in ('charged', 'refunded')),
  amount integer not null check (amount >= 0),
  settled_at timestamptz not null default now()
);
create index task_settlements_user_idx on public.task_settlements (user_id, settled_at desc);

alter table public.task_jobs enable row level security;
alter table public.task_webhooks enable row level security;
alter table public.task_settlements enable row level security;
revoke all on public.task_jobs, public.task_webhooks, public.task_settlements from anon, authenticated;
grant all on public.task_jobs, public.task_webhooks, public.task_settlements to service_role;
