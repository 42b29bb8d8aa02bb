import { type ReactNode, useRef } from 'react';
import { Button, CloseButton, Dialog, Portal } from '@aim/shared-kit/ui';

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
    <Dialog.Root
      role="alertdialog"
      open={open}
      onOpenChange={(e) => !rotating && onOpenChange(e.open)}
      placement="center"
      closeOnInteractOutside={!rotating}
      initialFocusEl={() => cancelRef.current}
    >
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content data-testid={testId}>
            <Dialog.Header>
              <Dialog.Title>{title}</Dialog.Title>
            </Dialog.Header>
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
            <Dialog.CloseTrigger asChild disabled={rotating}>
              <CloseButton size="sm" aria-label="Close" />
            </Dialog.CloseTrigger>
          </Dialog.Content>
        </Dialog.Positioner>
      </Portal>
    </Dialog.Root>
  );
}
