import { useEffect, useRef, useState } from 'react';
import { useSearchParams } from '@aim/shared-kit/router';
import { Badge, Box, Card, EmptyState, Grid, Heading, HStack, Skeleton, Stack, Tabs, Text } from '@aim/shared-kit/ui';
import { saveBlob } from '@aim/shared-kit/download';
import { SEED_FETCH_DELAY_MS } from '@aim/shared-kit/domain';
import { DEFAULT_API_ERROR } from '@aim/shared-kit/api';
import type { MidjourneyGateway } from './gateway.ts';
import { promptWithImage, validatePrompt } from './prompt-rules.ts';
import {
  availableActions,
  type BlendDimension,
  type CellUpscaleType,
  describedImage,
  downloadFileName,
  EMPTY_SHORTEN_MESSAGE,
  ERROR_DOWNLOADING_IMAGE,
  type MidjourneyTask,
  type PanDirection,
  primaryImage,
  promptChoices,
  recordedSize,
  resultLayout,
  seedText,
  type UpscaleType,
  type VaryType,
} from './task-model.ts';
import { useMidjourneyTask } from './use-task.ts';
import { failureMessage, taskPhase } from '../tasks/task-rules.ts';
import { PromptBox } from './components/prompt-box.tsx';
import { UploadImage } from './components/upload-image.tsx';
import { ResultGrid, ResultSingle, TaskProgress } from './components/task-result.tsx';
import { TaskFailed } from '../../components/task-failed.tsx';
import { TaskActions } from './components/task-actions.tsx';
import { ImageEdits } from './components/image-edits.tsx';
import { VaryRegionDialog } from './components/vary-region-dialog.tsx';
import { CustomZoomDialog } from './components/custom-zoom-dialog.tsx';
import { PromptChoices } from './components/prompt-choices.tsx';
import { DescribePanel } from './components/describe-panel.tsx';
import { BlendPanel } from './components/blend-panel.tsx';
import { TaskLineage } from './components/task-lineage.tsx';

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

/** Busy keys of the calls that create a task: while one runs, no other starts. */
const TASK_KEY = /^(imagine|reroll|upscale|variation|vary|pan|zoom|region|describe|blend|shorten)/;

type StartTab = 'imagine' | 'describe' | 'blend';
type EditDialog = 'region' | 'zoom' | null;

