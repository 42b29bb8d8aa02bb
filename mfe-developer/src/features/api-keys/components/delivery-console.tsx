import { useState } from 'react';
import { Alert, Badge, Box, Button, Card, Code, Dialog, Field, HStack, NativeSelect, Stack, Table, Text } from '@aim/shared-kit/ui';
import { DialogShell } from '@aim/shared-kit/dialog-shell';
import { useQuery } from '@aim/shared-kit/query';
import {
  DELIVERY_STATUSES,
  describeLastResult,
  describePause,
  formatLatency,
  formatUtc,
  STATUS_COLOR,
  WEBHOOK_TEXTS,
  type Delivery,
  type PausedEndpoint,
  type StatusFilter,
} from '../webhook-rules.ts';

/** How often the list is read again while the page is visible (live updates by polling). */
const DELIVERY_POLL_MS = 5000;

type Props = {
  list: (filter: StatusFilter, signal: AbortSignal) => Promise<Delivery[]>;
  /** Each answers whether it worked (a failure is reported by the caller). */
  resend: (id: string) => Promise<boolean>;
  sendTest: () => Promise<boolean>;
  /** The URLs the circuit breaker paused, read with the deliveries (none shown when absent or failing). */
  listPaused?: (signal: AbortSignal) => Promise<PausedEndpoint[]>;
  /** Resumes a paused URL now; answers whether it worked. */
  resume?: (url: string) => Promise<boolean>;
  hasWebhookUrl: boolean;
  pollMs?: number;
};

type State = { status: 'loading' | 'ready' | 'error'; deliveries: Delivery[]; pollFailed: boolean };

const noPaused = () => Promise.resolve<PausedEndpoint[]>([]);

const COLUMNS = ['Event', 'Task', 'Time', 'Attempts', 'Last status', 'Latency', 'Next retry', 'Status', 'Actions'];

/**
 * The recent webhook deliveries with a status filter, each one's payload and attempts (Details),
 * Resend and Send test event, and the URLs the circuit breaker paused (why, until when, Resume).
 * Live: read again every `pollMs` while the page is visible, and at once after an action.
 */
