-- Spending controls (issue 20, docs/decisions/0014-spending-controls.md): an account's
-- monthly spending limit, auto top-up caps (charges per day, dollars per month), a
-- low-balance email alert, one write path for auto top-up settings (the API), and a fair
-- auto top-up sweep. The limits are enforced here, in the statement that opens a charge,
-- with the user's row locked: two concurrent charges cannot both pass a limit only one fits.

-- 1. The settings, on the account. Dollars are whole dollars (every charge is $10 blocks).
-- Only the API server writes them (no client column grant); the dashboard reads them with
-- the rest of its row.
alter table public.mdusers
  -- top-ups + auto top-ups of one calendar month (UTC), charged or pending; null: no limit
  add column monthly_spend_limit integer check (monthly_spend_limit between 10 and 1000000),
  -- auto top-up charges (pending or succeeded) per calendar day (UTC)
  add column auto_topup_max_per_day integer not null default 3 check (auto_topup_max_per_day between 1 and 20),
  -- auto top-up dollars per calendar month (UTC), charged or pending
  add column auto_topup_monthly_cap integer not null default 500 check (auto_topup_monthly_cap between 10 and 1000000),
  -- a refused auto top-up is not tried again before this (the next day or month, or when a
  -- pending top-up stops counting); any change of the settings clears it
  add column auto_topup_refused_until timestamptz,
  -- email the owner when a charge takes the balance below this many credits; null: off
  add column low_balance_alert_at integer check (low_balance_alert_at between 1 and 10000000),
  -- set when a charge crosses the threshold, cleared when the alert is sent or the balance
  -- is back at or above the threshold (so one alert per crossing)
  add column low_balance_alert_due boolean not null default false,
  add column low_balance_alert_sent_at timestamptz;

-- 2. One write path: auto top-up settings change through the API only (POST
-- /auth/update-auto-topup, which asks the payment provider for a card). The column grant
-- and the trigger that checked the dashboard's direct writes go; the constraints stay.
revoke update (auto_topup, auto_topup_amount, auto_topup_min) on public.mdusers from authenticated;
drop policy "own auto top-up settings" on public.mdusers;
drop trigger mdusers_auto_topup_guard on public.mdusers;
drop function public.mdusers_auto_topup_guard();

-- Changing a limit or the auto top-up settings is a new decision: a refused auto top-up may
-- be tried again at once.
create function public.mdusers_spending_settings_changed() returns trigger language plpgsql set search_path = '' as $$
begin
  if (new.monthly_spend_limit, new.auto_topup_max_per_day, new.auto_topup_monthly_cap, new.auto_topup, new.auto_topup_amount, new.auto_topup_min)
     is distinct from (old.monthly_spend_limit, old.auto_topup_max_per_day, old.auto_topup_monthly_cap, old.auto_topup, old.auto_topup_amount, old.auto_topup_min) then
    new.auto_topup_refused_until := null;
  end if;
  return new;
end
$$;
create trigger mdusers_spending_settings_changed
  before update of monthly_spend_limit, auto_topup_max_per_day, auto_topup_monthly_cap, auto_topup, auto_topup_amount, auto_topup_min on public.mdusers
  for each row execute function public.mdusers_spending_settings_changed();

-- The low-balance alert's state follows every balance change: a drop from at or above the
-- threshold to below it makes the alert due; being at or above it again re-arms it.
-- Setting a threshold above the current balance is not a crossing: no alert.
create function public.mdusers_low_balance_alert() returns trigger language plpgsql set search_path = '' as $$
begin
  if new.low_balance_alert_at is null or new.credits >= new.low_balance_alert_at then
    new.low_balance_alert_due := false;
  elsif new.credits < old.credits and old.credits >= new.low_balance_alert_at then
    new.low_balance_alert_due := true;
  end if;
  return new;
end
$$;
create trigger mdusers_low_balance_alert before update of credits, low_balance_alert_at on public.mdusers
  for each row execute function public.mdusers_low_balance_alert();

-- 3. Top-ups the user started (POST /auth/topup): a payment intent the user may still
-- confirm. Paid ones are in payments (provider_ref 'pi:<intent_id>'); an unpaid one counts
-- toward the monthly spending limit for an hour after it was started.
create table public.billing_topup_charges (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references public.mdusers (id) on delete cascade,
  amount_cents integer not null check (amount_cents > 0),
  -- the provider's payment intent, once it answered
  intent_id text unique,
  created_at timestamptz not null default now()
);
create index billing_topup_charges_user_created_idx on public.billing_topup_charges (user_id, created_at desc);

