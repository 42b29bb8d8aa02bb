// Credit history: every ledger movement newest first with the balance it left, paged by a
// (created_at, id) cursor (Load more), linking tasks to Task Logs and grants to Invoices.
import { useKeysetList } from '@aim/shared-kit/query';
import { Link as RouterLink } from '@aim/shared-kit/router';
import { Button, Link, Stack, Table, Text } from '@aim/shared-kit/ui';
import { LoadFailed } from './load-failed.tsx';
import type { ActivityGateway, HistoryRow } from './activity-gateway.ts';
import { ACTIVITY_TEXTS, formatDelta, formatWhen, HISTORY_PAGE_SIZE, kindLabel } from './history-rules.ts';

type State = { status: 'loading' } | { status: 'error' } | { status: 'ready'; rows: HistoryRow[]; more: boolean; loadingMore: boolean; moreFailed: boolean };

const COLUMNS = ['Date', 'Movement', 'Credits', 'Balance after', 'Task', 'Invoice'] as const;

export function CreditHistory({ gateway }: { gateway: ActivityGateway }) {
  const list = useKeysetList<HistoryRow>({
    queryKey: ['billing', 'credit-history'],
    fetchPage: (after) => gateway.history(after),
    pageSize: HISTORY_PAGE_SIZE,
    delayMs: 0,
  });
  const { items, phase } = list;
  const state: State =
    phase === 'loading'
      ? { status: 'loading' }
      : phase === 'error' && items.length === 0
        ? { status: 'error' }
        : { status: 'ready', rows: items, more: phase !== 'end', loadingMore: phase === 'more', moreFailed: phase === 'error' };
  const load = list.reload;
  const loadMore = async () => list.loadMore();

  if (state.status === 'error') {
    return <LoadFailed message={ACTIVITY_TEXTS.historyFailed} testId="history-error" onRetry={() => void load()} />;
  }
  const rows = state.status === 'ready' ? state.rows : [];

  return (
    <Stack gap="3">
      <Table.ScrollArea borderWidth="1px" rounded="l2">
        <Table.Root size="sm" data-testid="credit-history" aria-busy={state.status === 'loading'}>
          <Table.Caption srOnly>Credit history, newest first</Table.Caption>
          <Table.Header>
            <Table.Row>
              {COLUMNS.map((c) => (
                <Table.ColumnHeader key={c} whiteSpace="nowrap" textAlign={c === 'Credits' || c === 'Balance after' ? 'end' : undefined}>
                  {c}
                </Table.ColumnHeader>
              ))}
            </Table.Row>
          </Table.Header>
          <Table.Body>
            {rows.length === 0 ? (
              <Table.Row>
                <Table.Cell colSpan={COLUMNS.length} textAlign="center" py="8" color="fg.muted" data-testid="history-empty">
                  {state.status === 'loading' ? 'Loading...' : ACTIVITY_TEXTS.historyEmpty}
                </Table.Cell>
              </Table.Row>
            ) : (
              rows.map((row) => (
                <Table.Row key={row.id} data-testid="history-row" data-kind={row.kind}>
                  <Table.Cell whiteSpace="nowrap">{formatWhen(row.created_at)}</Table.Cell>
                  <Table.Cell whiteSpace="nowrap">
                    {kindLabel(row.kind)}
                    {row.task_type && (
                      <Text as="span" color="fg.muted">
                        {' '}
                        · {row.task_type}
                      </Text>
                    )}
                  </Table.Cell>
                  <Table.Cell textAlign="end" color={row.delta > 0 ? 'green.fg' : undefined} data-testid="history-delta">
                    {formatDelta(row.delta)}
                  </Table.Cell>
                  <Table.Cell textAlign="end" data-testid="history-balance">
                    {row.balance_after.toLocaleString('en-US')}
                  </Table.Cell>
                  <Table.Cell fontFamily="mono" fontSize="xs">
                    {row.task_id && (
                      <Link asChild colorPalette="brand" aria-label={`Task ${row.task_id} in Task Logs`}>
                        <RouterLink to={`/dashboard/task-logs?id=${row.task_id}`}>{row.task_id.slice(0, 8)}…</RouterLink>
                      </Link>
                    )}
                  </Table.Cell>
                  <Table.Cell whiteSpace="nowrap">
                    {row.invoice_number && (
                      <Link asChild colorPalette="brand" aria-label={`Invoice ${row.invoice_number}`}>
                        <RouterLink to="/dashboard/billing/invoices">{row.invoice_number}</RouterLink>
                      </Link>
                    )}
                  </Table.Cell>
                </Table.Row>
              ))
            )}
          </Table.Body>
        </Table.Root>
      </Table.ScrollArea>
      {state.status === 'ready' && state.moreFailed && (
        <Text role="alert" color="fg.error" textStyle="sm">
          {ACTIVITY_TEXTS.historyFailed}
        </Text>
      )}
      {state.status === 'ready' && state.more && (
        <Button alignSelf="center" size="sm" variant="outline" loading={state.loadingMore} onClick={() => void loadMore()} data-testid="history-more">
          Load more
        </Button>
      )}
    </Stack>
  );
}
