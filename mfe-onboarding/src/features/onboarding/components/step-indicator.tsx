import { Fragment } from 'react';
import { Box, Circle, HStack, Text } from '@aim/shared-kit/ui';

const STEPS = ['Pick a goal', 'Setup'] as const;

/** Where the user is in the wizard; the current step carries aria-current="step". */
export function StepIndicator({ step }: { step: number }) {
  return (
    <HStack as="ol" gap="3" listStyleType="none" aria-label="Onboarding steps" data-testid="onboarding-steps">
      {STEPS.map((title, i) => (
        <Fragment key={title}>
          {i > 0 && <Box as="li" aria-hidden flex="1" maxW="20" h="0.5" rounded="full" bg={i <= step ? 'brand.solid' : 'border'} />}
          <HStack as="li" gap="2" aria-current={i === step ? 'step' : undefined}>
            <Circle size="7" textStyle="sm" fontWeight="semibold" bg={i <= step ? 'brand.solid' : 'bg.muted'} color={i <= step ? 'brand.contrast' : 'fg.muted'}>
              {i + 1}
            </Circle>
            <Text textStyle="sm" fontWeight={i === step ? 'semibold' : 'normal'} color={i === step ? 'fg' : 'fg.muted'}>
              <Text as="span" srOnly>
                {`Step ${i + 1} of ${STEPS.length}: `}
              </Text>
              {title}
            </Text>
          </HStack>
        </Fragment>
      ))}
    </HStack>
  );
}
