import { useState } from 'react';
import { Badge, Button, EmptyState, Heading, Skeleton, Stack, Table, Text } from '@aim/shared-kit/ui';
import { saveBlob } from '@aim/shared-kit/download';
import { useQuery } from '@aim/shared-kit/query';
import type { BillingGateway, Invoice } from '../../gateway/billing-gateway.ts';
import { billingKeys } from '../../gateway/billing-queries.ts';
import { TEXTS, type Notices } from '../../notices.ts';
import { formatDate, formatMoney } from '../subscription/plan-rules.ts';

type State = { status: 'loading' } | { status: 'error' } | { status: 'ready'; invoices: Invoice[] };

export type InvoicesPageProps = { gateway: BillingGateway; email: string | null; notify: Notices };

const COLUMNS = ['Invoice', 'Date', 'Status', 'Plan', 'Amount', 'Action'] as const;

/** Spec §2 Invoices: every payment, newest first, with its PDF. Status is always PAID (§9). */
export function InvoicesPage({ gateway, email, notify }: InvoicesPageProps) {
  const query = useQuery({ queryKey: billingKeys.invoices(email), queryFn: () => gateway.invoices(email!), enabled: !!email });
  const state: State =
    query.isFetching || !(query.data || query.isError)
      ? { status: 'loading' }
      : query.data && !query.isError
        ? { status: 'ready', invoices: query.data }
        : { status: 'error' };
  const load = () => query.refetch();
  const [downloading, setDownloading] = useState<string | null>(null);

  async function download(invoice: Invoice) {
    setDownloading(invoice.invoice_number);
    try {
      saveBlob(await gateway.invoicePdf(invoice.invoice_number), `${invoice.invoice_number}.pdf`);
    } catch {
      notify.alert(TEXTS.unexpected);
    } finally {
      setDownloading(null);
    }
  }

  return (
    <Stack gap="6" w="full" maxW="5xl" data-testid="screen-invoices">
      <Stack gap="1">
        <Heading as="h1" size="xl">
          Invoices
        </Heading>
        <Text color="fg.muted">Every payment for plans, top-ups and the trial.</Text>
      </Stack>
      {state.status === 'loading' ? (
        <Stack gap="2" data-testid="invoices-loading" aria-busy="true">
          {[0, 1, 2].map((i) => (
            <Skeleton key={i} h="10" />
          ))}
        </Stack>
      ) : state.status === 'error' ? (
        <EmptyState.Root borderWidth="1px" rounded="l3" data-testid="invoices-error">
          <EmptyState.Content>
            <EmptyState.Title as="h2">Your invoices could not be loaded</EmptyState.Title>
            <Button size="sm" variant="outline" onClick={() => void load()}>
              Retry
            </Button>
          </EmptyState.Content>
        </EmptyState.Root>
      ) : state.invoices.length === 0 ? (
        <EmptyState.Root borderWidth="1px" borderStyle="dashed" rounded="l3" data-testid="invoices-empty">
          <EmptyState.Content>
            <EmptyState.Title as="h2">No invoices yet</EmptyState.Title>
            <EmptyState.Description>Invoices appear here after your first payment.</EmptyState.Description>
          </EmptyState.Content>
        </EmptyState.Root>
      ) : (
        <Table.ScrollArea borderWidth="1px" rounded="l3">
          <Table.Root size="sm" interactive data-testid="invoices-table">
            <Table.Header>
              <Table.Row>
                {COLUMNS.map((c) => (
                  <Table.ColumnHeader key={c} textAlign={c === 'Amount' || c === 'Action' ? 'end' : undefined}>
                    {c}
                  </Table.ColumnHeader>
                ))}
              </Table.Row>
            </Table.Header>
            <Table.Body>
              {state.invoices.map((invoice) => (
                <Table.Row key={invoice.id} data-testid="invoice-row" data-invoice={invoice.invoice_number}>
                  <Table.Cell fontFamily="mono">{invoice.invoice_number}</Table.Cell>
                  <Table.Cell>{formatDate(invoice.payment_date)}</Table.Cell>
                  <Table.Cell>
                    <Badge colorPalette="green" variant="subtle">
                      PAID
                    </Badge>
                  </Table.Cell>
                  <Table.Cell>{invoice.plan_name}</Table.Cell>
                  <Table.Cell textAlign="end">{formatMoney(invoice.amount)}</Table.Cell>
                  <Table.Cell textAlign="end">
                    <Button
                      size="xs"
                      variant="outline"
                      aria-label={`Download ${invoice.invoice_number}`}
                      loading={downloading === invoice.invoice_number}
                      onClick={() => void download(invoice)}
                    >
                      Download
                    </Button>
                  </Table.Cell>
                </Table.Row>
              ))}
            </Table.Body>
          </Table.Root>
        </Table.ScrollArea>
      )}
    </Stack>
  );
}
