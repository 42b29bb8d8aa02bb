/**
 * @module POST /auth/gen-invoice {invoiceId}: the PDF of one of the caller's payments, found
 * by invoice number (INV-…), payment id or provider reference. The provider's own document
 * when it has one, else rendered here.
 */
import { ApiError } from '../../errors.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { billingRepository } from '../../repositories/billing/billing-repository.ts';
import type { Billing } from './billing.ts';
import { billingAccount } from './customer.ts';
import { renderInvoicePdf } from './invoice-pdf.ts';

const INVOICE_NOT_FOUND = 'Invoice not found';

export async function generateInvoice(billing: Billing, account: Account, invoiceId: string): Promise<{ filename: string; pdf: Uint8Array }> {
  const payment = await billingRepository(billing.db).findPayment(account.id, invoiceId);
  if (!payment) throw new ApiError('not_found', INVOICE_NOT_FOUND);
  const filename = `${payment.invoice_number}.pdf`;
  const row = await billingAccount(billing, account);
  const providerInvoice = payment.provider_ref?.startsWith('in:') ? payment.provider_ref.slice(3) : undefined;
  const url = providerInvoice && row.customer_id ? await billing.provider.invoicePdfUrl(row.customer_id, providerInvoice) : null;
  if (url) {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`provider invoice PDF answered ${res.status}`);
    return { filename, pdf: new Uint8Array(await res.arrayBuffer()) };
  }
  return { filename, pdf: await renderInvoicePdf(payment) };
}
