import type { ReactNode } from 'react';
import { Box, Button, Group, HStack, IconButton, Image, Menu, Portal, SimpleGrid, Skeleton, Spinner, Stack, Text } from '@aim/shared-kit/ui';
import { CancelTaskButton } from '../../../components/cancel-task-button.tsx';
import { TaskProgressBar } from '../../../components/task-progress-bar.tsx';
import {
  CELL_UPSCALES,
  type CellUpscaleType,
  DEFAULT_CELL_UPSCALE,
  gridImages,
  type MidjourneyTask,
  primaryImage,
  VARY_TYPES,
  type VaryType,
} from '../task-model.ts';
import { LineIcon } from './icons.tsx';
import { CostTag } from '../../pricing/action-prices.tsx';

/** Active statuses: a placeholder where the pictures will be, and the live progress. */
export function TaskProgress({ task, onCancel }: { task: MidjourneyTask; onCancel?: () => Promise<unknown> }) {
  return (
    <Stack gap="4" data-testid="task-active">
      <Box position="relative" w="full">
        <SimpleGrid columns={2} gap="3" aria-hidden>
          {[1, 2, 3, 4].map((i) => (
            <Skeleton key={i} aspectRatio="1" rounded="l3" />
          ))}
        </SimpleGrid>
        <Spinner position="absolute" inset="0" m="auto" size="xl" color="brand.fg" />
      </Box>
      <TaskProgressBar status={task.status} percentage={task.percentage} taskId={task.id} />
      {onCancel && <CancelTaskButton onCancel={onCancel} />}
    </Stack>
  );
}

type CellActionsProps = {
  index: number;
  busyKey: string | null;
  disabled: boolean;
  onUpscale: (index: number, type: CellUpscaleType) => void;
  onVariation: (index: number) => void;
  onVary: (index: number, type: VaryType) => void;
  compact?: boolean;
};

/**
 * A cell's Upscale (spec §7: `type creative`; its menu offers Subtle too) and Variation (spec §7's
 * variations; its menu offers Vary (Strong)/(Subtle)), each a split button: the main part does
 * the usual thing, the arrow opens the choice.
 */
function CellActions({ index, busyKey, disabled, onUpscale, onVariation, onVary, compact }: CellActionsProps) {
  return (
    <>
      <SplitAction
        label={compact ? `U${index}` : 'Upscale'}
        costType={`upscale-${DEFAULT_CELL_UPSCALE}`}
        ariaLabel={`Upscale image ${index}`}
        menuLabel={`More upscales of image ${index}`}
        loading={busyKey === `upscale-${index}` || busyKey?.startsWith(`upscale-${index}-`)}
        disabled={disabled}
        onClick={() => onUpscale(index, DEFAULT_CELL_UPSCALE)}
        items={CELL_UPSCALES.map(({ type, label }) => ({ value: type, label }))}
        onSelect={(type) => onUpscale(index, type as CellUpscaleType)}
      />
      <SplitAction
        label={compact ? `V${index}` : 'Variation'}
        costType={`variation-${index}`}
        ariaLabel={`Variation of image ${index}`}
        menuLabel={`Vary image ${index}`}
        loading={busyKey === `variation-${index}` || busyKey?.startsWith(`vary-${index}-`)}
        disabled={disabled}
        onClick={() => onVariation(index)}
        items={VARY_TYPES.map(({ type, label }) => ({ value: type, label }))}
        onSelect={(type) => onVary(index, type as VaryType)}
      />
    </>
  );
}

type SplitActionProps = {
  label: string;
  /** The task type the main part creates: its price is shown beside the label. */
  costType: string;
  ariaLabel: string;
  menuLabel: string;
  loading: boolean | undefined;
  disabled: boolean;
  onClick: () => void;
  items: { value: string; label: string }[];
  onSelect: (value: string) => void;
};

function SplitAction({ label, costType, ariaLabel, menuLabel, loading, disabled, onClick, items, onSelect }: SplitActionProps) {
  return (
    <Group attached>
      <Button size="xs" variant="subtle" aria-label={ariaLabel} loading={!!loading} disabled={disabled} onClick={onClick}>
        {label}
        <CostTag type={costType} />
      </Button>
      <Menu.Root onSelect={(details) => onSelect(details.value)} positioning={{ placement: 'bottom-end' }}>
        <Menu.Trigger asChild>
          <IconButton size="xs" variant="subtle" aria-label={menuLabel} disabled={disabled} minW="6" borderStartWidth="1px" borderColor="border">
            <LineIcon name="chevronDown" />
          </IconButton>
        </Menu.Trigger>
        <Portal>
          <Menu.Positioner>
            <Menu.Content>
              {items.map((item) => (
                <Menu.Item key={item.value} value={item.value}>
                  {item.label}
                </Menu.Item>
              ))}
            </Menu.Content>
          </Menu.Positioner>
        </Portal>
      </Menu.Root>
    </Group>
  );
}

type GridProps = Omit<CellActionsProps, 'index' | 'compact'> & { task: MidjourneyTask; withActions: boolean };

/** Four pictures, each with Upscale and Variation; or the composed grid picture with U1–U4, V1–V4. */
export function ResultGrid({ task, withActions, ...actions }: GridProps) {
  const { cells, composite } = gridImages(task);
  if (cells.length) {
    return (
      <SimpleGrid columns={{ base: 1, sm: 2 }} gap="3" data-testid="result-grid">
        {cells.map((url, i) => (
          <Stack key={url + i} gap="2" as="figure" borderWidth="1px" rounded="l3" p="2" bg="bg.panel" data-testid="result-cell">
            <ResultImage src={url} alt={`Image ${i + 1} of 4: ${task.prompt ?? ''}`} />
            {withActions && (
              <HStack gap="2" justify="center" wrap="wrap" as="figcaption">
                <CellActions index={i + 1} {...actions} />
              </HStack>
            )}
          </Stack>
        ))}
      </SimpleGrid>
    );
  }
  if (!composite) return <Text color="fg.muted">This task has no pictures.</Text>;
  return (
    <Stack gap="3" data-testid="result-grid">
      <ResultImage src={composite} alt={`Grid of 4 images: ${task.prompt ?? ''}`} />
      {withActions && (
        <SimpleGrid columns={{ base: 2, md: 4 }} gap="2">
          {[1, 2, 3, 4].map((i) => (
            <HStack key={i} gap="1" justify="center">
              <CellActions index={i} compact {...actions} />
            </HStack>
          ))}
        </SimpleGrid>
      )}
    </Stack>
  );
}

type SingleProps = {
  task: MidjourneyTask;
  /** What can be done with the picture (ImageEdits), under it. */
  children?: ReactNode;
};

/** An upscale's one picture (spec §4), and what can be done with it. */
export function ResultSingle({ task, children }: SingleProps) {
  const url = primaryImage(task);
  if (!url) return <Text color="fg.muted">This task has no picture.</Text>;
  return (
    <Stack gap="3" maxW="xl" w="full" mx="auto">
      <Box borderWidth="1px" rounded="l3" p="2" bg="bg.panel" data-testid="result-single">
        <ResultImage src={url} alt={`Upscaled image: ${task.prompt ?? ''}`} />
      </Box>
      {children}
    </Stack>
  );
}

function ResultImage({ src, alt }: { src: string; alt: string }) {
  return <Image src={src} alt={alt} w="full" rounded="l2" bg="bg.muted" objectFit="contain" loading="lazy" />;
}