/** Spec §2 Midjourney tool: prompt, upload, Imagine, live progress, results and their actions. */
export function MidjourneyTool({ gateway, mode, notifyError, seedDelayMs = SEED_FETCH_DELAY_MS }: MidjourneyToolProps) {
  const [searchParams, setSearchParams] = useSearchParams();
  const taskId = searchParams.get('taskId');
  const [prompt, setPrompt] = useState('');
  const [promptError, setPromptError] = useState<string | null>(null);
  const [busyKey, setBusyKey] = useState<string | null>(null);
  const [revealedSeed, setRevealedSeed] = useState<{ taskId: string; seed: string } | null>(null);
  const [tab, setTab] = useState<StartTab>('imagine');
  const [dialog, setDialog] = useState<EditDialog>(null);
  const promptInput = useRef<HTMLTextAreaElement>(null);
  const [promptFocus, setPromptFocus] = useState(0);

  const showTask = (id: string | null) =>
    setSearchParams((prev) => {
      const next = new URLSearchParams(prev);
      if (id) next.set('taskId', id);
      else next.delete('taskId');
      return next;
    });

  const { state, patchTask } = useMidjourneyTask(taskId, { gateway, notifyError, onForeignTask: () => showTask(null) });
  const creating = busyKey !== null && TASK_KEY.test(busyKey);

  // "Use this prompt" switches to the Imagine tab. Its panel is still hidden when this effect
  // runs (the tabs show it a frame later), and a hidden box cannot take focus: try each frame.
  useEffect(() => {
    if (!promptFocus) return;
    let frame = 0;
    let tries = 0;
    const focus = () => {
      const box = promptInput.current;
      box?.focus();
      if (box && document.activeElement !== box && ++tries < 20) frame = requestAnimationFrame(focus);
    };
    focus();
    return () => cancelAnimationFrame(frame);
  }, [promptFocus]);

  /**
   * Runs one call at a time per kind; API errors were already toasted by the API client
   * (errors[0].msg, else the spec's default). True when the call succeeded.
   */
  async function run(key: string, call: () => Promise<void>): Promise<boolean> {
    setBusyKey(key);
    try {
      await call();
      return true;
    } catch {
      // Shown by whoever raised it (API client toast, or the call's own notifyError).
      return false;
    } finally {
      setBusyKey((current) => (current === key ? null : current));
    }
  }

  /** Every action that makes a task (spec §4) pushes its id into the URL; the screen then follows it live. */
  function createTask(key: string, call: () => Promise<string>): Promise<boolean> {
    if (creating) return Promise.resolve(false);
    return run(key, async () => showTask(await call()));
  }

  function imagine() {
    const error = validatePrompt(prompt);
    setPromptError(error);
    if (error || creating) return;
    void createTask('imagine', () => gateway.imagine(prompt.trim()));
  }

  function shorten() {
    const error = validatePrompt(prompt, EMPTY_SHORTEN_MESSAGE);
    setPromptError(error);
    if (error || creating) return;
    void createTask('shorten', () => gateway.shorten(prompt.trim()));
  }

  function usePrompt(text: string) {
    setPrompt(text);
    setPromptError(null);
    setTab('imagine');
    setPromptFocus((n) => n + 1);
  }

  const describe = (file: File) => createTask('describe', async () => gateway.describe(await gateway.upload(file)));

  const blend = (files: File[], dimension: BlendDimension) =>
    createTask('blend', async () => gateway.blend(await Promise.all(files.map((file) => gateway.upload(file))), dimension));

  /** An edit made in a dialog closes it once its task exists; a refused one leaves it open. */
  const createFromDialog = (key: string, call: () => Promise<string>) => void createTask(key, call).then((ok) => ok && setDialog(null));

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
    <Stack gap="6" maxW="6xl" w="full" data-testid="screen-midjourney">
      <Stack gap="1">
        <Heading as="h1" size="xl">
          Midjourney
        </Heading>
        <Text color="fg.muted">Describe a picture, imagine four takes, then upscale or vary the one you like.</Text>
      </Stack>

      <Card.Root variant="outline">
        <Card.Body pt="3">
          <Tabs.Root value={tab} onValueChange={(e) => setTab(e.value as StartTab)} variant="line" size="sm">
            <Tabs.List mb="4">
              <Tabs.Trigger value="imagine">Imagine</Tabs.Trigger>
              <Tabs.Trigger value="describe">Describe</Tabs.Trigger>
              <Tabs.Trigger value="blend">Blend</Tabs.Trigger>
            </Tabs.List>
            <Tabs.Content value="imagine" p="0">
              <PromptBox
                value={prompt}
                onChange={(value) => {
                  setPrompt(value);
                  if (promptError && !validatePrompt(value)) setPromptError(null);
                }}
                onSubmit={imagine}
                onShorten={shorten}
                error={promptError}
                busy={busyKey === 'imagine'}
                shortenBusy={busyKey === 'shorten'}
                disabled={!gateway.ready || creating}
                inputRef={promptInput}
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
            </Tabs.Content>
            <Tabs.Content value="describe" p="0">
              <DescribePanel busy={busyKey === 'describe'} disabled={!gateway.ready || creating} onDescribe={describe} />
            </Tabs.Content>
            <Tabs.Content value="blend" p="0">
              <BlendPanel busy={busyKey === 'blend'} disabled={!gateway.ready || creating} onBlend={blend} />
            </Tabs.Content>
          </Tabs.Root>
        </Card.Body>
      </Card.Root>

      <Grid templateColumns={{ base: 'minmax(0, 1fr)', lg: state.status === 'ready' ? 'minmax(0, 1fr) 16rem' : 'minmax(0, 1fr)' }} gap="4" alignItems="start">
        <Box as="section" aria-label="Result" aria-live="polite" aria-busy={state.status === 'loading'} minW="0">
          {state.status === 'idle' && (
            <EmptyState.Root borderWidth="1px" borderStyle="dashed" rounded="l3" data-testid="result-empty">
              <EmptyState.Content>
                <EmptyState.Title as="h2">No pictures yet</EmptyState.Title>
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
                <EmptyState.Title as="h2">This task could not be loaded</EmptyState.Title>
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
              onUpscale={(index, type) => void createTask(`upscale-${index}-${type}`, () => gateway.upscale(state.task.id, index, type))}
              onFurtherUpscale={(type) => void createTask(`upscale-${type}`, () => gateway.upscale(state.task.id, 1, type))}
              onVariation={(index) => void createTask(`variation-${index}`, () => gateway.variation(state.task.id, index))}
              onVaryCell={(index, type) => void createTask(`vary-${index}-${type}`, () => gateway.varyCell(state.task.id, index, type))}
              onVaryImage={(type) => void createTask(`vary-${type}`, () => gateway.varyImage(state.task.id, type))}
              onPan={(direction) => void createTask(`pan-${direction}`, () => gateway.pan(state.task.id, direction))}
              onZoomOut={(ratio) => void createTask(`zoom-${ratio}`, () => gateway.zoomOut(state.task.id, ratio))}
              onOpenDialog={setDialog}
              onUsePrompt={usePrompt}
              onReroll={() => void createTask('reroll', () => gateway.reroll(state.task.id))}
              onSeed={() => void run('seed', () => getSeed(state.task))}
              onFavorite={() => void run('favorite', () => toggleFavorite(state.task))}
              onDownload={() => void run('download', () => download(state.task))}
              onCancel={() => gateway.cancel(state.task.id)}
            />
          )}
          {state.status === 'ready' && primaryImage(state.task) && (
            <>
              <VaryRegionDialog
                open={dialog === 'region'}
                onClose={() => setDialog(null)}
                imageUrl={primaryImage(state.task)!}
                recordedSize={recordedSize(state.task)}
                initialPrompt={state.task.prompt ?? ''}
                busy={busyKey === 'region'}
                onSubmit={(mask, regionPrompt) => createFromDialog('region', () => gateway.varyRegion(state.task.id, mask, regionPrompt))}
              />
              <CustomZoomDialog
                open={dialog === 'zoom'}
                onClose={() => setDialog(null)}
                initialPrompt={state.task.prompt ?? ''}
                busy={busyKey === 'zoom-custom'}
                onSubmit={(ratio, custom) => createFromDialog('zoom-custom', () => gateway.zoomOut(state.task.id, ratio, custom))}
              />
            </>
          )}
        </Box>
        {state.status === 'ready' && <TaskLineage gateway={gateway} task={state.task} archived={state.archived} />}
      </Grid>
    </Stack>
  );
}

