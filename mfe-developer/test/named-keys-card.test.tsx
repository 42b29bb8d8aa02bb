// @vitest-environment jsdom
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import { render } from '@aim/shared-kit/testing/render';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '@aim/shared-kit/api';
import { ApiKeysPage } from '../src/features/api-keys/api-keys-page.tsx';
import type { ApiKeysGateway } from '../src/features/api-keys/gateway.ts';
import { type CreatedNamedKey, NAMED_KEY_TEXTS, type NamedKey } from '../src/features/api-keys/named-keys.ts';

const PRIMARY = 'ab12cdef34567890abcdef1234567890wxyz';
const NEW_KEY = `ak_${'N'.repeat(36)}zZ42`;

const named = (over: Partial<NamedKey> = {}): NamedKey => ({
  id: '5a0c3f7e-2b1d-4e6f-8a9b-0c1d2e3f4a5b',
  name: 'CI pipeline',
  prefix: 'ak_7Hq2x',
  last4: 'P9dZ',
  scopes: ['generate', 'read'],
  created_at: '2026-11-28T09:00:00.000Z',
  last_used_at: null,
  expires_at: null,
  revoked_at: null,
  revoked: false,
  expired: false,
  monthly_credit_limit: 5000,
  used_this_month: 120,
  ...over,
});

function fakeGateway(over: Partial<ApiKeysGateway> = {}): ApiKeysGateway {
  return {
    rotateKey: vi.fn(async () => 'k'),
    updateWebhookUrl: vi.fn(async () => null),
    copyText: vi.fn(async () => undefined),
    getSigningSecret: vi.fn(async () => ({
      secret: 'whsec_c2VjcmV0',
      created_at: '2026-11-24T07:00:00.000Z',
      previous_secret: null,
      previous_expires_at: null,
    })),
    rotateSigningSecret: vi.fn(async () => Promise.reject(new Error('not in these tests'))),
    listDeliveries: vi.fn(async () => []),
    resendDelivery: vi.fn(async () => undefined),
    sendTestEvent: vi.fn(async () => undefined),
    listNamedKeys: vi.fn(async () => []),
    createNamedKey: vi.fn(
      async (input): Promise<CreatedNamedKey> => ({
        ...named({ id: '0b6f2d1e-5c4a-4e8b-9a7d-3f2c1b0a9e8d', name: input.name, scopes: input.scopes, prefix: NEW_KEY.slice(0, 8), last4: NEW_KEY.slice(-4) }),
        monthly_credit_limit: input.monthly_credit_limit ?? null,
        used_this_month: 0,
        key: NEW_KEY,
      }),
    ),
    revokeNamedKey: vi.fn(async (id: string) => named({ id, revoked: true, revoked_at: '2026-11-28T10:00:00.000Z' })),
    ...over,
  };
}

function renderPage(gateway: ApiKeysGateway) {
  const notices = { success: vi.fn(), error: vi.fn(), alert: vi.fn() };
  render(
    <ApiKeysPage gateway={gateway} account={{ apiKey: PRIMARY, webhookUrl: null }} loadFailed={false} apiBaseUrl="http://localhost:8080" notices={notices} />,
    { route: '/dashboard/api-keys' },
  );
  return { notices, user: userEvent.setup() };
}

const card = () => screen.getByTestId('named-keys-card');
const rows = () => within(card()).queryAllByTestId('named-key-row');

afterEach(cleanup);

