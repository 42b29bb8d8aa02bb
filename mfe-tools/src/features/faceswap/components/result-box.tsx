import type { ReactNode } from 'react';
import { Box, Button, Card, Image, Spinner, Stack, Text } from '@aim/shared-kit/ui';
import { CancelTaskButton } from '../../../components/cancel-task-button.tsx';
import { TaskFailed } from '../../../components/task-failed.tsx';
import { TaskProgressBar } from '../../../components/task-progress-bar.tsx';
import type { FaceswapTask, ResultView, SpinnerReason } from '../faceswap-rules.ts';
import { CostTag } from '../../pricing/action-prices.tsx';

const SPINNER_TEXT: Record<SpinnerReason, string> = {
  uploading: 'Uploading images...',
  loading: 'Loading the task...',
  running: 'Swapping faces...',
};

type ResultBoxProps = {
  view: ResultView;
  /** The task on screen, when there is one (its status and progress). */
  task: FaceswapTask | null;
  canGenerate: boolean;
  generating: boolean;
  onGenerate: () => void;
  /** Cancels the running task (POST /cancel); no Cancel button without it. */
  onCancel?: () => Promise<unknown>;
};

/** Spec §2: the Result box, from Generate through the spinner and progress to the picture or 'Task Failed'. */
export function ResultBox({ view, task, canGenerate, generating, onGenerate, onCancel }: ResultBoxProps) {
  const busy = view.kind === 'spinner';
  return (
    <Card.Root variant="outline" size="sm" data-testid="result-box" data-view={view.kind}>
      <Card.Header>
        <Card.Title as="h2" textStyle="md">
          Result
        </Card.Title>
        <Text textStyle="sm" color="fg.muted">
          The target image with the source face
        </Text>
      </Card.Header>
      <Card.Body gap="3">
        <Box
          aria-live="polite"
          aria-busy={busy}
          data-testid={task ? 'task-view' : undefined}
          data-task-id={task?.id}
          data-task-type={task?.type}
          data-task-status={task?.status}
        >
          <ResultArea view={view} task={task} canGenerate={canGenerate} generating={generating} onGenerate={onGenerate} />
        </Box>
        {view.kind === 'spinner' && view.reason === 'running' && task && <TaskProgressBar status={task.status} percentage={task.percentage} taskId={task.id} />}
        {view.kind === 'spinner' && view.reason === 'running' && task && onCancel && <CancelTaskButton onCancel={onCancel} />}
      </Card.Body>
    </Card.Root>
  );
}

function ResultArea({ view, task, canGenerate, generating, onGenerate }: ResultBoxProps) {
  switch (view.kind) {
    case 'generate':
      return (
        <Frame testId="result-generate">
          <Button colorPalette="brand" size="lg" minW="36" disabled={!canGenerate} loading={generating} loadingText="Generating..." onClick={onGenerate}>
            Generate
            <CostTag type="faceswap" />
          </Button>
          <Text textStyle="sm" color="fg.muted" maxW="56">
            {canGenerate ? 'Puts the face of the Source Image into the Target Image.' : 'Add a Source Image and a Target Image to generate.'}
          </Text>
        </Frame>
      );
    case 'spinner':
      return (
        <Frame testId="result-spinner" reason={view.reason}>
          <Spinner size="xl" color="brand.fg" borderWidth="3px" />
          <Text textStyle="sm" color="fg.muted">
            {SPINNER_TEXT[view.reason]}
          </Text>
        </Frame>
      );
    case 'image':
      return (
        <Box aspectRatio="1" w="full" rounded="l2" overflow="hidden" bg="bg.subtle" borderWidth="1px">
          <Image src={view.url} alt="Faceswap result" w="full" h="full" objectFit="contain" data-testid="result-image" />
        </Box>
      );
    case 'failed':
      return (
        <Frame testId="result-failed" textAlign="start">
          <TaskFailed message={view.message} refund={task?.refund} />
        </Frame>
      );
    case 'error':
      return (
        <Frame testId="result-error">
          <Text fontWeight="medium">This task could not be loaded.</Text>
          <Text textStyle="sm" color="fg.muted">
            Check the link, or Clear All Data to start a new swap.
          </Text>
        </Frame>
      );
    case 'no-image':
      return (
        <Frame testId="result-no-image">
          <Text textStyle="sm" color="fg.muted">
            This task finished without a picture.
          </Text>
        </Frame>
      );
  }
}

/** The square the result takes, so the three boxes line up. */
function Frame({
  testId,
  reason,
  textAlign = 'center',
  children,
}: {
  testId: string;
  reason?: SpinnerReason;
  textAlign?: 'center' | 'start';
  children: ReactNode;
}) {
  return (
    <Stack
      aspectRatio="1"
      w="full"
      align="center"
      justify="center"
      gap="3"
      px="4"
      textAlign={textAlign}
      rounded="l2"
      borderWidth="2px"
      borderStyle="dashed"
      bg="bg.subtle"
      data-testid={testId}
      data-reason={reason}
    >
      {children}
    </Stack>
  );
}
