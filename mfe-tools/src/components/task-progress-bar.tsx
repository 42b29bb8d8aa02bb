import { HStack, Progress } from '@aim/shared-kit/ui';
import { queueLabel } from '../features/tasks/queue-position.ts';
import { clampPercentage, statusLabel } from '../features/tasks/task-rules.ts';
import { useQueuePosition } from '../features/tasks/use-queue-position.tsx';

/**
 * An active task's status and percentage (spec §4: progress while it runs). With its `taskId`, a
 * task still waiting in its queue shows its place in line instead of the status: 'In queue (n ahead)'.
 */
export function TaskProgressBar({ status, percentage, taskId }: { status: string; percentage: number | null; taskId?: string }) {
  const value = clampPercentage(percentage);
  const ahead = useQueuePosition(taskId, status);
  return (
    <Progress.Root value={value} colorPalette="brand" w="full" data-testid="task-progress">
      <HStack justify="space-between" mb="1.5">
        <Progress.Label data-testid="task-status">{ahead === null ? statusLabel(status) : queueLabel(ahead)}</Progress.Label>
        <Progress.ValueText data-testid="task-percentage">{value}%</Progress.ValueText>
      </HStack>
      <Progress.Track>
        <Progress.Range />
      </Progress.Track>
    </Progress.Root>
  );
}
