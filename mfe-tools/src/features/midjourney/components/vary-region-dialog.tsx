import { useId } from 'react';
import { DialogShell } from '@aim/shared-kit/dialog-shell';
import { Box, Button, chakra, Dialog, Field, HStack, Image, SegmentGroup, Slider, Stack, Text, Textarea } from '@aim/shared-kit/ui';
import { BRUSH_SIZES, type RegionTool, useRegionEditor } from '../use-region-editor.ts';

type VaryRegionDialogProps = {
  open: boolean;
  onClose: () => void;
  imageUrl: string;
  /** The picture's size as its task recorded it; the loaded picture's own size takes over. */
  recordedSize: { width: number; height: number } | null;
  initialPrompt: string;
  busy: boolean;
  /** `mask`: base64 PNG the size of the picture, white where it may change. */
  onSubmit: (mask: string, prompt: string) => void;
};

/** Vary (Region): mark part of the upscaled picture and say what goes there; a new grid follows. */
export function VaryRegionDialog({ open, onClose, ...editor }: VaryRegionDialogProps) {
  return (
    <DialogShell open={open} onClose={onClose} title="Vary (Region)" testId="region-editor" size="lg">
      <RegionEditor {...editor} onCancel={onClose} />
    </DialogShell>
  );
}

// The canvas's width/height attributes are the picture's pixels (Chakra would make them CSS); `w`/`h` stretch it over the picture.
const MaskCanvas = chakra('canvas', {}, { forwardProps: ['width', 'height'] });

function RegionEditor({
  imageUrl,
  recordedSize,
  initialPrompt,
  busy,
  onSubmit,
  onCancel,
}: Omit<VaryRegionDialogProps, 'open' | 'onClose'> & { onCancel: () => void }) {
  const id = useId();
  const editor = useRegionEditor({ recordedSize, initialPrompt, onSubmit });
  const { size, width, height, tool, brush, shapes, focused, keyboardRect, pct, error } = editor;

  return (
    <>
      <Dialog.Body>
        <Stack gap="4">
          <Text color="fg.muted" textStyle="sm" id={`${id}-help`}>
            Paint over the part of the picture to change, or drag a rectangle. From the keyboard: focus the picture, move the selection with the arrow keys
            (Shift+arrows resize it) and press Enter to mark it.
          </Text>
          <HStack gap="4" wrap="wrap" align="end">
            <Stack gap="1">
              <Text textStyle="xs" color="fg.muted" id={`${id}-tool`}>
                Tool
              </Text>
              <SegmentGroup.Root size="sm" value={tool} onValueChange={(e) => editor.setTool(e.value as RegionTool)} aria-labelledby={`${id}-tool`}>
                <SegmentGroup.Indicator />
                <SegmentGroup.Items
                  items={[
                    { value: 'brush', label: 'Brush' },
                    { value: 'rect', label: 'Rectangle' },
                  ]}
                />
              </SegmentGroup.Root>
            </Stack>
            <Slider.Root
              size="sm"
              minW="40"
              flex="1"
              min={BRUSH_SIZES.min}
              max={BRUSH_SIZES.max}
              value={[brush]}
              onValueChange={(e) => editor.setBrush(e.value[0] ?? BRUSH_SIZES.initial)}
              disabled={tool !== 'brush'}
            >
              <HStack justify="space-between">
                <Slider.Label>Brush size</Slider.Label>
                <Slider.ValueText>{`${brush}%`}</Slider.ValueText>
              </HStack>
              <Slider.Control>
                <Slider.Track>
                  <Slider.Range />
                </Slider.Track>
                <Slider.Thumbs />
              </Slider.Control>
            </Slider.Root>
            <HStack gap="2">
              <Button size="sm" variant="outline" disabled={shapes.length === 0} onClick={editor.undo}>
                Undo
              </Button>
              <Button size="sm" variant="outline" disabled={shapes.length === 0} onClick={editor.clear}>
                Clear
              </Button>
            </HStack>
          </HStack>
          <Box position="relative" alignSelf="center" maxW="full" lineHeight="0" rounded="l2" overflow="hidden" borderWidth="1px">
            <Image src={imageUrl} alt="The picture to vary" maxH="45vh" maxW="full" draggable={false} onLoad={editor.onImageLoad} />
            {size && (
              <MaskCanvas
                ref={editor.canvas}
                width={width}
                height={height}
                position="absolute"
                inset="0"
                w="full"
                h="full"
                opacity="0.55"
                cursor="crosshair"
                touchAction="none"
                outline="none"
                _focusVisible={{ boxShadow: 'inset 0 0 0 3px var(--chakra-colors-brand-focus-ring)' }}
                tabIndex={0}
                role="application"
                aria-label="Region to vary"
                aria-describedby={`${id}-help ${id}-status`}
                data-testid="region-canvas"
                {...editor.canvasHandlers}
              />
            )}
            {size && focused && (
              <Box
                position="absolute"
                pointerEvents="none"
                borderWidth="2px"
                borderStyle="dashed"
                borderColor="white"
                boxShadow="0 0 0 1px black"
                data-testid="region-selection"
                left={pct(keyboardRect.x, width)}
                top={pct(keyboardRect.y, height)}
                w={pct(keyboardRect.width, width)}
                h={pct(keyboardRect.height, height)}
              />
            )}
          </Box>
          <Text textStyle="sm" color="fg.muted" id={`${id}-status`} aria-live="polite" data-testid="region-status">
            {shapes.length === 0 ? 'Nothing marked yet.' : `${shapes.length} ${shapes.length === 1 ? 'area' : 'areas'} marked.`}{' '}
            {focused ? editor.selectionText : ''}
          </Text>
          {!size && <Text color="fg.muted">Loading the picture...</Text>}
          <Field.Root invalid={error !== null}>
            <Field.Label>Prompt for the region</Field.Label>
            <Textarea value={editor.prompt} rows={2} autoresize maxH="8lh" onChange={(e) => editor.setPrompt(e.currentTarget.value)} />
            {error ? (
              <Field.ErrorText data-testid="region-error">{error}</Field.ErrorText>
            ) : (
              <Field.HelperText>What the marked part should show.</Field.HelperText>
            )}
          </Field.Root>
        </Stack>
      </Dialog.Body>
      <Dialog.Footer>
        <Button variant="outline" onClick={onCancel}>
          Cancel
        </Button>
        <Button colorPalette="brand" loading={busy || editor.encoding} loadingText="Submitting..." disabled={!size} onClick={editor.submit}>
          Vary Region
        </Button>
      </Dialog.Footer>
    </>
  );
}
