// Spec §8: the billing screens' own failure texts, and how they reach the user (toasts of ~5 s,
// inline errors of 7 s for card calls, browser alerts for cancel and invoice download).
import { TOAST_MS, toaster } from '@aim/shared-kit/toast';

export const TEXTS = {
  unableToStartCheckout: 'Unable to start checkout',
  failedToSaveSettings: 'Failed to save settings',
  failedToLoadPaymentMethods: 'Failed to load payment methods',
  failedToSavePaymentMethod: 'Failed to save payment method',
  setupFailed: (reason: string) => `Setup failed: ${reason}`,
  /** Payment method calls, cancel and invoice download when the server gives no message. */
  unexpected: 'An unexpected error occured, please refresh and try again.',
  noPaymentMethods: 'No payment methods yet',
  needsSubscription: 'An active subscription is needed to buy credits.',
} as const;

/** How long a payment method call's error stays on screen. */
export const CARD_ERROR_MS = TOAST_MS.long;

export type Notices = {
  /** A toast; `description` carries the server's reason when there is one. */
  error(title: string, description?: string | null, durationMs?: number): void;
  success(title: string): void;
  /** A browser alert (spec §8: cancel, invoice download). */
  alert(message: string): void;
};

export const notices: Notices = {
  error: (title, description, durationMs = TOAST_MS.short) =>
    toaster.create({ type: 'error', title, description: description ?? undefined, duration: durationMs }),
  success: (title) => toaster.create({ type: 'success', title, duration: TOAST_MS.short }),
  alert: (message) => window.alert(message),
};
