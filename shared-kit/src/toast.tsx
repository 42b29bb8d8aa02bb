import { Portal, Stack, createToaster } from '@chakra-ui/react';
// Lazy (see ui.ts): the toast machines load after the first render; the store is created here.
import { Toast, Toaster } from './ui.ts';

/** Spec §9: toasts last about 5 or 7 seconds. */
export const TOAST_MS = { short: 5000, long: 7000 } as const;

/** The page's one toaster: remotes push to it, the shell renders it once (<AppToaster/>). */
export const toaster = createToaster({ placement: 'top-end', pauseOnPageIdle: true, max: 5 });

export function showErrorToast(message: string, durationMs: number = TOAST_MS.short): void {
  toaster.create({ type: 'error', title: message, duration: durationMs });
}

export function showSuccessToast(message: string, durationMs: number = TOAST_MS.short): void {
  toaster.create({ type: 'success', title: message, duration: durationMs });
}

export function AppToaster() {
  return (
    <Portal>
      <Toaster toaster={toaster} insetInline={{ mdDown: '4' }}>
        {(toast) => (
          <Toast.Root width={{ md: 'sm' }} data-testid={`toast-${toast.type ?? 'info'}`}>
            <Toast.Indicator />
            <Stack gap="1" flex="1" maxWidth="100%">
              {toast.title && <Toast.Title>{toast.title}</Toast.Title>}
              {toast.description && <Toast.Description>{toast.description}</Toast.Description>}
            </Stack>
            <Toast.CloseTrigger />
          </Toast.Root>
        )}
      </Toaster>
    </Portal>
  );
}
