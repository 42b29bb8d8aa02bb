import { useCallback, useEffect, useState } from 'react';
import { Button, chakra, HStack, Skeleton, Stack, Text } from '@aim/shared-kit/ui';
import { describeWebhookEvents, toWebhookEventsSetting, WEBHOOK_EVENT_OPTIONS, type WebhookEventName } from '../webhook-rules.ts';

type Props = {
  /** GET /auth/webhook-events: the account filter, null for every event. */
  load: () => Promise<WebhookEventName[] | null>;
  /** Saves the filter (null: every event); answers the stored one, or undefined when it failed (reported by the caller). */
  save: (events: WebhookEventName[] | null) => Promise<WebhookEventName[] | null | undefined>;
};

type State = { status: 'loading' } | { status: 'error' } | { status: 'ready'; saved: WebhookEventName[] | null };

/**
 * The account webhook's event filter on the webhook card: which task events are sent. All three
 * ticked is stored as "every event" (null), the default; the events left out are never recorded.
 */
export function WebhookEventsField({ load, save }: Props) {
  const [state, setState] = useState<State>({ status: 'loading' });
  // null: not edited, the boxes follow the saved filter
  const [draft, setDraft] = useState<WebhookEventName[] | null>(null);
  const [saving, setSaving] = useState(false);

  const fetchFilter = useCallback(async () => {
    setState({ status: 'loading' });
    try {
      setState({ status: 'ready', saved: await load() });
    } catch {
      setState({ status: 'error' });
    }
  }, [load]);

  useEffect(() => {
    void fetchFilter();
  }, [fetchFilter]);

  const saved = state.status === 'ready' ? state.saved : null;
  const checked = draft ?? saved ?? WEBHOOK_EVENT_OPTIONS.map((o) => o.name);

  async function submit() {
    setSaving(true);
    try {
      const stored = await save(toWebhookEventsSetting(checked));
      if (stored !== undefined) {
        setState({ status: 'ready', saved: stored });
        setDraft(null);
      }
    } finally {
      setSaving(false);
    }
  }

  return (
    <Stack gap="2" role="group" aria-labelledby="webhook-events-label" data-testid="webhook-events">
      <Text id="webhook-events-label" textStyle="sm" fontWeight="medium">
        Events sent
      </Text>
      {state.status === 'loading' && <Skeleton h="10" rounded="l2" aria-label="Loading the webhook events" />}
      {state.status === 'error' && (
        <HStack gap="3" role="alert" data-testid="webhook-events-error">
          <Text textStyle="sm" color="fg.error">
            Could not load the webhook events.
          </Text>
          <Button size="xs" variant="outline" onClick={() => void fetchFilter()}>
            Retry
          </Button>
        </HStack>
      )}
      {state.status === 'ready' && (
        <chakra.form
          display="flex"
          flexDirection="column"
          gap="2"
          aria-label="Webhook events"
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <Text textStyle="xs" color="fg.muted" data-testid="webhook-events-current">
            Now: {describeWebhookEvents(saved)}
          </Text>
          <HStack gap="4" wrap="wrap">
            {WEBHOOK_EVENT_OPTIONS.map((option) => (
              <chakra.label key={option.name} display="flex" gap="2" alignItems="center" cursor="pointer" textStyle="sm">
                <chakra.input
                  type="checkbox"
                  w="4"
                  h="4"
                  accentColor="colorPalette.solid"
                  checked={checked.includes(option.name)}
                  onChange={(e) =>
                    setDraft(WEBHOOK_EVENT_OPTIONS.map((o) => o.name).filter((n) => (n === option.name ? e.target.checked : checked.includes(n))))
                  }
                  data-testid={`webhook-event-${option.name}`}
                />
                {option.label}
              </chakra.label>
            ))}
          </HStack>
          <HStack gap="3">
            <Button
              type="submit"
              size="sm"
              variant="outline"
              loading={saving}
              loadingText="Saving..."
              disabled={draft === null}
              data-testid="webhook-events-save"
            >
              Save events
            </Button>
            <Text textStyle="xs" color="fg.muted">
              A request&apos;s own <chakra.code>webhook_events</chakra.code> replaces this filter for its task.
            </Text>
          </HStack>
        </chakra.form>
      )}
    </Stack>
  );
}
