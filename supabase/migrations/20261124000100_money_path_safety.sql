-- Money path safety (issue 8): the database enforces the auto top-up rules the API enforces,
-- an auto top-up attempt remembers what it charged so it can be finished with the same
-- idempotency key, ended subscriptions stay ended, and invoice numbers are handed out once
-- per real payment, without gaps.

-- 1. Auto top-up settings the dashboard may write directly (spec §7): $10 blocks from $10 up
-- to the API's cap ($10,000, so amount_cents can never overflow), a threshold from spec §9
-- (already checked), and auto top-up on only with a saved default card. The server mirrors
-- "has a default card" from the payment provider into has_default_card whenever it reads
-- or changes the cards; the provider stays the truth at charge time.
update public.mdusers set auto_topup_amount = 10000 where auto_topup_amount > 10000;
alter table public.mdusers
  add constraint mdusers_auto_topup_amount_cap check (auto_topup_amount <= 10000),
  add column has_default_card boolean not null default false;

create function public.mdusers_auto_topup_guard() returns trigger language plpgsql as $$
begin
  -- only the dashboard's own writes (PostgREST roles); the API server checks the provider itself
  if current_user in ('authenticated', 'anon') and new.auto_topup and not old.auto_topup and not new.has_default_card then
    raise exception 'Add a payment method before turning on auto top-up'
      using errcode = 'P0001', hint = 'Save a card under Payment Methods first';
  end if;
  return new;
end
$$;
create trigger mdusers_auto_topup_guard before update of auto_topup on public.mdusers
  for each row execute function public.mdusers_auto_topup_guard();
revoke execute on function public.mdusers_auto_topup_guard() from public, anon, authenticated;

-- 2. An attempt is one charge with one idempotency key (auto-topup:<id>): the card it
-- charged is kept so a retry after an unknown outcome sends exactly the same request.
alter table public.billing_auto_topup_attempts add column payment_method_id text;

-- 3. Subscriptions the provider reported ended. A canceled subscription never becomes
-- active again, whatever order its events arrive in; a different subscription paid after
-- it is the user's new plan.
create table public.billing_ended_subscriptions (
  subscription_id text primary key,
  user_id uuid not null references public.mdusers (id) on delete cascade,
  ended_at timestamptz not null
);
alter table public.billing_ended_subscriptions enable row level security;
revoke all on public.billing_ended_subscriptions from anon, authenticated;
grant all on public.billing_ended_subscriptions to service_role;

-- 4. Invoice numbers: a counter row updated in the payment's own transaction, so a number
-- is taken only by a payment that commits (a sequence also loses numbers to rollbacks and
-- to inserts that end in ON CONFLICT DO NOTHING). It continues from the sequence.
create table public.invoice_counter (
  singleton boolean primary key default true check (singleton),
  last_number bigint not null
);
insert into public.invoice_counter (last_number)
select greatest(
  1000,
  (select coalesce(max(nullif(regexp_replace(invoice_number, '^INV-', ''), '')::bigint), 0) from public.payments where invoice_number ~ '^INV-[0-9]+$'),
  (select case when is_called then last_value else last_value - 1 end from public.invoice_number_seq)
);
create function public.next_invoice_number() returns text language sql as $$
  update public.invoice_counter set last_number = last_number + 1 returning 'INV-' || last_number::text
$$;
alter table public.payments alter column invoice_number set default public.next_invoice_number();
alter table public.invoice_counter enable row level security;
revoke all on public.invoice_counter from anon, authenticated;
grant all on public.invoice_counter to service_role;
revoke execute on function public.next_invoice_number() from public, anon, authenticated;
drop sequence public.invoice_number_seq;
