import type { EarlyState } from './mf/early-preload.ts';

declare global {
  interface Window {
    __AIM_RUNTIME_CONFIG__?: Promise<unknown>;
    /** Left by the inline script in index.html (mf/early-preload.ts). */
    __AIM_EARLY__?: EarlyState;
  }
}
