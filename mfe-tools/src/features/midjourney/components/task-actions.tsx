import { Button, Code, HStack, Text } from '@aim/shared-kit/ui';
import type { availableActions } from '../task-model.ts';
import { CostTag } from '../../pricing/action-prices.tsx';

type Props = {
  actions: ReturnType<typeof availableActions>;
  favorite: boolean;
  seed: string | null;
  busyKey: string | null;
  /** True while a task-creating call runs: no second one meanwhile. */
  creating: boolean;
  onSeed: () => void;
  onReroll: () => void;
  onFavorite: () => void;
  onDownload: () => void;
};

export function TaskActions({ actions, favorite, seed, busyKey, creating, onSeed, onReroll, onFavorite, onDownload }: Props) {
  return (
    <HStack gap="2" wrap="wrap" data-testid="task-actions">
      {actions.seed && (
        <Button size="sm" variant="outline" loading={busyKey === 'seed'} loadingText="Getting seed..." disabled={busyKey === 'seed'} onClick={onSeed}>
          Get Seed
          <CostTag type="seed" />
        </Button>
      )}
      {actions.reroll && (
        <Button size="sm" variant="outline" loading={busyKey === 'reroll'} disabled={creating} onClick={onReroll}>
          Reroll
          <CostTag type="reroll" />
        </Button>
      )}
      {actions.favorite && (
        <Button size="sm" variant="outline" loading={busyKey === 'favorite'} aria-pressed={favorite} onClick={onFavorite}>
          {favorite ? 'Remove from Favs' : 'Add to Favs'}
        </Button>
      )}
      {actions.download && (
        <Button size="sm" variant="outline" loading={busyKey === 'download'} onClick={onDownload}>
          Download
        </Button>
      )}
      {seed !== null && (
        <Text textStyle="sm" data-testid="task-seed">
          Seed: <Code>{seed}</Code>
        </Text>
      )}
    </HStack>
  );
}
