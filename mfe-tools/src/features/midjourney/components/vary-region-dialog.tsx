import { type KeyboardEvent, type PointerEvent, useEffect, useId, useRef, useState } from 'react';
import { Box, Button, chakra, CloseButton, Dialog, Field, HStack, Image, Portal, SegmentGroup, Slider, Stack, Text, Textarea } from '@aim/shared-kit/ui';
import {
  clampRect,
  encodeMask,
  isMaskEmpty,
  type MaskPoint,
  type MaskRect,
  type MaskShape,
  moveSelection,
  rectFromCorners,
  type SelectionKey,
} from '../region-mask.ts';
import { EMPTY_REGION_MESSAGE } from '../task-model.ts';

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
    <Dialog.Root open={open} onOpenChange={(e) => !e.open && onClose()} size="lg" placement="center" lazyMount unmountOnExit>
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content data-testid="region-editor">
            <Dialog.Header>
              <Dialog.Title>Vary (Region)</Dialog.Title>
            </Dialog.Header>
            <RegionEditor {...editor} onCancel={onClose} />
            <Dialog.CloseTrigger asChild>
              <CloseButton size="sm" aria-label="Close" />
            </Dialog.CloseTrigger>
          </Dialog.Content>
        </Dialog.Positioner>
      </Portal>
    </Dialog.Root>
  );
}

type Tool = 'brush' | 'rect';

// The canvas's width/height attributes are the picture's pixels (Chakra would make them CSS); `w`/`h` stretch it over the picture.
const MaskCanvas = chakra('canvas', {}, { forwardProps: ['width', 'height'] });

/** The marks are drawn opaque and the canvas shown half transparent, so overlaps do not darken. */
const MARK_COLOR = '#e11d8f';
const BRUSH_SIZES = { min: 1, max: 25, initial: 6 } as const;

