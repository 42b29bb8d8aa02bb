import { useOnboardingGateway } from '../features/onboarding/gateway.ts';
import { OnboardingWizard } from '../features/onboarding/onboarding-wizard.tsx';

/**
 * /welcome. The shell's route already sends an onboarded user to the Midjourney tool before this
 * remote loads, so the wizard only ever meets users who still have to onboard.
 */
export function WelcomeRoute() {
  return <OnboardingWizard gateway={useOnboardingGateway()} />;
}
