import { type DragEvent, useState } from 'react';

/**
 * The drop zone the tools' image pickers share (Midjourney uploads, Faceswap's two boxes, AI
 * Photos): dragging state, the dropped files handed on unless disabled, and the zone's look
 * (dashed border, brand colours while dragging, error border, focus ring of the hidden input).
 * Spread `zoneProps` on the label that wraps the file input.
 */
export function useDropZone({ disabled, error, onFiles }: { disabled?: boolean; error?: unknown; onFiles: (files: File[]) => void }) {
  const [dragging, setDragging] = useState(false);
  const zoneProps = {
    borderColor: dragging ? 'brand.solid' : error ? 'border.error' : 'border',
    bg: dragging ? 'brand.subtle' : 'bg.subtle',
    cursor: disabled ? 'not-allowed' : 'pointer',
    opacity: disabled ? 0.7 : 1,
    transition: 'border-color 0.15s, background 0.15s',
    _hover: disabled ? undefined : { borderColor: 'brand.emphasized' },
    css: { '&:has(input:focus-visible)': { outline: '2px solid', outlineColor: 'brand.focusRing', outlineOffset: '2px' } },
    onDragOver: (e: DragEvent) => {
      e.preventDefault();
      if (!disabled) setDragging(true);
    },
    onDragLeave: () => setDragging(false),
    onDrop: (e: DragEvent) => {
      e.preventDefault();
      setDragging(false);
      const files = [...(e.dataTransfer.files ?? [])];
      if (files.length && !disabled) onFiles(files);
    },
  };
  return { dragging, zoneProps };
}
