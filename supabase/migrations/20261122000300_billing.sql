-- Billing (spec §4 Subscription, §5, §7, §9): the domain's own state, independent of the
-- payment provider, and the sandbox provider's objects (schema billing_sandbox), which
-- mirror Stripe's so the sandbox behaves like Stripe test mode without network or keys.
-- Credits still move only through public.apply_credit; payments rows are the invoices.

-- Auto top-up health, shown by the dashboard (it already follows its mdusers row live).
-- Only the server writes these two; clients keep their column grants on the three settings.
alter table public.mdusers
  add column auto_topup_failures integer not null default 0 check (auto_topup_failures >= 0),
  add column auto_topup_disabled_reason text check (char_length(auto_topup_disabled_reason) <= 500);

-- Turning auto top-up back on (from the server or a client's own RLS update) is the user
-- acknowledging the failure: start counting again and drop the stored reason.
create function public.billing_auto_topup_reenabled() returns trigger language plpgsql as $$
begin
  if new.auto_topup and not old.auto_topup then
    new.auto_topup_failures := 0;
    new.auto_topup_disabled_reason := null;
  end if;
  return new;
end
$$;
create trigger mdusers_auto_topup_reenabled before update of auto_topup on public.mdusers
  for each row execute function public.billing_auto_topup_reenabled();

-- The user's current subscription as the provider last reported it. mdusers.plan and
-- next_billing_date are its projection for the dashboard. state_at is the creation time of
-- the provider event this state came from, so an older event arriving late never wins.
create table public.billing_subscriptions (
  user_id uuid primary key references public.mdusers (id) on delete cascade,
  subscription_id text not null,
  plan text not null check (plan in ('basic', 'starter', 'growth', 'scale1', 'scale2', 'scale3', 'scale-c1')),
  status text not null check (status in ('active', 'past_due', 'canceled')),
  current_period_end timestamptz,
  cancel_at_period_end boolean not null default false,
  state_at timestamptz not null,
  updated_at timestamptz not null default now()
);
create trigger billing_subscriptions_touch before update on public.billing_subscriptions
  for each row execute function public.touch_updated_at();

-- A payment the user started and may still finish (its client secret is handed out again
-- instead of opening a second one): a subscription or plan change, or the trial.
create table public.billing_checkouts (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references public.mdusers (id) on delete cascade,
  kind text not null check (kind in ('subscription', 'trial')),
  plan text,
  -- the provider object paid for (invoice or payment intent id), set once the provider answered
  provider_ref text unique,
  client_secret text,
  status text not null default 'open' check (status in ('open', 'completed', 'superseded')),
  created_at timestamptz not null default now(),
  completed_at timestamptz
);
-- one open checkout per kind; and the trial at most once per user, whatever its state
create unique index billing_checkouts_open_key on public.billing_checkouts (user_id, kind) where status = 'open';
create unique index billing_checkouts_one_trial_key on public.billing_checkouts (user_id) where kind = 'trial';

-- Off-session auto top-up charges. At most one pending per user (the partial unique index),
-- which is what keeps concurrent triggers from charging twice.
create table public.billing_auto_topup_attempts (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references public.mdusers (id) on delete cascade,
  amount_cents integer not null check (amount_cents > 0),
  credits integer not null check (credits > 0),
  status text not null default 'pending' check (status in ('pending', 'succeeded', 'failed')),
  intent_id text unique,
  error_code text,
  error_message text,
  created_at timestamptz not null default now(),
  finished_at timestamptz
);
create unique index billing_auto_topup_attempts_pending_key on public.billing_auto_topup_attempts (user_id) where status = 'pending';
create index billing_auto_topup_attempts_user_created_idx on public.billing_auto_topup_attempts (user_id, created_at desc);

alter table public.billing_subscriptions enable row level security;
alter table public.billing_checkouts enable row level security;
alter table public.billing_auto_topup_attempts enable row level security;
create policy "own subscription" on public.billing_subscriptions for select to authenticated using (user_id = auth.uid());
create policy "own auto top-up attempts" on public.billing_auto_topup_attempts for select to authenticated
  using (user_id = auth.uid());
-- checkouts hold client secrets: no client access at all
revoke all on public.billing_subscriptions, public.billing_checkouts, public.billing_auto_topup_attempts from anon, authenticated;
grant select on public.billing_subscriptions, public.billing_auto_topup_attempts to authenticated;
grant all on public.billing_subscriptions, public.billing_checkouts, public.billing_auto_topup_attempts to service_role;

-- The sandbox provider: Stripe-shaped objects with Stripe-like ids (cus_sbx_…, pi_sbx_…).
-- Written only by the sandbox adapter in the API server. Card numbers and CVCs are never
-- stored: a payment method keeps the test card's behaviour profile, brand and last 4 digits.
create schema billing_sandbox;
revoke all on schema billing_sandbox from public;

create table billing_sandbox.customers (
  id text primary key,
  user_id uuid not null unique references public.mdusers (id) on delete cascade,
  email text not null,
  default_payment_method text,
  idempotency_key text unique,
  created_at timestamptz not null default now()
);

create table billing_sandbox.payment_methods (
  id text primary key,
  -- null until attached (a card used once without saving stays unattached)
  customer_id text references billing_sandbox.customers (id) on delete cascade,
  profile text not null,
  brand text not null,
  last4 text not null check (last4 ~ '^[0-9]{4}$'),
  exp_month integer not null check (exp_month between 1 and 12),
  exp_year integer not null,
  name text,
  -- authenticated for later off-session use (a succeeded setup, or a payment that saved it)
  set_up boolean not null default false,
  created_at timestamptz not null default now()
);
create index payment_methods_customer_idx on billing_sandbox.payment_methods (customer_id, created_at);

create table billing_sandbox.subscriptions (
  id text primary key,
  customer_id text not null references billing_sandbox.customers (id) on delete cascade,
  plan text not null,
  status text not null check (status in ('incomplete', 'active', 'past_due', 'canceled')),
  cancel_at_period_end boolean not null default false,
  current_period_end timestamptz,
  default_payment_method text,
  idempotency_key text unique,
  created_at timestamptz not null default now()
);

create table billing_sandbox.invoices (
  id text primary key,
  customer_id text not null references billing_sandbox.customers (id) on delete cascade,
  subscription_id text not null references billing_sandbox.subscriptions (id) on delete cascade,
  plan text not null,
  amount_cents integer not null check (amount_cents >= 0),
  billing_reason text not null check (billing_reason in ('subscription_create', 'subscription_update', 'subscription_cycle')),
  status text not null check (status in ('open', 'paid', 'void')),
  payment_intent_id text,
  idempotency_key text unique,
  created_at timestamptz not null default now(),
  paid_at timestamptz
);

create table billing_sandbox.payment_intents (
  id text primary key,
  customer_id text not null references billing_sandbox.customers (id) on delete cascade,
  amount_cents integer not null check (amount_cents > 0),
  currency text not null default 'usd',
  -- topup, trial or auto_topup (metadata.kind); null for an invoice's payment intent
  kind text check (kind in ('topup', 'trial', 'auto_topup')),
  invoice_id text references billing_sandbox.invoices (id) on delete cascade,
  metadata jsonb not null default '{}',
  status text not null check (status in ('requires_payment_method', 'requires_action', 'processing', 'succeeded', 'canceled')),
  client_secret text not null unique,
  setup_future_usage boolean not null default false,
  off_session boolean not null default false,
  payment_method text,
  last_error jsonb,
  idempotency_key text unique,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table billing_sandbox.setup_intents (
  id text primary key,
  customer_id text not null references billing_sandbox.customers (id) on delete cascade,
  status text not null check (status in ('requires_payment_method', 'requires_action', 'succeeded', 'canceled')),
  client_secret text not null unique,
  payment_method text,
  last_error jsonb,
  idempotency_key text unique,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- Every event the sandbox emitted (like Stripe's /v1/events), in order; delivered_at is
-- set once the billing event handler accepted it.
create table billing_sandbox.events (
  id text primary key,
  seq bigint generated always as identity unique,
  type text not null,
  customer_id text not null,
  -- the payment intent, invoice, setup intent or subscription the event is about
  object_id text not null,
  payload jsonb not null,
  created_at timestamptz not null,
  delivered_at timestamptz
);
create index events_customer_idx on billing_sandbox.events (customer_id, seq);
create index events_object_idx on billing_sandbox.events (object_id, seq);

revoke all on all tables in schema billing_sandbox from public, anon, authenticated;
revoke execute on function public.billing_auto_topup_reenabled() from public, anon, authenticated;
