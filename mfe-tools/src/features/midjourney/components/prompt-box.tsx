import type { ReactNode } from 'react';
import { Box, Button, Field, HStack, Stack, Text, Textarea, Wrap } from '@chakra-ui/react';
import { isSubmitKey } from '../prompt-rules.ts';
import { EXAMPLE_PROMPTS } from '../task-model.ts';

type Props = {
  value: string;
  onChange: (value: string) => void;
  onSubmit: () => void;
  error: string | null;
  busy: boolean;
  disabled: boolean;
  /** The upload control, placed beside Imagine. */
  uploadSlot: ReactNode;
};

export function PromptBox({ value, onChange, onSubmit, error, busy, disabled, uploadSlot }: Props) {
  return (
    <Stack
      gap="3"
      as="form"
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
      aria-label="Imagine"
    >
      <Field.Root invalid={error !== null}>
        <Field.Label>Prompt</Field.Label>
        <Textarea
          name="prompt"
          value={value}
          rows={3}
          autoresize
          maxH="12lh"
          placeholder="Describe the image you want, e.g. a lighthouse on a cliff at dawn, oil painting"
          onChange={(e) => onChange(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (isSubmitKey({ key: e.key, shiftKey: e.shiftKey, isComposing: e.nativeEvent.isComposing })) {
              e.preventDefault();
              onSubmit();
            }
          }}
          data-testid="prompt-input"
        />
        {error ? (
          <Field.ErrorText data-testid="prompt-error">{error}</Field.ErrorText>
        ) : (
          <Field.HelperText>Enter to imagine, Shift+Enter for a new line.</Field.HelperText>
        )}
      </Field.Root>
      <Box>
        <Text textStyle="xs" color="fg.muted" mb="1.5" id="example-prompts-label">
          Try an example
        </Text>
        <Wrap gap="2" role="group" aria-labelledby="example-prompts-label">
          {EXAMPLE_PROMPTS.map((example) => (
            <Button key={example} size="xs" variant="surface" rounded="full" onClick={() => onChange(example)}>
              {example}
            </Button>
          ))}
        </Wrap>
      </Box>
      <HStack justify="space-between" wrap="wrap" gap="3">
        {uploadSlot}
        <Button type="submit" colorPalette="brand" loading={busy} loadingText="Imagining..." disabled={disabled} minW="32">
          Imagine
        </Button>
      </HStack>
    </Stack>
  );
}
