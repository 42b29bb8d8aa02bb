import { useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { Badge, Box, Card, EmptyState, Heading, HStack, Skeleton, Stack, Text } from '@chakra-ui/react';
import { saveBlob } from '@aim/shared-kit/download';
import { SEED_FETCH_DELAY_MS } from '@aim/shared-kit/domain';
import { DEFAULT_API_ERROR } from '@aim/shared-kit/api';
import type { MidjourneyGateway } from './gateway.ts';
import { promptWithImage, validatePrompt } from './prompt-rules.ts';
import {
  availableActions,
  downloadFileName,
  ERROR_DOWNLOADING_IMAGE,
  primaryImage,
  resultLayout,
  seedText,
  type MidjourneyTask,
  type UpscaleType,
} from './task-model.ts';
import { useMidjourneyTask } from './use-task.ts';
import { failureMessage, taskPhase } from '../tasks/task-rules.ts';
import { PromptBox } from './components/prompt-box.tsx';
import { UploadImage } from './components/upload-image.tsx';
import { ResultGrid, ResultSingle, TaskProgress } from './components/task-result.tsx';
import { TaskFailed } from '../../components/task-failed.tsx';
import { TaskActions } from './components/task-actions.tsx';

const SEED_NOT_READY = 'The seed is not ready yet, please try again in a moment.';
/** /fetch is asked again this many times while the seed task is still running. */
const SEED_FETCH_ATTEMPTS = 5;

export type MidjourneyToolProps = {
  gateway: MidjourneyGateway;
  /** Runtime config mode ('embedded' shows http upload URLs). */
  mode: string;
  notifyError: (message: string) => void;
  seedDelayMs?: number;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Spec §2 Midjourney tool: prompt, upload, Imagine, live progress, results and their actions. */
export function MidjourneyTool({ gateway, mode, notifyError, seedDelayMs = SEED_FETCH_DELAY_MS }: MidjourneyToolProps) {
  const [searchParams, setSearchParams] = useSearchParams();
  const taskId = searchParams.get('taskId');
  const [prompt, setPrompt] = useState('');
  const [promptError, setPromptError] = useState<string | null>(null);
  const [busyKey, setBusyKey] = useState<string | null>(null);
  const [revealedSeed, setRevealedSeed] = useState<{ taskId: string; seed: string } | null>(null);

  const showTask = (id: string | null) =>
    setSearchParams((prev) => {
      const next = new URLSearchParams(prev);
      if (id) next.set('taskId', id);
      else next.delete('taskId');
      return next;
    });

  const { state, patchTask } = useMidjourneyTask(taskId, { gateway, notifyError, onForeignTask: () => showTask(null) });
  const creating = busyKey !== null && /^(imagine|reroll|upscale|variation)/.test(busyKey);

  /** Runs one call at a time per kind; API errors were already toasted by the API client. */
  async function run(key: string, call: () => Promise<void>) {
    setBusyKey(key);
    try {
      await call();
    } catch {
      // Shown by whoever raised it (API client toast, or the call's own notifyError).
    } finally {
      setBusyKey((current) => (current === key ? null : current));
    }
  }

  function createTask(key: string, call: () => Promise<string>) {
    if (creating) return;
    void run(key, async () => showTask(await call()));
  }

  function imagine() {
    const error = validatePrompt(prompt);
    setPromptError(error);
    if (error || creating) return;
    createTask('imagine', () => gateway.imagine(prompt.trim()));
  }

  async function getSeed(task: MidjourneyTask) {
    const known = seedText(task.seed);
    if (known) {
      setRevealedSeed({ taskId: task.id, seed: known });
      return;
    }
    const seedTaskId = await gateway.requestSeed(task.id);
    for (let attempt = 0; attempt < SEED_FETCH_ATTEMPTS; attempt++) {
      await sleep(seedDelayMs);
      const answer = await gateway.fetchTask(seedTaskId);
      const seed = seedText(answer.seed);
      if (seed) {
        patchTask(task.id, { seed });
        setRevealedSeed({ taskId: task.id, seed });
        return;
      }
      if (answer.status === 'failed') break;
    }
    notifyError(SEED_NOT_READY);
  }

  async function toggleFavorite(task: MidjourneyTask) {
    try {
      const favorite = await gateway.toggleFavorite(task.id);
      patchTask(task.id, { favorite: favorite ?? !task.favorite });
    } catch {
      notifyError(DEFAULT_API_ERROR);
    }
  }

  async function download(task: MidjourneyTask) {
    const url = primaryImage(task);
    try {
      if (!url) throw new Error('no image');
      const blob = await gateway.fetchImage(url);
      saveBlob(blob, downloadFileName(task.id, blob.type));
    } catch {
      notifyError(ERROR_DOWNLOADING_IMAGE);
    }
  }

  return (
    <Stack gap="6" maxW="3xl" w="full" data-testid="screen-midjourney">
      <Stack gap="1">
        <Heading as="h1" size="xl">
          Midjourney
        </Heading>
        <Text color="fg.muted">Describe a picture, imagine four takes, then upscale or vary the one you like.</Text>
      </Stack>

      <Card.Root variant="outline">
        <Card.Body>
          <PromptBox
            value={prompt}
            onChange={(value) => {
              setPrompt(value);
              if (promptError && !validatePrompt(value)) setPromptError(null);
            }}
            onSubmit={imagine}
            error={promptError}
            busy={busyKey === 'imagine'}
            disabled={!gateway.ready || creating}
            uploadSlot={
              <UploadImage
                upload={gateway.upload}
                mode={mode}
                disabled={!gateway.ready}
                notifyError={notifyError}
                onUseInPrompt={(url) => setPrompt((p) => promptWithImage(p, url))}
              />
            }
          />
        </Card.Body>
      </Card.Root>

      <Box as="section" aria-label="Result" aria-live="polite" aria-busy={state.status === 'loading'}>
        {state.status === 'idle' && (
          <EmptyState.Root borderWidth="1px" borderStyle="dashed" rounded="l3" data-testid="result-empty">
            <EmptyState.Content>
              <EmptyState.Title>No pictures yet</EmptyState.Title>
              <EmptyState.Description>Write a prompt and press Imagine: four pictures appear here.</EmptyState.Description>
            </EmptyState.Content>
          </EmptyState.Root>
        )}
        {state.status === 'loading' && (
          <Stack gap="3" data-testid="result-loading">
            <Skeleton h="6" w="48" />
            <Skeleton aspectRatio="1" w="full" rounded="l3" />
          </Stack>
        )}
        {state.status === 'error' && (
          <EmptyState.Root borderWidth="1px" rounded="l3" data-testid="result-error">
            <EmptyState.Content>
              <EmptyState.Title>This task could not be loaded</EmptyState.Title>
              <EmptyState.Description>Check the link, or start a new one above.</EmptyState.Description>
            </EmptyState.Content>
          </EmptyState.Root>
        )}
        {state.status === 'ready' && (
          <TaskView
            task={state.task}
            archived={state.archived}
            busyKey={busyKey}
            creating={creating}
            seed={revealedSeed?.taskId === state.task.id ? revealedSeed.seed : null}
            onUpscale={(index) => createTask(`upscale-${index}`, () => gateway.upscale(state.task.id, index))}
            onFurtherUpscale={(type) => createTask(`upscale-${type}`, () => gateway.upscale(state.task.id, 1, type))}
            onVariation={(index) => createTask(`variation-${index}`, () => gateway.variation(state.task.id, index))}
            onReroll={() => createTask('reroll', () => gateway.reroll(state.task.id))}
            onSeed={() => void run('seed', () => getSeed(state.task))}
            onFavorite={() => void run('favorite', () => toggleFavorite(state.task))}
            onDownload={() => void run('download', () => download(state.task))}
          />
        )}
      </Box>
    </Stack>
  );
}

type TaskViewProps = {
  task: MidjourneyTask;
  archived: boolean;
  busyKey: string | null;
  creating: boolean;
  seed: string | null;
  onUpscale: (index: number) => void;
  onFurtherUpscale: (type: UpscaleType) => void;
  onVariation: (index: number) => void;
  onReroll: () => void;
  onSeed: () => void;
  onFavorite: () => void;
  onDownload: () => void;
};

function TaskView({
  task,
  archived,
  busyKey,
  creating,
  seed,
  onUpscale,
  onFurtherUpscale,
  onVariation,
  onReroll,
  onSeed,
  onFavorite,
  onDownload,
}: TaskViewProps) {
  const phase = taskPhase(task.status);
  const layout = resultLayout(task.type);
  const actions = availableActions(task, archived);
  return (
    <Stack gap="4" data-testid="task-view" data-task-id={task.id} data-task-type={task.type} data-task-status={task.status}>
      <HStack gap="2" wrap="wrap">
        <Badge variant="surface" colorPalette="brand">
          {task.type}
        </Badge>
        <Badge variant="outline" colorPalette={phase === 'failed' ? 'red' : phase === 'done' ? 'green' : 'gray'}>
          {task.status}
        </Badge>
        {archived && <Badge variant="outline">archived</Badge>}
        {task.prompt && (
          <Text textStyle="sm" color="fg.muted" lineClamp={2} flex="1" minW="0" title={task.prompt}>
            {task.prompt}
          </Text>
        )}
      </HStack>
      {phase === 'active' && <TaskProgress task={task} />}
      {phase === 'failed' && <TaskFailed message={failureMessage(task)} refund={task.refund} />}
      {phase === 'done' && layout === 'grid' && (
        <ResultGrid task={task} withActions={actions.cellActions} busyKey={busyKey} disabled={creating} onUpscale={onUpscale} onVariation={onVariation} />
      )}
      {phase === 'done' && layout === 'single' && (
        <ResultSingle task={task} withUpscales={actions.furtherUpscales} busyKey={busyKey} disabled={creating} onUpscale={onFurtherUpscale} />
      )}
      {phase === 'done' && layout === 'none' && seedText(task.seed) && (
        <Text data-testid="task-seed">
          Seed: <code>{seedText(task.seed)}</code>
        </Text>
      )}
      {phase === 'done' && (
        <TaskActions
          actions={actions}
          favorite={!!task.favorite}
          seed={seed}
          busyKey={busyKey}
          creating={creating}
          onSeed={onSeed}
          onReroll={onReroll}
          onFavorite={onFavorite}
          onDownload={onDownload}
        />
      )}
    </Stack>
  );
}
