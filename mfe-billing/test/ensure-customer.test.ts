import { describe, expect, it, vi } from 'vitest';
import { ensureCustomer } from '../src/gateway/ensure-customer.ts';
import { fakeGateway } from './support/fake-gateway.ts';

describe('customer creation (spec §4)', () => {
  it('creates the customer once when customer_id is empty', async () => {
    const gateway = fakeGateway();
    const logOut = vi.fn(async () => undefined);
    await Promise.all([ensureCustomer(gateway, { id: 'u-1', customer_id: null }, logOut), ensureCustomer(gateway, { id: 'u-1', customer_id: null }, logOut)]);
    expect(gateway.createCustomer).toHaveBeenCalledTimes(1);
    expect(logOut).not.toHaveBeenCalled();
  });

  it('does nothing for a user who has one', async () => {
    const gateway = fakeGateway();
    await ensureCustomer(gateway, { id: 'u-2', customer_id: 'cus_1' }, vi.fn());
    expect(gateway.createCustomer).not.toHaveBeenCalled();
  });

  it('logs the user out when it fails', async () => {
    const gateway = fakeGateway({ createCustomer: vi.fn().mockRejectedValue(new Error('down')) });
    const logOut = vi.fn(async () => undefined);
    await ensureCustomer(gateway, { id: 'u-3', customer_id: null }, logOut);
    expect(logOut).toHaveBeenCalledTimes(1);
  });
});