type TaskViewProps = {
  task: MidjourneyTask;
  archived: boolean;
  busyKey: string | null;
  creating: boolean;
  seed: string | null;
  onUpscale: (index: number, type: CellUpscaleType) => void;
  onFurtherUpscale: (type: UpscaleType) => void;
  onVariation: (index: number) => void;
  onVaryCell: (index: number, type: VaryType) => void;
  onVaryImage: (type: VaryType) => void;
  onPan: (direction: PanDirection) => void;
  onZoomOut: (ratio: number) => void;
  onOpenDialog: (dialog: EditDialog) => void;
  onUsePrompt: (prompt: string) => void;
  onReroll: () => void;
  onSeed: () => void;
  onFavorite: () => void;
  onDownload: () => void;
  onCancel: () => Promise<void>;
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
  onVaryCell,
  onVaryImage,
  onPan,
  onZoomOut,
  onOpenDialog,
  onUsePrompt,
  onReroll,
  onSeed,
  onFavorite,
  onDownload,
  onCancel,
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
      {phase === 'active' && <TaskProgress task={task} onCancel={archived ? undefined : onCancel} />}
      {phase === 'failed' && <TaskFailed message={failureMessage(task)} refund={task.refund} />}
      {phase === 'done' && layout === 'grid' && (
        <ResultGrid
          task={task}
          withActions={actions.cellActions}
          busyKey={busyKey}
          disabled={creating}
          onUpscale={onUpscale}
          onVariation={onVariation}
          onVary={onVaryCell}
        />
      )}
      {phase === 'done' && layout === 'single' && (
        <ResultSingle task={task}>
          {actions.imageEdits && (
            <ImageEdits
              withUpscales={actions.furtherUpscales}
              busyKey={busyKey}
              disabled={creating}
              onUpscale={onFurtherUpscale}
              onVary={onVaryImage}
              onVaryRegion={() => onOpenDialog('region')}
              onZoomOut={onZoomOut}
              onCustomZoom={() => onOpenDialog('zoom')}
              onPan={onPan}
            />
          )}
        </ResultSingle>
      )}
      {phase === 'done' && actions.promptChoices && (
        <PromptChoices
          title={task.type === 'describe' ? 'Prompts for this image' : 'Shorter prompts'}
          prompts={promptChoices(task)}
          imageUrl={task.type === 'describe' ? describedImage(task) : null}
          onUse={onUsePrompt}
        />
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
