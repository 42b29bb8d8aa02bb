import type { ReactNode } from 'react';
import { Button, Card, Grid, Heading, HStack, Skeleton, Stack, Text } from '@aim/shared-kit/ui';
import { AI_PHOTO } from '@aim/shared-kit/domain';
import { CancelTaskButton } from '../../components/cancel-task-button.tsx';
import { TaskFailed } from '../../components/task-failed.tsx';
import { TaskProgressBar } from '../../components/task-progress-bar.tsx';
import { photoCheck, photoSlots, resultNote, trainingIdOf, uploadIdOf } from './ai-photos-rules.ts';
import { type AiPhotosFlowOptions, useAiPhotosFlow } from './use-ai-photos-flow.ts';
import { GenerateForm, PhotoResults } from './components/generate-step.tsx';
import { EngineNote, panelText } from './components/panel-text.tsx';
import { PrepareStep } from './components/prepare-step.tsx';
import { TaskList } from './components/task-list.tsx';
import { PhotoVerdicts, TrainForm, TriggerWord } from './components/train-step.tsx';
import { WizardSteps } from './components/wizard-steps.tsx';

export type AiPhotosToolProps = AiPhotosFlowOptions;

/**
 * Spec §2 AI Photos: the three-step wizard (Prepare, Train, Generate) beside the list of trained
 * models and tasks. The step follows the task named by ?taskId= (spec §4): an upload being checked
 * or failed is step 1, a finished upload offers the trigger word (step 2), a training runs in
 * step 2, a finished training or a generation is step 3. Each new task's id goes into the URL
 * (the logic: useAiPhotosFlow).
 */
