import { useState } from 'react';
import { Button, CloseButton, Dialog, NativeSelect, Portal, Stack, Text } from '@chakra-ui/react';
import { TOP_UPS } from '@aim/shared-kit/domain';
import { formatCredits } from '@aim/shared-kit/format';
import type { TopUpDialogProps } from '@aim/shared-kit/remote';

/** The purchase dialog the shell's Buy credits button opens. Checkout arrives with the billing issue. */
export function TopUpDialog({ open, onOpenChange }: TopUpDialogProps) {
  const [usd, setUsd] = useState(TOP_UPS[0]!.usd);
  const credits = TOP_UPS.find((t) => t.usd === usd)?.credits ?? 0;
  return (
    <Dialog.Root open={open} onOpenChange={(e) => onOpenChange(e.open)} placement="center">
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content data-testid="top-up-dialog">
            <Dialog.Header>
              <Dialog.Title>Buy credits</Dialog.Title>
            </Dialog.Header>
            <Dialog.Body>
              <Stack gap="3">
                <NativeSelect.Root>
                  <NativeSelect.Field aria-label="Amount" value={usd} onChange={(e) => setUsd(Number(e.currentTarget.value))}>
                    {TOP_UPS.map((t) => (
                      <option key={t.usd} value={t.usd}>
                        ${t.usd} → {formatCredits(t.credits)} credits
                      </option>
                    ))}
                  </NativeSelect.Field>
                  <NativeSelect.Indicator />
                </NativeSelect.Root>
                <Text color="fg.muted">You get {formatCredits(credits)} credits.</Text>
              </Stack>
            </Dialog.Body>
            <Dialog.Footer>
              <Button variant="outline" onClick={() => onOpenChange(false)}>
                Close
              </Button>
            </Dialog.Footer>
            <Dialog.CloseTrigger asChild>
              <CloseButton size="sm" />
            </Dialog.CloseTrigger>
          </Dialog.Content>
        </Dialog.Positioner>
      </Portal>
    </Dialog.Root>
  );
}

export default TopUpDialog;
