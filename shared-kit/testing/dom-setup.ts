// The remotes' component tests (vitest setupFiles: '@aim/shared-kit/testing/dom-setup').
// jsdom lacks the layout APIs Chakra's components (zag.js) call; no-op stand-ins suffice because
// the tests assert behaviour, not layout.
if (typeof window !== 'undefined') {
  window.ResizeObserver ??= class {
    observe() {}
    unobserve() {}
    disconnect() {}
  };
  window.matchMedia ??= (query: string) =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addEventListener() {},
      removeEventListener() {},
      addListener() {},
      removeListener() {},
      dispatchEvent: () => false,
    }) as MediaQueryList;
  window.scrollTo ??= () => undefined;
  Element.prototype.scrollTo ??= () => undefined;
  // user-event's arrow-key walk through a radio group looks the group up by CSS.escape(name).
  globalThis.CSS ??= {} as typeof CSS;
  CSS.escape ??= (value: string) => value.replace(/[^\w-]/g, (c) => `\\${c}`);
  // ui.ts ships some Chakra components after a page's first render (their own chunk); load them
  // up front so component tests render them at once.
  await (await import('../src/ui.ts')).preloadLaterUi();
}

export {};