export function AiPhotosTool(props: AiPhotosToolProps) {
  const flow = useAiPhotosFlow(props);
  const { gateway } = props;
  const { view, task, settings, busy, downloading, upload } = flow;

  const prepare = (
    <PrepareStep
      selection={flow.selection}
      subject={flow.subject}
      onSubject={flow.setSubject}
      progress={upload.progress}
      error={upload.error}
      ready={gateway.ready}
      onUpload={(photos, s) => void upload.start(photos, s)}
    />
  );
  const generateForm = (trainingId: string | null, isRunning: boolean) =>
    trainingId ? (
      <GenerateForm
        settings={settings}
        onSettings={flow.setSettings}
        error={flow.callErrorOf('generate')}
        busy={busy === 'generate'}
        isRunning={isRunning}
        ready={gateway.ready}
        onGenerate={() => flow.generate(trainingId)}
      />
    ) : null;

  function panelBody(): ReactNode {
    switch (view.kind) {
      case 'prepare':
        return prepare;
      case 'loading':
        return (
          <Stack gap="3" data-testid="wizard-loading" aria-busy="true">
            <Skeleton h="6" w="60%" />
            <Skeleton h="24" />
          </Stack>
        );
      case 'error':
        return (
          <Stack gap="1" data-testid="wizard-error">
            <Text>This task could not be loaded.</Text>
            <Text textStyle="sm" color="fg.muted">
              Check the link, open a task from the list, or start a new model.
            </Text>
          </Stack>
        );
      case 'running':
        return (
          <Stack gap="4">
            {view.step === 1 && <TriggerWord word={view.task.input_data?.trigger_word} />}
            {view.step === 2 && generateForm(trainingIdOf(view.task), true)}
            <TaskProgressBar status={view.task.status} percentage={view.task.percentage} taskId={view.task.id} />
            <CancelTaskButton key={view.task.id} onCancel={() => flow.cancel(view.task.id)} />
            {view.step === 0 && (
              <Text textStyle="sm" color="fg.muted">
                Each photo is checked for one clear face of the same person. You can leave this page: the upload stays in the list.
              </Text>
            )}
            {view.step === 1 && (
              <Text textStyle="sm" color="fg.muted">
                Training can take a while. You can leave this page: the model appears in the list when it is ready.
              </Text>
            )}
            {view.step === 2 && (
              <PhotoResults
                taskId={view.task.id}
                slots={photoSlots(view.task)}
                aspectRatio={view.task.input_data?.aspect_ratio ?? settings.aspectRatio}
                note={resultNote(view.task)}
                prompt={view.task.prompt}
                downloading={downloading}
                onDownload={flow.download}
              />
            )}
          </Stack>
        );
      case 'failed': {
        const uploadId = view.step === 1 ? uploadIdOf(view.task) : null;
        return (
          <Stack gap="5">
            <TaskFailed message={view.message} refund={view.task.refund} />
            {view.step === 0 && prepare}
            {uploadId && (
              <HStack>
                <Button variant="outline" onClick={() => flow.openTask(uploadId)}>
                  Train again
                </Button>
              </HStack>
            )}
            {view.step === 2 && generateForm(trainingIdOf(view.task), false)}
          </Stack>
        );
      }
      case 'train':
        return (
          <Stack gap="5">
            <PhotoVerdicts check={photoCheck(view.upload, flow.uploadNamesOf(view.upload.id))} note={resultNote(view.upload)} />
            <TrainForm error={flow.callErrorOf('train')} busy={busy === 'train'} ready={gateway.ready} onTrain={(word) => flow.train(view.upload.id, word)} />
          </Stack>
        );
      case 'generate':
        return (
          <Stack gap="5">
            <TriggerWord word={flow.triggerWordOf(view.trainingId)} />
            <EngineNote note={resultNote(view.task)} testId="training-note" />
            {generateForm(view.trainingId, false)}
            <Text textStyle="sm" color="fg.muted" data-testid="photos-empty">
              {`Your ${AI_PHOTO.generatedImages} photos will appear here.`}
            </Text>
          </Stack>
        );
      case 'photos':
        return (
          <Stack gap="5">
            <TriggerWord word={flow.triggerWordOf(view.trainingId)} />
            {generateForm(view.trainingId, false)}
            <PhotoResults
              taskId={view.task.id}
              slots={photoSlots(view.task)}
              aspectRatio={view.task.input_data?.aspect_ratio ?? settings.aspectRatio}
              note={resultNote(view.task)}
              prompt={view.task.prompt}
              downloading={downloading}
              onDownload={flow.download}
            />
          </Stack>
        );
    }
  }

  const { title, description } = panelText(view);
  return (
    <Stack gap="6" w="full" maxW="7xl" data-testid="screen-ai-photos">
      <HStack justify="space-between" align="start" gap="4" wrap="wrap">
        <Stack gap="1">
          <Heading as="h1" size="xl">
            AI Photos
          </Heading>
          <Text color="fg.muted">{`Train a model on ${AI_PHOTO.minImages}–${AI_PHOTO.maxImages} photos of one person, then generate new photos of them.`}</Text>
        </Stack>
        {view.kind !== 'prepare' && (
          <Button variant="outline" onClick={() => flow.openTask(null)}>
            Start a new model
          </Button>
        )}
      </HStack>

      <WizardSteps view={view} />

      <Grid templateColumns={{ base: 'minmax(0, 1fr)', lg: 'minmax(0, 1fr) 20rem' }} gap="6" alignItems="start">
        <Card.Root
          variant="outline"
          as="section"
          aria-labelledby="ai-photo-panel-title"
          data-testid="wizard-panel"
          data-view={view.kind}
          data-step={view.step ?? ''}
        >
          <Card.Header>
            <Card.Title as="h2" id="ai-photo-panel-title" textStyle="lg" ref={flow.headingRef} tabIndex={-1} _focusVisible={{ outline: 'none' }}>
              {title}
            </Card.Title>
            <Card.Description>{description}</Card.Description>
          </Card.Header>
          <Card.Body
            aria-busy={view.kind === 'loading' || view.kind === 'running'}
            data-testid={task ? 'task-view' : undefined}
            data-task-id={task?.id}
            data-task-type={task?.type}
            data-task-status={task?.status}
          >
            {panelBody()}
          </Card.Body>
        </Card.Root>
        <TaskList state={flow.listState} currentId={flow.taskId} onOpen={flow.openTask} onRetry={() => void flow.reloadList()} />
      </Grid>
    </Stack>
  );
}
