-- APIFRAME v1 compatibility: terminal success is `finished` (spec §4's log filter lists finished,
-- v1 clients wait for it). The API has written `finished` since this version; rows it wrote as
-- `success` before are renamed here, live and archived. Every reader (the API's views and parent
-- checks, the dashboard's screens and Task Logs filter) still accepts `success`, and the check
-- constraint keeps allowing it, so an older API instance still running during a deploy, or a row
-- restored from a backup, stays readable.
update public.tasks set status = 'finished' where status = 'success';
update public.tasks_archive_1 set status = 'finished' where status = 'success';
