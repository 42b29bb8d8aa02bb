import { useId } from 'react';
import { Box, Button, HStack, Image, List, Stack, Text } from '@aim/shared-kit/ui';

type PromptChoicesProps = {
  /** describe: "Prompts for this image"; shorten: "Shorter prompts". */
  title: string;
  prompts: string[];
  /** describe: the picture that was described. */
  imageUrl: string | null;
  onUse: (prompt: string) => void;
};

/** A describe or shorten result: its prompts, each with "Use this prompt" (fills the prompt box). */
export function PromptChoices({ title, prompts, imageUrl, onUse }: PromptChoicesProps) {
  const id = useId();
  return (
    <Stack gap="3" data-testid="prompt-choices" direction={{ base: 'column', md: 'row' }} align="start">
      {imageUrl && (
        <Box flexShrink="0" w={{ base: 'full', md: '48' }} borderWidth="1px" rounded="l3" p="2" bg="bg.panel">
          <Image src={imageUrl} alt="The described image" w="full" rounded="l2" bg="bg.muted" objectFit="contain" data-testid="described-image" />
        </Box>
      )}
      <Stack gap="2" flex="1" minW="0">
        <Text fontWeight="medium" id={`${id}-title`}>
          {title}
        </Text>
        {prompts.length === 0 ? (
          <Text color="fg.muted">This task has no prompts.</Text>
        ) : (
          <List.Root as="ol" gap="2" listStyle="none" aria-labelledby={`${id}-title`}>
            {prompts.map((prompt, i) => (
              <List.Item key={`${i}-${prompt}`} borderWidth="1px" rounded="l2" p="3" bg="bg.panel" data-testid="prompt-choice">
                <HStack gap="3" align="start" justify="space-between" w="full">
                  <Text textStyle="sm" id={`${id}-${i}`} flex="1" minW="0" wordBreak="break-word">
                    <Text as="span" color="fg.muted" me="1.5">
                      {i + 1}.
                    </Text>
                    {prompt}
                  </Text>
                  <Button size="xs" variant="surface" colorPalette="brand" flexShrink="0" aria-describedby={`${id}-${i}`} onClick={() => onUse(prompt)}>
                    Use this prompt
                  </Button>
                </HStack>
              </List.Item>
            ))}
          </List.Root>
        )}
      </Stack>
    </Stack>
  );
}