function RegionEditor({
  imageUrl,
  recordedSize,
  initialPrompt,
  busy,
  onSubmit,
  onCancel,
}: Omit<VaryRegionDialogProps, 'open' | 'onClose'> & { onCancel: () => void }) {
  const id = useId();
  const canvas = useRef<HTMLCanvasElement>(null);
  const [loadedSize, setLoadedSize] = useState<{ width: number; height: number } | null>(null);
  const size = loadedSize ?? recordedSize;
  const [tool, setTool] = useState<Tool>('brush');
  const [brush, setBrush] = useState<number>(BRUSH_SIZES.initial);
  const [shapes, setShapes] = useState<MaskShape[]>([]);
  const [draft, setDraft] = useState<MaskShape | null>(null);
  const anchor = useRef<MaskPoint | null>(null);
  const [selection, setSelection] = useState<MaskRect | null>(null);
  // The keyboard selection shows while the picture has keyboard focus, not after a click on it.
  const [focused, setFocused] = useState(false);
  const pointerFocus = useRef(false);
  const [prompt, setPrompt] = useState(initialPrompt);
  const [error, setError] = useState<string | null>(null);
  const [encoding, setEncoding] = useState(false);

  const width = size?.width ?? 0;
  const height = size?.height ?? 0;
  // The brush's diameter is a share of the picture's shorter side, so it feels the same at any size.
  const radius = (brush / 100) * Math.min(width, height) * 0.5;
  const keyboardRect = selection ?? { x: width / 4, y: height / 4, width: width / 2, height: height / 2 };

  useEffect(() => {
    const el = canvas.current;
    const ctx = el && width && height ? el.getContext('2d') : null;
    if (!ctx) return;
    ctx.clearRect(0, 0, width, height);
    ctx.fillStyle = MARK_COLOR;
    ctx.strokeStyle = MARK_COLOR;
    ctx.lineCap = 'round';
    ctx.lineJoin = 'round';
    for (const shape of draft ? [...shapes, draft] : shapes) drawShape(ctx, shape);
  }, [shapes, draft, width, height]);

  const toImage = (e: PointerEvent<HTMLCanvasElement>): MaskPoint => {
    const box = e.currentTarget.getBoundingClientRect();
    return {
      x: Math.min(width, Math.max(0, ((e.clientX - box.left) / (box.width || 1)) * width)),
      y: Math.min(height, Math.max(0, ((e.clientY - box.top) / (box.height || 1)) * height)),
    };
  };

  const addShape = (shape: MaskShape) => {
    setShapes((prev) => [...prev, shape]);
    setError(null);
  };

  function onPointerDown(e: PointerEvent<HTMLCanvasElement>) {
    pointerFocus.current = true;
    if (e.button !== 0 || !size) return;
    e.currentTarget.setPointerCapture?.(e.pointerId);
    const p = toImage(e);
    anchor.current = p;
    setDraft(tool === 'brush' ? { kind: 'stroke', radius, points: [p] } : { kind: 'rect', ...rectFromCorners(p, p) });
  }

  function onPointerMove(e: PointerEvent<HTMLCanvasElement>) {
    if (!draft || !anchor.current) return;
    const p = toImage(e);
    if (draft.kind === 'rect') {
      setDraft({ kind: 'rect', ...rectFromCorners(anchor.current, p) });
      return;
    }
    const last = draft.points[draft.points.length - 1]!;
    if (Math.hypot(p.x - last.x, p.y - last.y) >= Math.max(1, draft.radius / 4)) setDraft({ ...draft, points: [...draft.points, p] });
  }

  function onPointerUp() {
    if (draft && (draft.kind === 'stroke' || (draft.width >= 2 && draft.height >= 2))) addShape(draft);
    setDraft(null);
    anchor.current = null;
  }

  function onKeyDown(e: KeyboardEvent<HTMLCanvasElement>) {
    if (!size) return;
    if (e.key.startsWith('Arrow')) {
      e.preventDefault();
      setFocused(true);
      setSelection(moveSelection(clampRect(keyboardRect, width, height), e.key as SelectionKey, e.shiftKey, width, height));
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      addShape({ kind: 'rect', ...clampRect(keyboardRect, width, height) });
    }
  }

  async function submit() {
    if (!size || isMaskEmpty(shapes, width, height)) {
      setError(EMPTY_REGION_MESSAGE);
      return;
    }
    setEncoding(true);
    try {
      onSubmit(await encodeMask(shapes, width, height), prompt.trim());
    } finally {
      setEncoding(false);
    }
  }

  const pct = (v: number, of: number) => `${Math.round((v / (of || 1)) * 100)}%`;
  const selectionText = `Selection: ${pct(keyboardRect.x, width)} from the left, ${pct(keyboardRect.y, height)} from the top, ${pct(keyboardRect.width, width)} wide, ${pct(keyboardRect.height, height)} high.`;

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
              <SegmentGroup.Root size="sm" value={tool} onValueChange={(e) => setTool(e.value as Tool)} aria-labelledby={`${id}-tool`}>
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
              onValueChange={(e) => setBrush(e.value[0] ?? BRUSH_SIZES.initial)}
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
              <Button size="sm" variant="outline" disabled={shapes.length === 0} onClick={() => setShapes((prev) => prev.slice(0, -1))}>
                Undo
              </Button>
              <Button size="sm" variant="outline" disabled={shapes.length === 0} onClick={() => setShapes([])}>
                Clear
              </Button>
            </HStack>
          </HStack>
          <Box position="relative" alignSelf="center" maxW="full" lineHeight="0" rounded="l2" overflow="hidden" borderWidth="1px">
            <Image
              src={imageUrl}
              alt="The picture to vary"
              maxH="45vh"
              maxW="full"
              draggable={false}
              onLoad={(e) => {
                const { naturalWidth, naturalHeight } = e.currentTarget;
                if (naturalWidth > 0 && naturalHeight > 0) setLoadedSize({ width: naturalWidth, height: naturalHeight });
              }}
            />
            {size && (
              <MaskCanvas
                ref={canvas}
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
                onPointerDown={onPointerDown}
                onPointerMove={onPointerMove}
                onPointerUp={onPointerUp}
                onPointerCancel={onPointerUp}
                onKeyDown={onKeyDown}
                onFocus={() => {
                  setFocused(!pointerFocus.current);
                  pointerFocus.current = false;
                }}
                onBlur={() => setFocused(false)}
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
            {shapes.length === 0 ? 'Nothing marked yet.' : `${shapes.length} ${shapes.length === 1 ? 'area' : 'areas'} marked.`} {focused ? selectionText : ''}
          </Text>
          {!size && <Text color="fg.muted">Loading the picture...</Text>}
          <Field.Root invalid={error !== null}>
            <Field.Label>Prompt for the region</Field.Label>
            <Textarea value={prompt} rows={2} autoresize maxH="8lh" onChange={(e) => setPrompt(e.currentTarget.value)} />
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
        <Button colorPalette="brand" loading={busy || encoding} loadingText="Submitting..." disabled={!size} onClick={() => void submit()}>
          Vary Region
        </Button>
      </Dialog.Footer>
    </>
  );
}

function drawShape(ctx: CanvasRenderingContext2D, shape: MaskShape) {
  if (shape.kind === 'rect') {
    ctx.fillRect(shape.x, shape.y, shape.width, shape.height);
    return;
  }
  const [first, ...rest] = shape.points;
  if (!first) return;
  if (rest.length === 0) {
    ctx.beginPath();
    ctx.arc(first.x, first.y, shape.radius, 0, Math.PI * 2);
    ctx.fill();
    return;
  }
  ctx.lineWidth = shape.radius * 2;
  ctx.beginPath();
  ctx.moveTo(first.x, first.y);
  for (const p of rest) ctx.lineTo(p.x, p.y);
  ctx.stroke();
}
