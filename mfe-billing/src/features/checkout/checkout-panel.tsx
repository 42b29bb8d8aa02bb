import { useState, type ReactNode } from 'react';
import { Button, CloseButton, Dialog, Portal, Stack, Text } from '@aim/shared-kit/ui';
import { refreshUserRow } from '@aim/shared-kit/session';
import type { BillingConfig, BillingGateway, Intent } from '../../gateway/billing-gateway.ts';
import { serverMessage } from '../../gateway/billing-gateway.ts';
import { notices, TEXTS, type Notices } from '../../notices.ts';
import { PaymentForm, type PaymentOutcome } from './payment-form.tsx';

/**
 * Starts a checkout (subscribe, top-up, trial, card setup). When it cannot start, the user sees
 * 'Unable to start checkout' with the server's reason, and the caller gets null.
 */
export async function startCheckout<T>(call: () => Promise<T>, notify: Notices = notices): Promise<T | null> {
  try {
    return await call();
  } catch (err) {
    notify.error(TEXTS.unableToStartCheckout, serverMessage(err));
    return null;
  }
}

export type CheckoutPanelProps = {
  gateway: BillingGateway;
  config: BillingConfig;
  intent: Intent;
  summary: ReactNode;
  submitLabel: string;
  doneText: string;
  /** Runs after the provider confirmed (e.g. saving the card); a rejection ends the checkout. */
  onConfirmed?: (outcome: PaymentOutcome) => Promise<void>;
  onFailed?: (reason: string) => void;
  onDone: () => void;
};

/** The payment form for one intent, then what happened. Plan and credits follow live from the user row. */
export function CheckoutPanel({ gateway, config, intent, summary, submitLabel, doneText, onConfirmed, onFailed, onDone }: CheckoutPanelProps) {
  const [phase, setPhase] = useState<'pay' | 'finishing' | 'done'>('pay');

  async function confirmed(outcome: PaymentOutcome) {
    setPhase('finishing');
    try {
      await onConfirmed?.(outcome);
    } catch {
      onDone();
      return;
    }
    setPhase('done');
    // Realtime brings the new plan and credits too; this makes it immediate in this tab.
    void refreshUserRow().catch(() => undefined);
  }

  if (phase === 'done') {
    return (
      <Stack gap="4" data-testid="checkout-done" role="status">
        <Text fontWeight="semibold" fontSize="lg">
          {intent.kind === 'setup' ? 'Card saved' : 'Payment successful'}
        </Text>
        <Text color="fg.muted">{doneText}</Text>
        <Button colorPalette="brand" alignSelf="flex-start" onClick={onDone} autoFocus>
          Done
        </Button>
      </Stack>
    );
  }
  return (
    <Stack gap="4" aria-busy={phase === 'finishing'}>
      <Stack gap="1" data-testid="checkout-summary">
        {summary}
      </Stack>
      <PaymentForm gateway={gateway} config={config} intent={intent} submitLabel={submitLabel} onSucceeded={(o) => void confirmed(o)} onFailed={onFailed} />
    </Stack>
  );
}

/** The checkout in a dialog of its own (subscribe, trial, adding a card). */
export function CheckoutDialog({ title, open, onClose, ...panel }: CheckoutPanelProps & { title: string; open: boolean; onClose: () => void }) {
  return (
    <Dialog.Root open={open} onOpenChange={(e) => !e.open && onClose()} placement="center" lazyMount unmountOnExit>
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content data-testid="checkout-dialog">
            <Dialog.Header>
              <Dialog.Title>{title}</Dialog.Title>
            </Dialog.Header>
            <Dialog.Body pb="6">
              <CheckoutPanel {...panel} />
            </Dialog.Body>
            <Dialog.CloseTrigger asChild>
              <CloseButton size="sm" />
            </Dialog.CloseTrigger>
          </Dialog.Content>
        </Dialog.Positioner>
      </Portal>
    </Dialog.Root>
  );
}
