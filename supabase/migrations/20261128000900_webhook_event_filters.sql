-- Webhook event filters (issue 23, part 4): which task events a webhook is sent.
--   * mdusers.webhook_events: the account's filter, null = every event (the behaviour before).
--   * task_webhooks.events: a request's own `webhook_events`, null = the account's filter. It
--     replaces the account's filter for that task (it does not combine with it), whichever URL
--     the task's webhooks go to. A task_webhooks row may now carry only a filter (the account's
--     URL with this task's choice of events).
-- Event names are the short ones of the API: progress (task.progress), completed
-- (task.completed), failed (task.failed). webhook.test is never filtered. The API checks the
-- names (400 naming the field); the constraints are the backstop.
alter table public.mdusers add column webhook_events text[];
alter table public.mdusers
  add constraint mdusers_webhook_events_known check (webhook_events is null or webhook_events <@ array['progress', 'completed', 'failed']::text[]);

alter table public.task_webhooks add column events text[];
alter table public.task_webhooks
  add constraint task_webhooks_events_known check (events is null or events <@ array['progress', 'completed', 'failed']::text[]);
alter table public.task_webhooks drop constraint task_webhooks_not_empty;
alter table public.task_webhooks add constraint task_webhooks_not_empty check (url is not null or secret is not null or events is not null);

-- public.submit_task with the request's event filter as a 19th argument, `default null`: the
-- same statement as 20261128000300_named_api_keys.sql, the webhook row also written when only
-- a filter is given. The 18-argument form is dropped (a call with 18 arguments resolves to this
-- one through the default; keeping both would make it ambiguous); the 16-argument form is
-- recreated to call this one.
drop function public.submit_task(uuid, text, uuid, text, integer, text, text, uuid, text, jsonb, timestamptz, text, text, text, integer, text, text, uuid);

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
  p_api_key_id uuid default null,
  p_webhook_events text[] default null
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
  if p_webhook_url is not null or p_webhook_secret is not null or p_webhook_events is not null then
    insert into public.task_webhooks (task_id, url, secret, events) values (p_task_id, p_webhook_url, p_webhook_secret, p_webhook_events);
  end if;
  insert into public.task_jobs (task_id, queue, max_attempts, request_id) values (p_task_id, p_queue, p_max_attempts, p_request_id);
  perform pg_notify(p_channel, p_queue);
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
                            p_expires_at, p_webhook_url, p_webhook_secret, p_queue, p_max_attempts, p_channel, null::text, null::uuid, null::text[])
$$;

revoke execute on function public.submit_task(uuid, text, uuid, text, integer, text, text, uuid, text, jsonb, timestamptz, text, text, text, integer, text, text, uuid, text[])
  from public, anon, authenticated;
grant execute on function public.submit_task(uuid, text, uuid, text, integer, text, text, uuid, text, jsonb, timestamptz, text, text, text, integer, text, text, uuid, text[])
  to service_role;
