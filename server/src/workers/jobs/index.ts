/**
 * @module The engine job of a task: one builder per job kind, each family in its own file
 * (pictures.ts, faceswap.ts, ai-photos.ts, …). A new family adds its file and spreads its
 * builders into BUILDERS below; nothing else in the worker changes.
 */
import { type AspectRatio, type EngineJob, type EngineJobKind, EngineError, GENERIC_ENGINE_FAILURE } from '../../engines/engine.ts';
import type { JobRow } from '../../queue/job-queue.ts';
import type { TaskRow } from '../../repositories/task-repository.ts';
import { engineKindOf } from '../../services/tasks/task-kinds.ts';
import { aiPhotoJobs } from './ai-photos.ts';
import { audioJobs } from './audio.ts';
import { faceswapJobs } from './faceswap.ts';
import type { JobInputs } from './job-inputs.ts';
import { pictureActionJobs } from './picture-actions.ts';
import { pictureJobs } from './pictures.ts';
import { videoJobs } from './video.ts';

interface JobBuildContext {
  task: TaskRow;
  job: JobRow;
  signal: AbortSignal;
  inputs: JobInputs;
  /** The task's input_data, and the fields most families read from it. */
  input: { data: Record<string, unknown>; aspectRatio?: AspectRatio };
  /** Spread into every job: a retry watches the upstream task a previous attempt submitted. */
  resume: { resumeUpstreamId?: string };
}

type JobBuilder = (context: JobBuildContext) => Promise<EngineJob>;
export type JobBuilders = Partial<Record<EngineJobKind, JobBuilder>>;

const BUILDERS: JobBuilders = { ...pictureJobs, ...pictureActionJobs, ...faceswapJobs, ...aiPhotoJobs, ...videoJobs, ...audioJobs };

export async function buildEngineJob(inputs: JobInputs, task: TaskRow, job: JobRow, signal: AbortSignal): Promise<EngineJob> {
  const kind = engineKindOf(task.type);
  const build = kind ? BUILDERS[kind] : undefined;
  if (!build) throw new EngineError('unsupported', GENERIC_ENGINE_FAILURE, { detail: `task type ${task.type}` });
  const data = task.input_data ?? {};
  const aspectRatio = typeof data.aspect_ratio === 'string' ? (data.aspect_ratio as AspectRatio) : undefined;
  return build({ task, job, signal, inputs, input: { data, aspectRatio }, resume: job.upstream_id ? { resumeUpstreamId: job.upstream_id } : {} });
}
