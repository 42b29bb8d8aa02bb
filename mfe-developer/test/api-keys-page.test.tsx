// @vitest-environment jsdom
import { useState } from 'react';
import { act, cleanup, screen, waitFor, within } from '@testing-library/react';
import { render } from '@aim/shared-kit/testing/render';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useLocation } from 'react-router-dom';
import { ApiError } from '@aim/shared-kit/api';
import { ApiKeysPage, type Account } from '../src/features/api-keys/api-keys-page.tsx';
import type { ApiKeysGateway } from '../src/features/api-keys/gateway.ts';
import { TEXTS } from '../src/features/api-keys/key-rules.ts';

const KEY = 'ab12cdef34567890abcdef1234567890wxyz';
const NEW_KEY = 'ffee9988776655443322110099887766qrst';
const masked = (key: string) => `${key.slice(0, 4)}${'•'.repeat(key.length - 8)}${key.slice(-4)}`;

let location = '';
function LocationProbe() {
  const loc = useLocation();
  location = loc.pathname + loc.search;
  return null;
}

function fakeGateway(over: Partial<ApiKeysGateway> = {}): ApiKeysGateway {
  return {
    rotateKey: vi.fn(async () => NEW_KEY),
    updateWebhookUrl: vi.fn(async (input: string) => input.trim() || null),
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
    createNamedKey: vi.fn(async () => Promise.reject(new Error('not in these tests'))),
    revokeNamedKey: vi.fn(async () => Promise.reject(new Error('not in these tests'))),
    ...over,
  };
}

/** The page with a user row the test can change, as realtime would. */
function renderPage(
  gateway: ApiKeysGateway,
  { url = '/dashboard/api-keys', account = { apiKey: KEY, webhookUrl: null } as Account | null, loadFailed = false } = {},
) {
  const notices = { success: vi.fn(), error: vi.fn(), alert: vi.fn() };
  let setRow: (account: Account | null) => void = () => undefined;
  function Host() {
    const [row, set] = useState(account);
    setRow = set;
    return <ApiKeysPage gateway={gateway} account={row} loadFailed={loadFailed} apiBaseUrl="http://localhost:8080" notices={notices} />;
  }
  render(
    <>
      <Host />
      <LocationProbe />
    </>,
    { route: url },
  );
  return { notices, user: userEvent.setup(), setRow: (next: Account | null) => act(() => setRow(next)) };
}

const keyText = () => screen.getByTestId('api-key-value').textContent;
const param = (name: string) => new URLSearchParams(location.split('?')[1] ?? '').get(name);

afterEach(cleanup);

