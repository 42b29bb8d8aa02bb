-- Issue 20, part 2: named, scoped API keys beside the account's primary key
-- (docs/decisions/0013-named-scoped-api-keys.md).
--
-- The primary key stays where it is (mdusers.api_key, all scopes, rotated by
-- /auth/revokeAndCreateNewAPIKey). A named key is `ak_` + 40 base62 characters made by the API
-- server and shown once; only its SHA-256 is stored (key_hash), with the first 8 characters and
-- the last 4 for the dashboard. Authentication hashes the presented key and looks the hash up:
-- no cache, so a revocation (revoked_at) refuses the key on the very next request in every API
-- process.
--
-- No client access: row-level security on, no policy, no grant to anon/authenticated. The
-- dashboard reads and manages keys through the API (/auth/api-keys, dashboard session), which
-- never answers the hash.
create table public.api_keys (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references public.mdusers (id) on delete cascade,
  name text not null check (char_length(name) between 1 and 64),
  key_hash bytea not null check (octet_length(key_hash) = 32),
  prefix text not null check (char_length(prefix) = 8),
  last4 text not null check (char_length(last4) = 4),
  scopes text[] not null check (cardinality(scopes) >= 1 and scopes <@ array['generate', 'read']::text[]),
  created_at timestamptz not null default now(),
  -- touched at most once a minute per key (the API skips the write when it is fresher)
  last_used_at timestamptz,
  expires_at timestamptz,
  revoked_at timestamptz,
  -- credits the key may spend per calendar month (UTC), net of refunds; null: no limit
  monthly_credit_limit integer check (monthly_credit_limit is null or monthly_credit_limit > 0)
);
create unique index api_keys_key_hash_key on public.api_keys (key_hash);
create index api_keys_user_created_idx on public.api_keys (user_id, created_at desc, id desc);

alter table public.api_keys enable row level security;
revoke all on public.api_keys from public, anon, authenticated;
grant all on public.api_keys to service_role;

-- Which key made a task: null for the primary key and the dashboard. No foreign key, like
-- parent_id: tasks move to tasks_archive_1, which has the same shape (a row is copied whole),
-- and keys are never deleted, only revoked (an account's go with it).
alter table public.tasks add column api_key_id uuid;
alter table public.tasks_archive_1 add column api_key_id uuid;
-- the monthly sum below and the Task Logs filter by key
create index tasks_api_key_created_idx on public.tasks (api_key_id, created_at) where api_key_id is not null;
create index tasks_archive_1_api_key_created_idx on public.tasks_archive_1 (api_key_id, created_at) where api_key_id is not null;

-- Credits a key's tasks were charged this calendar month (UTC), net of refunds (a failed task's
-- refund column holds what was given back), live and archived. One definition for the limit
-- check in submit_task and the "used this month" of the key list.
create function public.api_key_month_usage(p_api_key_id uuid) returns bigint
language sql stable security definer set search_path = '' as $$
  select coalesce(sum(t.cost - t.refund), 0)::bigint
    from (
      select cost, refund from public.tasks
       where api_key_id = p_api_key_id and created_at >= date_trunc('month', now() at time zone 'UTC') at time zone 'UTC'
      union all
      select cost, refund from public.tasks_archive_1
       where api_key_id = p_api_key_id and created_at >= date_trunc('month', now() at time zone 'UTC') at time zone 'UTC'
    ) t
$$;
revoke execute on function public.api_key_month_usage(uuid) from public, anon, authenticated;
grant execute on function public.api_key_month_usage(uuid) to service_role;

-- public.submit_task with the key that made the task as an 18th argument, `default null`:
-- the same statement as before (20261124000700_submit_fast_path.sql, 20261124001000_request_ids.sql),
-- in the same order and with the same rows, plus
--   * for a named key, first: its row locked (FOR UPDATE), so two submits with one key run one
--     after the other; the key must still be the user's, not revoked and not expired (else
--     SQLSTATE PK401, the API's 401 'Invalid API key': a revocation that committed while the
--     request was on its way still stops it); then its monthly credit limit: this month's net
--     charge of its tasks + this cost over the limit raises SQLSTATE PK402 (the API's 402,
--     detail = the limit). The sum is a new statement after the lock, so under READ COMMITTED
--     it sees the task of a submit that held the lock before.
--   * tasks.api_key_id.
-- The 17-argument form is dropped (with the default, a 17-argument call now resolves to this
-- one; keeping it would make such a call ambiguous); the 16-argument form stays and calls this.
drop function public.submit_task(uuid, text, uuid, text, integer, text, text, uuid, text, jsonb, timestamptz, text, text, text, integer, text, text);

