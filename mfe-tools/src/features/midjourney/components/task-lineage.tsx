import { type ReactNode, useEffect, useState } from 'react';
import { Link as RouterLink, useLocation } from '@aim/shared-kit/router';
import { Badge, Box, Button, Center, Heading, HStack, Image, Link, Skeleton, Stack, Text } from '@aim/shared-kit/ui';
import { taskPhase } from '../../tasks/task-rules.ts';
import type { MidjourneyGateway } from '../gateway.ts';
import { actionLabel, buildLineage, LINEAGE_LIMITS, type LineageNode, type LineageRow, lineageSize, lineageState, lineageThumbnail } from '../lineage.ts';
import type { MidjourneyTask } from '../task-model.ts';

type Props = {
  gateway: Pick<MidjourneyGateway, 'readLineage'>;
  /** The task on screen, as followed live (its node shows its latest status and picture). */
  task: MidjourneyTask;
  archived: boolean;
};

type State = { status: 'loading' } | { status: 'error' } | { status: 'ready'; rows: LineageRow[] };

/**
 * The task's family beside the result (issue 15 §3): the imagine it came from and every upscale,
 * variation, reroll, pan, zoom and vary made since, as a compact tree of links (each opens that
 * task; the one on screen is marked aria-current). Read again when another task is opened or
 * the one on screen changes phase (a new picture, a failure).
 */
export function TaskLineage({ gateway, task, archived }: Props) {
  const [state, setState] = useState<State>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const phase = taskPhase(task.status);
  const { readLineage } = gateway;

  useEffect(() => {
    let cancelled = false;
    setState((prev) => (prev.status === 'ready' && prev.rows.some((row) => row.id === task.id) ? prev : { status: 'loading' }));
    readLineage(task.id).then(
      (rows) => !cancelled && setState({ status: 'ready', rows }),
      () => !cancelled && setState({ status: 'error' }),
    );
    return () => {
      cancelled = true;
    };
  }, [readLineage, task.id, phase, attempt]);

  let body: ReactNode;
  if (state.status === 'loading') {
    body = (
      <Stack gap="2" data-testid="lineage-loading">
        {[0, 1, 2].map((i) => (
          <Skeleton key={i} h="10" rounded="l2" />
        ))}
      </Stack>
    );
  } else if (state.status === 'error') {
    body = (
      <Stack gap="2" align="start" data-testid="lineage-error">
        <Text textStyle="sm" color="fg.error">
          The family of this task could not be loaded.
        </Text>
        <Button size="xs" variant="outline" onClick={() => setAttempt((n) => n + 1)}>
          Try again
        </Button>
      </Stack>
    );
  } else {
    // the task on screen as it is now, not as it was read
    const rows = state.rows.map((row) => (row.id === task.id ? { ...row, ...liveFields(task), archived } : row));
    const root = buildLineage(rows.some((row) => row.id === task.id) ? rows : [...rows, rowOf(task, archived)], task.id)!;
    const size = lineageSize(root);
    body =
      size === 1 ? (
        <Text textStyle="sm" color="fg.muted" data-testid="lineage-empty">
          Nothing made from this task yet: its upscales, variations and edits appear here.
        </Text>
      ) : (
        <>
          <LineageList nodes={[root]} currentId={task.id} depth={0} />
          {state.rows.length >= LINEAGE_LIMITS.tasks && (
            <Text textStyle="xs" color="fg.muted" mt="2">
              The first {LINEAGE_LIMITS.tasks} tasks of this family.
            </Text>
          )}
        </>
      );
  }

  return (
    <Box as="nav" aria-labelledby="task-lineage-title" borderWidth="1px" rounded="l3" p="3" bg="bg.panel" minW="0" data-testid="task-lineage">
      <Heading as="h2" size="sm" id="task-lineage-title" mb="2">
        Task family
      </Heading>
      {body}
    </Box>
  );
}

function liveFields(task: MidjourneyTask): Pick<LineageRow, 'status' | 'image_url' | 'image_urls'> {
  return { status: task.status, image_url: task.image_url, image_urls: task.image_urls };
}

function rowOf(task: MidjourneyTask, archived: boolean): LineageRow {
  return { id: task.id, type: task.type, parent_id: task.parent_id ?? null, created_at: '', archived, ...liveFields(task) };
}

function LineageList({ nodes, currentId, depth }: { nodes: LineageNode[]; currentId: string; depth: number }) {
  return (
    <Box as="ul" listStyleType="none" m="0" ps={depth ? '2.5' : '0'} ms={depth ? '5' : '0'} borderStartWidth={depth ? '1px' : '0'} display="grid" gap="1">
      {nodes.map((node) => (
        <Box as="li" key={node.row.id} minW="0">
          <LineageItem row={node.row} current={node.row.id === currentId} />
          {node.children.length > 0 && <LineageList nodes={node.children} currentId={currentId} depth={depth + 1} />}
        </Box>
      ))}
    </Box>
  );
}

function LineageItem({ row, current }: { row: LineageRow; current: boolean }) {
  const location = useLocation();
  const search = new URLSearchParams(location.search);
  search.set('taskId', row.id);
  const label = actionLabel(row.type);
  const state = lineageState(row);
  const thumbnail = lineageThumbnail(row);
  return (
    <Link
      asChild
      display="flex"
      alignItems="center"
      gap="2"
      p="1"
      rounded="l2"
      textDecoration="none"
      color="fg"
      borderWidth="1px"
      borderColor={current ? 'brand.solid' : 'transparent'}
      bg={current ? 'brand.subtle' : undefined}
      _hover={{ bg: current ? 'brand.subtle' : 'bg.muted', textDecoration: 'none' }}
    >
      <RouterLink
        to={{ pathname: location.pathname, search: `?${search}` }}
        aria-current={current ? 'page' : undefined}
        data-testid="lineage-node"
        data-task-id={row.id}
      >
        {thumbnail ? (
          <Image src={thumbnail} alt="" w="10" h="10" flexShrink="0" objectFit="cover" rounded="l1" bg="bg.muted" loading="lazy" />
        ) : (
          <Center
            w="10"
            h="10"
            flexShrink="0"
            rounded="l1"
            bg={state === 'failed' ? 'red.subtle' : 'bg.muted'}
            color={state === 'failed' ? 'red.fg' : 'fg.muted'}
            fontSize="2xs"
            lineHeight="1.1"
            textAlign="center"
            overflow="hidden"
            aria-hidden
            data-testid="lineage-placeholder"
          >
            {label}
          </Center>
        )}
        <HStack gap="1.5" minW="0" wrap="wrap">
          <Text as="span" textStyle="sm" fontWeight={current ? 'semibold' : 'normal'} truncate>
            {label}
          </Text>
          {state && (
            <Badge size="sm" variant="outline" colorPalette={state === 'failed' ? 'red' : 'gray'}>
              {state}
            </Badge>
          )}
        </HStack>
      </RouterLink>
    </Link>
  );
}
