import { Fragment } from 'react';
import { Box, Circle, HStack, Text } from '@aim/shared-kit/ui';
import { stepState, WIZARD_STEPS, type WizardStep, type WizardView } from '../ai-photos-rules.ts';

/** Spec §2: the wizard's three steps; the current one carries aria-current="step", done ones a tick. */
export function WizardSteps({ view }: { view: WizardView }) {
  return (
    <HStack as="ol" gap="3" listStyleType="none" aria-label="AI Photos steps" data-testid="wizard-steps" wrap="wrap">
      {WIZARD_STEPS.map((title, i) => {
        const state = stepState(i as WizardStep, view);
        const isLit = state !== 'upcoming';
        const isCurrent = view.step === i;
        return (
          <Fragment key={title}>
            {i > 0 && <Box as="li" aria-hidden flex="1" minW="6" maxW="24" h="0.5" rounded="full" bg={isLit ? 'brand.solid' : 'border'} />}
            <HStack as="li" gap="2" aria-current={isCurrent ? 'step' : undefined} data-testid={`wizard-step-${title.toLowerCase()}`} data-state={state}>
              <Circle
                size="7"
                textStyle="sm"
                fontWeight="semibold"
                bg={isLit ? 'brand.solid' : 'bg.muted'}
                color={isLit ? 'brand.contrast' : 'fg.muted'}
                aria-hidden
              >
                {state === 'done' ? '✓' : i + 1}
              </Circle>
              <Text textStyle="sm" fontWeight={isCurrent ? 'semibold' : 'normal'} color={isCurrent ? 'fg' : 'fg.muted'}>
                <Text as="span" srOnly>
                  {`Step ${i + 1} of ${WIZARD_STEPS.length}${state === 'done' ? ' (done)' : ''}: `}
                </Text>
                {title}
              </Text>
            </HStack>
          </Fragment>
        );
      })}
    </HStack>
  );
}
