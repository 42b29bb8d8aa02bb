import { Center, Spinner, Text, VStack } from '@aim/shared-kit/ui';

export function FullPageLoading({ label = 'Loading...' }: { label?: string }) {
  return (
    <Center minH="100vh" bg="bg">
      <VStack gap="3">
        <Spinner size="lg" color="brand.solid" />
        <Text color="fg.muted">{label}</Text>
      </VStack>
    </Center>
  );
}
