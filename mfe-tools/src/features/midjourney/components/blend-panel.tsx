import { useId, useState } from 'react';
import { Button, HStack, SegmentGroup, Stack, Text } from '@aim/shared-kit/ui';
import { BLEND_COUNT_MESSAGE, BLEND_DIMENSIONS, BLEND_IMAGES, type BlendDimension } from '../task-model.ts';
import { ImagePicker, usePickedImages } from './image-picker.tsx';

type BlendPanelProps = {
  busy: boolean;
  disabled: boolean;
  /** Uploads the pictures and starts the blend task; true once the task exists. */
  onBlend: (files: File[], dimension: BlendDimension) => Promise<boolean>;
};

/** Blend: 2–5 uploaded pictures and a shape → a grid of four blends. */
export function BlendPanel({ busy, disabled, onBlend }: BlendPanelProps) {
  const id = useId();
  const picked = usePickedImages(BLEND_IMAGES.max, BLEND_COUNT_MESSAGE);
  const [dimension, setDimension] = useState<BlendDimension>('square');
  const count = picked.images.length;

  async function blend() {
    if (count < BLEND_IMAGES.min || count > BLEND_IMAGES.max) {
      picked.setError(BLEND_COUNT_MESSAGE);
      return;
    }
    if (
      await onBlend(
        picked.images.map((i) => i.file),
        dimension,
      )
    )
      picked.clear();
  }

  return (
    <Stack gap="3" data-testid="blend-panel">
      <ImagePicker
        label="Images to blend"
        hint={`${BLEND_IMAGES.min} to ${BLEND_IMAGES.max} jpeg, png, gif or webp pictures.`}
        multiple
        disabled={disabled || busy}
        images={picked.images}
        error={picked.error}
        onFiles={picked.add}
        onRemove={picked.remove}
        testId="blend"
      />
      <HStack justify="space-between" wrap="wrap" gap="3">
        <HStack gap="3">
          <Text textStyle="sm" id={`${id}-dimension`}>
            Shape
          </Text>
          <SegmentGroup.Root size="sm" value={dimension} onValueChange={(e) => setDimension(e.value as BlendDimension)} aria-labelledby={`${id}-dimension`}>
            <SegmentGroup.Indicator />
            <SegmentGroup.Items items={BLEND_DIMENSIONS.map(({ value, label }) => ({ value, label }))} />
          </SegmentGroup.Root>
        </HStack>
        <HStack gap="3">
          <Text textStyle="sm" color="fg.muted" data-testid="blend-count">
            {count} of {BLEND_IMAGES.max}
          </Text>
          <Button colorPalette="brand" loading={busy} loadingText="Blending..." disabled={disabled} minW="32" onClick={() => void blend()}>
            Blend
          </Button>
        </HStack>
      </HStack>
    </Stack>
  );
}
