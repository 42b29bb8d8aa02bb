import { Badge, HStack, Stack, Text } from '@aim/shared-kit/ui';
import { TaskFailed } from '../../../components/task-failed.tsx';
import { failureMessage, taskPhase } from '../../tasks/task-rules.ts';
import {
  availableActions,
  type CellUpscaleType,
  describedImage,
  type MidjourneyTask,
  type PanDirection,
  promptChoices,
  resultLayout,
  seedText,
  type UpscaleType,
  type VaryType,
} from '../task-model.ts';
import type { EditDialog } from '../use-midjourney-tool.ts';
import { ImageEdits } from './image-edits.tsx';
import { PromptChoices } from './prompt-choices.tsx';
import { TaskActions } from './task-actions.tsx';
import { ResultGrid, ResultSingle, TaskProgress } from './task-result.tsx';

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

/** One task: its type and status, progress or failure, the result and what can be done with it. */
export function TaskView({
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
