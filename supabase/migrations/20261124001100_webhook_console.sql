-- The webhook console (API Keys screen): a rotatable account signing secret and test events.
--
-- 1. Rotation: the secret being replaced keeps signing beside the new one until
--    previous_expires_at (24 h after the rotation; both signatures go in webhook-signature),
--    then it is no longer used and is cleared at the next read or rotation.
alter table public.webhook_signing_secrets
  add column previous_secret text,
  add column previous_expires_at timestamptz,
  add column rotated_at timestamptz,
  add constraint webhook_signing_secrets_previous_pair
    check ((previous_secret is null) = (previous_expires_at is null));

-- 2. "Send test event": a delivery of event webhook.test to the account's webhook URL, with
--    no task (every other event belongs to a task). The final-once index and the per-target
--    ordering compare task_id, so null test rows never collide with or wait for each other.
alter table public.webhook_deliveries alter column task_id drop not null;
alter table public.webhook_deliveries drop constraint webhook_deliveries_event_check;
alter table public.webhook_deliveries
  add constraint webhook_deliveries_event_check
    check (event in ('task.progress', 'task.completed', 'task.failed', 'webhook.test')),
  add constraint webhook_deliveries_test_has_no_task check ((event = 'webhook.test') = (task_id is null));

-- The console lists a user's newest deliveries, optionally of one status.
create index webhook_deliveries_user_status_created_idx
  on public.webhook_deliveries (user_id, status, created_at desc, id desc);
