import { type ReactNode, useState } from 'react';
import { Button, Card, Code, Field, HStack, Input, Stack, Text } from '@aim/shared-kit/ui';
import { validateWebhookScheme } from '@aim/shared-kit/validate';

type SaveOutcome = { ok: true } | { ok: false; reason: string | null };

type Props = {
  currentUrl: string | null;
  /** Saves the input (blank removes the webhook); a refusal carries the server's reason. */
  onSave: (input: string) => Promise<SaveOutcome>;
  /** The signing secret, below the URL. */
  children?: ReactNode;
};

/** The integration webhook: where it points now, and a field to change or remove it. */
export function WebhookCard({ currentUrl, onSave, children }: Props) {
  // null: not edited, the field follows the saved URL (which can change live).
  const [draft, setDraft] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const value = draft ?? currentUrl ?? '';

  async function save() {
    const check = validateWebhookScheme(value);
    if (!check.ok) {
      setError(check.message);
      return;
    }
    setError(null);
    setSaving(true);
    try {
      const outcome = await onSave(value);
      if (outcome.ok) setDraft(null);
      else setError(outcome.reason);
    } finally {
      setSaving(false);
    }
  }

  return (
    <Card.Root variant="outline" data-testid="webhook-card">
      <Card.Header>
        <Card.Title as="h2">Webhook</Card.Title>
        <Card.Description>Task progress and results are POSTed to this URL.</Card.Description>
      </Card.Header>
      <Card.Body gap="4">
        <Text textStyle="sm" data-testid="webhook-current">
          {currentUrl ? (
            <>
              Current:{' '}
              <Code overflowWrap="anywhere" data-testid="webhook-current-url">
                {currentUrl}
              </Code>
            </>
          ) : (
            <Text as="span" color="fg.muted">
              No webhook set.
            </Text>
          )}
        </Text>
        <Stack
          as="form"
          gap="3"
          aria-label="Webhook"
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <Field.Root invalid={error !== null}>
            <Field.Label>Webhook URL</Field.Label>
            <HStack gap="2" w="full" align="start">
              <Input
                name="webhook-url"
                inputMode="url"
                autoComplete="url"
                spellCheck={false}
                placeholder="https://example.com/webhooks/aim"
                value={value}
                onChange={(e) => {
                  setDraft(e.currentTarget.value);
                  if (error && validateWebhookScheme(e.currentTarget.value).ok) setError(null);
                }}
                data-testid="webhook-input"
              />
              <Button type="submit" colorPalette="brand" loading={saving} loadingText="Saving..." minW="20">
                Save
              </Button>
            </HStack>
            {error ? (
              <Field.ErrorText data-testid="webhook-error">{error}</Field.ErrorText>
            ) : (
              <Field.HelperText>Must start with http:// or https://. Save it blank to remove the webhook.</Field.HelperText>
            )}
          </Field.Root>
        </Stack>
        {children}
        <Text textStyle="xs" color="fg.muted" data-testid="webhook-signing">
          Deliveries are signed the Standard Webhooks way: <Code size="sm">webhook-id</Code>, <Code size="sm">webhook-timestamp</Code> and{' '}
          <Code size="sm">webhook-signature</Code> (v1, HMAC-SHA256 of id.timestamp.body). A request that sets its own <Code size="sm">webhook_secret</Code> is
          signed with that instead (a <Code size="sm">whsec_</Code> secret as is, any other text as its UTF-8 bytes) and gets it back in{' '}
          <Code size="sm">x-webhook-secret</Code>. See the Webhooks section of the API docs.
        </Text>
      </Card.Body>
    </Card.Root>
  );
}