describe('the key card', () => {
  it('shows the key masked, reveals it on request, and copies the real key', async () => {
    const gateway = fakeGateway();
    const { notices, user } = renderPage(gateway);
    expect(screen.getByRole('heading', { level: 1, name: 'API Keys' })).toBeTruthy();
    expect(keyText()).toBe(masked(KEY));

    await user.click(screen.getByRole('button', { name: 'Show key' }));
    expect(keyText()).toBe(KEY);
    expect(screen.getByRole('button', { name: 'Hide key' }).getAttribute('aria-pressed')).toBe('true');

    await user.click(screen.getByRole('button', { name: 'Copy key' }));
    expect(gateway.copyText).toHaveBeenCalledWith(KEY);
    expect(notices.success).toHaveBeenCalledWith(TEXTS.keyCopied);
  });

  it("says 'Failed to copy' when the clipboard refuses", async () => {
    const { notices, user } = renderPage(fakeGateway({ copyText: vi.fn(async () => Promise.reject(new Error('denied'))) }));
    await user.click(screen.getByRole('button', { name: 'Copy key' }));
    expect(notices.error).toHaveBeenCalledWith(TEXTS.copyFailed);
    expect(notices.success).not.toHaveBeenCalled();
  });

  it('rotates only after confirmation, then shows the new key, also once the row catches up', async () => {
    const gateway = fakeGateway();
    const { notices, user, setRow } = renderPage(gateway);

    await user.click(screen.getByRole('button', { name: 'Rotate key' }));
    const dialog = await screen.findByRole('alertdialog', { name: TEXTS.rotateConfirm });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(gateway.rotateKey).not.toHaveBeenCalled();

    await user.click(screen.getByRole('button', { name: 'Rotate key' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Rotate' }));
    await waitFor(() => expect(notices.success).toHaveBeenCalledWith(TEXTS.keyRotated));
    expect(gateway.rotateKey).toHaveBeenCalledTimes(1);
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(keyText()).toBe(masked(NEW_KEY));

    setRow({ apiKey: NEW_KEY, webhookUrl: null });
    expect(keyText()).toBe(masked(NEW_KEY));
    // A later rotation elsewhere reaches the page through the row.
    setRow({ apiKey: KEY, webhookUrl: null });
    expect(keyText()).toBe(masked(KEY));
  });

  it("reports a failed rotation with 'Failed to rotate API key' and the alert, and keeps the key", async () => {
    const gateway = fakeGateway({
      rotateKey: vi.fn(async () => Promise.reject(new ApiError('An unexpected error occured, Please refresh and try again!', 500))),
    });
    const { notices, user } = renderPage(gateway);
    await user.click(screen.getByRole('button', { name: 'Rotate key' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Rotate' }));
    await waitFor(() => expect(notices.error).toHaveBeenCalledWith(TEXTS.rotateFailed, null));
    expect(notices.alert).toHaveBeenCalledWith(TEXTS.unexpected);
    expect(keyText()).toBe(masked(KEY));
  });
});

describe('the webhook card', () => {
  it('refuses a URL without http:// or https:// and sends nothing', async () => {
    const gateway = fakeGateway();
    const { user } = renderPage(gateway);
    await user.type(screen.getByRole('textbox', { name: 'Webhook URL' }), 'ftp://x');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(screen.getByTestId('webhook-error').textContent).toBe('Webhook must start with http:// or https://');
    expect(gateway.updateWebhookUrl).not.toHaveBeenCalled();
  });

  it('saves an https URL (Enter submits), shows it as current, and removes it when saved blank', async () => {
    const gateway = fakeGateway();
    const { notices, user } = renderPage(gateway);
    expect(screen.getByTestId('webhook-current').textContent).toBe('No webhook set.');
    const input = screen.getByRole('textbox', { name: 'Webhook URL' });
    await user.type(input, 'HTTPS://example.com/hook{Enter}');
    await waitFor(() => expect(notices.success).toHaveBeenCalledWith(TEXTS.webhookUpdated));
    expect(gateway.updateWebhookUrl).toHaveBeenCalledWith('HTTPS://example.com/hook');
    expect(screen.getByTestId('webhook-current-url').textContent).toBe('HTTPS://example.com/hook');

    await user.clear(input);
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(gateway.updateWebhookUrl).toHaveBeenLastCalledWith(''));
    await waitFor(() => expect(screen.getByTestId('webhook-current').textContent).toBe('No webhook set.'));
  });

  it("shows the server's reason when it answers 400, with 'Failed to update webhook URL'", async () => {
    const reason = 'Enter a valid webhook URL or leave blank to remove the webhook URL';
    const gateway = fakeGateway({ updateWebhookUrl: vi.fn(async () => Promise.reject(new ApiError(reason, 400))) });
    const { notices, user } = renderPage(gateway, { account: { apiKey: KEY, webhookUrl: 'https://old.example/h' } });
    const input = screen.getByRole('textbox', { name: 'Webhook URL' }) as HTMLInputElement;
    expect(input.value).toBe('https://old.example/h');
    await user.clear(input);
    await user.type(input, 'https://exa mple.com');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.getByTestId('webhook-error').textContent).toBe(reason));
    expect(notices.error).toHaveBeenCalledWith(TEXTS.webhookFailed, reason);
    expect(notices.alert).not.toHaveBeenCalled();
    expect(screen.getByTestId('webhook-current-url').textContent).toBe('https://old.example/h');
  });
});

describe('the sample code', () => {
  it('defaults to Node.js and the Generate call', () => {
    renderPage(fakeGateway());
    expect(screen.getByRole('tab', { name: 'Node.js' }).getAttribute('aria-selected')).toBe('true');
    expect((screen.getByRole('radio', { name: 'Generate' }) as HTMLInputElement).checked).toBe(true);
    const code = screen.getByTestId('sample-code').textContent!;
    expect(code).toContain("fetch('http://localhost:8080/imagine'");
    expect(code).toContain("aspect_ratio: '1:1'");
    expect(code).not.toContain('/pro/imagine');
    expect(code).toContain(masked(KEY));
    expect(code).not.toContain(KEY);
    expect(screen.getByTestId('sample-endpoint').textContent).toBe('POST http://localhost:8080/imagine');
    expect((screen.getByRole('combobox', { name: 'Endpoint' }) as HTMLSelectElement).value).toBe('midjourney');
    expect(param('endpoint')).toBeNull();
  });

  it('follows ?language=python&requestType=fetch, copies the real key, and writes choices back to the URL', async () => {
    const gateway = fakeGateway();
    const { notices, user } = renderPage(gateway, { url: '/dashboard/api-keys?language=python&requestType=fetch' });
    expect(screen.getByRole('tab', { name: 'Python' }).getAttribute('aria-selected')).toBe('true');
    expect((screen.getByRole('radio', { name: 'Fetch' }) as HTMLInputElement).checked).toBe(true);
    expect(screen.getByTestId('sample-code').textContent).toContain('urllib.request.Request(\n    "http://localhost:8080/fetch"');

    await user.click(screen.getByRole('button', { name: 'Copy code' }));
    const copied = vi.mocked(gateway.copyText).mock.calls[0]![0];
    expect(copied).toContain(`API_KEY = "${KEY}"`);
    expect(notices.success).toHaveBeenCalledWith(TEXTS.sampleCopied);

    await user.click(screen.getByRole('tab', { name: 'CURL' }));
    await waitFor(() => expect(param('language')).toBe('curl'));
    expect(screen.getByTestId('sample-code').textContent).toMatch(/^curl -X POST 'http:\/\/localhost:8080\/fetch'/);
    await user.click(screen.getByText('Generate'));
    await waitFor(() => expect(param('requestType')).toBe('generate'));
    expect(screen.getByTestId('sample-code').textContent).toMatch(/^curl -X POST 'http:\/\/localhost:8080\/imagine'/);
  });

  it('the Endpoint chooser picks the family: URL, endpoint line, code and the copied code follow it', async () => {
    const gateway = fakeGateway();
    const { user } = renderPage(gateway, { url: '/dashboard/api-keys?language=python' });
    const chooser = screen.getByRole('combobox', { name: 'Endpoint' }) as HTMLSelectElement;
    expect(
      within(chooser)
        .getAllByRole('option')
        .map((o) => (o as HTMLOptionElement).value),
    ).toEqual(['midjourney', 'flux', 'ideogram', 'luma', 'kling', 'runway', 'suno', 'udio', 'faceswap']);

    await user.selectOptions(chooser, 'Kling video (/kling-imagine)');
    await waitFor(() => expect(param('endpoint')).toBe('kling'));
    expect(param('language')).toBe('python');
    expect(chooser.value).toBe('kling');
    expect(screen.getByTestId('sample-endpoint').textContent).toBe('POST http://localhost:8080/kling-imagine');
    const code = screen.getByTestId('sample-code').textContent!;
    expect(code).toContain('"http://localhost:8080/kling-imagine"');
    expect(code).toContain('"generation_type": "text2video",\n        "duration": 5,');
    expect(code).not.toContain('localhost:8080/imagine');

    await user.click(screen.getByRole('button', { name: 'Copy code' }));
    const copied = vi.mocked(gateway.copyText).mock.calls[0]![0];
    expect(copied).toContain(`API_KEY = "${KEY}"`);
    expect(copied).toContain('"http://localhost:8080/kling-imagine"');

    await user.selectOptions(chooser, 'faceswap');
    await waitFor(() => expect(param('endpoint')).toBe('faceswap'));
    expect(screen.getByTestId('sample-code').textContent).toContain('"swap_image_url": "https://example.com/face.jpg"');
  });

  it('hides the chooser for Fetch and keeps the chosen endpoint for Generate', async () => {
    const { user } = renderPage(fakeGateway(), { url: '/dashboard/api-keys?requestType=generate&endpoint=luma' });
    expect((screen.getByRole('combobox', { name: 'Endpoint' }) as HTMLSelectElement).value).toBe('luma');

    await user.click(screen.getByText('Fetch'));
    await waitFor(() => expect(param('requestType')).toBe('fetch'));
    expect(screen.queryByRole('combobox', { name: 'Endpoint' })).toBeNull();
    expect(screen.getByTestId('sample-endpoint').textContent).toBe('POST http://localhost:8080/fetch');
    expect(screen.getByTestId('sample-code').textContent).toContain("task_id: 'YOUR_TASK_ID'");
    expect(screen.getByTestId('sample-code').textContent).toContain('until status is finished (or failed)');

    await user.click(screen.getByText('Generate'));
    await waitFor(() => expect(param('requestType')).toBe('generate'));
    expect((screen.getByRole('combobox', { name: 'Endpoint' }) as HTMLSelectElement).value).toBe('luma');
    expect(screen.getByTestId('sample-endpoint').textContent).toBe('POST http://localhost:8080/luma-imagine');
  });

  it('opened with ?endpoint=suno shows the Suno sample; an unknown endpoint shows Midjourney', () => {
    renderPage(fakeGateway(), { url: '/dashboard/api-keys?language=curl&endpoint=suno' });
    expect((screen.getByRole('combobox', { name: 'Endpoint' }) as HTMLSelectElement).value).toBe('suno');
    expect(screen.getByTestId('sample-endpoint').textContent).toBe('POST http://localhost:8080/suno-imagine');
    expect(screen.getByTestId('sample-code').textContent).toMatch(/^curl -X POST 'http:\/\/localhost:8080\/suno-imagine'/);
    expect(screen.getByTestId('sample-code').textContent).toContain('"make_instrumental":false}');
    cleanup();

    renderPage(fakeGateway(), { url: '/dashboard/api-keys?endpoint=dalle' });
    expect((screen.getByRole('combobox', { name: 'Endpoint' }) as HTMLSelectElement).value).toBe('midjourney');
    expect(screen.getByTestId('sample-endpoint').textContent).toBe('POST http://localhost:8080/imagine');
  });
});

describe('before the user row is there', () => {
  it('shows a loading state, then the page', () => {
    const { setRow } = renderPage(fakeGateway(), { account: null });
    expect(screen.getByTestId('api-keys-loading')).toBeTruthy();
    expect(screen.queryByTestId('api-key-value')).toBeNull();
    setRow({ apiKey: KEY, webhookUrl: null });
    expect(keyText()).toBe(masked(KEY));
  });

  it('says so when the row could not be loaded', () => {
    renderPage(fakeGateway(), { account: null, loadFailed: true });
    expect(screen.getByTestId('api-keys-error').textContent).toContain('Your API key could not be loaded');
    expect(screen.queryByTestId('api-keys-loading')).toBeNull();
  });
});
