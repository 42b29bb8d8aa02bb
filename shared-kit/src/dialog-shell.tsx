// The scaffolding every dialog of the front-ends repeats: root, portal, backdrop, positioner,
// content (its test id), header with the title, and the ✕ close trigger. What is inside (the
// body, the footer, a form around both) stays the caller's, written with `Dialog.Body` and
// `Dialog.Footer` from '@aim/shared-kit/ui'. Dialog stays one of ui.ts's lazy parts (this module
// is only these few lines on the first render), and Chakra's Dialog keeps doing the behaviour
// (Escape and the ✕ close, focus is trapped inside and returns to the trigger).
import type { DialogRootProps } from '@chakra-ui/react';
import type { ReactNode } from 'react';
import { CloseButton, Dialog, Portal } from './ui.ts';

export type DialogShellProps = Pick<DialogRootProps, 'size' | 'placement' | 'scrollBehavior' | 'role' | 'closeOnInteractOutside' | 'initialFocusEl'> & {
  open: boolean;
  /** Escape, the ✕, a click outside: the caller decides (e.g. not while its action runs). */
  onClose: () => void;
  /** In a header above the children; none when the children bring their own `Dialog.Header`. */
  title?: ReactNode;
  testId?: string;
  /** The ✕ in the corner (default shown); disabled e.g. while the dialog's action runs. */
  closeButton?: boolean;
  closeDisabled?: boolean;
  children: ReactNode;
};

/**
 * A centred dialog: `title` as its heading, `children` below (usually `Dialog.Body` and
 * `Dialog.Footer`). As with Chakra's Dialog, the children are mounted only while it is open, so
 * their state starts afresh each time.
 */
export function DialogShell({
  open,
  onClose,
  title,
  testId,
  closeButton = true,
  closeDisabled,
  placement = 'center',
  children,
  ...rootProps
}: DialogShellProps) {
  return (
    <Dialog.Root {...rootProps} open={open} onOpenChange={(e) => !e.open && onClose()} placement={placement}>
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content data-testid={testId}>
            {title !== undefined && (
              <Dialog.Header>
                <Dialog.Title>{title}</Dialog.Title>
              </Dialog.Header>
            )}
            {children}
            {closeButton && (
              <Dialog.CloseTrigger asChild disabled={closeDisabled}>
                <CloseButton size="sm" aria-label="Close" />
              </Dialog.CloseTrigger>
            )}
          </Dialog.Content>
        </Dialog.Positioner>
      </Portal>
    </Dialog.Root>
  );
}
