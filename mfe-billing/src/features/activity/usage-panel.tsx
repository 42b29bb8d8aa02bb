// Usage: credits spent per day over the last 30 days, by tool family, as a chart or a table,
// with each family's total. Pending → error → empty → data.
import { useState } from 'react';
import { useQuery } from '@aim/shared-kit/query';
import { Box, HStack, SegmentGroup, Skeleton, Stack, Table, Text, Wrap } from '@aim/shared-kit/ui';
import { LoadFailed } from './load-failed.tsx';
import type { ActivityGateway } from './activity-gateway.ts';
import { ACTIVITY_TEXTS } from './history-rules.ts';
import { UsageChart } from './usage-chart.tsx';
import { buildUsage, FAMILY_COLOR, FAMILY_LABEL, formatDay, type Usage, USAGE_DAYS } from './usage-rules.ts';

type State = { status: 'loading' } | { status: 'error' } | { status: 'ready'; usage: Usage };

const today = () => new Date().toISOString().slice(0, 10);

export function UsagePanel({ gateway }: { gateway: ActivityGateway }) {
  const [view, setView] = useState<'chart' | 'table'>('chart');
  const query = useQuery({ queryKey: ['billing', 'credit-usage', USAGE_DAYS], queryFn: () => gateway.usage(USAGE_DAYS) });
  const state: State =
    query.isFetching || !(query.data || query.isError)
      ? { status: 'loading' }
      : query.data && !query.isError
        ? { status: 'ready', usage: buildUsage(query.data, today()) }
        : { status: 'error' };
  const load = () => query.refetch();

  if (state.status === 'loading') return <Skeleton h="56" rounded="l2" data-testid="usage-loading" aria-busy="true" />;
  if (state.status === 'error') {
    return <LoadFailed message={ACTIVITY_TEXTS.usageFailed} testId="usage-error" onRetry={() => void load()} />;
  }
  const { usage } = state;
  if (usage.total === 0) {
    return (
      <Text color="fg.muted" py="6" textAlign="center" data-testid="usage-empty">
        {ACTIVITY_TEXTS.usageEmpty}
      </Text>
    );
  }

  return (
    <Stack gap="4" data-testid="usage">
      <HStack justify="space-between" wrap="wrap" gap="3">
        <Text fontWeight="semibold" data-testid="usage-total">
          {usage.total.toLocaleString('en-US')} credits in the last {USAGE_DAYS} days
        </Text>
        <SegmentGroup.Root size="sm" value={view} onValueChange={(e) => setView(e.value === 'table' ? 'table' : 'chart')} aria-label="Usage view">
          <SegmentGroup.Indicator />
          <SegmentGroup.Items
            items={[
              { value: 'chart', label: 'Chart' },
              { value: 'table', label: 'Table' },
            ]}
          />
        </SegmentGroup.Root>
      </HStack>
      <Wrap gap="4" as="ul" listStyleType="none" aria-label="Totals by tool" data-testid="usage-legend">
        {usage.families.map((f) => (
          <HStack as="li" key={f} gap="2" data-testid={`usage-family-${f}`}>
            <Box w="3" h="3" rounded="sm" bg={FAMILY_COLOR[f]} aria-hidden="true" />
            <Text textStyle="sm">
              {FAMILY_LABEL[f]} <strong>{usage.totals[f].toLocaleString('en-US')}</strong>
            </Text>
          </HStack>
        ))}
      </Wrap>
      {view === 'chart' ? <UsageChart usage={usage} /> : <UsageTable usage={usage} />}
    </Stack>
  );
}

/** The same numbers as rows: the days with spending, newest first, and a totals row. */
function UsageTable({ usage }: { usage: Usage }) {
  const days = usage.days.filter((d) => d.total !== 0).reverse();
  return (
    <Table.ScrollArea borderWidth="1px" rounded="l2">
      <Table.Root size="sm" data-testid="usage-table">
        <Table.Caption srOnly>Credits spent per day and tool, last {USAGE_DAYS} days (UTC)</Table.Caption>
        <Table.Header>
          <Table.Row>
            <Table.ColumnHeader>Day (UTC)</Table.ColumnHeader>
            {usage.families.map((f) => (
              <Table.ColumnHeader key={f} textAlign="end">
                {FAMILY_LABEL[f]}
              </Table.ColumnHeader>
            ))}
            <Table.ColumnHeader textAlign="end">Total</Table.ColumnHeader>
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {days.map((d) => (
            <Table.Row key={d.day} data-testid="usage-row">
              <Table.Cell whiteSpace="nowrap">{formatDay(d.day)}</Table.Cell>
              {usage.families.map((f) => (
                <Table.Cell key={f} textAlign="end">
                  {d.byFamily[f] ? d.byFamily[f].toLocaleString('en-US') : ''}
                </Table.Cell>
              ))}
              <Table.Cell textAlign="end" fontWeight="semibold">
                {d.total.toLocaleString('en-US')}
              </Table.Cell>
            </Table.Row>
          ))}
        </Table.Body>
        <Table.Footer>
          <Table.Row>
            <Table.ColumnHeader scope="row">Total</Table.ColumnHeader>
            {usage.families.map((f) => (
              <Table.Cell key={f} textAlign="end" fontWeight="semibold">
                {usage.totals[f].toLocaleString('en-US')}
              </Table.Cell>
            ))}
            <Table.Cell textAlign="end" fontWeight="semibold">
              {usage.total.toLocaleString('en-US')}
            </Table.Cell>
          </Table.Row>
        </Table.Footer>
      </Table.Root>
    </Table.ScrollArea>
  );
}
