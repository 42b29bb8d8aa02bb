// Issue 15 §2 on the Subscription screen: Usage and Credit history as two tabs, each with its
// CSV export (the history's: credit-history.csv; Task Logs has its own on its screen).
import { useState } from 'react';
import { Button, Card, Heading, HStack, Stack, Tabs, Text } from '@aim/shared-kit/ui';
import type { ActivityGateway } from './activity-gateway.ts';
import { CreditHistory } from './credit-history.tsx';
import { ACTIVITY_TEXTS } from './history-rules.ts';
import { UsagePanel } from './usage-panel.tsx';

export function CreditActivity({ gateway }: { gateway: ActivityGateway }) {
  const [exporting, setExporting] = useState(false);
  const [exportFailed, setExportFailed] = useState(false);

  async function exportHistory() {
    setExporting(true);
    setExportFailed(false);
    try {
      await gateway.exportCsv('credit-history');
    } catch {
      setExportFailed(true);
    } finally {
      setExporting(false);
    }
  }

  return (
    <Stack gap="3" as="section" aria-labelledby="credit-activity-heading" data-testid="credit-activity">
      <Heading as="h2" size="lg" id="credit-activity-heading">
        Where your credits went
      </Heading>
      <Card.Root variant="outline">
        <Card.Body>
          <Tabs.Root defaultValue="usage" variant="line" colorPalette="brand">
            <Tabs.List>
              <Tabs.Trigger value="usage">Usage</Tabs.Trigger>
              <Tabs.Trigger value="history">Credit history</Tabs.Trigger>
            </Tabs.List>
            <Tabs.Content value="usage" pt="4">
              <UsagePanel gateway={gateway} />
            </Tabs.Content>
            <Tabs.Content value="history" pt="4">
              <Stack gap="3">
                <HStack justify="space-between" wrap="wrap" gap="2">
                  <Text textStyle="sm" color="fg.muted">
                    Every grant, top-up, task hold and refund, with the balance it left.
                  </Text>
                  <Button size="sm" variant="outline" loading={exporting} onClick={() => void exportHistory()} data-testid="export-history">
                    Export CSV
                  </Button>
                </HStack>
                {exportFailed && (
                  <Text role="alert" color="fg.error" textStyle="sm">
                    {ACTIVITY_TEXTS.exportFailed}
                  </Text>
                )}
                <CreditHistory gateway={gateway} />
              </Stack>
            </Tabs.Content>
          </Tabs.Root>
        </Card.Body>
      </Card.Root>
    </Stack>
  );
}
