-- Scale-out workers (docs/operations/scaling.md): each worker renews all of its leases in one
-- statement per heartbeat (`where locked_by = <worker> and state = 'active'`), every few seconds
-- per worker; this index keeps that a probe of the running jobs instead of a scan of the table.
create index task_jobs_worker_active_idx on public.task_jobs (locked_by) where state = 'active';
