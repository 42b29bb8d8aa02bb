import { type ReactNode, useRef } from 'react';
import { Button, Dialog } from '@aim/shared-kit/ui';
import { DialogShell } from '@aim/shared-kit/dialog-shell';

/**
 * The confirmation before a rotation (the API key, the webhook signing secret) or a named key's
 * revocation: focus starts on Cancel, and while the action runs the dialog cannot be closed.
 */
export function RotateDialog(props: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  rotating: boolean;
  title: string;
  children: ReactNode;
  onConfirm: () => void;
  testId: string;
  /** The confirm button and its busy text; default Rotate / Rotating... */
  confirmLabel?: string;
  busyLabel?: string;
}) {
  const { open, onOpenChange, rotating, title, children, onConfirm, testId, confirmLabel = 'Rotate', busyLabel = 'Rotating...' } = props;
  const cancelRef = useRef<HTMLButtonElement>(null);
  return (
    <DialogShell
      role="alertdialog"
      open={open}
      onClose={() => !rotating && onOpenChange(false)}
      title={title}
      testId={testId}
      closeOnInteractOutside={!rotating}
      initialFocusEl={() => cancelRef.current}
      closeDisabled={rotating}
    >
      <Dialog.Body>{children}</Dialog.Body>
      <Dialog.Footer>
        <Dialog.ActionTrigger asChild>
          <Button ref={cancelRef} variant="outline" disabled={rotating}>
            Cancel
          </Button>
        </Dialog.ActionTrigger>
        <Button colorPalette="red" loading={rotating} loadingText={busyLabel} onClick={onConfirm}>
          {confirmLabel}
        </Button>
      </Dialog.Footer>
    </DialogShell>
  );
}
