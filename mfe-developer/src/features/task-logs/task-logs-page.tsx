import { type FormEvent, useRef, useState } from 'react';
import { useQuery } from '@aim/shared-kit/query';
import { useSearchParams } from '@aim/shared-kit/router';
import { Badge, Box, Button, Code, Dialog, Field, HStack, Heading, Input, NativeSelect, Stack, Table, Text } from '@aim/shared-kit/ui';
import { DialogShell } from '@aim/shared-kit/dialog-shell';
import { isTerminalStatus, LOG_PAGE_SIZES, LOG_STATUS_FILTER, LOG_TYPE_FILTER } from '@aim/shared-kit/domain';
import type { LogRow, Movement, TaskLogsGateway } from './gateway.ts';
import {
  describeTaskKey,
  formatCreatedAt,
  formatMovement,
  formatRefund,
  isTaskId,
  type KeyOption,
  keyFilterOptions,
  type LogQuery,
  logSearch,
  pageCount,
  parseLogQuery,
  TEXTS,
} from './log-rules.ts';

export type TaskLogsPageProps = {
  gateway: TaskLogsGateway;
  /** The signed-in user's email; null while the session loads. */
  email: string | null;
};

type State = { status: 'loading' } | { status: 'error' } | { status: 'ready'; rows: LogRow[]; total: number };

const COLUMNS = ['Task ID', 'Task Type', 'Status', 'Percentage', 'Created At', 'Refund', 'Details'] as const;

// rows come normalized (an older success reads finished)
const STATUS_COLOR: Record<string, string> = { finished: 'green', failed: 'red' };
const label = (value: string) => (value === 'all' ? 'All' : value);

function FilterSelect<T extends string | number>(props: { label: string; value: T; options: readonly T[]; onChange: (value: string) => void; testId: string }) {
  return (
    <Field.Root w="auto" minW="36">
      <Field.Label>{props.label}</Field.Label>
      <NativeSelect.Root size="sm">
        <NativeSelect.Field value={String(props.value)} onChange={(e) => props.onChange(e.currentTarget.value)} data-testid={props.testId}>
          {props.options.map((o) => (
            <option key={o} value={o}>
              {typeof o === 'string' ? label(o) : o}
            </option>
          ))}
        </NativeSelect.Field>
        <NativeSelect.Indicator />
      </NativeSelect.Root>
    </Field.Root>
  );
}

