-- Webhooks fair across accounts (issue 21): one account's slow or dead receiver no longer
-- holds another account's deliveries.
--
-- 1. A circuit breaker per endpoint (account + URL). After consecutive failed attempts
--    (timeouts, connection errors, non-2xx) the endpoint is paused until paused_until; a
--    dispatcher claims none of its pending deliveries meanwhile (they wait: not failed, no
--    attempt counted). Each pause in a row doubles the cool-down (1 min up to 1 h); a
--    delivered attempt, or Resume in the console, closes the breaker.
create table public.webhook_endpoints (
  user_id uuid not null references public.mdusers (id) on delete cascade,
  url text not null check (char_length(url) <= 2048),
  consecutive_failures integer not null default 0 check (consecutive_failures >= 0),
  -- pauses in a row since the last success: the next cool-down is base * 2^pauses (capped)
  pauses integer not null default 0 check (pauses >= 0),
  paused_until timestamptz,
  last_error text,
  updated_at timestamptz not null default now(),
  primary key (user_id, url)
);
create index webhook_endpoints_paused_idx on public.webhook_endpoints (user_id, url) where paused_until is not null;

alter table public.webhook_endpoints enable row level security;
create policy "own webhook endpoints" on public.webhook_endpoints for select to authenticated
  using (user_id = (select auth.uid()));
revoke all on public.webhook_endpoints from anon, authenticated;
grant select on public.webhook_endpoints to authenticated;

-- 2. Per-account delivery concurrency: a claim counts, cluster-wide, each account's deliveries
--    that are claimed with an unexpired lease (pending, claim_token set, next_attempt_at ahead).
create index webhook_deliveries_leased_idx on public.webhook_deliveries (user_id, next_attempt_at)
  where status = 'pending' and claim_token is not null;

-- 3. The test-event limit counts an account's recent and pending webhook.test deliveries.
create index webhook_deliveries_user_tests_idx on public.webhook_deliveries (user_id, created_at)
  where event = 'webhook.test';
