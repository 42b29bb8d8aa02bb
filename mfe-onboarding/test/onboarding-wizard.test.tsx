// @vitest-environment jsdom
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import { render } from '@aim/shared-kit/testing/render';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useLocation } from 'react-router-dom';
import { ApiError, DEFAULT_API_ERROR } from '@aim/shared-kit/api';
import type { OnboardingGateway } from '../src/features/onboarding/gateway.ts';
import { OnboardingWizard } from '../src/features/onboarding/onboarding-wizard.tsx';
import { ONBOARDING_FAILED } from '../src/features/onboarding/onboarding-model.ts';

let location = '';
function LocationProbe() {
  const loc = useLocation();
  location = loc.pathname + loc.search;
  return null;
}

function fakeGateway(): OnboardingGateway & { imagine: ReturnType<typeof vi.fn>; completeOnboarding: ReturnType<typeof vi.fn> } {
  return { ready: true, imagine: vi.fn(async () => 'task-42'), completeOnboarding: vi.fn(async () => undefined) };
}

function renderWizard(gateway = fakeGateway()) {
  render(
    <>
      <OnboardingWizard gateway={gateway} />
      <LocationProbe />
    </>,
    { route: '/welcome' },
  );
  return { gateway, user: userEvent.setup() };
}

/** A promise the test settles itself, to look at the screen while a call is in flight. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const radio = (name: string) => screen.getByRole('radio', { name }) as HTMLInputElement;
const button = (name: string) => screen.getByRole('button', { name }) as HTMLButtonElement;

afterEach(cleanup);

describe('step 1: pick a goal', () => {
  it('offers the three goals as a radio group, dashboard checked, with the hint', () => {
    renderWizard();
    const group = screen.getByRole('radiogroup', { name: 'Goal' });
    expect(
      within(group)
        .getAllByRole('radio')
        .map((r) => r.getAttribute('value')),
    ).toEqual(['dashboard', 'api', 'ai-photo']);
    expect(radio('Generate in Dashboard').checked).toBe(true);
    expect(screen.getByText('You can change this later.')).toBeTruthy();
    expect(screen.getByRole('heading', { level: 2 }).textContent).toBe('Pick a goal');
  });

  it('arrow keys move the choice; Continue opens the setup of the chosen goal', async () => {
    const { user } = renderWizard();
    radio('Generate in Dashboard').focus();
    await user.keyboard('{ArrowDown}');
    expect(radio('Run an API test').checked).toBe(true);
    await user.keyboard('{ArrowDown}');
    expect(radio('Try AI Photo API').checked).toBe(true);
    await user.keyboard('{ArrowUp}');
    expect(radio('Run an API test').checked).toBe(true);
    await user.click(button('Continue'));
    expect(screen.getByRole('heading', { level: 2 }).textContent).toBe('Setup');
    expect(document.activeElement).toBe(screen.getByRole('heading', { level: 2 }));
    expect(radio('Curl').checked).toBe(true);
    expect(radio('Generate 4 images using /Imagine').checked).toBe(true);
  });

  it('Back returns to step 1 with the goal kept', async () => {
    const { user } = renderWizard();
    await user.click(radio('Try AI Photo API'));
    await user.click(button('Continue'));
    expect(screen.getByTestId('ai-photo-steps').textContent).toContain('Upload 10–30 photos');
    await user.click(button('Back'));
    expect(screen.getByRole('heading', { level: 2 }).textContent).toBe('Pick a goal');
    expect(radio('Try AI Photo API').checked).toBe(true);
  });
});

describe('step 2: finishing', () => {
  it('api: saves progress, then goes to the API Keys page with language and requestType', async () => {
    const { gateway, user } = renderWizard();
    await user.click(radio('Run an API test'));
    await user.click(button('Continue'));
    await user.click(radio('Python'));
    await user.click(radio('Fetch the Result using /Fetch'));
    await user.click(button('Generate sample'));
    await waitFor(() => expect(location).toBe('/dashboard/api-keys?language=python&requestType=fetch'));
    expect(gateway.completeOnboarding).toHaveBeenCalledTimes(1);
    expect(gateway.imagine).not.toHaveBeenCalled();
  });

  it('ai-photo: explains the three steps, saves progress, then goes to AI Photos', async () => {
    const { gateway, user } = renderWizard();
    await user.click(radio('Try AI Photo API'));
    await user.click(button('Continue'));
    const steps = within(screen.getByTestId('ai-photo-steps')).getAllByRole('listitem');
    expect(steps).toHaveLength(3);
    ['1. Upload 10–30 photos', '2. Train a custom model', '3. Generate'].forEach((title, i) => {
      expect(steps[i]!.textContent).toContain(title);
    });
    await user.click(button('Upload photos'));
    await waitFor(() => expect(location).toBe('/dashboard/tools/ai-photos'));
    expect(gateway.completeOnboarding).toHaveBeenCalledTimes(1);
  });

  it('dashboard: shows Preparing... with every button disabled, submits the final prompt, then opens the task', async () => {
    const gateway = fakeGateway();
    const call = deferred<string>();
    gateway.imagine.mockReturnValueOnce(call.promise);
    const { user } = renderWizard(gateway);
    await user.click(button('Continue'));
    expect(radio('A beautiful sunset over a serene lake').checked).toBe(true);
    expect(radio('Realistic').checked).toBe(true);
    await user.click(radio('Cyberpunk city at sunset'));
    await user.click(radio('Anime'));
    expect(screen.getByTestId('final-prompt').textContent).toBe('Cyberpunk city at sunset, anime image, anime style, cartoon style');

    await user.click(button('Generate now'));
    expect(screen.getByText('Preparing...')).toBeTruthy();
    expect(button('Back').disabled).toBe(true);
    expect(radio('Drawing').disabled).toBe(true);
    expect(gateway.imagine).toHaveBeenCalledWith('Cyberpunk city at sunset, anime image, anime style, cartoon style');
    expect(gateway.completeOnboarding).not.toHaveBeenCalled();

    call.resolve('task-42');
    await waitFor(() => expect(location).toBe('/dashboard/tools/midjourney?taskId=task-42'));
    expect(gateway.completeOnboarding).toHaveBeenCalledTimes(1);
  });

  it('dashboard without credits: shows the message; Continue without generating ends onboarding and opens the tool', async () => {
    const gateway = fakeGateway();
    gateway.imagine.mockRejectedValueOnce(new ApiError('Not enough credits', 402));
    const { user } = renderWizard(gateway);
    await user.click(button('Continue'));
    await user.click(button('Generate now'));
    const alert = await screen.findByTestId('onboarding-no-credits');
    expect(within(alert).getByText('Not enough credits')).toBeTruthy();
    expect(gateway.completeOnboarding).not.toHaveBeenCalled();
    expect(button('Generate now').disabled).toBe(false);
    await user.click(within(alert).getByRole('button', { name: 'Continue without generating' }));
    await waitFor(() => expect(location).toBe('/dashboard/tools/midjourney'));
    expect(gateway.completeOnboarding).toHaveBeenCalledTimes(1);
  });

  it('dashboard without credits: Get credits ends onboarding and opens the subscription page', async () => {
    const gateway = fakeGateway();
    gateway.imagine.mockRejectedValueOnce(new ApiError('Not enough credits', 402));
    const { user } = renderWizard(gateway);
    await user.click(button('Continue'));
    await user.click(button('Generate now'));
    await user.click(within(await screen.findByTestId('onboarding-no-credits')).getByRole('button', { name: 'Get credits' }));
    await waitFor(() => expect(location).toBe('/dashboard/billing/subscription'));
  });

  it('a failure shows the server message or the default text and gives the buttons back; a retry does not generate twice', async () => {
    const gateway = fakeGateway();
    gateway.completeOnboarding.mockRejectedValueOnce(new ApiError(DEFAULT_API_ERROR, 500)).mockRejectedValueOnce(new ApiError('Invalid API key', 401));
    const { user } = renderWizard(gateway);
    await user.click(button('Continue'));
    await user.click(button('Generate now'));
    expect((await screen.findByTestId('onboarding-error')).textContent).toBe(ONBOARDING_FAILED);
    expect(button('Generate now').disabled).toBe(false);
    expect(button('Back').disabled).toBe(false);

    await user.click(button('Generate now'));
    await waitFor(() => expect(screen.getByTestId('onboarding-error').textContent).toBe('Invalid API key'));
    await user.click(button('Generate now'));
    await waitFor(() => expect(location).toBe('/dashboard/tools/midjourney?taskId=task-42'));
    expect(gateway.imagine).toHaveBeenCalledTimes(1);
    expect(gateway.completeOnboarding).toHaveBeenCalledTimes(3);
  });
});
