import { useCallback, useEffect, useRef, useState } from 'react';
import { useSearchParams } from '@aim/shared-kit/router';
import { AI_PHOTO } from '@aim/shared-kit/domain';
import { saveBlob } from '@aim/shared-kit/download';
import { type ActionKey, newActionKey } from '../tasks/create-call.ts';
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
  photoSize,
  randomSeed,
  TRAIN_TYPE,
  UPLOAD_TYPE,
  withLiveTask,
  wizardView,
} from './ai-photos-rules.ts';
import type { GenerateSettings } from './components/generate-step.tsx';
import { EMPTY_SUBJECT, type Subject } from './components/prepare-step.tsx';
import type { AiPhotosGateway } from './gateway.ts';
import { shrinkPhoto } from './photo-files.ts';
import { useAiPhotoTasks } from './use-ai-photo-tasks.ts';
import { usePhotoSelection } from './use-photo-selection.ts';
import { useTrainingUpload } from './use-training-upload.ts';

export type AiPhotosFlowOptions = {
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
 * The AI Photos wizard's state and calls: the task named by ?taskId= (read and followed live) and
 * the wizard view it gives, the side list, the upload of step 1, Train and Generate (each click
 * one Idempotency-Key), downloads, and focus on the step's heading when the step changes.
 */
export function useAiPhotosFlow({ gateway, notifyError, random, preparePhoto = shrinkPhoto }: AiPhotosFlowOptions) {
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

  /** One click of Train or Generate: one Idempotency-Key for it. */
  async function call(kind: CallKind, request: (key: ActionKey) => Promise<string>, failure: string) {
    const mine = ++calls.current;
    setBusy(kind);
    setCallError(null);
    try {
      const id = await request(newActionKey());
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
    void call('train', (key) => gateway.train(uploadId, triggerWord, key), ERROR_TRAINING);
  }

  function generate(trainingId: string) {
    const { prompt, aspectRatio } = settings;
    void call(
      'generate',
      (key) =>
        gateway.generate(
          {
            trainingId,
            prompt: prompt.trim(),
            aspectRatio,
            ...photoSize(aspectRatio),
            numberOfImages: AI_PHOTO.generatedImages,
            seed: randomSeed(random),
          },
          key,
        ),
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

  return {
    taskId,
    view,
    task,
    headingRef,
    selection,
    subject,
    setSubject,
    settings,
    setSettings,
    upload,
    busy,
    callErrorOf: (kind: CallKind) => (callError?.kind === kind ? callError.message : null),
    downloading,
    uploadNamesOf: (uploadId: string) => uploadNames.current.get(uploadId),
    triggerWordOf: (trainingId: string | null) =>
      (trainingId && listItems.find((i) => i.id === trainingId)?.trigger_word) || (task?.type === TRAIN_TYPE ? task.input_data?.trigger_word : null),
    listState,
    reloadList,
    openTask,
    train,
    generate,
    download: (index: number, url: string) => void download(index, url),
    cancel: (id: string) => gateway.cancel(id),
  };
}
