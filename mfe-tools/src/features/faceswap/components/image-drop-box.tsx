import { useId } from 'react';
import { Card, chakra, Icon, Image, Spinner, Stack, Text } from '@aim/shared-kit/ui';
import { ACCEPTED_IMAGE_TYPES } from '@aim/shared-kit/domain';
import { IMAGE_LABELS, type ImageRole, type ImageSlot } from '../faceswap-rules.ts';
import { useDropZone } from '../../../components/use-drop-zone.ts';

type ImageDropBoxProps = {
  role: ImageRole;
  /** What this picture is for, under the box's title. */
  hint: string;
  slot: ImageSlot;
  disabled: boolean;
  onFile: (file: File) => void;
};

/**
 * One upload box (Source Image or Target Image): click, drop, or focus it with Tab and press
 * Space or Enter to choose a file. The file input itself is the focusable control (visually
 * hidden; the box draws its focus ring), so the native picker and screen readers work as usual.
 */
export function ImageDropBox({ role, hint, slot, disabled, onFile }: ImageDropBoxProps) {
  const label = IMAGE_LABELS[role];
  const id = useId();
  const { zoneProps } = useDropZone({ disabled, error: slot.error, onFiles: (files) => onFile(files[0]!) });
  const described = [`${id}-hint`, slot.error ? `${id}-error` : null].filter(Boolean).join(' ');

  return (
    <Card.Root variant="outline" size="sm" data-testid={`${role}-box`}>
      <Card.Header>
        <Card.Title as="h2" textStyle="md">
          {label}
        </Card.Title>
        <Text id={`${id}-hint`} textStyle="sm" color="fg.muted">
          {hint}
        </Text>
      </Card.Header>
      <Card.Body gap="2">
        <chakra.label
          htmlFor={`${id}-input`}
          position="relative"
          display="flex"
          alignItems="center"
          justifyContent="center"
          aspectRatio="1"
          w="full"
          overflow="hidden"
          rounded="l2"
          borderWidth="2px"
          borderStyle={slot.preview ? 'solid' : 'dashed'}
          {...zoneProps}
        >
          <chakra.input
            id={`${id}-input`}
            type="file"
            accept={ACCEPTED_IMAGE_TYPES.join(',')}
            srOnly
            disabled={disabled}
            aria-label={label}
            aria-describedby={described}
            aria-invalid={slot.error ? true : undefined}
            data-testid={`${role}-input`}
            onChange={(e) => {
              const input = e.currentTarget;
              const file = input.files?.[0];
              // The same file chosen again must fire change again.
              input.value = '';
              if (file) onFile(file);
            }}
          />
          {slot.preview ? (
            <Image src={slot.preview} alt={`${label} preview`} w="full" h="full" objectFit="contain" data-testid={`${role}-preview`} />
          ) : (
            <Stack align="center" gap="1" px="4" textAlign="center" color="fg.muted" aria-hidden="true">
              <Icon size="xl" color="brand.fg">
                <svg aria-hidden="true" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round">
                  <path d="M12 16V4" />
                  <path d="M7 9l5-5 5 5" />
                  <path d="M4 16v3a1 1 0 0 0 1 1h14a1 1 0 0 0 1-1v-3" />
                </svg>
              </Icon>
              <Text fontWeight="medium" color="fg">
                Choose an image
              </Text>
              <Text textStyle="xs">or drop one here</Text>
              <Text textStyle="xs">jpeg, png, gif or webp, up to 3 MB</Text>
            </Stack>
          )}
          {slot.uploading && (
            <Stack position="absolute" inset="0" align="center" justify="center" gap="2" bg="bg/70" data-testid={`${role}-uploading`}>
              <Spinner size="lg" color="brand.fg" />
              <Text textStyle="sm">Uploading...</Text>
            </Stack>
          )}
        </chakra.label>
        {slot.error ? (
          <Text id={`${id}-error`} role="alert" textStyle="sm" color="fg.error" data-testid={`${role}-error`}>
            {slot.error}
          </Text>
        ) : (
          slot.preview &&
          !slot.uploading &&
          !disabled && (
            <Text textStyle="xs" color="fg.muted">
              Click or drop another image to replace it.
            </Text>
          )
        )}
      </Card.Body>
    </Card.Root>
  );
}
