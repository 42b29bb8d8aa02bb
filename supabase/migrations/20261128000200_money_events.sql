-- Money events (issue 20, docs/decisions/0012-money-events.md): refunds and disputes take the
-- credits of their payment back through the ledger, a won dispute gives them back, and an open
-- dispute or a negative balance puts the account on hold (no new tasks, no off-session
-- charges). public.apply_credit stays the one writer of ordinary movements and still never
-- takes a balance below zero; only public.apply_clawback may, and only for a payment's own
-- credits taken back.

-- 1. A balance may go below zero, but only through apply_clawback. The two "never negative"
-- checks become a guard that refuses any write lowering a balance below zero unless the
-- clawback function asked for it in this transaction (a transaction-local setting). The
-- trigger's WHEN keeps the hot path (every task hold) free of a function call.
alter table public.mdusers drop constraint if exists mdusers_credits_check;
alter table public.credit_ledger drop constraint if exists credit_ledger_balance_after_check;

create function public.mdusers_negative_balance_guard() returns trigger language plpgsql as $$
begin
  if coalesce(current_setting('billing.allow_negative_balance', true), '') <> 'on' then
    raise exception 'new row for relation "mdusers" violates check constraint "mdusers_credits_check"'
      using errcode = '23514';
  end if;
  return new;
end
$$;
create trigger mdusers_negative_balance_guard before update of credits on public.mdusers
  for each row when (new.credits < 0 and new.credits < old.credits)
  execute function public.mdusers_negative_balance_guard();
create trigger mdusers_negative_balance_guard_insert before insert on public.mdusers
  for each row when (new.credits < 0)
  execute function public.mdusers_negative_balance_guard();
revoke execute on function public.mdusers_negative_balance_guard() from public, anon, authenticated;

-- apply_credit: unchanged, except that a credit (a positive delta: a payment, a task refund)
-- now also lands on a negative balance (it used to require the result to be >= 0, which a
-- negative balance can never meet). A debit still never takes a balance below zero (P0402).
create or replace function public.apply_credit(
  p_user_id uuid, p_delta integer, p_source_key text, p_reason text, p_task_id uuid default null
) returns integer language plpgsql security definer set search_path = '' as $$
declare
  v_ledger_id bigint;
  v_balance integer;
begin
  insert into public.credit_ledger (user_id, delta, balance_after, source_key, reason, task_id)
  values (p_user_id, p_delta, 0, p_source_key, p_reason, p_task_id)
  on conflict (source_key) do nothing
  returning id into v_ledger_id;
  if v_ledger_id is null then
    return null;
  end if;
  update public.mdusers set credits = credits + p_delta
  where id = p_user_id and (p_delta > 0 or credits + p_delta >= 0)
  returning credits into v_balance;
  if v_balance is null then
    raise exception 'insufficient_credits' using errcode = 'P0402';
  end if;
  update public.credit_ledger set balance_after = v_balance where id = v_ledger_id;
  return v_balance;
end
$$;