/** Spec §2 Task Logs: every task of the account, newest first, with filters, pages and each result. */
export function TaskLogsPage({ gateway, email }: TaskLogsPageProps) {
  const [searchParams, setSearchParams] = useSearchParams();
  const query = parseLogQuery(searchParams);
  const search = logSearch(query);
  const [utc, setUtc] = useState(true);
  const [idInput, setIdInput] = useState(query.taskId);
  const [idError, setIdError] = useState(false);
  const [detail, setDetail] = useState<LogRow | null>(null);
  const [toCancel, setToCancel] = useState<LogRow | null>(null);
  const [exporting, setExporting] = useState(false);
  const [exportFailed, setExportFailed] = useState(false);
  // the named keys for the key filter; a failed read leaves All keys / Primary key
  const keys: KeyOption[] = useQuery({ queryKey: taskLogKeys.keyOptions, queryFn: () => gateway.keys() }).data ?? [];

  /** Downloads every task the filters match as CSV (the server streams it; not just this page). */
  async function exportCsv() {
    setExporting(true);
    setExportFailed(false);
    try {
      await gateway.exportCsv(latest.current);
    } catch {
      setExportFailed(true);
    } finally {
      setExporting(false);
    }
  }

  // `search` stands for the whole query (`query` is derived from it): one load per distinct view
  const list = useQuery({ queryKey: taskLogKeys.list(email, search), queryFn: () => gateway.list(email!, query), enabled: !!email });
  const state: State =
    list.isFetching || !(list.data || list.isError)
      ? { status: 'loading' }
      : list.isError || !list.data
        ? { status: 'error' }
        : { status: 'ready', ...list.data };
  const load = () => list.refetch();

  // The view as last asked for: two changes before the next render (two quick filter picks)
  // must both count, and the URL only catches up on that render.
  const latest = useRef(query);
  latest.current = query;
  const go = (next: LogQuery, replace: boolean) => {
    latest.current = next;
    setSearchParams(logSearch(next), { replace });
  };
  /** A filter change goes back to page 1; the URL keeps the view. */
  const show = (change: Partial<LogQuery>) => go({ ...latest.current, page: 1, ...change }, true);

  function findTask(event: FormEvent) {
    event.preventDefault();
    const value = idInput.trim();
    if (value && !isTaskId(value)) {
      setIdError(true);
      return;
    }
    setIdError(false);
    show({ taskId: value });
  }

  const pages = state.status === 'ready' ? pageCount(state.total, query.pageSize) : 1;
  const rows = state.status === 'ready' ? state.rows : [];

  return (
    <Stack gap="6" w="full" data-testid="screen-task-logs">
      <HStack justify="space-between" align="flex-start" wrap="wrap" gap="3">
        <Stack gap="1">
          <Heading as="h1" size="xl">
            Task Logs
          </Heading>
          <Text color="fg.muted">Every task of your account, newest first, from the dashboard and the API.</Text>
        </Stack>
        <HStack>
          <Button size="sm" variant="outline" onClick={() => setUtc((v) => !v)} data-testid="time-zone-toggle">
            {utc ? 'Show Local Time' : 'Show UTC'}
          </Button>
          <Button size="sm" variant="outline" onClick={() => void load()} disabled={state.status === 'loading'}>
            Refresh
          </Button>
          <Button
            size="sm"
            variant="outline"
            loading={exporting}
            disabled={query.key !== 'all'}
            onClick={() => void exportCsv()}
            data-testid="export-task-logs"
            aria-describedby={query.key !== 'all' ? 'export-all-keys' : undefined}
          >
            Export CSV
          </Button>
        </HStack>
      </HStack>
      {query.key !== 'all' && (
        <Text id="export-all-keys" color="fg.muted" textStyle="xs" alignSelf="flex-end">
          {TEXTS.exportAllKeys}
        </Text>
      )}
      {exportFailed && (
        <Text role="alert" color="fg.error" textStyle="sm">
          {TEXTS.exportFailed}
        </Text>
      )}

      <HStack gap="3" align="flex-end" wrap="wrap">
        <FilterSelect
          label="Status"
          value={query.status}
          options={LOG_STATUS_FILTER}
          onChange={(v) => show({ status: v as LogQuery['status'] })}
          testId="status-filter"
        />
        <FilterSelect label="Type" value={query.type} options={LOG_TYPE_FILTER} onChange={(v) => show({ type: v as LogQuery['type'] })} testId="type-filter" />
        <Field.Root w="auto" minW="44">
          <Field.Label>API key</Field.Label>
          <NativeSelect.Root size="sm">
            <NativeSelect.Field value={query.key} onChange={(e) => show({ key: e.currentTarget.value })} data-testid="key-filter">
              {keyFilterOptions(keys, query.key).map((o) => (
                <option key={o.value} value={o.value}>
                  {o.label}
                </option>
              ))}
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
        </Field.Root>
        <Box flex="1" minW="72">
          <form onSubmit={findTask} noValidate aria-label="Find a task">
            <Field.Root invalid={idError}>
              <Field.Label>Task ID</Field.Label>
              <HStack w="full">
                <Input
                  size="sm"
                  fontFamily="mono"
                  placeholder="Paste a task ID and press Enter"
                  value={idInput}
                  onChange={(e) => {
                    setIdInput(e.currentTarget.value);
                    setIdError(false);
                  }}
                  data-testid="task-id-filter"
                />
                <Button size="sm" type="submit" variant="outline">
                  Find
                </Button>
                {query.taskId && (
                  <Button
                    size="sm"
                    variant="ghost"
                    onClick={() => {
                      setIdInput('');
                      show({ taskId: '' });
                    }}
                  >
                    Clear
                  </Button>
                )}
              </HStack>
              {idError && <Field.ErrorText>{TEXTS.badTaskId}</Field.ErrorText>}
            </Field.Root>
          </form>
        </Box>
      </HStack>

      <Table.ScrollArea borderWidth="1px" rounded="l3">
        <Table.Root size="sm" data-testid="task-logs-table" aria-busy={state.status === 'loading'}>
          <Table.Header>
            <Table.Row>
              {COLUMNS.map((c) => (
                <Table.ColumnHeader key={c} textAlign={c === 'Percentage' || c === 'Refund' || c === 'Details' ? 'end' : undefined} whiteSpace="nowrap">
                  {c}
                </Table.ColumnHeader>
              ))}
            </Table.Row>
          </Table.Header>
          <Table.Body>
            {rows.length === 0 ? (
              <Table.Row>
                <Table.Cell colSpan={COLUMNS.length} textAlign="center" py="10" color="fg.muted" data-testid="task-logs-empty">
                  {state.status === 'error' ? (
                    <Stack align="center" gap="3" role="alert">
                      <Text>{TEXTS.loadFailed}</Text>
                      <Button size="sm" variant="outline" onClick={() => void load()}>
                        Retry
                      </Button>
                    </Stack>
                  ) : state.status === 'loading' ? (
                    TEXTS.loading
                  ) : (
                    TEXTS.empty
                  )}
                </Table.Cell>
              </Table.Row>
            ) : (
              rows.map((row) => (
                <Table.Row key={row.id} data-testid="task-log-row" data-task-id={row.id}>
                  <Table.Cell fontFamily="mono" fontSize="xs" whiteSpace="nowrap">
                    {row.id}
                  </Table.Cell>
                  <Table.Cell whiteSpace="nowrap">{row.type}</Table.Cell>
                  <Table.Cell>
                    <Badge colorPalette={STATUS_COLOR[row.status] ?? 'blue'} variant="subtle">
                      {row.status}
                    </Badge>
                  </Table.Cell>
                  <Table.Cell textAlign="end">{row.percentage ?? 0}%</Table.Cell>
                  <Table.Cell whiteSpace="nowrap" data-testid="created-at">
                    {formatCreatedAt(row.created_at, utc)}
                  </Table.Cell>
                  <Table.Cell textAlign="end" color="green.fg" data-testid="refund">
                    {formatRefund(row.refund)}
                  </Table.Cell>
                  <Table.Cell textAlign="end">
                    <HStack gap="2" justify="flex-end">
                      {!isTerminalStatus(row.status) && (
                        <Button size="xs" variant="outline" colorPalette="red" aria-label={`Cancel ${row.id}`} onClick={() => setToCancel(row)}>
                          Cancel
                        </Button>
                      )}
                      <Button size="xs" variant="outline" aria-label={`Details of ${row.id}`} onClick={() => setDetail(row)}>
                        View
                      </Button>
                    </HStack>
                  </Table.Cell>
                </Table.Row>
              ))
            )}
          </Table.Body>
        </Table.Root>
      </Table.ScrollArea>

      <HStack justify="space-between" wrap="wrap" gap="3">
        <HStack gap="3">
          <FilterSelect
            label="Rows per page"
            value={query.pageSize}
            options={LOG_PAGE_SIZES}
            onChange={(v) => show({ pageSize: Number(v) as LogQuery['pageSize'] })}
            testId="page-size"
          />
          {state.status === 'ready' && (
            <Text color="fg.muted" fontSize="sm" alignSelf="flex-end" pb="2" data-testid="task-count">
              {state.total === 1 ? '1 task' : `${state.total} tasks`}
            </Text>
          )}
        </HStack>
        <HStack alignSelf="flex-end">
          <Button size="sm" variant="outline" disabled={query.page <= 1} onClick={() => go({ ...latest.current, page: query.page - 1 }, false)}>
            Previous
          </Button>
          <Text fontSize="sm" data-testid="page-of">
            Page {query.page} of {pages}
          </Text>
          <Button
            size="sm"
            variant="outline"
            disabled={state.status !== 'ready' || query.page >= pages}
            onClick={() => go({ ...latest.current, page: query.page + 1 }, false)}
          >
            Next
          </Button>
        </HStack>
      </HStack>

      <CancelTaskDialog
        task={toCancel}
        onClose={() => setToCancel(null)}
        onConfirm={async (task) => {
          await gateway.cancel(task.id);
          setToCancel(null);
          // the row now reads failed, with its refund
          await load();
        }}
      />

      <DialogShell
        open={detail !== null}
        onClose={() => setDetail(null)}
        title={`Task ${detail?.id ?? ''}`}
        testId="task-detail"
        size="lg"
        scrollBehavior="inside"
      >
        <Dialog.Body>
          <Stack gap="3">
            <Text fontSize="sm" color="fg.muted">
              {detail?.type} · {detail?.status} · {detail ? formatCreatedAt(detail.created_at, utc) : ''}
            </Text>
            <Text fontSize="sm" color="fg.muted" data-testid="task-detail-key">
              Made with: {describeTaskKey(detail?.api_key_id, keys)}
            </Text>
            <Code as="pre" display="block" whiteSpace="pre-wrap" wordBreak="break-all" p="3" fontSize="xs" data-testid="task-detail-result">
              {detail?.result == null ? 'No result data yet.' : JSON.stringify(detail.result, null, 2)}
            </Code>
            {detail && <TaskMovements gateway={gateway} taskId={detail.id} />}
          </Stack>
        </Dialog.Body>
      </DialogShell>
    </Stack>
  );
}

