import { useId } from 'react';
import { Badge, Box, chakra, CloseButton, Icon, Image, SimpleGrid, Stack, Text } from '@aim/shared-kit/ui';
import { AI_PHOTO } from '@aim/shared-kit/domain';
import { isLowResolution, PHOTO_TYPES } from '../ai-photos-rules.ts';
import type { SelectedPhoto, SelectionNotice } from '../use-photo-selection.ts';
import { useDropZone } from '../../../components/use-drop-zone.ts';

type PhotoPickerProps = {
  photos: SelectedPhoto[];
  notice: SelectionNotice;
  maxMessage: string | null;
  warnings: string[];
  /** The 10–30 rule, once the user tried to upload with too few or too many. */
  error: string | null;
  disabled: boolean;
  onFiles: (files: File[]) => void;
  onRemove: (id: string) => void;
  onMeasured: (id: string, size: { width: number; height: number } | null) => void;
};

/**
 * Step 1's photos: a drop zone whose file input (several files) is the focusable control (Tab,
 * then Space or Enter opens the picker), thumbnails with a Remove button each, and the messages:
 * the maximum of 30, refused types, and the per-file low-resolution warnings.
 */
export function PhotoPicker({ photos, notice, maxMessage, warnings, error, disabled, onFiles, onRemove, onMeasured }: PhotoPickerProps) {
  const id = useId();
  const { zoneProps } = useDropZone({ disabled, error: error, onFiles: onFiles });
  const described = [`${id}-hint`, error ? `${id}-error` : null].filter(Boolean).join(' ');

  return (
    <Stack gap="3" data-testid="photo-picker">
      <chakra.label
        htmlFor={`${id}-input`}
        display="flex"
        flexDirection="column"
        alignItems="center"
        justifyContent="center"
        gap="1"
        minH="32"
        px="4"
        py="5"
        textAlign="center"
        rounded="l2"
        borderWidth="2px"
        borderStyle="dashed"
        color="fg.muted"
        {...zoneProps}
      >
        <chakra.input
          id={`${id}-input`}
          type="file"
          multiple
          accept={PHOTO_TYPES.join(',')}
          srOnly
          disabled={disabled}
          aria-label="Photos"
          aria-describedby={described}
          aria-invalid={error ? true : undefined}
          data-testid="photo-input"
          onChange={(e) => {
            const input = e.currentTarget;
            const files = [...(input.files ?? [])];
            // The same files chosen again must fire change again.
            input.value = '';
            if (files.length) onFiles(files);
          }}
        />
        <Icon size="xl" color="brand.fg" aria-hidden>
          <svg aria-hidden="true" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round">
            <path d="M4 8h3l1.5-2h7L17 8h3v11H4z" />
            <circle cx="12" cy="13.5" r="3" />
          </svg>
        </Icon>
        <Text fontWeight="medium" color="fg">
          Choose photos
        </Text>
        <Text id={`${id}-hint`} textStyle="xs">
          {`${AI_PHOTO.minImages}–${AI_PHOTO.maxImages} photos of the same person, alone, face clearly visible; jpeg, png or webp, at least 512×512. Or drop them here.`}
        </Text>
      </chakra.label>

      <Text textStyle="sm" color={error ? 'fg.error' : 'fg.muted'} id={`${id}-error`} data-testid="photo-count" role={error ? 'alert' : undefined}>
        {error ?? `${photos.length} of ${AI_PHOTO.maxImages} photos selected`}
      </Text>

      {maxMessage && (
        <Text role="alert" textStyle="sm" color="fg.warning" data-testid="photos-max">
          {maxMessage}
        </Text>
      )}
      {notice.refused.map((line) => (
        <Text key={line} role="alert" textStyle="sm" color="fg.error" data-testid="photos-refused">
          {line}
        </Text>
      ))}

      {photos.length > 0 && (
        <SimpleGrid as="ul" listStyleType="none" columns={{ base: 3, sm: 4, lg: 6 }} gap="2" aria-label="Selected photos" data-testid="photo-grid">
          {photos.map((photo) => (
            <PhotoThumb key={photo.id} photo={photo} disabled={disabled} onRemove={onRemove} onMeasured={onMeasured} />
          ))}
        </SimpleGrid>
      )}

      {warnings.length > 0 && (
        <Stack gap="0.5" role="status" data-testid="photo-warnings">
          {warnings.map((line) => (
            <Text key={line} textStyle="sm" color="fg.warning" data-testid="photo-warning">
              {line}
            </Text>
          ))}
        </Stack>
      )}
    </Stack>
  );
}

function PhotoThumb({
  photo,
  disabled,
  onRemove,
  onMeasured,
}: {
  photo: SelectedPhoto;
  disabled: boolean;
  onRemove: (id: string) => void;
  onMeasured: (id: string, size: { width: number; height: number } | null) => void;
}) {
  const name = photo.file.name;
  const isLow = !!photo.size && isLowResolution(photo.size);
  return (
    <Box as="li" position="relative" data-testid="photo-thumb" data-file={name} data-low-resolution={isLow || undefined}>
      <Box
        aspectRatio="1"
        rounded="l2"
        overflow="hidden"
        borderWidth="1px"
        borderColor={isLow || photo.isUnreadable ? 'border.warning' : 'border'}
        bg="bg.muted"
      >
        <Image
          src={photo.preview}
          alt={name}
          title={photo.size ? `${name} (${photo.size.width}×${photo.size.height})` : name}
          w="full"
          h="full"
          objectFit="cover"
          onLoad={(e) => onMeasured(photo.id, { width: e.currentTarget.naturalWidth, height: e.currentTarget.naturalHeight })}
          onError={() => onMeasured(photo.id, null)}
        />
      </Box>
      {(isLow || photo.isUnreadable) && (
        <Badge position="absolute" left="1" bottom="1" size="xs" colorPalette="orange" variant="solid">
          {photo.isUnreadable ? 'Unreadable' : 'Low res'}
        </Badge>
      )}
      <CloseButton
        position="absolute"
        top="1"
        right="1"
        size="2xs"
        variant="solid"
        rounded="full"
        disabled={disabled}
        aria-label={`Remove ${name}`}
        onClick={() => onRemove(photo.id)}
      />
    </Box>
  );
}
