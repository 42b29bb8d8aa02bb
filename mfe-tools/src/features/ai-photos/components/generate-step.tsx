import { type FormEvent, type KeyboardEvent, useState } from 'react';
import { Alert, Box, Button, Field, HStack, Image, NativeSelect, SimpleGrid, Spinner, Stack, Text, Textarea, Wrap } from '@aim/shared-kit/ui';
import { AI_PHOTO } from '@aim/shared-kit/domain';
import { ASPECT_RATIOS, type AspectRatio, PROMPT_IDEAS, PROMPT_MESSAGE } from '../ai-photos-rules.ts';
import { CostTag } from '../../pricing/action-prices.tsx';

const RATIO_LABELS: Record<AspectRatio, string> = {
  '1:1': '1:1 square',
  '3:4': '3:4 portrait',
  '2:3': '2:3 portrait',
  '9:16': '9:16 tall',
  '4:3': '4:3 landscape',
  '3:2': '3:2 landscape',
  '16:9': '16:9 wide',
};

export type GenerateSettings = { prompt: string; aspectRatio: AspectRatio };

type GenerateFormProps = {
  settings: GenerateSettings;
  onSettings: (settings: GenerateSettings) => void;
  /** The server's reason after 'Error generating AI Photos!'. */
  error: string | null;
  busy: boolean;
  /** A generation of this model is still running: one at a time. */
  isRunning: boolean;
  ready: boolean;
  onGenerate: () => void;
};

/** Step 3: prompt (ideas fill it; Enter generates, Shift+Enter adds a line) and aspect ratio; 4 photos. */
export function GenerateForm({ settings, onSettings, error, busy, isRunning, ready, onGenerate }: GenerateFormProps) {
  const [isChecked, setChecked] = useState(false);
  const message = isChecked && !settings.prompt.trim() ? PROMPT_MESSAGE : null;

  function submit(e?: FormEvent) {
    e?.preventDefault();
    if (busy || isRunning || !ready) return;
    setChecked(true);
    if (settings.prompt.trim()) onGenerate();
  }

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      submit();
    }
  };

  return (
    <Stack asChild gap="4">
      <form onSubmit={submit} noValidate data-testid="generate-form" aria-label="Generate">
        <Field.Root required invalid={!!message}>
          <Field.Label>Prompt</Field.Label>
          <Textarea
            value={settings.prompt}
            onChange={(e) => onSettings({ ...settings, prompt: e.currentTarget.value })}
            onKeyDown={onKeyDown}
            rows={3}
            autoresize
            placeholder="Describe the photos: the setting, the light, the style"
            data-testid="generate-prompt"
          />
          {message ? (
            <Field.ErrorText data-testid="prompt-error">{message}</Field.ErrorText>
          ) : (
            <Field.HelperText>Enter generates; Shift+Enter adds a line.</Field.HelperText>
          )}
        </Field.Root>
        <Wrap gap="2" aria-label="Prompt ideas">
          {PROMPT_IDEAS.map((idea) => (
            <Button key={idea} size="xs" variant="outline" rounded="full" type="button" onClick={() => onSettings({ ...settings, prompt: idea })}>
              {idea}
            </Button>
          ))}
        </Wrap>
        <HStack gap="4" align="end" wrap="wrap">
          <Field.Root maxW="56">
            <Field.Label>Aspect ratio</Field.Label>
            <NativeSelect.Root>
              <NativeSelect.Field
                value={settings.aspectRatio}
                onChange={(e) => onSettings({ ...settings, aspectRatio: e.currentTarget.value as AspectRatio })}
                data-testid="aspect-ratio"
              >
                {ASPECT_RATIOS.map((r) => (
                  <option key={r} value={r}>
                    {RATIO_LABELS[r]}
                  </option>
                ))}
              </NativeSelect.Field>
              <NativeSelect.Indicator />
            </NativeSelect.Root>
          </Field.Root>
          <Button type="submit" colorPalette="brand" loading={busy} loadingText="Starting..." disabled={!ready || isRunning}>
            {`Generate ${AI_PHOTO.generatedImages} photos`}
            <CostTag type="ai-photo-generate" quantity={AI_PHOTO.generatedImages} />
          </Button>
        </HStack>
        {error && (
          <Alert.Root status="error" data-testid="generate-error">
            <Alert.Indicator />
            <Alert.Description>{error}</Alert.Description>
          </Alert.Root>
        )}
      </form>
    </Stack>
  );
}

type PhotoResultsProps = {
  taskId: string;
  slots: (string | null)[];
  /** The aspect ratio the photos were asked in, so empty places take their shape. */
  aspectRatio: string;
  /** The server's label of how they were made (result.note). */
  note: string | null;
  prompt: string | null;
  downloading: number | null;
  onDownload: (index: number, url: string) => void;
};

/** The photos of a generation as they arrive (empty places spin), each with its Download. */
export function PhotoResults({ taskId, slots, aspectRatio, note, prompt, downloading, onDownload }: PhotoResultsProps) {
  const ratio = aspectRatio.replace(':', ' / ');
  return (
    <Stack gap="3" data-testid="generated-photos" data-task-id={taskId} data-count={slots.filter(Boolean).length}>
      {prompt && (
        <Text textStyle="sm" color="fg.muted" lineClamp={2}>
          Prompt:{' '}
          <Text as="span" color="fg">
            {prompt}
          </Text>
        </Text>
      )}
      {note && (
        <Alert.Root status="info" size="sm" data-testid="result-note">
          <Alert.Indicator />
          <Alert.Description>{note}</Alert.Description>
        </Alert.Root>
      )}
      {slots.length === 0 ? (
        <Text textStyle="sm" color="fg.muted" data-testid="no-photos">
          This generation finished without photos.
        </Text>
      ) : (
        <SimpleGrid as="ul" listStyleType="none" columns={{ base: 1, sm: 2 }} gap="3">
          {/* A place keeps its position (its key) while its photo arrives. */}
          {slots.map((url, i) => (
            <Box as="li" key={i} data-testid="generated-photo" data-index={i} data-ready={!!url}>
              <Box position="relative" rounded="l2" overflow="hidden" borderWidth="1px" bg="bg.subtle" style={{ aspectRatio: ratio }}>
                {url ? (
                  <Image src={url} alt={`AI photo ${i + 1}`} w="full" h="full" objectFit="cover" />
                ) : (
                  <Stack position="absolute" inset="0" align="center" justify="center" gap="2" color="fg.muted" aria-label={`Photo ${i + 1} is being made`}>
                    <Spinner size="lg" color="brand.fg" />
                    <Text textStyle="xs">Photo {i + 1}</Text>
                  </Stack>
                )}
              </Box>
              {url && (
                <Button
                  mt="2"
                  size="xs"
                  variant="outline"
                  w="full"
                  loading={downloading === i}
                  loadingText="Downloading..."
                  aria-label={`Download photo ${i + 1}`}
                  onClick={() => onDownload(i, url)}
                >
                  Download
                </Button>
              )}
            </Box>
          ))}
        </SimpleGrid>
      )}
    </Stack>
  );
}
