declare global {
  interface Window {
    __AIM_RUNTIME_CONFIG__?: Promise<unknown>;
  }
}

export {};
