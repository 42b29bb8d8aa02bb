import { type RefObject, useEffect, useRef, useState } from 'react';
import { useSearchParams } from '@aim/shared-kit/router';
import { saveBlob } from '@aim/shared-kit/download';
import { SEED_FETCH_DELAY_MS } from '@aim/shared-kit/domain';
import { DEFAULT_API_ERROR } from '@aim/shared-kit/api';
import { type ActionKey, newActionKey } from '../tasks/create-call.ts';
import type { MidjourneyGateway } from './gateway.ts';
import { promptWithImage, validatePrompt } from './prompt-rules.ts';
import {
  type BlendDimension,
  type CellUpscaleType,
  type CustomZoom,
  downloadFileName,
  EMPTY_SHORTEN_MESSAGE,
  ERROR_DOWNLOADING_IMAGE,
  type MidjourneyTask,
  type PanDirection,
  primaryImage,
  seedText,
  type UpscaleType,
  type VaryType,
} from './task-model.ts';
import { useMidjourneyTask } from './use-task.ts';

const SEED_NOT_READY = 'The seed is not ready yet, please try again in a moment.';
/** /fetch is asked again this many times while the seed task is still running. */
const SEED_FETCH_ATTEMPTS = 5;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Busy keys of the calls that create a task: while one runs, no other starts. */
const TASK_KEY = /^(imagine|reroll|upscale|variation|vary|pan|zoom|region|describe|blend|shorten)/;

export type StartTab = 'imagine' | 'describe' | 'blend';
export type EditDialog = 'region' | 'zoom' | null;

type Options = {
  gateway: MidjourneyGateway;
  notifyError: (message: string) => void;
  seedDelayMs?: number;
};

/**
 * The Midjourney tool's state and calls: the prompt, the start tab and the edit dialog, the task
 * named by ?taskId= (read and followed live), and every action on it. Each action that makes a
 * task is one user action with its own Idempotency-Key, and pushes the new id into the URL.
 */
