import { Heading, Stack, Text } from '@chakra-ui/react';

/** Stands in for a screen that a later issue builds; names the screen so routes can be checked. */
export function ScreenPlaceholder({ title, testId }: { title: string; testId: string }) {
  return (
    <Stack gap="2" data-testid={`screen-${testId}`}>
      <Heading as="h1" size="xl">
        {title}
      </Heading>
      <Text color="fg.muted">This screen is being built.</Text>
    </Stack>
  );
}