-- 4. Charges a limit refused, with the reason shown to the owner (the dashboard's top-up
-- dialog; POST /auth/topup answers 409 with the same message).
create table public.billing_charge_refusals (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references public.mdusers (id) on delete cascade,
  kind text not null check (kind in ('topup', 'auto_topup')),
  amount_cents integer not null check (amount_cents > 0),
  reason text not null check (reason in ('monthly_spend_limit', 'auto_topup_daily_count', 'auto_topup_monthly_cap')),
  message text not null check (char_length(message) <= 500),
  created_at timestamptz not null default now()
);
create index billing_charge_refusals_user_created_idx on public.billing_charge_refusals (user_id, created_at desc);

-- 5. When the sweep last looked at an account whose auto top-up is due: it takes the ones it
-- looked at longest ago (never first), so every due account gets its turn. Its own table, so
-- the minute-by-minute bookkeeping does not touch mdusers (nor its realtime followers).
create table public.billing_auto_topup_sweep (
  user_id uuid primary key references public.mdusers (id) on delete cascade,
  checked_at timestamptz not null
);
create index billing_auto_topup_attempts_user_status_idx on public.billing_auto_topup_attempts (user_id, status, created_at);
create index payments_user_kind_date_idx on public.payments (user_id, kind, payment_date);
-- the sweep's list of due alerts. Neither credits nor updated_at appear in an index (key or
-- predicate): every task's hold updates both, and those updates stay HOT.
create index mdusers_low_balance_alert_due_idx on public.mdusers (id) where low_balance_alert_due;

alter table public.billing_topup_charges enable row level security;
alter table public.billing_charge_refusals enable row level security;
alter table public.billing_auto_topup_sweep enable row level security;
create policy "own charge refusals" on public.billing_charge_refusals for select to authenticated
  using (user_id = (select auth.uid()));
revoke all on public.billing_topup_charges, public.billing_charge_refusals, public.billing_auto_topup_sweep from anon, authenticated;
grant select on public.billing_charge_refusals to authenticated;
grant all on public.billing_topup_charges, public.billing_charge_refusals, public.billing_auto_topup_sweep to service_role;

-- 6. What the account has spent in the calendar month (UTC) of p_at, in cents: paid top-ups,
-- top-ups started in the last hour and not paid yet, and auto top-ups pending or succeeded.
-- Plan invoices and the trial do not count: the user chooses those explicitly.
-- No upper bound on the pending top-ups' time: a charge opened a moment "later" by another
-- process (clocks differ by milliseconds) and committed while this one waited still counts.
create function public.billing_month_spend_cents(p_user_id uuid, p_at timestamptz) returns bigint
language sql stable security definer set search_path = '' as $$
  with m as (select date_trunc('month', p_at, 'UTC') as m0, date_trunc('month', p_at, 'UTC') + interval '1 month' as m1)
  select
    coalesce((select sum(round(p.amount * 100))::bigint from public.payments p, m
               where p.user_id = p_user_id and p.kind = 'topup' and p.payment_date >= m.m0 and p.payment_date < m.m1), 0)
  + coalesce((select sum(c.amount_cents)::bigint from public.billing_topup_charges c
               where c.user_id = p_user_id and c.created_at > p_at - interval '1 hour'
                 and (c.intent_id is null or not exists (select 1 from public.payments p where p.provider_ref = 'pi:' || c.intent_id))), 0)
  + coalesce((select sum(a.amount_cents)::bigint from public.billing_auto_topup_attempts a, m
               where a.user_id = p_user_id and a.status in ('pending', 'succeeded') and a.created_at >= m.m0 and a.created_at < m.m1), 0)
$$;

-- 7. THE way a charge is opened: under the user's row lock, checks the limits and either
-- opens it (an auto top-up attempt, or a top-up charge) or records the refusal.
--   outcome 'opened'      charge_id is the attempt or the top-up charge
--   outcome 'refused'     reason and message say which limit (recorded in billing_charge_refusals)
--   outcome 'not_due'     auto top-up off, no plan, balance not below the threshold, or refused until later
--   outcome 'in_progress' an auto top-up attempt is already pending
--   outcome 'gone'        no such account
create function public.billing_open_charge(
  p_user_id uuid,
  p_kind text,
  p_amount_cents integer,
  p_credits integer,
  p_payment_method_id text,
  p_at timestamptz
) returns table (outcome text, charge_id uuid, reason text, message text)
language plpgsql security definer set search_path = '' as $$
declare
  v_user public.mdusers%rowtype;
  v_m0 timestamptz := date_trunc('month', p_at, 'UTC');
  v_m1 timestamptz := date_trunc('month', p_at, 'UTC') + interval '1 month';
  v_d0 timestamptz := date_trunc('day', p_at, 'UTC');
  v_spent bigint;
  v_count integer;
  v_auto bigint;
  v_reason text;
  v_message text;
  v_until timestamptz;
  v_id uuid;
  v_what text := case when p_kind = 'topup' then 'this $' || (p_amount_cents / 100) || ' top-up' else 'the $' || (p_amount_cents / 100) || ' auto top-up' end;
