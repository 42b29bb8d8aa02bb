import { useState } from 'react';
import { Button, Card, HStack, Text } from '@aim/shared-kit/ui';
import { displayKey, TEXTS } from '../key-rules.ts';
import { RotateDialog } from './rotate-dialog.tsx';
import { SecretValue } from './secret-value.tsx';

type Props = {
  apiKey: string;
  revealed: boolean;
  onRevealedChange: (revealed: boolean) => void;
  onCopy: () => Promise<void>;
  /** Settles once the new key is in place or the failure was reported. */
  onRotate: () => Promise<void>;
};

/** The key, masked (first 4 and last 4 shown) unless revealed, with Copy and a confirmed Rotate. */
export function KeyCard({ apiKey, revealed, onRevealedChange, onCopy, onRotate }: Props) {
  const [confirming, setConfirming] = useState(false);
  const [rotating, setRotating] = useState(false);
  // The safe choice has the focus when the confirmation opens.

  async function rotate() {
    setRotating(true);
    try {
      await onRotate();
    } finally {
      setRotating(false);
      setConfirming(false);
    }
  }

  return (
    <Card.Root variant="outline" data-testid="api-key-card">
      <Card.Header>
        <Card.Title as="h2">Your API key</Card.Title>
        <Card.Description>Every API request authenticates with it.</Card.Description>
      </Card.Header>
      <Card.Body gap="4">
        <SecretValue testId="api-key-value" revealed={revealed}>
          {displayKey(apiKey, revealed)}
        </SecretValue>
        <HStack gap="2" wrap="wrap">
          <Button size="sm" variant="outline" aria-pressed={revealed} onClick={() => onRevealedChange(!revealed)}>
            {revealed ? 'Hide key' : 'Show key'}
          </Button>
          <Button size="sm" variant="outline" onClick={() => void onCopy()}>
            Copy key
          </Button>
          <Button size="sm" variant="outline" colorPalette="red" ms="auto" onClick={() => setConfirming(true)}>
            Rotate key
          </Button>
        </HStack>
      </Card.Body>

      <RotateDialog
        open={confirming}
        onOpenChange={setConfirming}
        rotating={rotating}
        title={TEXTS.rotateConfirm}
        onConfirm={() => void rotate()}
        testId="rotate-dialog"
      >
        <Text>A new key is generated and the current one stops working at once. Update every app that uses it.</Text>
      </RotateDialog>
    </Card.Root>
  );
}
