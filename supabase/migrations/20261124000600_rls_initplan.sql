-- Issue 12: RLS policies evaluate auth.uid() once per statement, not once per row.
--
-- A bare `auth.uid()` in a policy is a function call Postgres runs for every row it checks
-- (each call reads and parses request.jwt.claims). Wrapped in a scalar subquery it becomes
-- an InitPlan: computed once per statement and compared like a bound parameter, which also
-- lets the planner use it as an index condition (Supabase's advice, "RLS performance:
-- wrap functions with select"). Same tables, commands, roles and rows visible: only the
-- evaluation changes. Every policy of the earlier migrations is here (the test
-- "policies call auth functions once per statement" checks that none is left).
--
-- Dropped and recreated (not ALTER POLICY) so the whole definition is visible in one place.
--
-- No new index: the gallery's keyset page (created_at <= TS and (created_at < TS or id < ID),
-- order by created_at desc, id desc) is already served by tasks_email_created_idx /
-- tasks_user_created_idx (and their tasks_archive_1 twins) from 20261101000100. With the uid
-- an InitPlan, EXPLAIN shows `Index Cond: (user_id = $0) AND (created_at <= TS)` on both
-- PGlite and PostgreSQL: the scan starts at the cursor and a deep page reads 25 + a few rows.

drop policy "own row" on public.mdusers;
create policy "own row" on public.mdusers for select to authenticated using (id = (select auth.uid()));

drop policy "own auto top-up settings" on public.mdusers;
create policy "own auto top-up settings" on public.mdusers for update to authenticated
  using (id = (select auth.uid())) with check (id = (select auth.uid()));

drop policy "own tasks" on public.tasks;
create policy "own tasks" on public.tasks for select to authenticated using (user_id = (select auth.uid()));

drop policy "own archived tasks" on public.tasks_archive_1;
create policy "own archived tasks" on public.tasks_archive_1 for select to authenticated using (user_id = (select auth.uid()));

drop policy "own payments" on public.payments;
create policy "own payments" on public.payments for select to authenticated using (user_id = (select auth.uid()));

drop policy "own ledger" on public.credit_ledger;
create policy "own ledger" on public.credit_ledger for select to authenticated using (user_id = (select auth.uid()));

drop policy "own webhook deliveries" on public.webhook_deliveries;
create policy "own webhook deliveries" on public.webhook_deliveries for select to authenticated
  using (user_id = (select auth.uid()));

drop policy "own webhook attempts" on public.webhook_attempts;
create policy "own webhook attempts" on public.webhook_attempts for select to authenticated
  using (user_id = (select auth.uid()));

drop policy "own subscription" on public.billing_subscriptions;
create policy "own subscription" on public.billing_subscriptions for select to authenticated
  using (user_id = (select auth.uid()));

drop policy "own auto top-up attempts" on public.billing_auto_topup_attempts;
create policy "own auto top-up attempts" on public.billing_auto_topup_attempts for select to authenticated
  using (user_id = (select auth.uid()));
