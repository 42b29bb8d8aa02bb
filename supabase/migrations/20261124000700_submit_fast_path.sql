-- The submit fast path: a task is born in one statement. public.submit_task does what the
-- API server did in a transaction of four statements, in the same order and with the same
-- rows: the hold through public.apply_credit first (ledger source key hold:<task id>; it
-- locks the user's mdusers row, never goes below zero and raises P0402 'insufficient_credits'
-- instead), then the task row, its per-request webhook when it has one, its job and the
-- NOTIFY that wakes the workers at commit. Any error rolls all of it back: no task, no hold.
--
-- It answers whether billing's auto top-up has to look at the account after this charge:
-- auto top-up is on and the balance went below its threshold, or an attempt is still open
-- (maybeAutoTopUp finishes that one first). Read under the row lock the hold took, so the
-- request path pays no extra round trip for the check and the check never misses a charge
-- that crossed the threshold.
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
  p_channel text
) returns boolean language plpgsql security definer set search_path = '' as $$
begin
  perform public.apply_credit(p_user_id, -p_cost, 'hold:' || p_task_id::text, 'hold ' || p_type, p_task_id);
  insert into public.tasks (id, user_id, email, type, status, cost, prompt, parent_prompt, parent_id, mode, input_data, expires_at)
  values (p_task_id, p_user_id, p_email, p_type, 'pending', p_cost, p_prompt, p_parent_prompt, p_parent_id, p_mode, p_input_data, p_expires_at);
  if p_webhook_url is not null or p_webhook_secret is not null then
    insert into public.task_webhooks (task_id, url, secret) values (p_task_id, p_webhook_url, p_webhook_secret);
  end if;
  insert into public.task_jobs (task_id, queue, max_attempts) values (p_task_id, p_queue, p_max_attempts);
  perform pg_notify(p_channel, p_queue);
  return exists (select 1 from public.mdusers u where u.id = p_user_id and u.auto_topup and u.credits < u.auto_topup_min)
      or exists (select 1 from public.billing_auto_topup_attempts a where a.user_id = p_user_id and a.status = 'pending');
end
$$;

revoke execute on function public.submit_task(uuid, text, uuid, text, integer, text, text, uuid, text, jsonb, timestamptz, text, text, text, integer, text)
  from public, anon, authenticated;
grant execute on function public.submit_task(uuid, text, uuid, text, integer, text, text, uuid, text, jsonb, timestamptz, text, text, text, integer, text)
  to service_role;
