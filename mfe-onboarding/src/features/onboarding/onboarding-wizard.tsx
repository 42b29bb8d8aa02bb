import { useEffect, useRef, useState } from 'react';
import { useNavigate } from '@aim/shared-kit/router';
import { Alert, Button, Card, Heading, HStack, Stack, Text } from '@aim/shared-kit/ui';
import type { OnboardingGateway } from './gateway.ts';
import {
  DEFAULT_GOAL,
  DEFAULT_LANGUAGE,
  DEFAULT_SAMPLE_TYPE,
  DEFAULT_STYLE,
  DEFAULT_TEMPLATE,
  failureText,
  finishOnboarding,
  GOALS,
  isOutOfCredits,
  MIDJOURNEY_PATH,
  SUBSCRIPTION_PATH,
  type Goal,
  type Setup,
} from './onboarding-model.ts';
import { ChoiceCards } from './components/choice-cards.tsx';
import { GoalIcon } from './components/goal-icons.tsx';
import { AiPhotoSetup, ApiSetup, DashboardSetup } from './components/setup-panels.tsx';
import { StepIndicator } from './components/step-indicator.tsx';

const GOAL_OPTIONS = GOALS.map((g) => ({ ...g, icon: <GoalIcon goal={g.value} /> }));

const FINISH_LABEL: Record<Goal, string> = { dashboard: 'Generate now', api: 'Generate sample', 'ai-photo': 'Upload photos' };
const SETUP_INTRO: Record<Goal, string> = {
  dashboard: 'Choose a prompt and a style; the first four pictures start right away.',
  api: 'Choose what the sample does and the language to write it in.',
  'ai-photo': 'Three steps from your own photos to new portraits of you:',
};

type Busy = 'finish' | 'to-billing' | 'to-tool';

