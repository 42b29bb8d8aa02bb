// @vitest-environment jsdom
// shared-kit's DialogShell (the scaffold of every dialog in the remotes), checked where component
// tests run in a DOM: its title names the dialog, the ✕ and Escape ask the caller to close, focus
// moves inside, and its children start afresh each time it opens.
import { cleanup, screen, waitFor } from '@testing-library/react';
import { render } from '@aim/shared-kit/testing/render';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChakraProvider } from '@chakra-ui/react';
import { DialogShell, type DialogShellProps } from '@aim/shared-kit/dialog-shell';
import { system } from '@aim/shared-kit/theme';
import { Button, Dialog, Input } from '@aim/shared-kit/ui';

vi.setConfig({ testTimeout: 20_000 });
afterEach(cleanup);

function Harness({ onClose = () => {}, ...props }: Partial<DialogShellProps>) {
  const [open, setOpen] = useState(true);
  return (
    <ChakraProvider value={system}>
      <Button onClick={() => setOpen(true)}>Open</Button>
      <DialogShell
        title="Custom Zoom"
        testId="the-dialog"
        {...props}
        open={open}
        onClose={() => {
          onClose();
          setOpen(false);
        }}
      >
        <Dialog.Body>
          <Input aria-label="Prompt" defaultValue="" />
        </Dialog.Body>
        <Dialog.Footer>
          <Button>Zoom Out</Button>
        </Dialog.Footer>
      </DialogShell>
    </ChakraProvider>
  );
}

describe('DialogShell', () => {
  it('is a dialog named by its title, with the test id, body, footer and a ✕ labelled Close that closes it', async () => {
    const onClose = vi.fn();
    const user = userEvent.setup();
    render(<Harness onClose={onClose} />);
    const dialog = await screen.findByRole('dialog', { name: 'Custom Zoom' });
    expect(dialog.dataset.testid).toBe('the-dialog');
    expect(screen.getByRole('button', { name: 'Zoom Out' })).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Close' }));
    expect(onClose).toHaveBeenCalledTimes(1);
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('closes on Escape once focus is inside it', async () => {
    const onClose = vi.fn();
    const user = userEvent.setup();
    render(<Harness onClose={onClose} />);
    const dialog = await screen.findByRole('dialog');
    await waitFor(() => expect(dialog.contains(document.activeElement)).toBe(true));
    await user.keyboard('{Escape}');
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('can go without the ✕, or keep it disabled', async () => {
    render(<Harness closeButton={false} />);
    await screen.findByRole('dialog');
    expect(screen.queryByRole('button', { name: 'Close' })).toBeNull();
    cleanup();
    render(<Harness closeDisabled />);
    await screen.findByRole('dialog');
    expect((screen.getByRole('button', { name: 'Close' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('starts afresh when it opens again; an alertdialog keeps its role', async () => {
    const user = userEvent.setup();
    render(<Harness role="alertdialog" />);
    await user.type(await screen.findByRole('textbox', { name: 'Prompt' }), 'typed');
    await user.click(screen.getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    await user.click(screen.getByRole('button', { name: 'Open' }));
    await screen.findByRole('alertdialog', { name: 'Custom Zoom' });
    expect((screen.getByRole('textbox', { name: 'Prompt' }) as HTMLInputElement).value).toBe('');
  });
});
