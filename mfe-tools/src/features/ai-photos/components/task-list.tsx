import { useState } from 'react';
import { Badge, Button, Card, EmptyState, HStack, Skeleton, Stack, Tabs, Text } from '@aim/shared-kit/ui';
import { relativeTime } from '@aim/shared-kit/format';
import { statusLabel, taskPhase } from '../../tasks/task-rules.ts';
import { type AiPhotoListItem, filterTasks, LIST_FILTERS, type ListFilter, listAction, listDetail, TYPE_LABELS } from '../ai-photos-rules.ts';
import type { TaskListState } from '../use-ai-photo-tasks.ts';

const EMPTY_TEXT: Record<ListFilter, string> = {
  'All Tasks': 'No AI Photo tasks yet',
  'Model Training': 'No trained models yet',
  'Image Upload': 'No photo uploads yet',
};

const PHASE_PALETTE = { active: 'blue', done: 'green', failed: 'red' } as const;

const tabValue = (filter: ListFilter) => filter.replaceAll(' ', '-');

type TaskListProps = {
  state: TaskListState;
  /** The task the wizard shows, marked in the list. */
  currentId: string | null;
  onOpen: (taskId: string) => void;
  onRetry: () => void;
};

/**
 * Spec §2 and §4: the side list of trained models and tasks, filterable by All Tasks, Model
 * Training, Image Upload; Train now for a finished upload, Generate for a finished training,
 * Open for the rest. States in order: loading, error (Retry), empty, rows.
 */
export function TaskList({ state, currentId, onOpen, onRetry }: TaskListProps) {
  const [filter, setFilter] = useState<ListFilter>('All Tasks');
  return (
    <Card.Root variant="outline" size="sm" as="section" aria-labelledby="ai-photo-list-title" data-testid="task-list" data-state={state.status}>
      <Card.Header pb="2">
        <HStack justify="space-between">
          <Card.Title as="h2" id="ai-photo-list-title" textStyle="md">
            Models and tasks
          </Card.Title>
          {state.status === 'ready' && state.isRefreshing && <Skeleton h="2" w="10" rounded="full" aria-label="Refreshing" />}
        </HStack>
      </Card.Header>
      <Card.Body gap="3" pt="0">
        {/* Values without spaces: Zag derives the tab and panel ids from them. */}
        <Tabs.Root
          value={tabValue(filter)}
          onValueChange={(d) => setFilter(LIST_FILTERS.find((f) => tabValue(f) === d.value) ?? filter)}
          size="sm"
          variant="line"
          fitted
        >
          <Tabs.List>
            {LIST_FILTERS.map((f) => (
              <Tabs.Trigger key={f} value={tabValue(f)} px="1" textStyle="xs">
                {f}
              </Tabs.Trigger>
            ))}
          </Tabs.List>
          <Tabs.Content value={tabValue(filter)}>
            <ListBody state={state} filter={filter} currentId={currentId} onOpen={onOpen} onRetry={onRetry} />
          </Tabs.Content>
        </Tabs.Root>
      </Card.Body>
    </Card.Root>
  );
}

function ListBody({ state, filter, currentId, onOpen, onRetry }: TaskListProps & { filter: ListFilter }) {
  if (state.status === 'loading') {
    return (
      <Stack gap="2" data-testid="task-list-loading" aria-busy="true" aria-label="Loading tasks">
        {[0, 1, 2].map((i) => (
          <Skeleton key={i} h="16" rounded="l2" />
        ))}
      </Stack>
    );
  }
  if (state.status === 'error') {
    return (
      <Stack gap="2" align="start" data-testid="task-list-error">
        <Text textStyle="sm" color="fg.error">
          Your AI Photo tasks could not be loaded.
        </Text>
        <Button size="xs" variant="outline" onClick={onRetry}>
          Retry
        </Button>
      </Stack>
    );
  }
  const items = filterTasks(state.items, filter);
  if (items.length === 0) {
    return (
      <EmptyState.Root size="sm" data-testid="task-list-empty">
        <EmptyState.Content>
          <EmptyState.Title textStyle="sm">{EMPTY_TEXT[filter]}</EmptyState.Title>
          <EmptyState.Description textStyle="xs">Uploads, trainings and generations appear here until they expire.</EmptyState.Description>
        </EmptyState.Content>
      </EmptyState.Root>
    );
  }
  return (
    <Stack as="ul" listStyleType="none" gap="2" aria-label={filter}>
      {items.map((item) => (
        <TaskRow key={item.id} item={item} isCurrent={item.id === currentId} onOpen={onOpen} />
      ))}
    </Stack>
  );
}

function TaskRow({ item, isCurrent, onOpen }: { item: AiPhotoListItem; isCurrent: boolean; onOpen: (taskId: string) => void }) {
  const phase = taskPhase(item.status);
  const action = listAction(item);
  const detail = listDetail(item);
  const title = TYPE_LABELS[item.type] ?? item.type;
  return (
    <Stack
      as="li"
      gap="1.5"
      p="2.5"
      rounded="l2"
      borderWidth="1px"
      borderColor={isCurrent ? 'brand.solid' : 'border'}
      bg={isCurrent ? 'brand.subtle' : undefined}
      aria-current={isCurrent ? 'true' : undefined}
      data-testid="task-list-item"
      data-task-id={item.id}
      data-task-type={item.type}
      data-task-status={item.status}
    >
      <HStack justify="space-between" gap="2">
        <Text textStyle="sm" fontWeight="medium" id={`ai-photo-task-${item.id}`}>
          {title}
        </Text>
        <Badge size="sm" variant="subtle" colorPalette={PHASE_PALETTE[phase]}>
          {phase === 'active' && item.percentage ? `${statusLabel(item.status)} ${item.percentage}%` : statusLabel(item.status)}
        </Badge>
      </HStack>
      {detail && (
        <Text textStyle="xs" color="fg.muted" lineClamp={2} title={detail}>
          {detail}
        </Text>
      )}
      <HStack justify="space-between" gap="2">
        <Text textStyle="xs" color="fg.muted" title={item.created_at}>
          {relativeTime(item.created_at)}
          {item.expires_at ? ` · expires ${new Date(item.expires_at).toLocaleDateString(undefined, { month: 'short', day: 'numeric' })}` : ''}
        </Text>
        <Button
          size="xs"
          variant={action === 'Open' ? 'ghost' : 'outline'}
          colorPalette={action === 'Open' ? undefined : 'brand'}
          aria-describedby={`ai-photo-task-${item.id}`}
          onClick={() => onOpen(item.id)}
          disabled={isCurrent && action === 'Open'}
        >
          {action}
        </Button>
      </HStack>
    </Stack>
  );
}
