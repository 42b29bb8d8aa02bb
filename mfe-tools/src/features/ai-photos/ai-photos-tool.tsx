import { type ReactNode, useCallback, useEffect, useRef, useState } from 'react';
import { useSearchParams } from '@aim/shared-kit/router';
import { Alert, Button, Card, Grid, Heading, HStack, Skeleton, Stack, Text } from '@aim/shared-kit/ui';
import { AI_PHOTO } from '@aim/shared-kit/domain';
import { saveBlob } from '@aim/shared-kit/download';
import { CancelTaskButton } from '../../components/cancel-task-button.tsx';
import { TaskFailed } from '../../components/task-failed.tsx';
import { TaskProgressBar } from '../../components/task-progress-bar.tsx';
import { type TaskPhase, taskPhase, uploadFailureDetail } from '../tasks/task-rules.ts';
import { useLiveTask } from '../tasks/use-live-task.ts';
import {
  type AiPhotoTask,
  DEFAULT_ASPECT_RATIO,
  ERROR_DOWNLOADING_IMAGE,
  ERROR_GENERATING,
  ERROR_PREPARING_TRAINING_DATA,
  ERROR_TRAINING,
  GENERATE_TYPE,
  isAiPhotoTask,
  NOT_AI_PHOTO_TASK,
  photoFileName,
  photoCheck,
  photoSize,
  photoSlots,
  randomSeed,
  resultNote,
  TRAIN_TYPE,
  trainingIdOf,
  UPLOAD_TYPE,
  uploadIdOf,
  withLiveTask,
  type WizardView,
  wizardView,
} from './ai-photos-rules.ts';
import type { AiPhotosGateway } from './gateway.ts';
import { useAiPhotoTasks } from './use-ai-photo-tasks.ts';
import { shrinkPhoto } from './photo-files.ts';
import { usePhotoSelection } from './use-photo-selection.ts';
import { useTrainingUpload } from './use-training-upload.ts';
import { type GenerateSettings, GenerateForm, PhotoResults } from './components/generate-step.tsx';
import { EMPTY_SUBJECT, PrepareStep, type Subject } from './components/prepare-step.tsx';
import { TaskList } from './components/task-list.tsx';
import { PhotoVerdicts, TrainForm, TriggerWord } from './components/train-step.tsx';
import { WizardSteps } from './components/wizard-steps.tsx';

export type AiPhotosToolProps = {
  gateway: AiPhotosGateway;
  notifyError: (message: string) => void;
  /** The seed source of Generate (tests pin it). */
  random?: () => number;
  /** The bytes sent for a chosen photo (default: scaled down when large; tests pass their own). */
  preparePhoto?: (file: File, size: { width: number; height: number } | null) => Promise<Blob>;
};

/** What a task that fails while the screen follows it says (spec §8), by its type. */
const FAILURE_TOAST: Record<string, string> = { [UPLOAD_TYPE]: ERROR_PREPARING_TRAINING_DATA, [TRAIN_TYPE]: ERROR_TRAINING, [GENERATE_TYPE]: ERROR_GENERATING };

type CallKind = 'train' | 'generate';

/**
 * Spec §2 AI Photos: the three-step wizard (Prepare, Train, Generate) beside the list of trained
 * models and tasks. The step follows the task named by ?taskId= (spec §4): an upload being checked
 * or failed is step 1, a finished upload offers the trigger word (step 2), a training runs in
 * step 2, a finished training or a generation is step 3. Each new task's id goes into the URL.
 */