begin
  if p_kind not in ('topup', 'auto_topup') then
    raise exception 'unknown charge kind %', p_kind using errcode = '22023';
  end if;
  select * into v_user from public.mdusers where id = p_user_id for update;
  if not found then
    return query select 'gone'::text, null::uuid, null::text, null::text;
    return;
  end if;

  if p_kind = 'auto_topup' then
    if not (v_user.auto_topup and v_user.plan <> 'zero' and v_user.credits < v_user.auto_topup_min)
       or coalesce(v_user.auto_topup_refused_until > p_at, false) then
      return query select 'not_due'::text, null::uuid, null::text, null::text;
      return;
    end if;
    if exists (select 1 from public.billing_auto_topup_attempts a where a.user_id = p_user_id and a.status = 'pending') then
      return query select 'in_progress'::text, null::uuid, null::text, null::text;
      return;
    end if;
  end if;

  -- the statements below see everything committed before the lock was granted
  v_spent := public.billing_month_spend_cents(p_user_id, p_at);
  if v_user.monthly_spend_limit is not null and v_spent + p_amount_cents > v_user.monthly_spend_limit::bigint * 100 then
    v_reason := 'monthly_spend_limit';
    v_message := 'Monthly spending limit of $' || v_user.monthly_spend_limit || ' reached: $' || round(v_spent / 100.0)
      || ' already charged or pending this month, so ' || v_what || ' would go over it.';
    -- a pending top-up stops counting an hour after it started: try again then, else next month
    v_until := least(v_m1, (select min(c.created_at) + interval '1 hour' from public.billing_topup_charges c
                              where c.user_id = p_user_id and c.created_at > p_at - interval '1 hour'
                                and (c.intent_id is null or not exists (select 1 from public.payments p where p.provider_ref = 'pi:' || c.intent_id))));
  elsif p_kind = 'auto_topup' then
    -- charges made or pending today, and dollars this month (the day lies within the month)
    select count(*) filter (where a.created_at >= v_d0 and a.created_at < v_d0 + interval '1 day'), coalesce(sum(a.amount_cents), 0)
      into v_count, v_auto
      from public.billing_auto_topup_attempts a
     where a.user_id = p_user_id and a.status in ('pending', 'succeeded') and a.created_at >= v_m0 and a.created_at < v_m1;
    if v_count >= v_user.auto_topup_max_per_day then
      v_reason := 'auto_topup_daily_count';
      v_message := 'Daily auto top-up limit reached: ' || v_count || ' auto top-up' || case when v_count = 1 then '' else 's' end
        || ' today, at most ' || v_user.auto_topup_max_per_day || ' a day.';
      v_until := v_d0 + interval '1 day';
    elsif v_auto + p_amount_cents > v_user.auto_topup_monthly_cap::bigint * 100 then
      v_reason := 'auto_topup_monthly_cap';
      v_message := 'Monthly auto top-up cap of $' || v_user.auto_topup_monthly_cap || ' reached: $' || round(v_auto / 100.0)
        || ' auto topped up this month, so ' || v_what || ' would go over it.';
      v_until := v_m1;
    end if;
  end if;

  if v_reason is not null then
    insert into public.billing_charge_refusals (user_id, kind, amount_cents, reason, message, created_at)
    values (p_user_id, p_kind, p_amount_cents, v_reason, v_message, p_at);
    if p_kind = 'auto_topup' then
      update public.mdusers set auto_topup_refused_until = v_until where id = p_user_id;
    end if;
    return query select 'refused'::text, null::uuid, v_reason, v_message;
    return;
  end if;

  if p_kind = 'auto_topup' then
    insert into public.billing_auto_topup_attempts (user_id, amount_cents, credits, payment_method_id, created_at)
    values (p_user_id, p_amount_cents, p_credits, p_payment_method_id, p_at)
    on conflict (user_id) where status = 'pending' do nothing
    returning id into v_id;
    if v_id is null then
      return query select 'in_progress'::text, null::uuid, null::text, null::text;
      return;
    end if;
  else
    insert into public.billing_topup_charges (user_id, amount_cents, created_at) values (p_user_id, p_amount_cents, p_at) returning id into v_id;
  end if;
  return query select 'opened'::text, v_id, null::text, null::text;
end
$$;

revoke execute on function public.billing_month_spend_cents(uuid, timestamptz) from public, anon, authenticated;
revoke execute on function public.billing_open_charge(uuid, text, integer, integer, text, timestamptz) from public, anon, authenticated;
revoke execute on function public.mdusers_spending_settings_changed() from public, anon, authenticated;
revoke execute on function public.mdusers_low_balance_alert() from public, anon, authenticated;
grant execute on function public.billing_month_spend_cents(uuid, timestamptz) to service_role;
grant execute on function public.billing_open_charge(uuid, text, integer, integer, text, timestamptz) to service_role;