export function DeliveryConsole({ list, resend, sendTest, listPaused, resume, hasWebhookUrl, pollMs = DELIVERY_POLL_MS }: Props) {
  const [filter, setFilter] = useState<StatusFilter>('all');
  const [detailId, setDetailId] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  // Live: read again every `pollMs` while the page is visible, and when it becomes visible again.
  // A filter is its own key: a new filter starts from loading, and the one left is dropped.
  const live = { refetchInterval: pollMs, refetchOnWindowFocus: 'always', gcTime: 0 } as const;
  const deliveries = useQuery({ queryKey: ['developer', 'webhook-deliveries', filter], queryFn: ({ signal }) => list(filter, signal), ...live });
  // the paused URLs are extra: when they cannot be read the last answer stays
  const pausedQuery = useQuery({ queryKey: ['developer', 'webhook-paused'], queryFn: ({ signal }) => (listPaused ? listPaused(signal) : noPaused()), ...live });
  const paused = pausedQuery.data ?? [];
  const state: State = deliveries.data
    ? { status: 'ready', deliveries: deliveries.data, pollFailed: deliveries.isError }
    : { status: deliveries.isError && !deliveries.isFetching ? 'error' : 'loading', deliveries: [], pollFailed: false };
  const load = () => Promise.all([deliveries.refetch(), pausedQuery.refetch()]);

  async function run(key: string, action: () => Promise<boolean>) {
    setBusy(key);
    try {
      if (await action()) await load();
    } finally {
      setBusy(null);
    }
  }

  const detail = state.deliveries.find((d) => d.id === detailId) ?? null;
  const resendButton = (d: Delivery, label: string) => (
    <Button
      size="xs"
      variant="outline"
      aria-label={label}
      disabled={d.status === 'superseded' || busy !== null}
      loading={busy === d.id}
      onClick={() => void run(d.id, () => resend(d.id))}
    >
      Resend
    </Button>
  );

  return (
    <Card.Root variant="outline" data-testid="delivery-console">
      <Card.Header>
        <HStack justify="space-between" align="start" wrap="wrap" gap="3">
          <Stack gap="1">
            <Card.Title as="h2">Webhook deliveries</Card.Title>
            <Card.Description>Your 50 most recent deliveries, updated every {Math.round(pollMs / 1000)} seconds while this page is open.</Card.Description>
          </Stack>
          <HStack gap="2" align="end" wrap="wrap">
            <Field.Root width="40">
              <Field.Label textStyle="xs" color="fg.muted">
                Status
              </Field.Label>
              <NativeSelect.Root size="sm">
                <NativeSelect.Field value={filter} onChange={(e) => setFilter(e.currentTarget.value as StatusFilter)} data-testid="delivery-status-filter">
                  <option value="all">All</option>
                  {DELIVERY_STATUSES.map((s) => (
                    <option key={s} value={s}>
                      {s[0].toUpperCase() + s.slice(1)}
                    </option>
                  ))}
                </NativeSelect.Field>
                <NativeSelect.Indicator />
              </NativeSelect.Root>
            </Field.Root>
            <Button
              size="sm"
              colorPalette="brand"
              disabled={!hasWebhookUrl || busy !== null}
              loading={busy === 'test'}
              loadingText="Sending..."
              onClick={() => void run('test', sendTest)}
            >
              Send test event
            </Button>
          </HStack>
        </HStack>
        {!hasWebhookUrl && (
          <Text textStyle="xs" color="fg.muted" data-testid="test-event-hint">
            Save a webhook URL above to send a test event.
          </Text>
        )}
      </Card.Header>
      <Card.Body gap="3">
        {paused.length > 0 && (
          <Stack gap="2" role="region" aria-label="Paused webhook URLs" data-testid="paused-endpoints">
            {paused.map((e) => (
              <Alert.Root key={e.url} status="warning" alignItems="center" data-testid="paused-endpoint" data-url={e.url}>
                <Alert.Indicator />
                <Alert.Content>
                  <Alert.Title overflowWrap="anywhere">Deliveries to {e.url} are paused</Alert.Title>
                  <Alert.Description>
                    {describePause(e)} Waiting deliveries are kept and sent then, or now with Resume.
                    {e.last_error ? ` Last error: ${e.last_error}` : ''}
                  </Alert.Description>
                </Alert.Content>
                {resume && (
                  <Button
                    size="xs"
                    variant="outline"
                    aria-label={`Resume deliveries to ${e.url}`}
                    disabled={busy !== null}
                    loading={busy === `resume ${e.url}`}
                    onClick={() => void run(`resume ${e.url}`, () => resume(e.url))}
                  >
                    Resume
                  </Button>
                )}
              </Alert.Root>
            ))}
          </Stack>
        )}
        {state.pollFailed && (
          <HStack gap="3" role="alert" data-testid="delivery-poll-error">
            <Text textStyle="sm" color="fg.error">
              Live updates paused: the deliveries could not be refreshed.
            </Text>
            <Button size="xs" variant="outline" onClick={() => void load()}>
              Retry
            </Button>
          </HStack>
        )}
        <Table.ScrollArea borderWidth="1px" rounded="l3">
          <Table.Root size="sm" data-testid="delivery-table" aria-busy={state.status === 'loading'}>
            <Table.Caption srOnly>Recent webhook deliveries</Table.Caption>
            <Table.Header>
              <Table.Row>
                {COLUMNS.map((c) => (
                  <Table.ColumnHeader key={c} whiteSpace="nowrap" textAlign={c === 'Actions' ? 'end' : undefined}>
                    {c}
                  </Table.ColumnHeader>
                ))}
              </Table.Row>
            </Table.Header>
            <Table.Body>
              {state.deliveries.length === 0 ? (
                <Table.Row>
                  <Table.Cell colSpan={COLUMNS.length} textAlign="center" py="8" color="fg.muted" data-testid="delivery-empty">
                    {state.status === 'error' ? (
                      <Stack align="center" gap="3" role="alert">
                        <Text>{WEBHOOK_TEXTS.deliveriesLoadFailed}</Text>
                        <Button size="sm" variant="outline" onClick={() => void load()}>
                          Retry
                        </Button>
                      </Stack>
                    ) : state.status === 'loading' ? (
                      'Loading...'
                    ) : filter === 'all' ? (
                      <Stack align="center" gap="1">
                        <Text>{WEBHOOK_TEXTS.noDeliveries}</Text>
                        <Text textStyle="xs">Deliveries appear here when a task reports to a webhook, or when you send a test event.</Text>
                      </Stack>
                    ) : (
                      WEBHOOK_TEXTS.noDeliveriesOfStatus
                    )}
                  </Table.Cell>
                </Table.Row>
              ) : (
                state.deliveries.map((d) => (
                  <Table.Row key={d.id} data-testid="delivery-row" data-delivery-id={d.id} data-status={d.status}>
                    <Table.Cell whiteSpace="nowrap">
                      <Code size="sm">{d.event}</Code>
                    </Table.Cell>
                    <Table.Cell fontFamily="mono" fontSize="xs" whiteSpace="nowrap" title={d.task_id ?? undefined}>
                      {d.task_id ? `${d.task_id.slice(0, 8)}…` : '–'}
                    </Table.Cell>
                    <Table.Cell whiteSpace="nowrap">{formatUtc(d.created_at)}</Table.Cell>
                    <Table.Cell textAlign="end">{d.attempt_count}</Table.Cell>
                    <Table.Cell whiteSpace="nowrap" data-testid="delivery-last-status">
                      {describeLastResult(d)}
                    </Table.Cell>
                    <Table.Cell whiteSpace="nowrap">{formatLatency(d.latency_ms)}</Table.Cell>
                    <Table.Cell whiteSpace="nowrap">{formatUtc(d.next_attempt_at)}</Table.Cell>
                    <Table.Cell>
                      <Badge colorPalette={STATUS_COLOR[d.status]} variant="subtle">
                        {d.status}
                      </Badge>
                    </Table.Cell>
                    <Table.Cell textAlign="end">
                      <HStack gap="2" justify="end">
                        <Button size="xs" variant="outline" aria-label={`Details of ${d.event} delivery ${d.id}`} onClick={() => setDetailId(d.id)}>
                          Details
                        </Button>
                        {resendButton(d, `Resend ${d.event} delivery ${d.id}`)}
                      </HStack>
                    </Table.Cell>
                  </Table.Row>
                ))
              )}
            </Table.Body>
          </Table.Root>
        </Table.ScrollArea>
      </Card.Body>

      <DialogShell
        open={detail !== null}
        onClose={() => setDetailId(null)}
        title={
          <>
            {detail?.event} delivery <Code size="sm">{detail?.id}</Code>
          </>
        }
        testId="delivery-detail"
        size="lg"
        scrollBehavior="inside"
      >
        <Dialog.Body>
          {detail && (
            <Stack gap="4">
              <Text textStyle="sm" color="fg.muted" overflowWrap="anywhere">
                {detail.status} · to {detail.url} · created {formatUtc(detail.created_at)}
                {detail.task_id ? ` · task ${detail.task_id}` : ''}
              </Text>
              <Stack gap="1">
                <Text as="h3" textStyle="sm" fontWeight="semibold">
                  Payload
                </Text>
                <Code as="pre" display="block" whiteSpace="pre-wrap" wordBreak="break-all" p="3" fontSize="xs" data-testid="delivery-payload">
                  {JSON.stringify(detail.payload, null, 2)}
                </Code>
              </Stack>
              <Stack gap="2">
                <Text as="h3" textStyle="sm" fontWeight="semibold">
                  Attempts
                </Text>
                {detail.attempts.length === 0 ? (
                  <Text textStyle="sm" color="fg.muted">
                    Not attempted yet.
                  </Text>
                ) : (
                  <Stack as="ol" gap="3" listStyleType="none" data-testid="delivery-attempts">
                    {detail.attempts.map((a) => (
                      <Box as="li" key={a.attempt} borderWidth="1px" rounded="l2" p="3" data-testid="delivery-attempt">
                        <Text textStyle="sm" fontWeight="medium">
                          Attempt {a.attempt} · {formatUtc(a.at)} · {a.status_code ?? 'no answer'} · {formatLatency(a.latency_ms)}
                        </Text>
                        {a.error && (
                          <Text textStyle="xs" color="fg.error">
                            {a.error}
                          </Text>
                        )}
                        <Code as="pre" display="block" whiteSpace="pre-wrap" wordBreak="break-all" mt="2" p="2" fontSize="xs" aria-label="Response excerpt">
                          {a.response_excerpt || '(empty response)'}
                        </Code>
                      </Box>
                    ))}
                  </Stack>
                )}
              </Stack>
            </Stack>
          )}
        </Dialog.Body>
        <Dialog.Footer>{detail && resendButton(detail, 'Resend this delivery')}</Dialog.Footer>
      </DialogShell>
    </Card.Root>
  );
}
