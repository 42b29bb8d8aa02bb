-- The product's tables (spec §3), the credit ledger, row-level security and the functions the
-- dashboard calls. Clients (anon, authenticated) only ever read their own rows; every write
-- that moves credits, plans, keys or billing happens in the API server (table owner).

create table public.mdusers (
  id uuid primary key references auth.users (id) on delete cascade,
  email text not null,
  api_key text not null,
  credits integer not null default 0 check (credits >= 0),
  plan text not null default 'zero'
    check (plan in ('zero', 'basic', 'starter', 'growth', 'scale1', 'scale2', 'scale3', 'scale-c1')),
  customer_id text,
  auto_topup boolean not null default false,
  -- dollars, in $10 blocks (spec §9); threshold in credits
  auto_topup_amount integer not null default 10 check (auto_topup_amount >= 10 and auto_topup_amount % 10 = 0),
  auto_topup_min integer not null default 250 check (auto_topup_min in (250, 500, 1250, 2500)),
  next_billing_date timestamptz,
  integration_webhook_url text,
  trialed boolean not null default false,
  onboarded boolean not null default false,
  referral_id text,
  portal_token text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint mdusers_api_key_length check (char_length(api_key) >= 32)
);
create unique index mdusers_api_key_key on public.mdusers (api_key);
create unique index mdusers_email_key on public.mdusers (lower(email));
create unique index mdusers_customer_id_key on public.mdusers (customer_id) where customer_id is not null;

create table public.tasks (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references public.mdusers (id) on delete cascade,
  email text not null,
  type text not null,
  status text not null default 'pending'
    check (status in ('staged', 'pending', 'processing', 'queued', 'submitted', 'starting', 'running', 'success', 'finished', 'failed')),
  percentage integer not null default 0 check (percentage between 0 and 100),
  complete boolean not null default false,
  prompt text,
  parent_prompt text,
  -- the task an upscale/variation/reroll was made from; no FK: the parent may be archived
  parent_id uuid,
  image_url text,
  image_urls text[],
  video_url text,
  video_urls text[],
  audio_urls text[],
  lyrics text,
  favorite boolean not null default false,
  shared boolean not null default false,
  number integer,
  views integer not null default 0,
  note text,
  cost integer not null default 0 check (cost >= 0),
  refund integer not null default 0 check (refund >= 0),
  result jsonb,
  sref text,
  seed text,
  input_data jsonb,
  mode text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  expires_at timestamptz,
  image_ready boolean not null default false
);
-- the dashboard's reads: by owner, newest first, keyset pagination on (created_at, id)
create index tasks_email_created_idx on public.tasks (email, created_at desc, id desc);
create index tasks_user_created_idx on public.tasks (user_id, created_at desc, id desc);
create index tasks_user_type_created_idx on public.tasks (user_id, type, created_at desc, id desc);
create index tasks_parent_idx on public.tasks (parent_id) where parent_id is not null;

-- Older tasks move here; same shape, read-only for clients.
create table public.tasks_archive_1 (like public.tasks including defaults including constraints);
alter table public.tasks_archive_1 add primary key (id);
create index tasks_archive_1_email_created_idx on public.tasks_archive_1 (email, created_at desc, id desc);
create index tasks_archive_1_user_created_idx on public.tasks_archive_1 (user_id, created_at desc, id desc);

create sequence public.invoice_number_seq start 1001;

create table public.payments (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references public.mdusers (id) on delete cascade,
  email text not null,
  invoice_number text not null unique default ('INV-' || nextval('public.invoice_number_seq')::text),
  payment_date timestamptz not null default now(),
  plan_name text not null,
  amount numeric(12, 2) not null check (amount >= 0),
  currency text not null default 'usd',
  kind text not null default 'subscription' check (kind in ('subscription', 'topup', 'trial', 'auto_topup')),
  credits integer not null default 0,
  -- the payment provider's id for this charge (idempotency of webhook-driven inserts)
  provider_ref text unique,
  created_at timestamptz not null default now()
);
create index payments_email_date_idx on public.payments (email, payment_date desc);
create index payments_user_date_idx on public.payments (user_id, payment_date desc);

-- Every balance change is one row; source_key makes each change happen at most once
-- (a task hold, its refund, a payment grant, ...). sum(delta) per user = mdusers.credits.
create table public.credit_ledger (
  id bigint generated always as identity primary key,
  user_id uuid not null references public.mdusers (id) on delete cascade,
  delta integer not null check (delta <> 0),
  balance_after integer not null check (balance_after >= 0),
  source_key text not null unique,
  reason text not null,
  task_id uuid,
  created_at timestamptz not null default now()
);
create index credit_ledger_user_created_idx on public.credit_ledger (user_id, created_at desc, id desc);