-- The clawback path: like apply_credit (one ledger row per source key, null on a replay, the
-- user's row lock), but the result may be negative. Server only.
create function public.apply_clawback(p_user_id uuid, p_delta integer, p_source_key text, p_reason text)
returns integer language plpgsql security definer set search_path = '' as $$
declare
  v_ledger_id bigint;
  v_balance integer;
begin
  insert into public.credit_ledger (user_id, delta, balance_after, source_key, reason)
  values (p_user_id, p_delta, 0, p_source_key, p_reason)
  on conflict (source_key) do nothing
  returning id into v_ledger_id;
  if v_ledger_id is null then
    return null;
  end if;
  perform set_config('billing.allow_negative_balance', 'on', true);
  update public.mdusers set credits = credits + p_delta where id = p_user_id returning credits into v_balance;
  perform set_config('billing.allow_negative_balance', 'off', true);
  if v_balance is null then
    raise exception 'no such account' using errcode = 'P0002';
  end if;
  update public.credit_ledger set balance_after = v_balance where id = v_ledger_id;
  return v_balance;
end
$$;
revoke execute on function public.apply_clawback(uuid, integer, text, text) from public, anon, authenticated;
grant execute on function public.apply_clawback(uuid, integer, text, text) to service_role;

-- 2. Refunds and disputes as the provider reported them, one row per refunded charge or per
-- dispute (object_id: ch_… / dp_…). payment_ref is the source key of the payment's grant
-- (pi:<intent> or in:<invoice>); credits is what this event holds back now. The dashboard
-- reads its own rows.
create table public.billing_money_events (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references public.mdusers (id) on delete cascade,
  kind text not null check (kind in ('refund', 'dispute')),
  object_id text not null,
  charge_id text not null,
  payment_ref text,
  -- the charge's amount, and the amount refunded (in total) or disputed
  payment_amount_cents integer not null check (payment_amount_cents >= 0),
  amount_cents integer not null check (amount_cents >= 0),
  credits integer not null default 0,
  -- refund: succeeded; dispute: open, then won or lost (final)
  status text not null check (status in ('succeeded', 'open', 'won', 'lost')),
  -- why we refunded it ourselves, when we did (duplicate_subscription)
  reason text,
  state_at timestamptz not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (kind, object_id)
);
create index billing_money_events_user_created_idx on public.billing_money_events (user_id, created_at desc);
create index billing_money_events_payment_idx on public.billing_money_events (payment_ref) where payment_ref is not null;
create index billing_money_events_open_disputes_idx on public.billing_money_events (user_id) where kind = 'dispute' and status = 'open';
create trigger billing_money_events_touch before update on public.billing_money_events
  for each row execute function public.touch_updated_at();

-- What has been taken back from each payment's grant so far (net of restorations); steps
-- numbers the ledger movements (source key clawback:<payment_ref>:<step>).
create table public.billing_payment_clawbacks (
  payment_ref text primary key,
  user_id uuid not null references public.mdusers (id) on delete cascade,
  credits_taken integer not null default 0,
  steps integer not null default 0
);

alter table public.billing_money_events enable row level security;
alter table public.billing_payment_clawbacks enable row level security;
create policy "own money events" on public.billing_money_events for select to authenticated using (user_id = (select auth.uid()));
revoke all on public.billing_money_events, public.billing_payment_clawbacks from anon, authenticated;
grant select on public.billing_money_events to authenticated;
grant all on public.billing_money_events, public.billing_payment_clawbacks to service_role;

-- 3. The hold: an open dispute or a negative balance refuses new tasks (SQLSTATE PH403, the
-- reason in DETAIL), whoever inserts them. submit_task takes its hold before the insert, so a
-- negative balance usually answers P0402 first; the API maps both to the hold's message.
create function public.tasks_account_hold() returns trigger language plpgsql security definer set search_path = '' as $$
begin
  if exists (select 1 from public.billing_money_events e where e.user_id = new.user_id and e.kind = 'dispute' and e.status = 'open') then
    raise exception 'account_on_hold' using errcode = 'PH403', detail = 'dispute';
  end if;
  if exists (select 1 from public.mdusers u where u.id = new.user_id and u.credits < 0) then
    raise exception 'account_on_hold' using errcode = 'PH403', detail = 'negative_balance';
  end if;
  return new;
end
$$;
create trigger tasks_account_hold before insert on public.tasks for each row execute function public.tasks_account_hold();
revoke execute on function public.tasks_account_hold() from public, anon, authenticated;

-- 4. The sandbox provider's refunds and disputes (Stripe-shaped; a payment intent's charge is
-- ch_sbx_<same suffix>).
alter table billing_sandbox.payment_intents add column amount_refunded integer not null default 0 check (amount_refunded >= 0);
alter table billing_sandbox.invoices drop constraint if exists invoices_status_check;
alter table billing_sandbox.invoices add constraint invoices_status_check check (status in ('open', 'paid', 'void', 'uncollectible'));
create table billing_sandbox.disputes (
  id text primary key,
  customer_id text not null references billing_sandbox.customers (id) on delete cascade,
  payment_intent_id text not null references billing_sandbox.payment_intents (id) on delete cascade,
  amount_cents integer not null check (amount_cents > 0),
  status text not null check (status in ('needs_response', 'won', 'lost')),
  created_at timestamptz not null default now()
);
create index disputes_intent_idx on billing_sandbox.disputes (payment_intent_id);
revoke all on billing_sandbox.disputes from public, anon, authenticated;
