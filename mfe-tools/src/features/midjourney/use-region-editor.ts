import { type KeyboardEvent, type PointerEvent, type SyntheticEvent, useEffect, useRef, useState } from 'react';
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
} from './region-mask.ts';
import { EMPTY_REGION_MESSAGE } from './task-model.ts';

export type RegionTool = 'brush' | 'rect';

/** The marks are drawn opaque and the canvas shown half transparent, so overlaps do not darken. */
const MARK_COLOR = '#e11d8f';
export const BRUSH_SIZES = { min: 1, max: 25, initial: 6 } as const;

type Options = {
  /** The picture's size as its task recorded it; the loaded picture's own size takes over. */
  recordedSize: { width: number; height: number } | null;
  initialPrompt: string;
  /** `mask`: base64 PNG the size of the picture, white where it may change. */
  onSubmit: (mask: string, prompt: string) => void;
};

/**
 * The Vary (Region) editor's state: the marks (brush strokes, rectangles) drawn with the pointer
 * or, from the keyboard, a selection moved with the arrows and marked with Enter; the prompt; and
 * the submit that encodes the marks into the mask (refused while nothing is marked).
 */
export function useRegionEditor({ recordedSize, initialPrompt, onSubmit }: Options) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [loadedSize, setLoadedSize] = useState<{ width: number; height: number } | null>(null);
  const size = loadedSize ?? recordedSize;
  const [tool, setTool] = useState<RegionTool>('brush');
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

  return {
    canvas,
    size,
    width,
    height,
    tool,
    setTool,
    brush,
    setBrush,
    shapes,
    undo: () => setShapes((prev) => prev.slice(0, -1)),
    clear: () => setShapes([]),
    focused,
    keyboardRect,
    selectionText,
    pct,
    prompt,
    setPrompt,
    error,
    encoding,
    submit: () => void submit(),
    onImageLoad: (e: SyntheticEvent<HTMLImageElement>) => {
      const { naturalWidth, naturalHeight } = e.currentTarget;
      if (naturalWidth > 0 && naturalHeight > 0) setLoadedSize({ width: naturalWidth, height: naturalHeight });
    },
    canvasHandlers: {
      onPointerDown,
      onPointerMove,
      onPointerUp,
      onPointerCancel: onPointerUp,
      onKeyDown,
      onFocus: () => {
        setFocused(!pointerFocus.current);
        pointerFocus.current = false;
      },
      onBlur: () => setFocused(false),
    },
  };
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
