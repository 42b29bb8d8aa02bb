-- Live task events (GET /tasks/{task_id}/events, GET /events: server-sent events) and the
-- queue position of a queued task (POST /fetch's queue_position, estimated_start_at).
--
-- 1. tasks.event_seq: the version of what a task shows (its /fetch view). Every insert, and
--    every update that changes a field of the view, takes the next value of one sequence, so a
--    task's versions only ever grow (its row lock orders them) and serve as the SSE event ids
--    a reconnecting client sends back in Last-Event-ID. Updates that change nothing a client
--    sees (favorite, note, views, shared) keep the version and announce nothing.
create sequence public.task_event_seq;
-- added with a constant default (no table rewrite); new rows then take the sequence
alter table public.tasks add column event_seq bigint not null default 0;
alter table public.tasks alter column event_seq set default nextval('public.task_event_seq');
-- archived rows keep their shape in step with the live table; an archived task no longer changes
alter table public.tasks_archive_1 add column event_seq bigint not null default 0;

create function public.tasks_bump_event_seq() returns trigger language plpgsql set search_path = '' as $$
begin
  if (new.status, new.percentage, new.image_url, new.image_urls, new.video_url, new.video_urls, new.audio_urls,
      new.lyrics, new.result, new.refund, new.cost, new.seed, new.expires_at)
     is distinct from
     (old.status, old.percentage, old.image_url, old.image_urls, old.video_url, old.video_urls, old.audio_urls,
      old.lyrics, old.result, old.refund, old.cost, old.seed, old.expires_at) then
    new.event_seq := nextval('public.task_event_seq');
  end if;
  return new;
end;
$$;
create trigger tasks_bump_event_seq before update on public.tasks
  for each row execute function public.tasks_bump_event_seq();

-- 2. Announced on the channel aim_task_events at commit, to every API process listening
--    (workers run in other processes): payload "<task id>:<event_seq>:<user id>". The owner
--    lets a process skip tasks none of its streams follow without a read; a stream always
--    reads the row, scoped to its account, before it sends anything.
create function public.tasks_notify_event() returns trigger language plpgsql set search_path = '' as $$
begin
  perform pg_notify('aim_task_events', new.id::text || ':' || new.event_seq::text || ':' || new.user_id::text);
  return null;
end;
$$;
create trigger tasks_notify_event_insert after insert on public.tasks
  for each row execute function public.tasks_notify_event();
create trigger tasks_notify_event_update after update on public.tasks
  for each row when (old.event_seq is distinct from new.event_seq) execute function public.tasks_notify_event();

-- 3. Recent job durations per engine (queue), newest first: the estimated start of a queued
--    task reads the last few finished jobs of its queue with one probe of this index.
create index task_jobs_done_recent_idx on public.task_jobs (queue, updated_at desc) where state = 'done';
