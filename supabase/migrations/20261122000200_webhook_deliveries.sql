-- Outgoing webhooks (spec §7 webhook_url / webhook_secret, the account's
-- integration_webhook_url): one row per event to deliver, one row per HTTP attempt.
-- Only the API server (table owner) writes. Clients may read their own deliveries and
-- attempts (a delivery log), never a secret: secrets live in tables clients cannot read.

create table public.webhook_deliveries (
  id uuid primary key default gen_random_uuid(),
  -- enqueue order: one target receives the events of one task in this order
  seq bigint generated always as identity unique,
  user_id uuid not null references public.mdusers (id) on delete cascade,
  -- no FK: the task may move to tasks_archive_1
  task_id uuid not null,
  url text not null check (char_length(url) <= 2048),
  event text not null check (event in ('task.progress', 'task.completed', 'task.failed')),
  -- the body sent: the task's /fetch result
  payload jsonb not null,
  -- superseded: a newer event for the same task and url replaced this pending progress event
  status text not null default 'pending'
    check (status in ('pending', 'delivered', 'failed', 'refused', 'superseded')),
  attempt_count integer not null default 0 check (attempt_count >= 0),
  -- when pending: the next attempt is due; while claimed: the claim's lease ends
  next_attempt_at timestamptz not null default now(),
  -- the dispatcher currently sending it (null when nobody holds it)
  claim_token uuid,
  last_status_code integer,
  last_error text,
  delivered_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index webhook_deliveries_due_idx on public.webhook_deliveries (next_attempt_at) where status = 'pending';
create index webhook_deliveries_target_idx on public.webhook_deliveries (task_id, url, seq);
create index webhook_deliveries_user_created_idx on public.webhook_deliveries (user_id, created_at desc, id desc);
create trigger webhook_deliveries_touch before update on public.webhook_deliveries
  for each row execute function public.touch_updated_at();

-- The per-request webhook_secret: echoed as x-webhook-secret and used as the signing key.
create table public.webhook_delivery_secrets (
  delivery_id uuid primary key references public.webhook_deliveries (id) on delete cascade,
  secret text not null
);

-- The account's Standard Webhooks signing secret (whsec_…), made on first use; signs
-- deliveries that carry no per-request secret (e.g. to the account webhook URL).
create table public.webhook_signing_secrets (
  user_id uuid primary key references public.mdusers (id) on delete cascade,
  secret text not null,
  created_at timestamptz not null default now()
);

create table public.webhook_attempts (
  id bigint generated always as identity primary key,
  delivery_id uuid not null references public.webhook_deliveries (id) on delete cascade,
  user_id uuid not null references public.mdusers (id) on delete cascade,
  attempt integer not null check (attempt >= 1),
  -- null when no HTTP answer came (refused, timeout, connection error)
  status_code integer,
  latency_ms integer not null check (latency_ms >= 0),
  response_snippet text check (char_length(response_snippet) <= 500),
  error text,
  created_at timestamptz not null default now()
);
create index webhook_attempts_delivery_idx on public.webhook_attempts (delivery_id, id);
create index webhook_attempts_user_created_idx on public.webhook_attempts (user_id, created_at desc, id desc);

alter table public.webhook_deliveries enable row level security;
alter table public.webhook_delivery_secrets enable row level security;
alter table public.webhook_signing_secrets enable row level security;
alter table public.webhook_attempts enable row level security;

create policy "own webhook deliveries" on public.webhook_deliveries for select to authenticated
  using (user_id = auth.uid());
create policy "own webhook attempts" on public.webhook_attempts for select to authenticated
  using (user_id = auth.uid());

-- Supabase's default grants give the API roles everything; narrow them. The two secret
-- tables get no client grant and no policy at all.
revoke all on public.webhook_deliveries, public.webhook_delivery_secrets, public.webhook_signing_secrets,
  public.webhook_attempts from anon, authenticated;
grant select on public.webhook_deliveries, public.webhook_attempts to authenticated;
grant all on public.webhook_deliveries, public.webhook_delivery_secrets, public.webhook_signing_secrets,
  public.webhook_attempts to service_role;
