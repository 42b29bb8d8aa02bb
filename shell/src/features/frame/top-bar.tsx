import { useState } from 'react';
import { Badge, Button, HStack, Skeleton, Text } from '@aim/shared-kit/ui';
import { formatCredits } from '@aim/shared-kit/format';
import { useUserRow } from '@aim/shared-kit/session';
import { RemoteSlot } from '../../mf/remote-slot.tsx';
import { ThemeSwitch } from './theme-switch.tsx';

export function TopBar() {
  const { status, row } = useUserRow();
  // Load the billing remote's dialog on first use only; keep it mounted after that so it can animate closed.
  const [dialogRequested, setDialogRequested] = useState(false);
  const [open, setOpen] = useState(false);

  return (
    <HStack as="header" justify="flex-end" gap="3" px="6" h="16" borderBottomWidth="1px" bg="bg.panel" flexShrink={0}>
      <ThemeSwitch />
      <HStack gap="2" aria-live="polite">
        <Text fontSize="sm" color="fg.muted">
          Credits
        </Text>
        {row ? (
          <Badge size="lg" colorPalette="brand" variant="subtle" data-testid="credits-count">
            {formatCredits(row.credits)}
          </Badge>
        ) : (
          <Skeleton height="6" width="12" data-testid="credits-loading" data-status={status} />
        )}
      </HStack>
      <Button
        size="sm"
        colorPalette="brand"
        onClick={() => {
          setDialogRequested(true);
          setOpen(true);
        }}
      >
        Buy credits
      </Button>
      {dialogRequested && <RemoteSlot remote="mfe_billing" expose="./TopUpDialog" compact props={{ open, onOpenChange: setOpen }} />}
    </HStack>
  );
}
