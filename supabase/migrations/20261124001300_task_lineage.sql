-- Task lineage (issue 15 §3): POST /fetch answers a task's child_task_ids and the Midjourney
-- tool reads a task's family through REST (parent_id=in.(…), under the "own archived tasks"
-- policy). public.tasks has tasks_parent_idx since 20261101000100; its archive had no index on
-- parent_id, so a lookup of an archived task's children scanned the whole archive.
create index if not exists tasks_archive_1_parent_idx on public.tasks_archive_1 (parent_id) where parent_id is not null;
