-- Request rate limits of the provider API (issue 21, part 1): one counter per bucket (an API
-- key, an account or a client address, per route class) and fixed one-minute window, shared
-- by every API process. The server checks all of a request's buckets in one call of
-- public.rate_limit_hit (server/src/repositories/rate-limit-repository.ts) and sweeps rows of
-- past windows. Unlogged: counts of the current minute are not worth a WAL write; a crash
-- forgets them.
create unlogged table public.rate_limit_buckets (
  key text primary key,
  window_start timestamptz not null,
  count integer not null
);
create index rate_limit_buckets_window_start_idx on public.rate_limit_buckets (window_start);

-- Counts one request in every bucket (p_keys, with p_limits) of the window starting at
-- p_window when each is under its limit, in none otherwise: a refused request uses up
-- nothing, so a key over its limit does not eat its account's share. The verdict reads the
-- statement's snapshot, so concurrent requests may overshoot a limit by how many run at once;
-- the counts are exact (the upsert sees the latest row). A function, not one SQL statement,
-- so that its plans are cached per connection (half the cost on PGlite).
create function public.rate_limit_hit(p_keys text[], p_limits integer[], p_window timestamptz)
returns table (key text, used integer, allowed boolean) language plpgsql set search_path = '' as $$
#variable_conflict use_column
declare
  ok boolean;
begin
  select coalesce(bool_and(coalesce(b.count, 0) < w.lim), true) into ok
    from unnest(p_keys, p_limits) as w(key, lim)
    left join public.rate_limit_buckets b on b.key = w.key and b.window_start >= p_window;
  if ok then
    return query
      insert into public.rate_limit_buckets as b (key, window_start, count)
      select k, p_window, 1 from unnest(p_keys) as k
      on conflict on constraint rate_limit_buckets_pkey do update
        set count = case when b.window_start >= excluded.window_start then b.count + 1 else 1 end,
            window_start = greatest(b.window_start, excluded.window_start)
      returning b.key, b.count, true;
  else
    return query
      select w.key, coalesce(b.count, 0), false
        from unnest(p_keys) as w(key)
        left join public.rate_limit_buckets b on b.key = w.key and b.window_start >= p_window;
  end if;
end
$$;

-- Only the API server (the owner) reads or writes them.
alter table public.rate_limit_buckets enable row level security;
revoke all on public.rate_limit_buckets from public, anon, authenticated;
revoke execute on function public.rate_limit_hit(text[], integer[], timestamptz) from public, anon, authenticated;
