import { useState } from 'react';
import { DialogShell } from '@aim/shared-kit/dialog-shell';
import { Button, Dialog, Field, HStack, NativeSelect, Slider, Stack, Text, Textarea } from '@aim/shared-kit/ui';
import { CUSTOM_ZOOM_RANGE, type CustomZoom, ZOOM_ASPECT_RATIOS, zoomRatioOf } from '../task-model.ts';

type CustomZoomDialogProps = {
  open: boolean;
  onClose: () => void;
  initialPrompt: string;
  busy: boolean;
  onSubmit: (ratio: number, custom: CustomZoom) => void;
};

/** Custom Zoom: how far to zoom out (the API's zoom_ratio range), the canvas's shape, and what the new area shows. */
export function CustomZoomDialog({ open, onClose, ...form }: CustomZoomDialogProps) {
  return (
    <DialogShell open={open} onClose={onClose} title="Custom Zoom" testId="custom-zoom">
      <CustomZoomForm {...form} onCancel={onClose} />
    </DialogShell>
  );
}

function CustomZoomForm({ initialPrompt, busy, onSubmit, onCancel }: Omit<CustomZoomDialogProps, 'open' | 'onClose'> & { onCancel: () => void }) {
  const [ratio, setRatio] = useState<number>(CUSTOM_ZOOM_RANGE.max);
  const [shape, setShape] = useState<CustomZoom['aspectRatio'] | ''>('');
  const [prompt, setPrompt] = useState(initialPrompt);
  return (
    <>
      <Dialog.Body>
        <Stack gap="4">
          <Slider.Root
            min={CUSTOM_ZOOM_RANGE.min}
            max={CUSTOM_ZOOM_RANGE.max}
            step={CUSTOM_ZOOM_RANGE.step}
            value={[ratio]}
            onValueChange={(e) => setRatio(zoomRatioOf(e.value[0] ?? CUSTOM_ZOOM_RANGE.max))}
            getAriaValueText={(d) => `${zoomRatioOf(d.value)}x`}
          >
            <HStack justify="space-between">
              <Slider.Label>Zoom out</Slider.Label>
              <Slider.ValueText data-testid="custom-zoom-ratio">{`${ratio}x`}</Slider.ValueText>
            </HStack>
            <Slider.Control>
              <Slider.Track>
                <Slider.Range />
              </Slider.Track>
              <Slider.Thumbs />
            </Slider.Control>
          </Slider.Root>
          <Text textStyle="xs" color="fg.muted" mt="-2">
            {`From ${CUSTOM_ZOOM_RANGE.min}x (the same framing, for a new shape) to ${CUSTOM_ZOOM_RANGE.max}x; 1.5x and 2x are the Zoom Out buttons.`}
          </Text>
          <Field.Root>
            <Field.Label>Shape</Field.Label>
            <NativeSelect.Root size="sm">
              <NativeSelect.Field value={shape} onChange={(e) => setShape(e.currentTarget.value as CustomZoom['aspectRatio'] | '')}>
                <option value="">Keep the picture's shape</option>
                {ZOOM_ASPECT_RATIOS.map((ar) => (
                  <option key={ar} value={ar}>
                    {ar}
                  </option>
                ))}
              </NativeSelect.Field>
              <NativeSelect.Indicator />
            </NativeSelect.Root>
            <Field.HelperText>With 1x and a new shape the picture is only widened or heightened (Make Square and the like).</Field.HelperText>
          </Field.Root>
          <Field.Root>
            <Field.Label>Prompt</Field.Label>
            <Textarea value={prompt} rows={2} autoresize maxH="8lh" onChange={(e) => setPrompt(e.currentTarget.value)} />
            <Field.HelperText>What the picture shows once zoomed out.</Field.HelperText>
          </Field.Root>
        </Stack>
      </Dialog.Body>
      <Dialog.Footer>
        <Button variant="outline" onClick={onCancel}>
          Cancel
        </Button>
        <Button
          colorPalette="brand"
          loading={busy}
          loadingText="Zooming..."
          onClick={() => onSubmit(ratio, { prompt: prompt.trim(), ...(shape ? { aspectRatio: shape } : {}) })}
        >
          Zoom Out
        </Button>
      </Dialog.Footer>
    </>
  );
}
