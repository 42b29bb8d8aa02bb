-- Change capture for the embedded Realtime service (src/realtime). Local only: hosted Supabase
-- streams changes by logical decoding, which PGlite cannot do (wal_level=replica), so here a
-- row trigger on every table of the supabase_realtime publication queues the change and
-- notifies the server at commit. Applied on every start; every statement is idempotent.

create schema if not exists _realtime_local;
revoke all on schema _realtime_local from public;

-- The queue: NOTIFY payloads are capped at 8000 bytes, rows are not.
create table if not exists _realtime_local.changes (
  id bigint generated always as identity primary key,
  txid bigint not null default txid_current(),
  op text not null,
  schema_name name not null,
  table_name name not null,
  new_row jsonb,
  old_row jsonb,
  -- clock_timestamp(): closer to the commit than the transaction's start (now())
  committed_at timestamptz not null default clock_timestamp()
);
create index if not exists changes_txid_idx on _realtime_local.changes (txid);
create index if not exists changes_committed_at_idx on _realtime_local.changes (committed_at);

-- Security definer: writers (authenticated through REST, the API server's role) need no
-- rights on the queue.
create or replace function _realtime_local.capture() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  insert into _realtime_local.changes (op, schema_name, table_name, new_row, old_row)
  values (
    tg_op, tg_table_schema, tg_table_name,
    case when tg_op <> 'DELETE' then to_jsonb(new) end,
    case when tg_op <> 'INSERT' then to_jsonb(old) end
  );
  -- The transaction id as payload: identical notifications of one transaction fold into one,
  -- and they arrive in commit order.
  perform pg_notify('realtime_local', txid_current()::text);
  return null;
end
$$;
revoke execute on function _realtime_local.capture() from public;

-- Attaches the capture trigger to every table in the publication, and detaches it from
-- tables that left it.
create or replace function _realtime_local.sync_triggers() returns void
language plpgsql set search_path = '' as $$
declare
  r record;
begin
  for r in
    select c.oid::regclass as rel
    from pg_catalog.pg_publication_tables p
    join pg_catalog.pg_namespace n on n.nspname = p.schemaname
    join pg_catalog.pg_class c on c.relnamespace = n.oid and c.relname = p.tablename
    where p.pubname = 'supabase_realtime'
      and not exists (
        select 1 from pg_catalog.pg_trigger t where t.tgrelid = c.oid and t.tgname = '_realtime_local_capture')
  loop
    execute format(
      'create trigger _realtime_local_capture after insert or update or delete on %s '
      'for each row execute function _realtime_local.capture()', r.rel);
  end loop;
  for r in
    select t.tgrelid::regclass as rel
    from pg_catalog.pg_trigger t
    where t.tgname = '_realtime_local_capture'
      and not exists (
        select 1
        from pg_catalog.pg_publication_tables p
        join pg_catalog.pg_namespace n on n.nspname = p.schemaname
        join pg_catalog.pg_class c on c.relnamespace = n.oid and c.relname = p.tablename
        where p.pubname = 'supabase_realtime' and c.oid = t.tgrelid)
  loop
    execute format('drop trigger _realtime_local_capture on %s', r.rel);
  end loop;
end
$$;
revoke execute on function _realtime_local.sync_triggers() from public;

-- Schema changes while running: keep the triggers in step with the publication (tables added
-- by a later migration) and tell the server to drop its cached table metadata. A failure here
-- must never block the DDL itself.
create or replace function _realtime_local.on_ddl() returns event_trigger
language plpgsql set search_path = '' as $$
begin
  if tg_tag in ('CREATE PUBLICATION', 'ALTER PUBLICATION', 'CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO') then
    perform _realtime_local.sync_triggers();
  end if;
  perform pg_notify('realtime_local', 'ddl');
exception when others then
  raise warning '_realtime_local.on_ddl: %', sqlerrm;
end
$$;

do $$
begin
  if not exists (select 1 from pg_event_trigger where evtname = '_realtime_local_ddl') then
    create event trigger _realtime_local_ddl on ddl_command_end execute function _realtime_local.on_ddl();
  end if;
exception when insufficient_privilege then
  -- not a superuser: the server falls back to a short metadata cache lifetime
  null;
end
$$;

-- Which of several subscribers may see a row, as Realtime's walrus_rls_stmt decides it: the
-- row (looked up by primary key) must be visible under each subscriber's role and JWT claims.
-- One call per change answers for every distinct (role, claims). Security invoker: it switches
-- roles, which only the session user may do.
create or replace function _realtime_local.visible_to(entity regclass, pk text[], rec jsonb, roles text[], claims text[])
returns boolean[]
language plpgsql volatile as $$
declare
  stmt text;
  result boolean[] := '{}';
  ok boolean;
begin
  stmt := format(
    'select exists (select 1 from %s t where (%s) = (select %s from pg_catalog.jsonb_populate_record(null::%s, $1) r))',
    entity,
    (select string_agg('t.' || quote_ident(c), ', ') from unnest(pk) c),
    (select string_agg('r.' || quote_ident(c), ', ') from unnest(pk) c),
    entity);
  for i in 1 .. coalesce(array_length(roles, 1), 0) loop
    begin
      perform pg_catalog.set_config('role', roles[i], true), pg_catalog.set_config('request.jwt.claims', claims[i], true);
      execute stmt using rec into ok;
    exception when others then
      ok := false;
    end;
    result := result || coalesce(ok, false);
  end loop;
  perform pg_catalog.set_config('role', 'none', true), pg_catalog.set_config('request.jwt.claims', '', true);
  return result;
end
$$;
revoke execute on function _realtime_local.visible_to(regclass, text[], jsonb, text[], text[]) from public;

select _realtime_local.sync_triggers();
