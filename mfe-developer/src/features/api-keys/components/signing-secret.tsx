import { useCallback, useEffect, useState } from 'react';
import { Button, HStack, Skeleton, Stack, Text } from '@aim/shared-kit/ui';
import { formatUtc, maskSecret, type SigningSecret, WEBHOOK_TEXTS } from '../webhook-rules.ts';
import { RotateDialog } from './rotate-dialog.tsx';
import { SecretValue } from './secret-value.tsx';

type Props = {
  load: () => Promise<SigningSecret>;
  /** Answers the new secrets, or null when it failed (the failure is reported by the caller). */
  rotate: () => Promise<SigningSecret | null>;
  onCopy: (secret: string) => Promise<void>;
};

type State = { status: 'loading' } | { status: 'error' } | { status: 'ready'; value: SigningSecret };

/**
 * The account signing secret on the webhook card: masked unless revealed, Copy, and Rotate behind a
 * confirmation (the old secret keeps signing beside the new one for 24 h).
 */
export function SigningSecretField({ load, rotate, onCopy }: Props) {
  const [state, setState] = useState<State>({ status: 'loading' });
  const [revealed, setRevealed] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [rotating, setRotating] = useState(false);

  const fetchSecret = useCallback(async () => {
    setState({ status: 'loading' });
    try {
      setState({ status: 'ready', value: await load() });
    } catch {
      setState({ status: 'error' });
    }
  }, [load]);

  useEffect(() => {
    void fetchSecret();
  }, [fetchSecret]);

  async function confirmRotate() {
    setRotating(true);
    try {
      const next = await rotate();
      if (next) setState({ status: 'ready', value: next });
    } finally {
      setRotating(false);
      setConfirming(false);
    }
  }

  return (
    <Stack gap="2" role="group" aria-labelledby="signing-secret-label" data-testid="signing-secret">
      <Text id="signing-secret-label" textStyle="sm" fontWeight="medium">
        Signing secret
      </Text>
      {state.status === 'loading' && <Skeleton h="10" rounded="l2" aria-label="Loading the signing secret" />}
      {state.status === 'error' && (
        <HStack gap="3" role="alert" data-testid="signing-secret-error">
          <Text textStyle="sm" color="fg.error">
            {WEBHOOK_TEXTS.secretLoadFailed}
          </Text>
          <Button size="xs" variant="outline" onClick={() => void fetchSecret()}>
            Retry
          </Button>
        </HStack>
      )}
      {state.status === 'ready' && (
        <>
          <SecretValue testId="signing-secret-value" revealed={revealed}>
            {maskSecret(state.value.secret, revealed)}
          </SecretValue>
          <HStack gap="2" wrap="wrap">
            <Button size="sm" variant="outline" aria-pressed={revealed} onClick={() => setRevealed(!revealed)}>
              {revealed ? 'Hide secret' : 'Show secret'}
            </Button>
            <Button size="sm" variant="outline" onClick={() => void onCopy(state.value.secret)}>
              Copy secret
            </Button>
            <Button size="sm" variant="outline" colorPalette="red" ms="auto" onClick={() => setConfirming(true)}>
              Rotate secret
            </Button>
          </HStack>
          <Text textStyle="xs" color="fg.muted" data-testid="signing-secret-note">
            {state.value.previous_secret
              ? `The previous secret also signs deliveries until ${formatUtc(state.value.previous_expires_at)}.`
              : `In use since ${formatUtc(state.value.created_at)}.`}{' '}
            Verify with any Standard Webhooks library, passing the secret exactly as shown.
          </Text>
        </>
      )}

      <RotateDialog
        open={confirming}
        onOpenChange={setConfirming}
        rotating={rotating}
        title={WEBHOOK_TEXTS.rotateSecretConfirm}
        onConfirm={() => void confirmRotate()}
        testId="rotate-secret-dialog"
      >
        <Text>
          A new signing secret is generated. For 24 hours deliveries carry signatures by both the old and the new secret, so your receiver keeps verifying while
          you update it; then the old secret stops signing.
        </Text>
      </RotateDialog>
    </Stack>
  );
}