/** The page's keys on the QueryClient. */
const taskLogKeys = {
  keyOptions: ['developer', 'key-options'] as const,
  list: (email: string | null, search: string) => ['developer', 'task-logs', email, search] as const,
  movements: (taskId: string) => ['developer', 'task-movements', taskId] as const,
};

type Movements = { status: 'loading' } | { status: 'error' } | { status: 'ready'; rows: Movement[] };

/** The task's own credit movements in its detail: the hold, then the refund when it failed. */
function TaskMovements({ gateway, taskId }: { gateway: TaskLogsGateway; taskId: string }) {
  const movements = useQuery({ queryKey: taskLogKeys.movements(taskId), queryFn: () => gateway.movements(taskId) });
  const state: Movements =
    movements.isFetching || !(movements.data || movements.isError)
      ? { status: 'loading' }
      : movements.data
        ? { status: 'ready', rows: movements.data }
        : { status: 'error' };

  return (
    <Stack gap="1" data-testid="task-movements">
      <Heading as="h3" size="sm">
        Credits
      </Heading>
      {state.status === 'loading' ? (
        <Text fontSize="sm" color="fg.muted">
          {TEXTS.loading}
        </Text>
      ) : state.status === 'error' ? (
        <Text fontSize="sm" color="fg.error" role="alert">
          {TEXTS.movementsFailed}
        </Text>
      ) : state.rows.length === 0 ? (
        <Text fontSize="sm" color="fg.muted">
          {TEXTS.noMovements}
        </Text>
      ) : (
        <Stack as="ol" gap="1" listStyleType="none" fontSize="sm">
          {state.rows.map((m) => (
            <Box as="li" key={m.id} data-testid="task-movement" data-kind={m.kind}>
              {formatMovement(m)}
            </Box>
          ))}
        </Stack>
      )}
    </Stack>
  );
}

