import { Box, Button, HStack, Image, SimpleGrid, Skeleton, Spinner, Stack, Text } from '@chakra-ui/react';
import { TaskProgressBar } from '../../../components/task-progress-bar.tsx';
import { FURTHER_UPSCALES, gridImages, primaryImage, type MidjourneyTask, type UpscaleType } from '../task-model.ts';

/** Active statuses: a placeholder where the pictures will be, and the live progress. */
export function TaskProgress({ task }: { task: MidjourneyTask }) {
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
      <TaskProgressBar status={task.status} percentage={task.percentage} />
    </Stack>
  );
}

type CellActionsProps = {
  index: number;
  busyKey: string | null;
  disabled: boolean;
  onUpscale: (index: number) => void;
  onVariation: (index: number) => void;
  compact?: boolean;
};

function CellActions({ index, busyKey, disabled, onUpscale, onVariation, compact }: CellActionsProps) {
  return (
    <>
      <Button
        size="xs"
        variant="subtle"
        aria-label={`Upscale image ${index}`}
        loading={busyKey === `upscale-${index}`}
        disabled={disabled}
        onClick={() => onUpscale(index)}
      >
        {compact ? `U${index}` : 'Upscale'}
      </Button>
      <Button
        size="xs"
        variant="subtle"
        aria-label={`Variation of image ${index}`}
        loading={busyKey === `variation-${index}`}
        disabled={disabled}
        onClick={() => onVariation(index)}
      >
        {compact ? `V${index}` : 'Variation'}
      </Button>
    </>
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
              <HStack gap="2" justify="center" as="figcaption">
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
        <SimpleGrid columns={4} gap="2">
          {[1, 2, 3, 4].map((i) => (
            <CellActions key={i} index={i} compact {...actions} />
          ))}
        </SimpleGrid>
      )}
    </Stack>
  );
}

type SingleProps = {
  task: MidjourneyTask;
  withUpscales: boolean;
  busyKey: string | null;
  disabled: boolean;
  onUpscale: (type: UpscaleType) => void;
};

/** An upscale's one picture; an upscaled cell (upscale#N) can be upscaled further. */
export function ResultSingle({ task, withUpscales, busyKey, disabled, onUpscale }: SingleProps) {
  const url = primaryImage(task);
  if (!url) return <Text color="fg.muted">This task has no picture.</Text>;
  return (
    <Stack gap="3" maxW="xl" w="full" mx="auto">
      <Box borderWidth="1px" rounded="l3" p="2" bg="bg.panel" data-testid="result-single">
        <ResultImage src={url} alt={`Upscaled image: ${task.prompt ?? ''}`} />
      </Box>
      {withUpscales && (
        <HStack gap="2" wrap="wrap" justify="center">
          {FURTHER_UPSCALES.map(({ type, label }) => (
            <Button key={type} size="xs" variant="subtle" loading={busyKey === `upscale-${type}`} disabled={disabled} onClick={() => onUpscale(type)}>
              {label}
            </Button>
          ))}
        </HStack>
      )}
    </Stack>
  );
}

function ResultImage({ src, alt }: { src: string; alt: string }) {
  return <Image src={src} alt={alt} w="full" rounded="l2" bg="bg.muted" objectFit="contain" loading="lazy" />;
}
