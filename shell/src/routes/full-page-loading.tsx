import { Center, Spinner, Text, VStack } from '@aim/shared-kit/ui';

export function FullPageLoading({ label = 'Loading...' }: { label?: string }) {
  return (
    <Center minH="100vh" bg="bg">
      {/* aria-busy: also what shared-kit/src/ui.ts waits for to be gone before its idle preload */}
      <VStack gap="3" role="status" aria-busy="true">
        <Spinner size="lg" color="brand.solid" />
        <Text color="fg.muted">{label}</Text>
      </VStack>
    </Center>
  );
}
