import { useEffect, useRef, useState } from 'react';
import { Button, HStack, Text } from '@aim/shared-kit/ui';

type CancelTaskButtonProps = {
  /** Calls POST /cancel; rejects when the server refused (its message is already shown). */
  onCancel: () => Promise<unknown>;
};

/**
 * Cancel on an active task, with a confirmation step (a cancel cannot be undone): Cancel task →
 * 'Stop this task? Its credits are refunded.' Yes, cancel / Keep running. Focus moves to the
 * confirming button and back; Escape keeps the task running.
 */
export function CancelTaskButton({ onCancel }: CancelTaskButtonProps) {
  const [step, setStep] = useState<'idle' | 'confirm' | 'cancelling'>('idle');
  const confirmRef = useRef<HTMLButtonElement>(null);
  const openRef = useRef<HTMLButtonElement>(null);
  const wasConfirming = useRef(false);

  useEffect(() => {
    if (step === 'confirm') confirmRef.current?.focus();
    else if (step === 'idle' && wasConfirming.current) openRef.current?.focus();
    wasConfirming.current = step === 'confirm';
  }, [step]);

  const handleConfirm = async () => {
    setStep('cancelling');
    try {
      await onCancel();
      // the task's row turns failed/Cancelled and this control goes away with the progress
    } catch {
      setStep('idle');
    }
  };

  if (step === 'idle') {
    return (
      <Button ref={openRef} size="sm" variant="outline" colorPalette="red" alignSelf="flex-start" onClick={() => setStep('confirm')} data-testid="task-cancel">
        Cancel task
      </Button>
    );
  }
  return (
    <HStack
      gap="2"
      wrap="wrap"
      role="group"
      aria-label="Cancel this task"
      data-testid="task-cancel-confirm"
      onKeyDown={(event) => {
        if (event.key === 'Escape' && step === 'confirm') setStep('idle');
      }}
    >
      <Text textStyle="sm" role="status">
        {step === 'cancelling' ? 'Cancelling…' : 'Stop this task? Its credits are refunded.'}
      </Text>
      <Button ref={confirmRef} size="sm" colorPalette="red" loading={step === 'cancelling'} onClick={handleConfirm} data-testid="task-cancel-yes">
        Yes, cancel
      </Button>
      <Button size="sm" variant="ghost" disabled={step === 'cancelling'} onClick={() => setStep('idle')} data-testid="task-cancel-no">
        Keep running
      </Button>
    </HStack>
  );
}
