import { useEffect, useId, useRef, useState } from 'react';
import { Box, chakra, CloseButton, Image, SimpleGrid, Stack, Text } from '@aim/shared-kit/ui';
import { ACCEPTED_IMAGE_TYPES } from '@aim/shared-kit/domain';
import { isAcceptedImage, UNSUPPORTED_IMAGE_MESSAGE } from '../../tasks/task-rules.ts';
import { useDropZone } from '../../../components/use-drop-zone.ts';

export type PickedImage = { id: string; file: File; preview: string | null };

let nextPickId = 0;
const previewOf = (file: File) => (typeof URL.createObjectURL === 'function' ? URL.createObjectURL(file) : null);
const revoke = (image: PickedImage) => image.preview && typeof URL.revokeObjectURL === 'function' && URL.revokeObjectURL(image.preview);

/**
 * The pictures chosen in a picker, at most `max` (1: a new one replaces the old). Returns the
 * message for what was refused (a type other than jpeg/png/gif/webp, or more than `max`).
 */
export function usePickedImages(max: number, tooManyMessage: string) {
  const [images, setImages] = useState<PickedImage[]>([]);
  const [error, setError] = useState<string | null>(null);
  const current = useRef(images);
  current.current = images;
  useEffect(() => () => current.current.forEach(revoke), []);

  function add(files: File[]) {
    const accepted = files.filter(isAcceptedImage);
    const refusedType = accepted.length < files.length;
    const picked = accepted.map((file) => ({ id: `pick-${++nextPickId}`, file, preview: previewOf(file) }));
    let next: PickedImage[];
    let tooMany = false;
    if (max === 1) next = picked.length ? [picked[picked.length - 1]!] : images;
    else {
      next = [...images, ...picked];
      tooMany = next.length > max;
      next = next.slice(0, max);
    }
    for (const image of [...images, ...picked]) if (!next.includes(image)) revoke(image);
    setImages(next);
    setError(refusedType ? UNSUPPORTED_IMAGE_MESSAGE : tooMany ? tooManyMessage : null);
  }

  function remove(id: string) {
    const gone = images.find((i) => i.id === id);
    if (gone) revoke(gone);
    setImages(images.filter((i) => i.id !== id));
    setError(null);
  }

  function clear() {
    images.forEach(revoke);
    setImages([]);
    setError(null);
  }

  return { images, error, setError, add, remove, clear };
}

type ImagePickerProps = {
  label: string;
  hint: string;
  multiple: boolean;
  disabled: boolean;
  images: PickedImage[];
  error: string | null;
  onFiles: (files: File[]) => void;
  onRemove: (id: string) => void;
  testId: string;
};

/**
 * A drop box for pictures: click it, drop files on it, or Tab to it and press Space or Enter.
 * The file input itself is the focusable control (visually hidden, the box draws its focus
 * ring), so the native picker and screen readers work as usual. Chosen pictures show below as
 * thumbnails, each with Remove.
 */
export function ImagePicker({ label, hint, multiple, disabled, images, error, onFiles, onRemove, testId }: ImagePickerProps) {
  const id = useId();
  const { zoneProps } = useDropZone({ disabled, error: error, onFiles: onFiles });
  return (
    <Stack gap="2">
      <chakra.label
        htmlFor={`${id}-input`}
        display="flex"
        alignItems="center"
        justifyContent="center"
        minH="28"
        px="4"
        py="5"
        textAlign="center"
        rounded="l2"
        borderWidth="2px"
        borderStyle="dashed"
        {...zoneProps}
      >
        <chakra.input
          id={`${id}-input`}
          type="file"
          accept={ACCEPTED_IMAGE_TYPES.join(',')}
          multiple={multiple}
          srOnly
          disabled={disabled}
          aria-label={label}
          aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`}
          aria-invalid={error ? true : undefined}
          data-testid={`${testId}-input`}
          onChange={(e) => {
            const input = e.currentTarget;
            const files = [...(input.files ?? [])];
            // The same file chosen again must fire change again.
            input.value = '';
            if (files.length) onFiles(files);
          }}
        />
        <Stack gap="0.5" aria-hidden="true">
          <Text fontWeight="medium">{label}</Text>
          <Text textStyle="xs" color="fg.muted">
            Click, or drop {multiple ? 'images' : 'an image'} here
          </Text>
        </Stack>
      </chakra.label>
      <Text id={`${id}-hint`} textStyle="xs" color="fg.muted">
        {hint}
      </Text>
      {error && (
        <Text id={`${id}-error`} role="alert" textStyle="sm" color="fg.error" data-testid={`${testId}-error`}>
          {error}
        </Text>
      )}
      {images.length > 0 && (
        <SimpleGrid columns={{ base: 3, sm: 5 }} gap="2" as="ul" listStyleType="none" aria-label={`${label}: chosen`}>
          {images.map((image) => (
            <Box
              as="li"
              key={image.id}
              position="relative"
              aspectRatio="1"
              rounded="l2"
              overflow="hidden"
              borderWidth="1px"
              bg="bg.muted"
              data-testid={`${testId}-thumb`}
            >
              {image.preview ? (
                <Image src={image.preview} alt={image.file.name} w="full" h="full" objectFit="cover" />
              ) : (
                <Text textStyle="xs" p="2" wordBreak="break-all">
                  {image.file.name}
                </Text>
              )}
              <CloseButton
                size="2xs"
                variant="solid"
                position="absolute"
                top="1"
                insetEnd="1"
                aria-label={`Remove ${image.file.name}`}
                disabled={disabled}
                onClick={() => onRemove(image.id)}
              />
            </Box>
          ))}
        </SimpleGrid>
      )}
    </Stack>
  );
}