type CancelTaskDialogProps = {
  task: LogRow | null;
  onClose: () => void;
  /** Rejects when the server refused (the API client has shown its message). */
  onConfirm: (task: LogRow) => Promise<void>;
};

/** Asks before cancelling (it cannot be undone); focus starts on Keep running, Escape keeps the task. */
function CancelTaskDialog({ task, onClose, onConfirm }: CancelTaskDialogProps) {
  const [busy, setBusy] = useState(false);
  const handleConfirm = async () => {
    if (!task) return;
    setBusy(true);
    try {
      await onConfirm(task);
    } catch {
      onClose();
    } finally {
      setBusy(false);
    }
  };
  return (
    <DialogShell
      role="alertdialog"
      open={task !== null}
      onClose={() => !busy && onClose()}
      title={`Cancel task ${task?.id ?? ''}?`}
      testId="task-cancel-dialog"
      closeButton={false}
    >
      <Dialog.Body>
        <Text fontSize="sm">The task stops and ends as failed (Cancelled); its credits are refunded. This cannot be undone.</Text>
      </Dialog.Body>
      <Dialog.Footer>
        <Button variant="outline" onClick={onClose} disabled={busy}>
          Keep running
        </Button>
        <Button colorPalette="red" loading={busy} onClick={() => void handleConfirm()}>
          Yes, cancel
        </Button>
      </Dialog.Footer>
    </DialogShell>
  );
}
