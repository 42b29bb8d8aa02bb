import { Box, Card, EmptyState, Grid, Heading, Skeleton, Stack, Tabs, Text } from '@aim/shared-kit/ui';
import type { MidjourneyGateway } from './gateway.ts';
import { primaryImage, recordedSize } from './task-model.ts';
import { type StartTab, useMidjourneyTool } from './use-midjourney-tool.ts';
import { PromptBox } from './components/prompt-box.tsx';
import { UploadImage } from './components/upload-image.tsx';
import { VaryRegionDialog } from './components/vary-region-dialog.tsx';
import { CustomZoomDialog } from './components/custom-zoom-dialog.tsx';
import { TaskView } from './components/task-view.tsx';
import { DescribePanel } from './components/describe-panel.tsx';
import { BlendPanel } from './components/blend-panel.tsx';
import { TaskLineage } from './components/task-lineage.tsx';

export type MidjourneyToolProps = {
  gateway: MidjourneyGateway;
  /** Runtime config mode ('embedded' shows http upload URLs). */
  mode: string;
  notifyError: (message: string) => void;
  seedDelayMs?: number;
};

/** Spec §2 Midjourney tool: prompt, upload, Imagine, live progress, results and their actions (the logic: useMidjourneyTool). */
export function MidjourneyTool({ gateway, mode, notifyError, seedDelayMs }: MidjourneyToolProps) {
  const tool = useMidjourneyTool({ gateway, notifyError, seedDelayMs });
  const { state, busyKey, creating, taskActions: act } = tool;

  return (
    <Stack gap="6" maxW="6xl" w="full" data-testid="screen-midjourney">
      <Stack gap="1">
        <Heading as="h1" size="xl">
          Midjourney
        </Heading>
        <Text color="fg.muted">Describe a picture, imagine four takes, then upscale or vary the one you like.</Text>
      </Stack>

      <Card.Root variant="outline">
        <Card.Body pt="3">
          <Tabs.Root value={tool.tab} onValueChange={(e) => tool.setTab(e.value as StartTab)} variant="line" size="sm">
            <Tabs.List mb="4">
              <Tabs.Trigger value="imagine">Imagine</Tabs.Trigger>
              <Tabs.Trigger value="describe">Describe</Tabs.Trigger>
              <Tabs.Trigger value="blend">Blend</Tabs.Trigger>
            </Tabs.List>
            <Tabs.Content value="imagine" p="0">
              <PromptBox
                value={tool.prompt}
                onChange={tool.changePrompt}
                onSubmit={tool.imagine}
                onShorten={tool.shorten}
                error={tool.promptError}
                busy={busyKey === 'imagine'}
                shortenBusy={busyKey === 'shorten'}
                disabled={!gateway.ready || creating}
                inputRef={tool.promptInput}
                uploadSlot={
                  <UploadImage upload={gateway.upload} mode={mode} disabled={!gateway.ready} notifyError={notifyError} onUseInPrompt={tool.addImageToPrompt} />
                }
              />
            </Tabs.Content>
            <Tabs.Content value="describe" p="0">
              <DescribePanel busy={busyKey === 'describe'} disabled={!gateway.ready || creating} onDescribe={tool.describe} />
            </Tabs.Content>
            <Tabs.Content value="blend" p="0">
              <BlendPanel busy={busyKey === 'blend'} disabled={!gateway.ready || creating} onBlend={tool.blend} />
            </Tabs.Content>
          </Tabs.Root>
        </Card.Body>
      </Card.Root>

      <Grid templateColumns={{ base: 'minmax(0, 1fr)', lg: state.status === 'ready' ? 'minmax(0, 1fr) 16rem' : 'minmax(0, 1fr)' }} gap="4" alignItems="start">
        <Box as="section" aria-label="Result" aria-live="polite" aria-busy={state.status === 'loading'} minW="0">
          {state.status === 'idle' && (
            <EmptyState.Root borderWidth="1px" borderStyle="dashed" rounded="l3" data-testid="result-empty">
              <EmptyState.Content>
                <EmptyState.Title as="h2">No pictures yet</EmptyState.Title>
                <EmptyState.Description>Write a prompt and press Imagine: four pictures appear here.</EmptyState.Description>
              </EmptyState.Content>
            </EmptyState.Root>
          )}
          {state.status === 'loading' && (
            <Stack gap="3" data-testid="result-loading">
              <Skeleton h="6" w="48" />
              <Skeleton aspectRatio="1" w="full" rounded="l3" />
            </Stack>
          )}
          {state.status === 'error' && (
            <EmptyState.Root borderWidth="1px" rounded="l3" data-testid="result-error">
              <EmptyState.Content>
                <EmptyState.Title as="h2">This task could not be loaded</EmptyState.Title>
                <EmptyState.Description>Check the link, or start a new one above.</EmptyState.Description>
              </EmptyState.Content>
            </EmptyState.Root>
          )}
          {state.status === 'ready' && (
            <TaskView
              task={state.task}
              archived={state.archived}
              busyKey={busyKey}
              creating={creating}
              seed={tool.seed}
              onUpscale={act.upscale}
              onFurtherUpscale={act.furtherUpscale}
              onVariation={act.variation}
              onVaryCell={act.varyCell}
              onVaryImage={act.varyImage}
              onPan={act.pan}
              onZoomOut={act.zoomOut}
              onOpenDialog={tool.setDialog}
              onUsePrompt={tool.choosePrompt}
              onReroll={act.reroll}
              onSeed={act.seed}
              onFavorite={act.favorite}
              onDownload={act.download}
              onCancel={act.cancel}
            />
          )}
          {state.status === 'ready' && primaryImage(state.task) && (
            <>
              <VaryRegionDialog
                open={tool.dialog === 'region'}
                onClose={() => tool.setDialog(null)}
                imageUrl={primaryImage(state.task)!}
                recordedSize={recordedSize(state.task)}
                initialPrompt={state.task.prompt ?? ''}
                busy={busyKey === 'region'}
                onSubmit={act.varyRegion}
              />
              <CustomZoomDialog
                open={tool.dialog === 'zoom'}
                onClose={() => tool.setDialog(null)}
                initialPrompt={state.task.prompt ?? ''}
                busy={busyKey === 'zoom-custom'}
                onSubmit={act.customZoom}
              />
            </>
          )}
        </Box>
        {state.status === 'ready' && <TaskLineage gateway={gateway} task={state.task} archived={state.archived} />}
      </Grid>
    </Stack>
  );
}