create function public.submit_task(
  p_user_id uuid,
  p_email text,
  p_task_id uuid,
  p_type text,
  p_cost integer,
  p_prompt text,
  p_parent_prompt text,
  p_parent_id uuid,
  p_mode text,
  p_input_data jsonb,
  p_expires_at timestamptz,
  p_webhook_url text,
  p_webhook_secret text,
  p_queue text,
  p_max_attempts integer,
  p_channel text,
  p_request_id text,
  p_api_key_id uuid default null
) returns boolean language plpgsql security definer set search_path = '' as $$
declare
  v_limit integer;
begin
  if p_api_key_id is not null then
    select k.monthly_credit_limit into v_limit
      from public.api_keys k
     where k.id = p_api_key_id and k.user_id = p_user_id and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())
       for update;
    if not found then
      raise exception 'api_key_invalid' using errcode = 'PK401';
    end if;
    if v_limit is not null and public.api_key_month_usage(p_api_key_id) + p_cost > v_limit then
      raise exception 'api_key_monthly_limit' using errcode = 'PK402', detail = v_limit::text;
    end if;
  end if;
  perform public.apply_credit(p_user_id, -p_cost, 'hold:' || p_task_id::text, 'hold ' || p_type, p_task_id);
  insert into public.tasks (id, user_id, email, type, status, cost, prompt, parent_prompt, parent_id, mode, input_data, expires_at, api_key_id)
  values (p_task_id, p_user_id, p_email, p_type, 'pending', p_cost, p_prompt, p_parent_prompt, p_parent_id, p_mode, p_input_data, p_expires_at, p_api_key_id);
  if p_webhook_url is not null or p_webhook_secret is not null then
    insert into public.task_webhooks (task_id, url, secret) values (p_task_id, p_webhook_url, p_webhook_secret);
  end if;
  insert into public.task_jobs (task_id, queue, max_attempts, request_id) values (p_task_id, p_queue, p_max_attempts, p_request_id);
  perform pg_notify(p_channel, p_queue);
  -- (low_balance_alert_due comes with 20261128000400_spending_controls.sql: a charge that crossed the
  -- user's alert threshold asks for the same after-charge check, so the email goes out at once)
  return exists (select 1 from public.mdusers u where u.id = p_user_id and ((u.auto_topup and u.credits < u.auto_topup_min) or u.low_balance_alert_due))
      or exists (select 1 from public.billing_auto_topup_attempts a where a.user_id = p_user_id and a.status = 'pending');
end
$$;

create or replace function public.submit_task(
  p_user_id uuid,
  p_email text,
  p_task_id uuid,
  p_type text,
  p_cost integer,
  p_prompt text,
  p_parent_prompt text,
  p_parent_id uuid,
  p_mode text,
  p_input_data jsonb,
  p_expires_at timestamptz,
  p_webhook_url text,
  p_webhook_secret text,
  p_queue text,
  p_max_attempts integer,
  p_channel text
) returns boolean language sql security definer set search_path = '' as $$
  select public.submit_task(p_user_id, p_email, p_task_id, p_type, p_cost, p_prompt, p_parent_prompt, p_parent_id, p_mode, p_input_data,
                            p_expires_at, p_webhook_url, p_webhook_secret, p_queue, p_max_attempts, p_channel, null::text, null::uuid)
$$;

revoke execute on function public.submit_task(uuid, text, uuid, text, integer, text, text, uuid, text, jsonb, timestamptz, text, text, text, integer, text, text, uuid)
  from public, anon, authenticated;
grant execute on function public.submit_task(uuid, text, uuid, text, integer, text, text, uuid, text, jsonb, timestamptz, text, text, text, integer, text, text, uuid)
  to service_role;