export function AiPhotosTool({ gateway, notifyError, random, preparePhoto = shrinkPhoto }: AiPhotosToolProps) {
  const [searchParams, setSearchParams] = useSearchParams();
  const taskId = searchParams.get('taskId');
  const [subject, setSubject] = useState<Subject>(EMPTY_SUBJECT);
  const [settings, setSettings] = useState<GenerateSettings>({ prompt: '', aspectRatio: DEFAULT_ASPECT_RATIO });
  const [busy, setBusy] = useState<CallKind | null>(null);
  const [callError, setCallError] = useState<{ kind: CallKind; message: string | null } | null>(null);
  const [downloading, setDownloading] = useState<number | null>(null);
  // Bumped when the user moves to another task (or leaves): a Train or Generate answering after it is dropped.
  const calls = useRef(0);
  // The file names of uploads made here, to name the photos the check refused.
  const uploadNames = useRef(new Map<string, string[]>());
  // The upload made here whose photos stay selected until its check has finished.
  const ownUpload = useRef<string | null>(null);

  const showTask = useCallback(
    (id: string | null, replace = false) =>
      setSearchParams(
        (prev) => {
          const next = new URLSearchParams(prev);
          if (id) next.set('taskId', id);
          else next.delete('taskId');
          return next;
        },
        { replace },
      ),
    [setSearchParams],
  );

  const selection = usePhotoSelection();
  const list = useAiPhotoTasks({ listTasks: gateway.listTasks, enabled: gateway.ready, notifyError });
  const { reload: reloadList } = list;
  const upload = useTrainingUpload({
    uploadPhotos: gateway.uploadPhotos,
    preparePhoto,
    notifyError,
    onUploaded: (id, names) => {
      uploadNames.current.set(id, names);
      ownUpload.current = id;
      showTask(id);
      void reloadList();
    },
  });
  const { state } = useLiveTask<AiPhotoTask>(taskId, {
    source: gateway,
    enabled: gateway.ready,
    accepts: isAiPhotoTask,
    foreignMessage: NOT_AI_PHOTO_TASK,
    notifyError,
    onForeignTask: () => showTask(null, true),
  });

  const view = wizardView(taskId, state);
  const task = state.status === 'ready' && state.task.id === taskId ? state.task : null;

  // A task followed live that ends: the list shows its new state, a failure says the spec's text,
  // and a finished check of photos chosen here lets them go.
  const lastPhase = useRef<{ id: string; phase: TaskPhase } | null>(null);
  const { clear: clearSelection } = selection;
  useEffect(() => {
    if (!task) return;
    const phase = taskPhase(task.status);
    const before = lastPhase.current;
    lastPhase.current = { id: task.id, phase };
    if (before?.id !== task.id || before.phase !== 'active' || phase === 'active') return;
    void reloadList();
    if (phase === 'failed' && FAILURE_TOAST[task.type]) notifyError(FAILURE_TOAST[task.type]!);
    if (phase === 'done' && task.id === ownUpload.current) {
      ownUpload.current = null;
      clearSelection();
    }
  }, [task, reloadList, notifyError, clearSelection]);

  const { cancel: cancelUpload } = upload;
  useEffect(
    () => () => {
      calls.current++;
      cancelUpload();
    },
    [cancelUpload],
  );

  /** The user opens another task (the list, Start over): calls still running for the old one are forgotten. */
  function openTask(id: string | null) {
    calls.current++;
    setBusy(null);
    setCallError(null);
    showTask(id);
  }

  async function call(kind: CallKind, request: () => Promise<string>, failure: string) {
    const mine = ++calls.current;
    setBusy(kind);
    setCallError(null);
    try {
      const id = await request();
      if (mine !== calls.current) return;
      showTask(id);
      void reloadList();
    } catch (err) {
      if (mine !== calls.current) return;
      notifyError(failure);
      setCallError({ kind, message: uploadFailureDetail(err) });
    } finally {
      if (mine === calls.current) setBusy(null);
    }
  }

  function train(uploadId: string, triggerWord: string) {
    void call('train', () => gateway.train(uploadId, triggerWord), ERROR_TRAINING);
  }

  function generate(trainingId: string) {
    const { prompt, aspectRatio } = settings;
    void call(
      'generate',
      () =>
        gateway.generate({
          trainingId,
          prompt: prompt.trim(),
          aspectRatio,
          ...photoSize(aspectRatio),
          numberOfImages: AI_PHOTO.generatedImages,
          seed: randomSeed(random),
        }),
      ERROR_GENERATING,
    );
  }

  async function download(index: number, url: string) {
    if (!task) return;
    setDownloading(index);
    try {
      const blob = await gateway.fetchImage(url);
      saveBlob(blob, photoFileName(task.id, index, blob.type, url));
    } catch {
      notifyError(ERROR_DOWNLOADING_IMAGE);
    } finally {
      setDownloading(null);
    }
  }

  // Moving between steps puts focus on the step's heading (not on the first render).
  const headingRef = useRef<HTMLHeadingElement>(null);
  const panelKey = `${view.kind}:${view.step}`;
  const shownPanel = useRef(panelKey);
  useEffect(() => {
    if (shownPanel.current === panelKey) return;
    shownPanel.current = panelKey;
    headingRef.current?.focus();
  }, [panelKey]);

  const listItems = list.state.status === 'ready' ? list.state.items : [];
  const listState = list.state.status === 'ready' ? { ...list.state, items: withLiveTask(list.state.items, task) } : list.state;
  const triggerWordOf = (trainingId: string | null) =>
    (trainingId && listItems.find((i) => i.id === trainingId)?.trigger_word) || (task?.type === TRAIN_TYPE ? task.input_data?.trigger_word : null);
  const callErrorOf = (kind: CallKind) => (callError?.kind === kind ? callError.message : null);

  const prepare = (
    <PrepareStep
      selection={selection}
      subject={subject}
      onSubject={setSubject}
      progress={upload.progress}
      error={upload.error}
      ready={gateway.ready}
      onUpload={(photos, s) => void upload.start(photos, s)}
    />
  );
  const generateForm = (trainingId: string | null, isRunning: boolean) =>
    trainingId ? (
      <GenerateForm
        settings={settings}
        onSettings={setSettings}
        error={callErrorOf('generate')}
        busy={busy === 'generate'}
        isRunning={isRunning}
        ready={gateway.ready}
        onGenerate={() => generate(trainingId)}
      />
    ) : null;

  function panelBody(): ReactNode {
    switch (view.kind) {
      case 'prepare':
        return prepare;
      case 'loading':
        return (
          <Stack gap="3" data-testid="wizard-loading" aria-busy="true">
            <Skeleton h="6" w="60%" />
            <Skeleton h="24" />
          </Stack>
        );
      case 'error':
        return (
          <Stack gap="1" data-testid="wizard-error">
            <Text>This task could not be loaded.</Text>
            <Text textStyle="sm" color="fg.muted">
              Check the link, open a task from the list, or start a new model.
            </Text>
          </Stack>
        );
      case 'running':
        return (
          <Stack gap="4">
            {view.step === 1 && <TriggerWord word={view.task.input_data?.trigger_word} />}
            {view.step === 2 && generateForm(trainingIdOf(view.task), true)}
            <TaskProgressBar status={view.task.status} percentage={view.task.percentage} taskId={view.task.id} />
            <CancelTaskButton key={view.task.id} onCancel={() => gateway.cancel(view.task.id)} />
            {view.step === 0 && (
              <Text textStyle="sm" color="fg.muted">
                Each photo is checked for one clear face of the same person. You can leave this page: the upload stays in the list.
              </Text>
            )}
            {view.step === 1 && (
              <Text textStyle="sm" color="fg.muted">
                Training can take a while. You can leave this page: the model appears in the list when it is ready.
              </Text>
            )}
            {view.step === 2 && (
              <PhotoResults
                taskId={view.task.id}
                slots={photoSlots(view.task)}
                aspectRatio={view.task.input_data?.aspect_ratio ?? settings.aspectRatio}
                note={resultNote(view.task)}
                prompt={view.task.prompt}
                downloading={downloading}
                onDownload={(i, url) => void download(i, url)}
              />
            )}
          </Stack>
        );
      case 'failed': {
        const uploadId = view.step === 1 ? uploadIdOf(view.task) : null;
        return (
          <Stack gap="5">
            <TaskFailed message={view.message} refund={view.task.refund} />
            {view.step === 0 && prepare}
            {uploadId && (
              <HStack>
                <Button variant="outline" onClick={() => openTask(uploadId)}>
                  Train again
                </Button>
              </HStack>
            )}
            {view.step === 2 && generateForm(trainingIdOf(view.task), false)}
          </Stack>
        );
      }
      case 'train':
        return (
          <Stack gap="5">
            <PhotoVerdicts check={photoCheck(view.upload, uploadNames.current.get(view.upload.id))} note={resultNote(view.upload)} />
            <TrainForm error={callErrorOf('train')} busy={busy === 'train'} ready={gateway.ready} onTrain={(word) => train(view.upload.id, word)} />
          </Stack>
        );
      case 'generate':
        return (
          <Stack gap="5">
            <TriggerWord word={triggerWordOf(view.trainingId)} />
            <EngineNote note={resultNote(view.task)} testId="training-note" />
            {generateForm(view.trainingId, false)}
            <Text textStyle="sm" color="fg.muted" data-testid="photos-empty">
              {`Your ${AI_PHOTO.generatedImages} photos will appear here.`}
            </Text>
          </Stack>
        );
      case 'photos':
        return (
          <Stack gap="5">
            <TriggerWord word={triggerWordOf(view.trainingId)} />
            {generateForm(view.trainingId, false)}
            <PhotoResults
              taskId={view.task.id}
              slots={photoSlots(view.task)}
              aspectRatio={view.task.input_data?.aspect_ratio ?? settings.aspectRatio}
              note={resultNote(view.task)}
              prompt={view.task.prompt}
              downloading={downloading}
              onDownload={(i, url) => void download(i, url)}
            />
          </Stack>
        );
    }
  }

  const { title, description } = panelText(view);
  return (
    <Stack gap="6" w="full" maxW="7xl" data-testid="screen-ai-photos">
      <HStack justify="space-between" align="start" gap="4" wrap="wrap">
        <Stack gap="1">
          <Heading as="h1" size="xl">
            AI Photos
          </Heading>
          <Text color="fg.muted">{`Train a model on ${AI_PHOTO.minImages}–${AI_PHOTO.maxImages} photos of one person, then generate new photos of them.`}</Text>
        </Stack>
        {view.kind !== 'prepare' && (
          <Button variant="outline" onClick={() => openTask(null)}>
            Start a new model
          </Button>
        )}
      </HStack>

      <WizardSteps view={view} />

      <Grid templateColumns={{ base: 'minmax(0, 1fr)', lg: 'minmax(0, 1fr) 20rem' }} gap="6" alignItems="start">
        <Card.Root
          variant="outline"
          as="section"
          aria-labelledby="ai-photo-panel-title"
          data-testid="wizard-panel"
          data-view={view.kind}
          data-step={view.step ?? ''}
        >
          <Card.Header>
            <Card.Title as="h2" id="ai-photo-panel-title" textStyle="lg" ref={headingRef} tabIndex={-1} _focusVisible={{ outline: 'none' }}>
              {title}
            </Card.Title>
            <Card.Description>{description}</Card.Description>
          </Card.Header>
          <Card.Body
            aria-busy={view.kind === 'loading' || view.kind === 'running'}
            data-testid={task ? 'task-view' : undefined}
            data-task-id={task?.id}
            data-task-type={task?.type}
            data-task-status={task?.status}
          >
            {panelBody()}
          </Card.Body>
        </Card.Root>
        <TaskList state={listState} currentId={taskId} onOpen={openTask} onRetry={() => void reloadList()} />
      </Grid>
    </Stack>
  );
}