export function useMidjourneyTool({ gateway, notifyError, seedDelayMs = SEED_FETCH_DELAY_MS }: Options) {
  const [searchParams, setSearchParams] = useSearchParams();
  const taskId = searchParams.get('taskId');
  const [prompt, setPrompt] = useState('');
  const [promptError, setPromptError] = useState<string | null>(null);
  const [busyKey, setBusyKey] = useState<string | null>(null);
  const [revealedSeed, setRevealedSeed] = useState<{ taskId: string; seed: string } | null>(null);
  const [tab, setTab] = useState<StartTab>('imagine');
  const [dialog, setDialog] = useState<EditDialog>(null);
  const promptInput = useRef<HTMLTextAreaElement>(null);
  const promptFocus = usePromptFocus(promptInput);

  const showTask = (id: string | null) =>
    setSearchParams((prev) => {
      const next = new URLSearchParams(prev);
      if (id) next.set('taskId', id);
      else next.delete('taskId');
      return next;
    });

  const { state, patchTask } = useMidjourneyTask(taskId, { gateway, notifyError, onForeignTask: () => showTask(null) });
  const creating = busyKey !== null && TASK_KEY.test(busyKey);
  const task = state.status === 'ready' ? state.task : null;

  /**
   * Runs one call at a time per kind; API errors were already shown by the gateway (errors[0].msg,
   * else the spec's default). True when the call succeeded.
   */
  async function run(key: string, call: () => Promise<void>): Promise<boolean> {
    setBusyKey(key);
    try {
      await call();
      return true;
    } catch {
      // Shown by whoever raised it (the gateway's toast, or the call's own notifyError).
      return false;
    } finally {
      setBusyKey((current) => (current === key ? null : current));
    }
  }

  /** One click on an action that makes a task (spec §4): a new Idempotency-Key, then the new id into the URL. */
  function createTask(busy: string, call: (key: ActionKey) => Promise<string>): Promise<boolean> {
    if (creating) return Promise.resolve(false);
    const key = newActionKey();
    return run(busy, async () => showTask(await call(key)));
  }

  function imagine() {
    const error = validatePrompt(prompt);
    setPromptError(error);
    if (error || creating) return;
    void createTask('imagine', (key) => gateway.imagine(prompt.trim(), key));
  }

  function shorten() {
    const error = validatePrompt(prompt, EMPTY_SHORTEN_MESSAGE);
    setPromptError(error);
    if (error || creating) return;
    void createTask('shorten', (key) => gateway.shorten(prompt.trim(), key));
  }

  function changePrompt(value: string) {
    setPrompt(value);
    if (promptError && !validatePrompt(value)) setPromptError(null);
  }

  function choosePrompt(text: string) {
    setPrompt(text);
    setPromptError(null);
    setTab('imagine');
    promptFocus();
  }

  const describe = (file: File) => createTask('describe', async (key) => gateway.describe(await gateway.upload(file), key));

  const blend = (files: File[], dimension: BlendDimension) =>
    createTask('blend', async (key) => gateway.blend(await Promise.all(files.map((file) => gateway.upload(file))), dimension, key));

  /** An edit made in a dialog closes it once its task exists; a refused one leaves it open. */
  const createFromDialog = (busy: string, call: (key: ActionKey) => Promise<string>) => void createTask(busy, call).then((ok) => ok && setDialog(null));

  async function getSeed(of: MidjourneyTask) {
    const known = seedText(of.seed);
    if (known) {
      setRevealedSeed({ taskId: of.id, seed: known });
      return;
    }
    const seedTaskId = await gateway.requestSeed(of.id, newActionKey());
    for (let attempt = 0; attempt < SEED_FETCH_ATTEMPTS; attempt++) {
      await sleep(seedDelayMs);
      const answer = await gateway.fetchTask(seedTaskId);
      const seed = seedText(answer.seed);
      if (seed) {
        patchTask(of.id, { seed });
        setRevealedSeed({ taskId: of.id, seed });
        return;
      }
      if (answer.status === 'failed') break;
    }
    notifyError(SEED_NOT_READY);
  }

  async function toggleFavorite(of: MidjourneyTask) {
    try {
      const favorite = await gateway.toggleFavorite(of.id);
      patchTask(of.id, { favorite: favorite ?? !of.favorite });
    } catch {
      notifyError(DEFAULT_API_ERROR);
    }
  }

  async function download(of: MidjourneyTask) {
    const url = primaryImage(of);
    try {
      if (!url) throw new Error('no image');
      const blob = await gateway.fetchImage(url);
      saveBlob(blob, downloadFileName(of.id, blob.type));
    } catch {
      notifyError(ERROR_DOWNLOADING_IMAGE);
    }
  }

  /** What can be done with the task on screen (each a click; meaningless while none is shown). */
  const id = task?.id ?? '';
  const taskActions = {
    upscale: (index: number, type: CellUpscaleType) => void createTask(`upscale-${index}-${type}`, (key) => gateway.upscale(id, index, type, key)),
    furtherUpscale: (type: UpscaleType) => void createTask(`upscale-${type}`, (key) => gateway.upscale(id, 1, type, key)),
    variation: (index: number) => void createTask(`variation-${index}`, (key) => gateway.variation(id, index, key)),
    varyCell: (index: number, type: VaryType) => void createTask(`vary-${index}-${type}`, (key) => gateway.varyCell(id, index, type, key)),
    varyImage: (type: VaryType) => void createTask(`vary-${type}`, (key) => gateway.varyImage(id, type, key)),
    pan: (direction: PanDirection) => void createTask(`pan-${direction}`, (key) => gateway.pan(id, direction, key)),
    zoomOut: (ratio: number) => void createTask(`zoom-${ratio}`, (key) => gateway.zoomOut(id, ratio, key)),
    reroll: () => void createTask('reroll', (key) => gateway.reroll(id, key)),
    seed: () => void (task && run('seed', () => getSeed(task))),
    favorite: () => void (task && run('favorite', () => toggleFavorite(task))),
    download: () => void (task && run('download', () => download(task))),
    cancel: () => gateway.cancel(id),
    varyRegion: (mask: string, regionPrompt: string) => createFromDialog('region', (key) => gateway.varyRegion(id, mask, regionPrompt, key)),
    customZoom: (ratio: number, custom: CustomZoom) => createFromDialog('zoom-custom', (key) => gateway.zoomOut(id, ratio, key, custom)),
  };

  return {
    state,
    prompt,
    promptError,
    promptInput,
    changePrompt,
    addImageToPrompt: (url: string) => setPrompt((p) => promptWithImage(p, url)),
    choosePrompt,
    imagine,
    shorten,
    describe,
    blend,
    tab,
    setTab,
    dialog,
    setDialog,
    busyKey,
    creating,
    seed: task && revealedSeed?.taskId === task.id ? revealedSeed.seed : null,
    taskActions,
  };
}

/**
 * "Use this prompt" switches to the Imagine tab. Its panel is still hidden when the effect runs
 * (the tabs show it a frame later), and a hidden box cannot take focus: try each frame.
 */
function usePromptFocus(promptInput: RefObject<HTMLTextAreaElement | null>) {
  const [promptFocus, setPromptFocus] = useState(0);
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
  }, [promptFocus, promptInput]);
  return () => setPromptFocus((n) => n + 1);
}
