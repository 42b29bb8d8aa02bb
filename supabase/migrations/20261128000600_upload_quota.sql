-- Uploads metered and kept for a while (issue 21, part 5): every file stored by POST /upload
-- and /upload-audio, so accounts without a plan get a daily quota (count and bytes, UTC day;
-- enforced by the API with the user's row locked) and uploads no task refers to are removed
-- after their expires_at by the upload sweep (workers/upload-sweeper.ts). A referenced upload
-- is kept: the sweep clears its expires_at.
create table public.media_uploads (
  key text primary key,
  user_id uuid not null references public.mdusers (id) on delete cascade,
  bytes bigint not null check (bytes >= 0),
  created_at timestamptz not null default now(),
  -- null: kept (a task refers to it)
  expires_at timestamptz
);

create index media_uploads_user_day on public.media_uploads (user_id, created_at);
create index media_uploads_expiry on public.media_uploads (expires_at) where expires_at is not null;

alter table public.media_uploads enable row level security;
revoke all on public.media_uploads from anon, authenticated;
grant all on public.media_uploads to service_role;
