import { useCallback, useMemo, useState } from 'react';
import { useSearchParams } from '@aim/shared-kit/router';
import { EmptyState, Heading, SimpleGrid, Skeleton, Stack, Text } from '@aim/shared-kit/ui';
import type { ApiKeysGateway } from './gateway.ts';
import { describeFailure, TEXTS } from './key-rules.ts';
import { useLocalChange } from './use-local-change.ts';
import { parseEndpoint, parseLanguage, parseRequestType, type EndpointId, type Language, type RequestType } from './sample-code.ts';
import { KeyCard } from './components/key-card.tsx';
import { WebhookCard } from './components/webhook-card.tsx';
import { WebhookEventsField } from './components/webhook-events-field.tsx';
import { QuickTips } from './components/quick-tips.tsx';
import { SampleCodeCard } from './components/sample-code-card.tsx';
import { SigningSecretField } from './components/signing-secret.tsx';
import { DeliveryConsole } from './components/delivery-console.tsx';
import { NamedKeysCard } from './components/named-keys-card.tsx';
import { NAMED_KEY_TEXTS } from './named-keys.ts';
import { WEBHOOK_TEXTS } from './webhook-rules.ts';

export type Notices = {
  success(title: string): void;
  /** A toast; `reason` is the server's own message when it gave one. */
  error(title: string, reason?: string | null): void;
  /** The browser alert of spec §8. */
  alert(message: string): void;
};

/** What the page reads from the live user row. */
export type Account = { apiKey: string; webhookUrl: string | null };

export type ApiKeysPageProps = {
  gateway: ApiKeysGateway;
  /** null while the user row loads (or when it failed: `loadFailed`). */
  account: Account | null;
  loadFailed: boolean;
  /** The provider API the samples call (runtime config apiBaseUrl). */
  apiBaseUrl: string;
  notices: Notices;
};

