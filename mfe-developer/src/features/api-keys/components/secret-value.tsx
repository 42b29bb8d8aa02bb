import type { ReactNode } from 'react';
import { Box } from '@aim/shared-kit/ui';

/** A key or secret as the API Keys screen shows it: monospace, in a bordered box, wrapping anywhere. */
export function SecretValue({ testId, revealed, children }: { testId: string; revealed?: boolean; children: ReactNode }) {
  return (
    <Box
      as="code"
      display="block"
      fontFamily="mono"
      textStyle="sm"
      px="3"
      py="2.5"
      rounded="l2"
      borderWidth="1px"
      bg="bg.subtle"
      overflowWrap="anywhere"
      data-testid={testId}
      data-revealed={revealed}
    >
      {children}
    </Box>
  );
}
