import { Alert, Button } from '@aim/shared-kit/ui';

type Props = { title: string; onRetry: () => void; testId: string };

/** GET /billing/config failed: the screen has no prices to show, so it says so and offers to ask again. */
export function CatalogUnavailable({ title, onRetry, testId }: Props) {
  return (
    <Alert.Root status="error" data-testid={testId}>
      <Alert.Indicator />
      <Alert.Title flex="1">{title}</Alert.Title>
      <Button size="sm" variant="outline" alignSelf="center" onClick={onRetry}>
        Retry
      </Button>
    </Alert.Root>
  );
}