/** Spec §2 API Keys: key card, webhook card, quick tips and the sample-code generator. */
export function ApiKeysPage({ gateway, account, loadFailed, apiBaseUrl, notices }: ApiKeysPageProps) {
  const [searchParams, setSearchParams] = useSearchParams();
  const language = parseLanguage(searchParams.get('language'));
  const requestType = parseRequestType(searchParams.get('requestType'));
  const endpoint = parseEndpoint(searchParams.get('endpoint'));
  const [revealed, setRevealed] = useState(false);
  const [apiKey, recordNewKey] = useLocalChange(account?.apiKey ?? '');
  const [webhookUrl, recordWebhookUrl] = useLocalChange(account?.webhookUrl ?? null);

  const setParam = (name: 'language' | 'requestType' | 'endpoint', value: Language | RequestType | EndpointId) =>
    // replace: switching samples is not worth a history entry each.
    setSearchParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        next.set(name, value);
        return next;
      },
      { replace: true },
    );

  async function copy(text: string, success: string) {
    try {
      await gateway.copyText(text);
      notices.success(success);
    } catch {
      notices.error(TEXTS.copyFailed);
    }
  }

  function reportFailure(title: string, error: unknown): string | null {
    const { reason, unexpected } = describeFailure(error);
    notices.error(title, reason);
    if (unexpected) notices.alert(TEXTS.unexpected);
    return reason;
  }

  /** Runs a webhook console action: true when it worked, else the failure is reported. */
  async function attempt(action: () => Promise<unknown>, success: string, failure: string): Promise<boolean> {
    try {
      await action();
      notices.success(success);
      return true;
    } catch (error) {
      reportFailure(failure, error);
      return false;
    }
  }

  // stable, so the secret is read once and the console's polling is not restarted by each render
  const loadSecret = useCallback(() => gateway.getSigningSecret(), [gateway]);
  const loadWebhookEvents = useMemo(() => gateway.getWebhookEvents?.bind(gateway), [gateway]);
  const listNamedKeys = useCallback((signal: AbortSignal) => gateway.listNamedKeys(signal), [gateway]);
  const listDeliveries = useCallback(
    (filter: Parameters<typeof gateway.listDeliveries>[0], signal: AbortSignal) => gateway.listDeliveries(filter, signal),
    [gateway],
  );
  const listPaused = useMemo(() => (gateway.listPausedEndpoints ? (signal: AbortSignal) => gateway.listPausedEndpoints!(signal) : undefined), [gateway]);

  return (
    <Stack gap="6" maxW="5xl" w="full" data-testid="screen-api-keys">
      <Stack gap="1">
        <Heading as="h1" size="xl">
          API Keys
        </Heading>
        <Text color="fg.muted">Call the API from your own code with your key, and get task updates on your webhook.</Text>
      </Stack>

      {loadFailed && !account && (
        <EmptyState.Root borderWidth="1px" rounded="l3" data-testid="api-keys-error">
          <EmptyState.Content>
            <EmptyState.Title as="h2">Your API key could not be loaded</EmptyState.Title>
            <EmptyState.Description>Refresh the page to try again.</EmptyState.Description>
          </EmptyState.Content>
        </EmptyState.Root>
      )}

      {!loadFailed && !account && (
        <Stack gap="6" aria-busy="true" aria-label="Loading your API key" data-testid="api-keys-loading">
          <Skeleton h="44" rounded="l3" />
          <SimpleGrid columns={{ base: 1, lg: 2 }} gap="6">
            <Skeleton h="64" rounded="l3" />
            <Skeleton h="64" rounded="l3" />
          </SimpleGrid>
          <Skeleton h="80" rounded="l3" />
        </Stack>
      )}

      {account && (
        <>
          <KeyCard
            apiKey={apiKey}
            revealed={revealed}
            onRevealedChange={setRevealed}
            onCopy={() => copy(apiKey, TEXTS.keyCopied)}
            onRotate={async () => {
              try {
                const next = await gateway.rotateKey();
                recordNewKey(next);
                notices.success(TEXTS.keyRotated);
              } catch (error) {
                reportFailure(TEXTS.rotateFailed, error);
              }
            }}
          />
          <NamedKeysCard
            list={listNamedKeys}
            create={async (body) => {
              const created = await gateway.createNamedKey(body);
              notices.success(NAMED_KEY_TEXTS.created);
              return created;
            }}
            onCreateFailed={(error) => reportFailure(NAMED_KEY_TEXTS.createFailed, error)}
            revoke={async (id) => {
              try {
                const revoked = await gateway.revokeNamedKey(id);
                notices.success(NAMED_KEY_TEXTS.revoked);
                return revoked;
              } catch (error) {
                reportFailure(NAMED_KEY_TEXTS.revokeFailed, error);
                return null;
              }
            }}
            onCopy={(key) => copy(key, NAMED_KEY_TEXTS.copied)}
          />
          <SimpleGrid columns={{ base: 1, lg: 2 }} gap="6" alignItems="start">
            <WebhookCard
              currentUrl={webhookUrl}
              onSave={async (input) => {
                try {
                  const stored = await gateway.updateWebhookUrl(input);
                  recordWebhookUrl(stored);
                  notices.success(TEXTS.webhookUpdated);
                  return { ok: true };
                } catch (error) {
                  return { ok: false, reason: reportFailure(TEXTS.webhookFailed, error) };
                }
              }}
            >
              <SigningSecretField
                load={loadSecret}
                onCopy={(secret) => copy(secret, WEBHOOK_TEXTS.secretCopied)}
                rotate={async () => {
                  try {
                    const next = await gateway.rotateSigningSecret();
                    notices.success(WEBHOOK_TEXTS.secretRotated);
                    return next;
                  } catch (error) {
                    reportFailure(WEBHOOK_TEXTS.rotateSecretFailed, error);
                    return null;
                  }
                }}
              />
              {loadWebhookEvents && gateway.updateWebhookEvents && (
                <WebhookEventsField
                  load={loadWebhookEvents}
                  save={async (events) => {
                    try {
                      const stored = await gateway.updateWebhookEvents!(events);
                      notices.success(WEBHOOK_TEXTS.eventsSaved);
                      return stored;
                    } catch (error) {
                      reportFailure(WEBHOOK_TEXTS.eventsFailed, error);
                      return undefined;
                    }
                  }}
                />
              )}
            </WebhookCard>
            <QuickTips />
          </SimpleGrid>
          <DeliveryConsole
            list={listDeliveries}
            hasWebhookUrl={webhookUrl !== null}
            resend={(id) => attempt(() => gateway.resendDelivery(id), WEBHOOK_TEXTS.resent, WEBHOOK_TEXTS.resendFailed)}
            sendTest={() => attempt(() => gateway.sendTestEvent(), WEBHOOK_TEXTS.testSent, WEBHOOK_TEXTS.testFailed)}
            listPaused={listPaused}
            resume={(url) => attempt(() => gateway.resumeEndpoint!(url), WEBHOOK_TEXTS.resumed, WEBHOOK_TEXTS.resumeFailed)}
          />
          <SampleCodeCard
            apiKey={apiKey}
            revealed={revealed}
            baseUrl={apiBaseUrl}
            language={language}
            requestType={requestType}
            endpoint={endpoint}
            onLanguageChange={(value) => setParam('language', value)}
            onRequestTypeChange={(value) => setParam('requestType', value)}
            onEndpointChange={(value) => setParam('endpoint', value)}
            onCopy={(code) => copy(code, TEXTS.sampleCopied)}
          />
        </>
      )}
    </Stack>
  );
}
