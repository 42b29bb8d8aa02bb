import { type FormEvent, useState } from 'react';
import { Alert, Button, Field, HStack, Input, NativeSelect, Progress, RadioGroup, SimpleGrid, Stack, Text } from '@aim/shared-kit/ui';
import { ETHNICITIES, type Ethnicity, formatBytes, type Gender, GENDERS, parseAge, type PrepareField, validatePrepare } from '../ai-photos-rules.ts';
import type { UploadProgress } from '../use-training-upload.ts';
import type { usePhotoSelection } from '../use-photo-selection.ts';
import { PhotoPicker } from './photo-picker.tsx';
import { CostTag } from '../../pricing/action-prices.tsx';

export type Subject = { gender: string; ethnicity: string; age: string };
export const EMPTY_SUBJECT: Subject = { gender: '', ethnicity: '', age: '' };

type PrepareStepProps = {
  selection: ReturnType<typeof usePhotoSelection>;
  subject: Subject;
  onSubject: (subject: Subject) => void;
  progress: UploadProgress;
  /** The server's reason after 'Error uploading and preparing training data!' (or an unreadable file). */
  error: string | null;
  /** The user's API key is known. */
  ready: boolean;
  onUpload: (photos: { file: File; size: { width: number; height: number } | null }[], subject: { gender: Gender; ethnicity: Ethnicity; age: number }) => void;
};

/** Step 1, Prepare (spec §5): 10–30 photos, gender, ethnicity, age; then the upload with its progress. */
export function PrepareStep({ selection, subject, onSubject, progress, error, ready, onUpload }: PrepareStepProps) {
  const [isChecked, setChecked] = useState(false);
  const busy = progress.phase !== 'idle';
  const errors = isChecked ? validatePrepare({ photoCount: selection.photos.length, ...subject }) : {};
  const invalid = (field: PrepareField) => !!errors[field];

  function submit(e: FormEvent) {
    e.preventDefault();
    if (busy || !ready) return;
    setChecked(true);
    const found = validatePrepare({ photoCount: selection.photos.length, ...subject });
    const age = parseAge(subject.age);
    if (Object.keys(found).length > 0 || age === null) return;
    onUpload(
      selection.photos.map((p) => ({ file: p.file, size: p.size })),
      { gender: subject.gender as Gender, ethnicity: subject.ethnicity as Ethnicity, age },
    );
  }

  return (
    <Stack asChild gap="5">
      <form onSubmit={submit} noValidate data-testid="prepare-form" aria-label="Prepare">
        <PhotoPicker
          photos={selection.photos}
          notice={selection.notice}
          maxMessage={selection.maxMessage}
          warnings={selection.warnings}
          error={errors.photos ?? null}
          disabled={busy}
          onFiles={selection.add}
          onRemove={selection.remove}
          onMeasured={selection.measured}
        />

        <SimpleGrid columns={{ base: 1, md: 3 }} gap="4">
          <Field.Root required invalid={invalid('gender')} disabled={busy}>
            <RadioGroup.Root
              value={subject.gender || null}
              onValueChange={(d) => onSubject({ ...subject, gender: d.value ?? '' })}
              name="gender"
              colorPalette="brand"
              aria-labelledby="ai-photo-gender-label"
              disabled={busy}
            >
              <Text id="ai-photo-gender-label" textStyle="sm" fontWeight="medium" mb="1.5">
                Gender
              </Text>
              <HStack gap="5" minH="10">
                {GENDERS.map((g) => (
                  <RadioGroup.Item key={g.value} value={g.value}>
                    <RadioGroup.ItemHiddenInput />
                    <RadioGroup.ItemIndicator />
                    <RadioGroup.ItemText>{g.label}</RadioGroup.ItemText>
                  </RadioGroup.Item>
                ))}
              </HStack>
            </RadioGroup.Root>
            <Field.ErrorText data-testid="gender-error">{errors.gender}</Field.ErrorText>
          </Field.Root>

          <Field.Root required invalid={invalid('ethnicity')} disabled={busy}>
            <Field.Label>Ethnicity</Field.Label>
            <NativeSelect.Root>
              <NativeSelect.Field
                placeholder="Select ethnicity"
                value={subject.ethnicity}
                onChange={(e) => onSubject({ ...subject, ethnicity: e.currentTarget.value })}
                data-testid="ethnicity-select"
              >
                {ETHNICITIES.map((o) => (
                  <option key={o.value} value={o.value}>
                    {o.label}
                  </option>
                ))}
              </NativeSelect.Field>
              <NativeSelect.Indicator />
            </NativeSelect.Root>
            <Field.ErrorText data-testid="ethnicity-error">{errors.ethnicity}</Field.ErrorText>
          </Field.Root>

          <Field.Root required invalid={invalid('age')} disabled={busy}>
            <Field.Label>Age</Field.Label>
            <Input
              inputMode="numeric"
              autoComplete="off"
              placeholder="e.g. 34"
              value={subject.age}
              onChange={(e) => onSubject({ ...subject, age: e.currentTarget.value })}
              data-testid="age-input"
            />
            <Field.ErrorText data-testid="age-error">{errors.age}</Field.ErrorText>
          </Field.Root>
        </SimpleGrid>

        {error && (
          <Alert.Root status="error" data-testid="prepare-error">
            <Alert.Indicator />
            <Alert.Description>{error}</Alert.Description>
          </Alert.Root>
        )}

        {busy ? (
          <UploadProgressBar progress={progress} />
        ) : (
          <HStack justify="flex-end" gap="3">
            {!ready && (
              <Text textStyle="sm" color="fg.muted">
                Loading your account...
              </Text>
            )}
            <Button type="submit" colorPalette="brand" disabled={!ready}>
              Upload photos
              <CostTag type="ai-photo-upload" />
            </Button>
          </HStack>
        )}
      </form>
    </Stack>
  );
}

/** The photos being read (real progress), then the one large request on its way (indeterminate). */
function UploadProgressBar({ progress }: { progress: UploadProgress }) {
  if (progress.phase === 'idle') return null;
  const label =
    progress.phase === 'reading'
      ? `Preparing photos: ${progress.done} of ${progress.total}`
      : `Uploading ${progress.count} photos (${formatBytes(progress.bytes)})...`;
  return (
    <Progress.Root
      value={progress.phase === 'reading' ? Math.round((progress.done / Math.max(1, progress.total)) * 100) : null}
      colorPalette="brand"
      w="full"
      data-testid="upload-progress"
      data-phase={progress.phase}
      aria-live="polite"
    >
      <Progress.Label mb="1.5" textStyle="sm">
        {label}
      </Progress.Label>
      <Progress.Track>
        <Progress.Range />
      </Progress.Track>
    </Progress.Root>
  );
}
