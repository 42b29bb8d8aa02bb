import { Alert, Text } from '@aim/shared-kit/ui';
import { TASK_FAILED } from '../features/tasks/task-rules.ts';

type TaskFailedProps = {
  /** The task's result.message (spec §4), empty when it has none. */
  message: string;
  /** Credits given back for the task, when known. */
  refund?: number | null;
};

/** Spec §4: a failed task shows 'Task Failed' with its result message. */
export function TaskFailed({ message, refund }: TaskFailedProps) {
  return (
    <Alert.Root status="error" data-testid="task-failed">
      <Alert.Indicator />
      <Alert.Content>
        <Alert.Title>{TASK_FAILED}</Alert.Title>
        {message && <Alert.Description data-testid="task-failed-message">{message}</Alert.Description>}
        {!!refund && (
          <Text textStyle="sm" mt="1" data-testid="task-refund">
            {refund} credits were refunded.
          </Text>
        )}
      </Alert.Content>
    </Alert.Root>
  );
}
