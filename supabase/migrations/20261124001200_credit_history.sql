-- Issue 15 §2, "where the credits went": the credit history and the usage chart of the
-- Subscription screen, the Task Logs detail's own movements, and the one-time tokens of the
-- streamed CSV exports. Nothing here moves credits: public.apply_credit stays the only writer
-- of public.credit_ledger.
--
-- Balance after: the ledger's own balance_after, written by apply_credit under the user's
-- mdusers row lock (the balance that movement produced, exact by construction), not a window
-- sum recomputed at read time. History is ordered newest first by (created_at, id) like the
-- galleries; its keyset page (created_at <= TS and (created_at < TS or id < ID)) is served by
-- credit_ledger_user_created_idx (user_id, created_at desc, id desc) from 20261101000100.

-- What each movement is, from its source key (the writers' own convention):
--   hold:<task>  a task's price held when it was created    refund:<task>  a failed task's refund
--   in:<invoice> a plan's monthly credits (invoice.paid)    pi:<intent>    a top-up, auto top-up
--   or trial payment (reason = the payment's kind)          anything else  an adjustment
-- Payments grant under the same key as their payments row's provider_ref: that is the invoice.
-- security_invoker: the caller's row-level security on credit_ledger and payments applies.
create view public.credit_history with (security_invoker = true) as
select
  l.id,
  l.user_id,
  l.created_at,
  l.delta,
  l.balance_after,
  case
    when l.source_key like 'hold:%' then 'hold'
    when l.source_key like 'refund:%' then 'refund'
    when l.source_key like 'in:%' then 'plan'
    when l.source_key like 'pi:%' and l.reason in ('topup', 'auto_topup', 'trial') then l.reason
    else 'adjustment'
  end as kind,
  l.task_id,
  -- apply_credit's reason of a task movement is '<hold|refund> <task type>'
  case when l.task_id is not null and strpos(l.reason, ' ') > 0 then substr(l.reason, strpos(l.reason, ' ') + 1) end as task_type,
  p.invoice_number
from public.credit_ledger l
left join public.payments p on p.provider_ref = l.source_key and p.user_id = l.user_id;

revoke all on public.credit_history from public, anon, authenticated;
grant select on public.credit_history to authenticated, service_role;

-- The Task Logs detail reads one task's movements (hold, then refund when it failed).
create index credit_ledger_task_idx on public.credit_ledger (task_id) where task_id is not null;

-- Credits spent per UTC day and task type over the last p_days days (today included), for the
-- usage chart. A task counts on the day its hold was taken, net of its refund (so a failed
-- task costs 0 that day, whenever the refund came). Task types map to the chart's tool
-- families in the dashboard (mfe-billing usage-rules.ts), in one place.
create function public.credit_usage(p_days integer default 30)
returns table (day date, task_type text, credits bigint)
language sql stable security invoker set search_path = '' as $$
  select (h.created_at at time zone 'UTC')::date as day,
         substr(h.reason, strpos(h.reason, ' ') + 1) as task_type,
         sum(-h.delta - coalesce(r.delta, 0))::bigint as credits
    from public.credit_ledger h
    left join public.credit_ledger r on r.source_key = 'refund:' || h.task_id::text and r.user_id = h.user_id
   where h.user_id = (select auth.uid())
     and h.source_key like 'hold:%'
     and h.created_at >= (date_trunc('day', now() at time zone 'UTC') - make_interval(days => least(greatest(p_days, 1), 366) - 1)) at time zone 'UTC'
   group by 1, 2
  having sum(-h.delta - coalesce(r.delta, 0)) <> 0
   order by 1, 2
$$;

revoke execute on function public.credit_usage(integer) from public, anon;
grant execute on function public.credit_usage(integer) to authenticated, service_role;

-- One-time tokens of the CSV exports: the dashboard asks for one with its API key, then lets
-- the browser download GET /exports/<kind>.csv?token=… (a navigation carries no Authorization
-- header). Only the token's SHA-256 is kept; a token works once, for a minute. Server only.
create table public.export_tokens (
  token_hash text primary key,
  user_id uuid not null references public.mdusers (id) on delete cascade,
  kind text not null check (kind in ('task-logs', 'credit-history')),
  filters jsonb not null default '{}',
  expires_at timestamptz not null,
  created_at timestamptz not null default now()
);
create index export_tokens_expires_idx on public.export_tokens (expires_at);
alter table public.export_tokens enable row level security;
revoke all on public.export_tokens from public, anon, authenticated;
grant all on public.export_tokens to service_role;
