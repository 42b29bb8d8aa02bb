import { Alert } from '@aim/shared-kit/ui';
import { AI_PHOTO } from '@aim/shared-kit/domain';
import type { WizardView } from '../ai-photos-rules.ts';

/** How the server says it made a result (result.note), e.g. that a local training is a face-analysis profile. */
export function EngineNote({ note, testId }: { note: string | null; testId: string }) {
  if (!note) return null;
  return (
    <Alert.Root status="info" size="sm" data-testid={testId}>
      <Alert.Indicator />
      <Alert.Description>{note}</Alert.Description>
    </Alert.Root>
  );
}

const RUNNING: Record<number, { title: string; description: string }> = {
  0: { title: 'Checking your photos', description: 'Step 1: the upload is being checked and prepared for training.' },
  1: { title: 'Training your model', description: 'Step 2: your model learns the person in your photos.' },
  2: { title: 'Generating your photos', description: 'Step 3: the photos appear here as they are made.' },
};
const FAILED: Record<number, string> = { 0: 'The photo check failed', 1: 'The training failed', 2: 'The generation failed' };

/** The panel's heading and the line under it, by wizard view. */
export function panelText(view: WizardView): { title: string; description: string } {
  switch (view.kind) {
    case 'prepare':
      return {
        title: 'Prepare your photos',
        description: `Step 1: choose ${AI_PHOTO.minImages}–${AI_PHOTO.maxImages} photos of the same person and tell us who they show.`,
      };
    case 'loading':
      return { title: 'Loading the task...', description: 'Reading the task from the link.' };
    case 'error':
      return { title: 'Task not found', description: 'The task in the link could not be read.' };
    case 'running':
      return RUNNING[view.step]!;
    case 'failed':
      return {
        title: FAILED[view.step]!,
        description: view.step === 0 ? 'What went wrong is below; choose your photos to try again.' : 'What went wrong is below.',
      };
    case 'train':
      return { title: 'Train your model', description: 'Step 2: choose a trigger word, then train a model on these photos.' };
    case 'generate':
      return { title: 'Generate photos', description: `Step 3: describe the photos you want; each Generate makes ${AI_PHOTO.generatedImages}.` };
    case 'photos':
      return { title: 'Your AI photos', description: 'Step 3: download the ones you like, or generate more from the same model.' };
  }
}
