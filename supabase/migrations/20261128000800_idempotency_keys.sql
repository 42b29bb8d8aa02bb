-- Idempotency keys (issue 23, part 2): the `Idempotency-Key` header of the calls that create a
-- task or start a charge (server/src/middleware/idempotency). One row per account and key: the
-- request's fingerprint (a SHA-256 of method, path and canonical body), then, once it answered
-- 2xx, that answer, replayed to a retry for 24 hours from the first use. While the first
-- request runs, the row holds a lease (lease_token, locked_until) that its API process renews;
-- a row whose lease ran out without an answer (the process died) can be taken over by a retry.
-- A normal (logged) table: after a database crash a stored answer must still be replayed, or a
-- retry would create a second task.
create table public.idempotency_keys (
  user_id uuid not null references public.mdusers (id) on delete cascade,
  key text not null check (octet_length(key) between 1 and 255),
  method text not null,
  path text not null,
  request_hash text not null,
  -- set while the first request runs; null once its answer is stored
  lease_token uuid,
  locked_until timestamptz,
  response_status smallint,
  response_body text,
  created_at timestamptz not null default now(),
  primary key (user_id, key)
);
-- the sweep (server/src/workers/idempotency-sweeper.ts) deletes rows past 24 hours
create index idempotency_keys_created_at_idx on public.idempotency_keys (created_at);

-- Takes the key for a request, in one call: a new key, a key past 24 hours, or an abandoned
-- lease of the same request (same fingerprint) is leased to p_token (acquired); otherwise the
-- row as it stands, for the caller to replay its answer, refuse another request (422) or wait
-- for the first (409). Each statement of a plpgsql function sees the latest committed rows, so
-- a concurrent first use is seen once the insert's conflict has been met.
create function public.idempotency_reserve(
  p_user_id uuid, p_key text, p_method text, p_path text, p_hash text, p_token uuid, p_lease_ms integer
)
returns table (acquired boolean, method text, path text, request_hash text, response_status smallint, response_body text, in_flight boolean)
language plpgsql set search_path = '' as $$
#variable_conflict use_column
begin
  for attempt in 1..3 loop
    return query
      insert into public.idempotency_keys as k (user_id, key, method, path, request_hash, lease_token, locked_until)
      values (p_user_id, p_key, p_method, p_path, p_hash, p_token, now() + p_lease_ms * interval '1 millisecond')
      on conflict on constraint idempotency_keys_pkey do update
        set method = excluded.method, path = excluded.path, request_hash = excluded.request_hash,
            lease_token = excluded.lease_token, locked_until = excluded.locked_until,
            response_status = null, response_body = null, created_at = now()
        where k.created_at < now() - interval '24 hours'
           or (k.response_status is null and k.locked_until < now() and k.request_hash = excluded.request_hash)
      returning true, k.method, k.path, k.request_hash, k.response_status, k.response_body, false;
    if found then return; end if;
    return query
      select false, k.method, k.path, k.request_hash, k.response_status, k.response_body, k.response_status is null
        from public.idempotency_keys k
       where k.user_id = p_user_id and k.key = p_key;
    if found then return; end if;
    -- swept between the two statements: try again
  end loop;
end
$$;

-- Only the API server (the owner) reads or writes them.
alter table public.idempotency_keys enable row level security;
revoke all on public.idempotency_keys from public, anon, authenticated;
revoke execute on function public.idempotency_reserve(uuid, text, text, text, text, uuid, integer) from public, anon, authenticated;
