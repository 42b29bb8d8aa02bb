/**
 * @module The faceswap job: both pictures read and checked before the engine runs.
 */
import type { JobBuilders } from './index.ts';

export const faceswapJobs: JobBuilders = {
  faceswap: async ({ inputs, input, signal, resume }) => {
    // both at once; when both fail, the source's reason is the one told
    const [source, target] = await Promise.allSettled([
      inputs.inputImage('source', input.data.swap_image_url, signal),
      inputs.inputImage('target', input.data.target_image_url, signal),
    ]);
    if (source.status === 'rejected') throw source.reason;
    if (target.status === 'rejected') throw target.reason;
    return { kind: 'faceswap', source: source.value, target: target.value, ...resume };
  },
};
