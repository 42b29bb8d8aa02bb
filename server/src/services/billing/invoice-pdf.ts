/**
 * @module A one-page invoice PDF (pdfkit) for payments the provider has no document for:
 * every sandbox payment, and top-ups. Status is always PAID (spec §9): only paid payments
 * become payments rows. Streams are not compressed: the page is small, and its text stays
 * greppable for support and tests.
 */
import PDFDocument from 'pdfkit';
import { dollars, isPlanId, PLANS } from '../../billing/catalog.ts';
import type { PaymentRecord } from '../../repositories/billing/payments.ts';

const SELLER = { name: 'AI Media API', contact: 'billing@aimedia.example' } as const;

function describe(p: PaymentRecord): { plan: string; line: string } {
  const credits = `${p.credits.toLocaleString('en-US')} credits`;
  if (p.kind === 'subscription' && isPlanId(p.plan_name))
    return { plan: PLANS[p.plan_name].label, line: `${PLANS[p.plan_name].label} plan, monthly (${credits})` };
  if (p.kind === 'trial') return { plan: 'Trial', line: `7-day trial (${credits})` };
  if (p.kind === 'auto_topup') return { plan: 'Auto top-up', line: `Automatic credit top-up (${credits})` };
  return { plan: 'Top-up', line: `Credit top-up (${credits})` };
}

function isoDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

export function renderInvoicePdf(p: PaymentRecord): Promise<Buffer> {
  const amountCents = Math.round(Number(p.amount) * 100);
  const { plan, line } = describe(p);
  const doc = new PDFDocument({ size: 'A4', margin: 56, compress: false, info: { Title: `Invoice ${p.invoice_number}`, Author: SELLER.name } });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  doc.font('Helvetica-Bold').fontSize(22).text(SELLER.name);
  doc.font('Helvetica').fontSize(10).text(SELLER.contact).moveDown(1.5);
  doc.font('Helvetica-Bold').fontSize(18).text(`Invoice ${p.invoice_number}`).moveDown(0.5);
  doc.font('Helvetica').fontSize(11);
  doc.text(`Date: ${isoDate(p.payment_date)}`);
  doc.text(`Billed to: ${p.email}`);
  doc.text(`Status: PAID (${isoDate(p.payment_date)})`);
  doc.text(`Plan: ${plan}`);
  if (p.provider_ref) doc.text(`Reference: ${p.provider_ref}`);
  doc.moveDown(1.5);
  doc.font('Helvetica-Bold').text('Description');
  doc.font('Helvetica').text(line);
  doc.moveDown(1);
  doc
    .font('Helvetica-Bold')
    .fontSize(13)
    .text(`Amount: ${dollars(amountCents)} ${p.currency.toUpperCase()}`);
  doc
    .font('Helvetica')
    .fontSize(11)
    .text(`Total paid: ${dollars(amountCents)}`);
  doc.end();
  return done;
}
