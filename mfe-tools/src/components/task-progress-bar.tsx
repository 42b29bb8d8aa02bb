import { HStack, Progress } from '@aim/shared-kit/ui';
import { clampPercentage, statusLabel } from '../features/tasks/task-rules.ts';

/** An active task's status and percentage (spec §4: progress while it runs). */
export function TaskProgressBar({ status, percentage }: { status: string; percentage: number | null }) {
  const value = clampPercentage(percentage);
  return (
    <Progress.Root value={value} colorPalette="brand" w="full" data-testid="task-progress">
      <HStack justify="space-between" mb="1.5">
        <Progress.Label data-testid="task-status">{statusLabel(status)}</Progress.Label>
        <Progress.ValueText data-testid="task-percentage">{value}%</Progress.ValueText>
      </HStack>
      <Progress.Track>
        <Progress.Range />
      </Progress.Track>
    </Progress.Root>
  );
}
