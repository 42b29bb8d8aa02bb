import type { ReactNode, Ref } from 'react';
import { Box, Button, Field, HStack, Stack, Text, Textarea, Wrap } from '@aim/shared-kit/ui';
import { isSubmitKey } from '../prompt-rules.ts';
import { EXAMPLE_PROMPTS } from '../task-model.ts';
import { CostTag } from '../../pricing/action-prices.tsx';

type Props = {
  value: string;
  onChange: (value: string) => void;
  onSubmit: () => void;
  /** Shorten: shorter versions of the prompt, as a new task. */
  onShorten: () => void;
  error: string | null;
  busy: boolean;
  shortenBusy: boolean;
  disabled: boolean;
  /** The upload control, placed beside Imagine. */
  uploadSlot: ReactNode;
  /** The prompt box itself ("Use this prompt" focuses it). */
  inputRef?: Ref<HTMLTextAreaElement>;
};

export function PromptBox({ value, onChange, onSubmit, onShorten, error, busy, shortenBusy, disabled, uploadSlot, inputRef }: Props) {
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
          ref={inputRef}
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
        <HStack gap="2">
          <Button variant="outline" loading={shortenBusy} loadingText="Shortening..." disabled={disabled} onClick={onShorten}>
            Shorten
            <CostTag type="shorten" />
          </Button>
          <Button type="submit" colorPalette="brand" loading={busy} loadingText="Imagining..." disabled={disabled} minW="32">
            Imagine
            <CostTag type="imagine" />
          </Button>
        </HStack>
      </HStack>
    </Stack>
  );
}
