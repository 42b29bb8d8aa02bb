-- A fair job queue: workers take turns between accounts (QUEUE_FAIRNESS=account, the default)
-- instead of one first-in-first-out line for everyone, so one account's burst no longer delays
-- every other account's first task (server/README.md, "Fair queue").
--
-- account_id: the task's owner (tasks.user_id), copied onto its job by a trigger so the insert
-- side need not name it, and so the claim can find each account's oldest queued job through an
-- index instead of a join over the whole backlog.
-- claimed_at: when the job was last claimed; an account's latest one says how recently it was
-- served (the claim serves the least recently served account first among equals).
alter table public.task_jobs add column account_id uuid;
alter table public.task_jobs add column claimed_at timestamptz;

update public.task_jobs j set account_id = t.user_id from public.tasks t where t.id = j.task_id;

create function public.task_jobs_fill_account() returns trigger language plpgsql set search_path = '' as $$
begin
  if new.account_id is null then
    select t.user_id into new.account_id from public.tasks t where t.id = new.task_id;
  end if;
  return new;
end;
$$;
create trigger task_jobs_fill_account before insert on public.task_jobs
  for each row execute function public.task_jobs_fill_account();

-- A job inserted by the same statement as its task (data-modifying CTEs share one snapshot)
-- may not find the task yet; at the end of that statement it can.
create function public.task_jobs_fill_account_late() returns trigger language plpgsql set search_path = '' as $$
begin
  update public.task_jobs j set account_id = t.user_id from public.tasks t
   where j.task_id = new.task_id and t.id = new.task_id and j.account_id is null;
  return null;
end;
$$;
create trigger task_jobs_fill_account_late after insert on public.task_jobs
  for each row when (new.account_id is null) execute function public.task_jobs_fill_account_late();

-- each account's queued jobs in claim order; also walked one account at a time (a skip scan)
create index task_jobs_account_ready_idx on public.task_jobs (queue, account_id, run_at, created_at) where state = 'queued';
-- an account's latest claim in a queue: one probe from the end
create index task_jobs_account_claimed_idx on public.task_jobs (queue, account_id, claimed_at) where claimed_at is not null;