-- updated_at maintenance
create function public.touch_updated_at() returns trigger language plpgsql as $$
begin
  new.updated_at := now();
  return new;
end
$$;
create trigger mdusers_touch before update on public.mdusers for each row execute function public.touch_updated_at();
create trigger tasks_touch before update on public.tasks for each row execute function public.touch_updated_at();

-- A fresh API key: 64 hex characters from two v4 UUIDs (244 random bits), no extension needed.
create function public.new_api_key() returns text language sql volatile as $$
  select replace(gen_random_uuid()::text, '-', '') || replace(gen_random_uuid()::text, '-', '')
$$;

-- First sign-in (a new auth.users row) creates the account: fresh key, 0 credits, plan zero.
create function public.handle_new_user() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  insert into public.mdusers (id, email, api_key)
  values (new.id, coalesce(new.email, ''), public.new_api_key())
  on conflict (id) do nothing;
  return new;
end
$$;
create trigger on_auth_user_created after insert on auth.users
  for each row execute function public.handle_new_user();

-- The one way credits move. Returns the new balance, or null when source_key was already
-- applied (idempotent). Raises 'insufficient_credits' (SQLSTATE P0402) rather than go
-- below zero; the row lock on mdusers serialises concurrent movements of one user.
create function public.apply_credit(
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
  where id = p_user_id and credits + p_delta >= 0
  returning credits into v_balance;
  if v_balance is null then
    raise exception 'insufficient_credits' using errcode = 'P0402';
  end if;
  update public.credit_ledger set balance_after = v_balance where id = v_ledger_id;
  return v_balance;
end
$$;

-- Favorite toggle for the caller's own task (live or archived). Returns the new value, or
-- null when no task of the caller has that id and email.
create function public.toggle_favorite(task_id uuid, email text) returns boolean
language plpgsql security definer set search_path = '' as $$
declare
  v_fav boolean;
begin
  if auth.uid() is null then
    return null;
  end if;
  update public.tasks t set favorite = not t.favorite
  where t.id = toggle_favorite.task_id and t.user_id = auth.uid() and lower(t.email) = lower(toggle_favorite.email)
  returning t.favorite into v_fav;
  if v_fav is null then
    update public.tasks_archive_1 t set favorite = not t.favorite
    where t.id = toggle_favorite.task_id and t.user_id = auth.uid() and lower(t.email) = lower(toggle_favorite.email)
    returning t.favorite into v_fav;
  end if;
  return v_fav;
end
$$;

-- Row-level security: every table on, clients read only their own rows.
alter table public.mdusers enable row level security;
alter table public.tasks enable row level security;
alter table public.tasks_archive_1 enable row level security;
alter table public.payments enable row level security;
alter table public.credit_ledger enable row level security;

create policy "own row" on public.mdusers for select to authenticated using (id = auth.uid());
create policy "own auto top-up settings" on public.mdusers for update to authenticated
  using (id = auth.uid()) with check (id = auth.uid());
create policy "own tasks" on public.tasks for select to authenticated using (user_id = auth.uid());
create policy "own archived tasks" on public.tasks_archive_1 for select to authenticated using (user_id = auth.uid());
create policy "own payments" on public.payments for select to authenticated using (user_id = auth.uid());
create policy "own ledger" on public.credit_ledger for select to authenticated using (user_id = auth.uid());

-- Table privileges: Supabase's default grants give the API roles everything; narrow them.
revoke all on public.mdusers, public.tasks, public.tasks_archive_1, public.payments, public.credit_ledger
  from anon, authenticated;
grant select on public.mdusers, public.tasks, public.tasks_archive_1, public.payments, public.credit_ledger
  to authenticated;
-- the only client-writable fields (spec §7: update auto top-up settings by id)
grant update (auto_topup, auto_topup_amount, auto_topup_min) on public.mdusers to authenticated;
grant all on public.mdusers, public.tasks, public.tasks_archive_1, public.payments, public.credit_ledger
  to service_role;
revoke all on sequence public.invoice_number_seq from anon, authenticated;

revoke execute on function public.apply_credit(uuid, integer, text, text, uuid) from public, anon, authenticated;
revoke execute on function public.handle_new_user() from public, anon, authenticated;
revoke execute on function public.new_api_key() from public, anon, authenticated;
revoke execute on function public.toggle_favorite(uuid, text) from public, anon;
grant execute on function public.toggle_favorite(uuid, text) to authenticated, service_role;
grant execute on function public.apply_credit(uuid, integer, text, text, uuid) to service_role;

-- Realtime: the dashboard follows its mdusers row (credits, plan) and its tasks by id.
do $$
begin
  alter publication supabase_realtime add table public.mdusers, public.tasks;
exception when duplicate_object then null;
end
$$;
