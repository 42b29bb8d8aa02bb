import { matchRoutes } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { routes } from '../src/app.tsx';

describe('mfe_billing routes', () => {
  it.each([
    ['/dashboard', '/dashboard/billing/subscription', 'Subscription'],
    ['/dashboard', '/dashboard/billing/payment-methods', 'Payment Methods'],
    ['/dashboard', '/dashboard/billing/invoices', 'Invoices'],
    ['/', '/payment-success', 'Payment Success'],
    ['/dashboard', '/dashboard/billing', null],
  ])('under %s: %s -> %s', (basename, pathname, title) => {
    const element = matchRoutes(routes, pathname, basename)?.[0]?.route.element as { props: { title: string } } | undefined;
    expect(element?.props.title ?? null).toBe(title);
  });
});