describe('named keys', () => {
  it('shows loading, then the empty state, below the primary key card', async () => {
    let answer!: (keys: NamedKey[]) => void;
    renderPage(fakeGateway({ listNamedKeys: vi.fn(() => new Promise<NamedKey[]>((r) => (answer = r))) }));
    expect(within(card()).getByTestId('named-keys-empty').textContent).toBe(NAMED_KEY_TEXTS.loading);
    expect(within(card()).getByRole('button', { name: 'Create key' }).hasAttribute('disabled')).toBe(true);
    answer([]);
    await waitFor(() => expect(within(card()).getByTestId('named-keys-empty').textContent).toBe(NAMED_KEY_TEXTS.empty));
    // the primary key card comes first
    const order = screen.getByTestId('api-key-card').compareDocumentPosition(card());
    expect(order & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it('lists each key: name, prefix…last4, scopes, dates, use against the limit, state', async () => {
    renderPage(
      fakeGateway({
        listNamedKeys: vi.fn(async () => [
          named({ last_used_at: '2026-11-28T09:12:00.000Z' }),
          named({ id: '1a0c3f7e-2b1d-4e6f-8a9b-0c1d2e3f4a5b', name: 'old', scopes: ['read'], revoked: true, monthly_credit_limit: null, used_this_month: 0 }),
        ]),
      }),
    );
    await waitFor(() => expect(rows()).toHaveLength(2));
    const cells = (row: HTMLElement) =>
      within(row)
        .getAllByRole('cell')
        .map((c) => c.textContent);
    expect(cells(rows()[0])).toEqual([
      'CI pipeline',
      'ak_7Hq2x…P9dZ',
      'generateread',
      '2026-11-28 09:00 UTC',
      '2026-11-28 09:12 UTC',
      'Never',
      '120 / 5,000',
      'active',
      'Revoke',
    ]);
    expect(cells(rows()[1])).toEqual(['old', 'ak_7Hq2x…P9dZ', 'read', '2026-11-28 09:00 UTC', 'Never', 'Never', '0 / no limit', 'revoked', '']);
  });

  it('validates the form, creates the key and shows it once with Copy and the warning', async () => {
    const gateway = fakeGateway();
    const { notices, user } = renderPage(gateway);
    await waitFor(() => expect(within(card()).getByRole('button', { name: 'Create key' }).hasAttribute('disabled')).toBe(false));
    await user.click(within(card()).getByRole('button', { name: 'Create key' }));
    const dialog = await screen.findByTestId('create-key-dialog');
    // Enter in the form submits it; empty, it shows the field's message
    await user.click(within(dialog).getByTestId('new-key-name'));
    await user.keyboard('{Enter}');
    expect(await within(dialog).findByText('Enter a name')).toBeTruthy();
    expect(gateway.createNamedKey).not.toHaveBeenCalled();

    await user.type(within(dialog).getByTestId('new-key-name'), 'Production');
    await user.click(within(dialog).getByTestId('new-key-scope-generate'));
    await user.type(within(dialog).getByTestId('new-key-limit'), '2500');
    await user.keyboard('{Enter}');
    await waitFor(() => expect(gateway.createNamedKey).toHaveBeenCalledWith({ name: 'Production', scopes: ['read'], monthly_credit_limit: 2500 }));
    expect(notices.success).toHaveBeenCalledWith(NAMED_KEY_TEXTS.created);

    expect((await within(dialog).findByTestId('new-key-value')).textContent).toBe(NEW_KEY);
    expect(within(dialog).getByText(NAMED_KEY_TEXTS.shownOnce)).toBeTruthy();
    await user.click(within(dialog).getByRole('button', { name: 'Copy key' }));
    expect(gateway.copyText).toHaveBeenCalledWith(NEW_KEY);
    expect(notices.success).toHaveBeenCalledWith(NAMED_KEY_TEXTS.copied);

    // the table has the new key (without the key itself); closing forgets the key
    expect(rows()).toHaveLength(1);
    expect(card().textContent).not.toContain(NEW_KEY);
    await user.click(within(dialog).getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByTestId('create-key-dialog')).toBeNull());
    expect(document.body.textContent).not.toContain(NEW_KEY);
  });

  it("shows the server's reason when the key cannot be created (e.g. too many keys)", async () => {
    const msg = 'You already have 25 active API keys. Revoke one before creating another.';
    const gateway = fakeGateway({ createNamedKey: vi.fn(async () => Promise.reject(new ApiError(msg, 409))) });
    const { notices, user } = renderPage(gateway);
    await waitFor(() => expect(within(card()).getByRole('button', { name: 'Create key' }).hasAttribute('disabled')).toBe(false));
    await user.click(within(card()).getByRole('button', { name: 'Create key' }));
    const dialog = await screen.findByTestId('create-key-dialog');
    await user.type(within(dialog).getByTestId('new-key-name'), 'one more');
    await user.click(within(dialog).getByRole('button', { name: 'Create key' }));
    expect((await within(dialog).findByTestId('create-key-error')).textContent).toContain(msg);
    expect(notices.error).toHaveBeenCalledWith(NAMED_KEY_TEXTS.createFailed, msg);
    expect(notices.alert).not.toHaveBeenCalled();
  });

  it('revokes only after confirmation and shows the key as revoked', async () => {
    const gateway = fakeGateway({ listNamedKeys: vi.fn(async () => [named()]) });
    const { notices, user } = renderPage(gateway);
    await waitFor(() => expect(rows()).toHaveLength(1));
    await user.click(within(card()).getByRole('button', { name: 'Revoke CI pipeline' }));
    const dialog = await screen.findByRole('alertdialog', { name: NAMED_KEY_TEXTS.revokeConfirm });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(gateway.revokeNamedKey).not.toHaveBeenCalled();

    await user.click(within(card()).getByRole('button', { name: 'Revoke CI pipeline' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Revoke' }));
    await waitFor(() => expect(rows()[0].getAttribute('data-state')).toBe('revoked'));
    expect(gateway.revokeNamedKey).toHaveBeenCalledWith(named().id);
    expect(notices.success).toHaveBeenCalledWith(NAMED_KEY_TEXTS.revoked);
    expect(within(card()).queryByRole('button', { name: 'Revoke CI pipeline' })).toBeNull();
  });

  it('says when the keys cannot be loaded, and Retry reads them again', async () => {
    const listNamedKeys = vi.fn().mockRejectedValueOnce(new Error('offline')).mockResolvedValueOnce([named()]);
    const { user } = renderPage(fakeGateway({ listNamedKeys }));
    const error = await within(card()).findByTestId('named-keys-error');
    expect(error.textContent).toContain(NAMED_KEY_TEXTS.loadFailed);
    await user.click(within(error).getByRole('button', { name: 'Retry' }));
    await waitFor(() => expect(rows()).toHaveLength(1));
  });
});
