import { useCallback, useEffect, useRef, useState } from 'react';
import { useSearchParams } from '@aim/shared-kit/router';
import { Button, Heading, HStack, SimpleGrid, Stack, Text } from '@aim/shared-kit/ui';
import { saveBlob } from '@aim/shared-kit/download';
import { newActionKey } from '../tasks/create-call.ts';
import { useLiveTask } from '../tasks/use-live-task.ts';
import type { FaceswapGateway } from './gateway.ts';
import {
  canGenerate,
  ERROR_DOWNLOADING_IMAGE,
  type FaceswapTask,
  IMAGE_ROLES,
  type ImageRole,
  isFaceswapTask,
  NOT_FACESWAP_TASK,
  resultFileName,
  resultView,
  shownPhase,
  taskInputs,
} from './faceswap-rules.ts';
import { useFaceImages } from './use-face-images.ts';
import { ImageDropBox } from './components/image-drop-box.tsx';
import { ResultBox } from './components/result-box.tsx';

export type FaceswapToolProps = {
  gateway: FaceswapGateway;
  notifyError: (message: string) => void;
};

const HINTS: Record<ImageRole, string> = {
  source: 'The face to use',
  target: 'The picture to put it in',
};

/** Spec §2 Faceswap: two upload boxes, the Result box, Generate, Clear All Data and Download Result. */
export function FaceswapTool({ gateway, notifyError }: FaceswapToolProps) {
  const [searchParams, setSearchParams] = useSearchParams();
  const taskId = searchParams.get('taskId');
  const [generating, setGenerating] = useState(false);
  const [downloading, setDownloading] = useState(false);
  // Bumped by Clear All Data: a Generate answering after it must not bring its task back.
  const run = useRef(0);

  /** Spec §2: the query string is rewritten to hold the task id once a task exists (and to drop it). */
  const setTaskId = useCallback(
    (id: string | null) =>
      setSearchParams(
        (prev) => {
          const next = new URLSearchParams(prev);
          if (id) next.set('taskId', id);
          else next.delete('taskId');
          return next;
        },
        { replace: true },
      ),
    [setSearchParams],
  );

  const images = useFaceImages({ upload: gateway.upload, notifyError });
  const { state } = useLiveTask<FaceswapTask>(taskId, {
    source: gateway,
    // Spec §2: the task is restored with a key present.
    enabled: gateway.ready,
    accepts: isFaceswapTask,
    foreignMessage: NOT_FACESWAP_TASK,
    notifyError,
    onForeignTask: () => setTaskId(null),
  });

  const task = state.status === 'ready' && state.task.id === taskId ? state.task : null;
  const view = resultView({ uploading: images.uploading, taskId, state });
  const phase = shownPhase(taskId, state);
  // The boxes wait while a swap is being asked for or runs; a finished one can be followed by a new pair.
  const locked = generating || phase === 'active' || phase === 'loading';
  const hasData = taskId !== null || generating || Object.values(images.slots).some((s) => s.preview || s.error || s.uploading);

  const { restore } = images;
  useEffect(() => {
    // A task opened from ?taskId= shows the pictures it was made from in the boxes left empty.
    if (task) restore(taskInputs(task));
  }, [task, restore]);

  function chooseFile(role: ImageRole, file: File) {
    if (locked) return;
    // A new picture starts a new pair: the result on screen belongs to the old one.
    if (images.choose(role, file) && taskId) setTaskId(null);
  }

  async function generate() {
    const { source, target } = images.slots;
    if (generating || !canGenerate(images.slots, gateway.ready) || !source.url || !target.url) return;
    const mine = ++run.current;
    setGenerating(true);
    try {
      const id = await gateway.faceswap(source.url, target.url, newActionKey());
      if (mine === run.current) setTaskId(id);
    } catch {
      // The gateway has already shown the server's message.
    } finally {
      if (mine === run.current) setGenerating(false);
    }
  }

  /** Spec §4: resets both images, the task and the task id; the live subscription goes with the id. */
  function clearAll() {
    run.current++;
    setGenerating(false);
    images.clear();
    setTaskId(null);
  }

  async function download() {
    if (!task?.image_url) return;
    setDownloading(true);
    try {
      const blob = await gateway.fetchImage(task.image_url);
      saveBlob(blob, resultFileName(task.id));
    } catch {
      notifyError(ERROR_DOWNLOADING_IMAGE);
    } finally {
      setDownloading(false);
    }
  }

  return (
    <Stack gap="6" w="full" maxW="6xl" data-testid="screen-faceswap">
      <Stack gap="1">
        <Heading as="h1" size="xl">
          Faceswap
        </Heading>
        <Text color="fg.muted">Put the face from the Source Image onto the person in the Target Image.</Text>
      </Stack>

      <SimpleGrid columns={{ base: 1, md: 3 }} gap="4">
        {IMAGE_ROLES.map((role) => (
          <ImageDropBox key={role} role={role} hint={HINTS[role]} slot={images.slots[role]} disabled={locked} onFile={(file) => chooseFile(role, file)} />
        ))}
        <ResultBox
          view={view}
          task={task}
          canGenerate={canGenerate(images.slots, gateway.ready)}
          generating={generating}
          onGenerate={() => void generate()}
          onCancel={task ? () => gateway.cancel(task.id) : undefined}
        />
      </SimpleGrid>

      <HStack gap="3" justify="flex-end" wrap="wrap">
        <Button variant="outline" disabled={!hasData} onClick={clearAll}>
          Clear All Data
        </Button>
        <Button
          colorPalette="brand"
          variant="surface"
          disabled={view.kind !== 'image'}
          loading={downloading}
          loadingText="Downloading..."
          onClick={() => void download()}
        >
          Download Result
        </Button>
      </HStack>
    </Stack>
  );
}