/** How the server says it made a result (result.note), e.g. that a local training is a face-analysis profile. */
function EngineNote({ note, testId }: { note: string | null; testId: string }) {
  if (!note) return null;
  return (
    <Alert.Root status="info" size="sm" data-testid={testId}>
      <Alert.Indicator />
      <Alert.Description>{note}</Alert.Description>
    </Alert.Root>
  );
}

const RUNNING: Record<number, { title: string; description: string }> = {
  0: { title: 'Checking your photos', description: 'Step 1: the upload is being checked and prepared for training.' },
  1: { title: 'Training your model', description: 'Step 2: your model learns the person in your photos.' },
  2: { title: 'Generating your photos', description: 'Step 3: the photos appear here as they are made.' },
};
const FAILED: Record<number, string> = { 0: 'The photo check failed', 1: 'The training failed', 2: 'The generation failed' };

function panelText(view: WizardView): { title: string; description: string } {
  switch (view.kind) {
    case 'prepare':
      return {
        title: 'Prepare your photos',
        description: `Step 1: choose ${AI_PHOTO.minImages}–${AI_PHOTO.maxImages} photos of the same person and tell us who they show.`,
      };
    case 'loading':
      return { title: 'Loading the task...', description: 'Reading the task from the link.' };
    case 'error':
      return { title: 'Task not found', description: 'The task in the link could not be read.' };
    case 'running':
      return RUNNING[view.step]!;
    case 'failed':
      return {
        title: FAILED[view.step]!,
        description: view.step === 0 ? 'What went wrong is below; choose your photos to try again.' : 'What went wrong is below.',
      };
    case 'train':
      return { title: 'Train your model', description: 'Step 2: choose a trigger word, then train a model on these photos.' };
    case 'generate':
      return { title: 'Generate photos', description: `Step 3: describe the photos you want; each Generate makes ${AI_PHOTO.generatedImages}.` };
    case 'photos':
      return { title: 'Your AI photos', description: 'Step 3: download the ones you like, or generate more from the same model.' };
  }
}
