import { Alert, Button } from '@aim/shared-kit/ui';

/** A part of the credit activity that could not load: the message and a Retry button. */
export function LoadFailed(props: { message: string; testId: string; onRetry: () => void }) {
  return (
    <Alert.Root status="error" data-testid={props.testId}>
      <Alert.Indicator />
      <Alert.Title flex="1">{props.message}</Alert.Title>
      <Button size="xs" variant="outline" onClick={props.onRetry}>
        Retry
      </Button>
    </Alert.Root>
  );
}