/** Spec §2 Onboarding wizard: step 0 picks a goal, step 1 sets it up and finishes onboarding. */
export function OnboardingWizard({ gateway }: { gateway: OnboardingGateway }) {
  const navigate = useNavigate();
  const [step, setStep] = useState<0 | 1>(0);
  const [goal, setGoal] = useState<Goal>(DEFAULT_GOAL);
  const [template, setTemplate] = useState(DEFAULT_TEMPLATE);
  const [style, setStyle] = useState(DEFAULT_STYLE);
  const [requestType, setRequestType] = useState(DEFAULT_SAMPLE_TYPE);
  const [language, setLanguage] = useState(DEFAULT_LANGUAGE);
  const [busy, setBusy] = useState<Busy | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [creditsMessage, setCreditsMessage] = useState<string | null>(null);
  const created = useRef<{ prompt: string; taskId: string } | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const firstRender = useRef(true);

  // Keyboard and screen-reader users continue from the new step's heading, not from a button that vanished.
  useEffect(() => {
    if (firstRender.current) firstRender.current = false;
    else heading.current?.focus();
  }, [step]);

  const isBusy = busy !== null;

  function goTo(next: 0 | 1) {
    setFailure(null);
    setCreditsMessage(null);
    setStep(next);
  }

  function setup(): Setup {
    if (goal === 'dashboard') return { goal, template, style };
    if (goal === 'api') return { goal, language, requestType };
    return { goal };
  }

  /** Runs one way out of the wizard; on failure the message shows and the buttons come back. */
  async function leave(kind: Busy, toTarget: () => Promise<string>) {
    if (isBusy) return;
    setBusy(kind);
    setFailure(null);
    setCreditsMessage(null);
    try {
      const target = await toTarget();
      // flushSync, not the router's default transition: the target screen's remote may still be
      // loading, and a transition would keep /welcome mounted meanwhile. The shell's /welcome
      // guard would then see `onboarded` turn true (live user row) and redirect to the tool
      // instead. Busy stays set: the wizard is gone after this.
      void navigate(target, { replace: true, flushSync: true });
    } catch (error) {
      if (isOutOfCredits(error)) setCreditsMessage(failureText(error));
      else setFailure(failureText(error));
      setBusy(null);
    }
  }

  const finish = () =>
    leave('finish', () =>
      finishOnboarding(
        setup(),
        {
          imagine: async (prompt) => {
            const taskId = await gateway.imagine(prompt);
            created.current = { prompt, taskId };
            return taskId;
          },
          completeOnboarding: gateway.completeOnboarding,
        },
        created.current,
      ),
    );

  /** Out of credits: onboarding still ends, the user goes on without a task. */
  const skipGeneration = (kind: Busy, target: string) =>
    leave(kind, async () => {
      await gateway.completeOnboarding();
      return target;
    });

  return (
    <Stack gap="8" maxW="3xl" w="full" mx="auto" py={{ base: 2, md: 6 }} data-testid="screen-welcome">
      <Stack gap="2">
        <Text textStyle="sm" fontWeight="semibold" color="brand.fg">
          Welcome
        </Text>
        <Heading as="h1" size="2xl">
          Let&apos;s set up your first run
        </Heading>
        <Text color="fg.muted">Two quick steps, and you are where you want to start.</Text>
      </Stack>

      <StepIndicator step={step} />

      <Card.Root variant="outline" as="section" aria-labelledby="onboarding-step-heading" data-testid={`onboarding-step-${step + 1}`}>
        <Card.Body gap="6">
          <Stack gap="1">
            <Heading as="h2" size="lg" id="onboarding-step-heading" ref={heading} tabIndex={-1} outline="none">
              {step === 0 ? 'Pick a goal' : 'Setup'}
            </Heading>
            <Text color="fg.muted">{step === 0 ? 'What would you like to do first?' : SETUP_INTRO[goal]}</Text>
          </Stack>

          {step === 0 && (
            <Stack gap="3">
              <ChoiceCards label="Goal" options={GOAL_OPTIONS} value={goal} onChange={setGoal} columns={{ base: 1, md: 3 }} testId="goal" />
              <Text textStyle="sm" color="fg.muted">
                You can change this later.
              </Text>
            </Stack>
          )}
          {step === 1 && goal === 'dashboard' && (
            <DashboardSetup template={template} style={style} onTemplate={setTemplate} onStyle={setStyle} disabled={isBusy} />
          )}
          {step === 1 && goal === 'api' && (
            <ApiSetup requestType={requestType} language={language} onRequestType={setRequestType} onLanguage={setLanguage} disabled={isBusy} />
          )}
          {step === 1 && goal === 'ai-photo' && <AiPhotoSetup />}

          {creditsMessage && (
            <Alert.Root status="warning" role="alert" data-testid="onboarding-no-credits">
              <Alert.Indicator />
              <Alert.Content gap="2">
                <Alert.Title>{creditsMessage}</Alert.Title>
                <Alert.Description>
                  New accounts start with 0 credits, so this picture could not be generated yet. Get credits first, or go on to the Midjourney tool and generate
                  once your balance allows it.
                </Alert.Description>
                <HStack gap="2" wrap="wrap" pt="1">
                  <Button
                    size="sm"
                    colorPalette="brand"
                    loading={busy === 'to-billing'}
                    disabled={isBusy}
                    onClick={() => void skipGeneration('to-billing', SUBSCRIPTION_PATH)}
                  >
                    Get credits
                  </Button>
                  <Button
                    size="sm"
                    variant="outline"
                    colorPalette="gray"
                    bg="bg"
                    loading={busy === 'to-tool'}
                    disabled={isBusy}
                    onClick={() => void skipGeneration('to-tool', MIDJOURNEY_PATH)}
                  >
                    Continue without generating
                  </Button>
                </HStack>
              </Alert.Content>
            </Alert.Root>
          )}
          {failure && (
            <Alert.Root status="error" role="alert" data-testid="onboarding-error">
              <Alert.Indicator />
              <Alert.Title>{failure}</Alert.Title>
            </Alert.Root>
          )}
        </Card.Body>

        <Card.Footer justifyContent={step === 0 ? 'flex-end' : 'space-between'} gap="3">
          {step === 0 ? (
            <Button colorPalette="brand" minW="32" onClick={() => goTo(1)}>
              Continue
            </Button>
          ) : (
            <>
              <Button variant="outline" disabled={isBusy} onClick={() => goTo(0)}>
                Back
              </Button>
              <Button
                colorPalette="brand"
                minW="36"
                loading={busy === 'finish'}
                loadingText={goal === 'dashboard' ? 'Preparing...' : undefined}
                disabled={isBusy || !gateway.ready}
                onClick={() => void finish()}
              >
                {FINISH_LABEL[goal]}
              </Button>
            </>
          )}
        </Card.Footer>
      </Card.Root>
    </Stack>
  );
}
