// The wizard's rules (spec §2 Onboarding wizard, §3 style suffixes, §4 transitions, §8 failure
// text) as plain data and functions, so they are tested without a browser.
import { ApiError, DEFAULT_API_ERROR } from '@aim/shared-kit/api';

export type Goal = 'dashboard' | 'api' | 'ai-photo';
export type StyleId = 'realistic' | 'anime' | 'drawing';
export type SampleType = 'generate' | 'fetch';
export type SampleLanguage = 'nodejs' | 'python' | 'php' | 'curl';

export type Option<T extends string> = { value: T; label: string; description?: string };

export const GOALS: Option<Goal>[] = [
  { value: 'dashboard', label: 'Generate in Dashboard', description: 'Pick a prompt and a style, and see your first pictures in the Midjourney tool.' },
  { value: 'api', label: 'Run an API test', description: 'Get ready-to-run sample code with your API key for /imagine or /fetch.' },
  { value: 'ai-photo', label: 'Try AI Photo API', description: 'Train a model on your own photos and generate new portraits of yourself.' },
];
export const DEFAULT_GOAL: Goal = 'dashboard';

export const PROMPT_TEMPLATES = ['Modern luxury villa', 'A beautiful sunset over a serene lake', 'Minimal gradient logo', 'Cyberpunk city at sunset'] as const;
export type PromptTemplate = (typeof PROMPT_TEMPLATES)[number];
export const DEFAULT_TEMPLATE: PromptTemplate = 'A beautiful sunset over a serene lake';

export const STYLES: Array<Option<StyleId> & { suffix: string }> = [
  { value: 'realistic', label: 'Realistic', suffix: ', realistic image, real details' },
  { value: 'anime', label: 'Anime', suffix: ', anime image, anime style, cartoon style' },
  { value: 'drawing', label: 'Drawing', suffix: ', drawing image, drawing style, drawing art' },
];
export const DEFAULT_STYLE: StyleId = 'realistic';

export const SAMPLE_TYPES: Option<SampleType>[] = [
  { value: 'generate', label: 'Generate 4 images using /Imagine' },
  { value: 'fetch', label: 'Fetch the Result using /Fetch' },
];
/** The spec names no default sample type: the first one, as listed. */
export const DEFAULT_SAMPLE_TYPE: SampleType = 'generate';

export const LANGUAGES: Option<SampleLanguage>[] = [
  { value: 'nodejs', label: 'Node.js' },
  { value: 'python', label: 'Python' },
  { value: 'php', label: 'Php' },
  { value: 'curl', label: 'Curl' },
];
export const DEFAULT_LANGUAGE: SampleLanguage = 'curl';

export const AI_PHOTO_STEPS = [
  { title: 'Upload 10–30 photos', description: 'Clear photos of one person, from different angles and in different light.' },
  { title: 'Train a custom model', description: 'Choose a trigger word; training starts once the upload is prepared.' },
  { title: 'Generate', description: 'Use the trigger word in a prompt to get four new photos of that person.' },
] as const;

export const ONBOARDING_FAILED = 'Something went wrong. Please try again.';

export const MIDJOURNEY_PATH = '/dashboard/tools/midjourney';
const AI_PHOTOS_PATH = '/dashboard/tools/ai-photos';
export const SUBSCRIPTION_PATH = '/dashboard/billing/subscription';

/** Spec §3: the style suffix is appended to the template label as is. */
export function finalPrompt(template: PromptTemplate, style: StyleId): string {
  const suffix = STYLES.find((s) => s.value === style)?.suffix;
  if (suffix === undefined) throw new Error(`unknown style ${style}`);
  return template + suffix;
}

function midjourneyPath(taskId?: string | null): string {
  return taskId ? `${MIDJOURNEY_PATH}?${new URLSearchParams({ taskId })}` : MIDJOURNEY_PATH;
}

export function apiKeysPath(language: SampleLanguage, requestType: SampleType): string {
  return `/dashboard/api-keys?${new URLSearchParams({ language, requestType })}`;
}

export type Setup =
  | { goal: 'dashboard'; template: PromptTemplate; style: StyleId }
  | { goal: 'api'; language: SampleLanguage; requestType: SampleType }
  | { goal: 'ai-photo' };

/** The two onboarding calls (spec §7). */
export type OnboardingCalls = {
  /** Submits a generation (POST /pro/imagine) and answers the task id. */
  imagine(prompt: string): Promise<string>;
  /** Marks onboarding done (POST /auth/update-onboarding-status). */
  completeOnboarding(): Promise<void>;
};

/**
 * Spec §4, finishing step 2: what to call, in order, and where to go afterwards. `created` is a
 * task this same prompt already produced in an earlier attempt whose second call failed, so a
 * retry does not pay for a second generation.
 */
export async function finishOnboarding(setup: Setup, calls: OnboardingCalls, created?: { prompt: string; taskId: string } | null): Promise<string> {
  switch (setup.goal) {
    case 'dashboard': {
      const prompt = finalPrompt(setup.template, setup.style);
      const taskId = created?.prompt === prompt ? created.taskId : await calls.imagine(prompt);
      await calls.completeOnboarding();
      return midjourneyPath(taskId);
    }
    case 'api':
      await calls.completeOnboarding();
      return apiKeysPath(setup.language, setup.requestType);
    case 'ai-photo':
      await calls.completeOnboarding();
      return AI_PHOTOS_PATH;
  }
}

/** POST /pro/imagine answers 402 when the balance does not cover the task; a new user has 0 credits. */
export function isOutOfCredits(error: unknown): boolean {
  return error instanceof ApiError && error.status === 402;
}

/** Spec §8: the server's message, else the wizard's own default (not the API client's). */
export function failureText(error: unknown): string {
  const message = error instanceof Error ? error.message.trim() : '';
  return error instanceof ApiError && message && message !== DEFAULT_API_ERROR ? message : ONBOARDING_FAILED;
}
