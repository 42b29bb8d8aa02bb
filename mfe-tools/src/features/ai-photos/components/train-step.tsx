import { type FormEvent, useState } from 'react';
import { Alert, Box, Button, Field, HStack, Image, Input, List, Stack, Text } from '@aim/shared-kit/ui';
import { AI_PHOTO } from '@aim/shared-kit/domain';
import { validateTriggerWord } from '@aim/shared-kit/validate';
import type { PhotoCheck } from '../ai-photos-rules.ts';

/**
 * What the upload check said about the photos: how many can be used, why the others cannot, and
 * how the server checked them (its result.note).
 */
export function PhotoVerdicts({ check, note }: { check: PhotoCheck | null; note: string | null }) {
  const noteLine = note && (
    <Text textStyle="xs" color="fg.muted" mt="2" data-testid="upload-note">
      {note}
    </Text>
  );
  if (!check) {
    return (
      <Stack gap="0" data-testid="photo-verdicts" data-refused="0">
        <Text textStyle="sm" color="fg.muted">
          Your photos were uploaded and prepared for training.
        </Text>
        {noteLine}
      </Stack>
    );
  }
  const { total, refused } = check;
  const title =
    total === null
      ? `${refused.length} ${refused.length === 1 ? 'photo' : 'photos'} cannot be used`
      : refused.length
        ? `${total - refused.length} of ${total} photos can be used`
        : `All ${total} photos can be used`;
  return (
    <Alert.Root status={refused.length ? 'warning' : 'success'} data-testid="photo-verdicts" data-refused={refused.length}>
      <Alert.Indicator />
      <Alert.Content>
        <Alert.Title>{title}</Alert.Title>
        {refused.length > 0 && (
          <List.Root listStyleType="none" gap="1.5" mt="2" textStyle="sm" aria-label="Photos that cannot be used">
            {refused.map((photo) => (
              <List.Item key={photo.index} display="flex" alignItems="center" gap="2" data-testid="photo-verdict" data-index={photo.index}>
                {photo.url && <Image src={photo.url} alt="" boxSize="8" rounded="sm" objectFit="cover" flexShrink={0} />}
                <Text as="span">
                  <Text as="span" fontWeight="medium">
                    {photo.name}
                  </Text>
                  {`: ${photo.reason ?? 'cannot be used'}`}
                </Text>
              </List.Item>
            ))}
          </List.Root>
        )}
        {refused.length > 0 && (
          <Text textStyle="xs" mt="2" color="fg.muted">
            Training uses the others. To use different photos, start a new model.
          </Text>
        )}
        {noteLine}
      </Alert.Content>
    </Alert.Root>
  );
}

type TrainFormProps = {
  /** The server's reason after 'Error training the model!'. */
  error: string | null;
  busy: boolean;
  ready: boolean;
  onTrain: (triggerWord: string) => void;
};

/** Step 2 (spec §5): the trigger word, 6–12 characters ('Trigger word must be 6–12 characters'), then Train. */
export function TrainForm({ error, busy, ready, onTrain }: TrainFormProps) {
  const [word, setWord] = useState('');
  const [isChecked, setChecked] = useState(false);
  const check = validateTriggerWord(word.trim());
  const message = isChecked && !check.ok ? check.message : null;

  function submit(e: FormEvent) {
    e.preventDefault();
    if (busy || !ready) return;
    setChecked(true);
    if (validateTriggerWord(word.trim()).ok) onTrain(word.trim());
  }

  return (
    <Stack asChild gap="4">
      <form onSubmit={submit} noValidate data-testid="train-form" aria-label="Train">
        <Field.Root required invalid={!!message} disabled={busy}>
          <Field.Label>Trigger word</Field.Label>
          <HStack w="full" gap="3" align="start">
            <Input
              value={word}
              onChange={(e) => setWord(e.currentTarget.value)}
              autoComplete="off"
              spellCheck={false}
              placeholder="e.g. ohwxperson"
              maxW="sm"
              data-testid="trigger-word-input"
            />
            <Button type="submit" colorPalette="brand" loading={busy} loadingText="Starting..." disabled={!ready}>
              Train model
            </Button>
          </HStack>
          {message ? (
            <Field.ErrorText data-testid="trigger-word-error">{message}</Field.ErrorText>
          ) : (
            <Field.HelperText>
              {`${AI_PHOTO.triggerWord.min}–${AI_PHOTO.triggerWord.max} characters (${word.trim().length} now). A made-up word that stands for this person in your prompts.`}
            </Field.HelperText>
          )}
        </Field.Root>
        {error && (
          <Alert.Root status="error" data-testid="train-error">
            <Alert.Indicator />
            <Alert.Description>{error}</Alert.Description>
          </Alert.Root>
        )}
      </form>
    </Stack>
  );
}

/** The trigger word of a training that runs or ran. */
export function TriggerWord({ word }: { word: string | null | undefined }) {
  if (!word) return null;
  return (
    <Text textStyle="sm" color="fg.muted" data-testid="trigger-word">
      Trigger word:{' '}
      <Box as="span" fontFamily="mono" color="fg">
        {word}
      </Box>
    </Text>
  );
}
