import { matchRoutes } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { routes } from '../src/app.tsx';

describe('mfe_billing routes', () => {
  it.each([
    ['/dashboard', '/dashboard/billing/subscription', 'SubscriptionRoute'],
    ['/dashboard', '/dashboard/billing/payment-methods', 'PaymentMethodsRoute'],
    ['/dashboard', '/dashboard/billing/invoices', 'InvoicesRoute'],
    ['/', '/payment-success', 'PaymentSuccessPage'],
    ['/dashboard', '/dashboard/billing', null],
    ['/dashboard', '/payment-success', null],
  ])('under %s: %s -> %s', (basename, pathname, screen) => {
    const element = matchRoutes(routes, pathname, basename)?.[0]?.route.element as { type: { name: string } } | undefined;
    expect(element?.type.name ?? null).toBe(screen);
  });
});
