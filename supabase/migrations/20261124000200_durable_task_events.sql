-- Events and work that must not be lost.
--
-- 1. A task's completion webhook (task.completed / task.failed) is written in the
--    transaction that settles the task (an outbox row the dispatchers send), so a crash
--    between settlement and dispatch loses nothing. The unique index makes it exactly one
--    final event per task and URL, however often a settlement or a replay tries to add it.
--    Earlier versions enqueued it after the commit; should a duplicate exist, the later rows
--    go (with their attempts) before the index is built.
delete from public.webhook_deliveries d
 using public.webhook_deliveries e
 where d.task_id = e.task_id and d.url = e.url
   and d.event <> 'task.progress' and e.event <> 'task.progress'
   and d.seq > e.seq;
create unique index webhook_deliveries_final_once on public.webhook_deliveries (task_id, url) where event <> 'task.progress';

-- 2. Which job queues the running workers serve. Every task worker upserts its row while it
--    runs; the stuck-task sweep fails (and refunds) a job whose queue no live worker has
--    served for a while, instead of leaving its credits held forever. Server-only.
create table public.task_workers (
  id text primary key,
  -- the engine names (= job queues) this worker claims from
  queues text[] not null,
  started_at timestamptz not null default now(),
  seen_at timestamptz not null default now()
);
create index task_workers_seen_idx on public.task_workers (seen_at);

alter table public.task_workers enable row level security;
revoke all on public.task_workers from anon, authenticated;
grant all on public.task_workers to service_role;
