import { useEffect, useState } from 'react';
import { Badge, Box, Button, HStack, Skeleton, Text } from '@aim/shared-kit/ui';
import { useLocation } from '@aim/shared-kit/router';
import { formatCredits } from '@aim/shared-kit/format';
import { useUserRow } from '@aim/shared-kit/session';
import { RemoteSlot } from '../../mf/remote-slot.tsx';
import { documentTitle, screenTitle } from './screen-titles.ts';
import { DRAWER_BELOW, SidebarDrawer } from './sidebar.tsx';
import { ThemeSwitch } from './theme-switch.tsx';

export function TopBar() {
  const { status, row } = useUserRow();
  const title = screenTitle(useLocation().pathname);
  // Load the billing remote's dialog on first use only; keep it mounted after that so it can animate closed.
  const [dialogRequested, setDialogRequested] = useState(false);
  const [open, setOpen] = useState(false);

  useEffect(() => {
    document.title = documentTitle(title);
    // Leaving the dashboard (sign-out, /welcome) leaves no stale screen name in the tab.
    return () => {
      document.title = documentTitle(null);
    };
  }, [title]);

  return (
    <HStack as="header" gap={{ base: '2', md: '3' }} px={{ base: '3', md: '6' }} h="16" borderBottomWidth="1px" bg="bg.panel" flexShrink={0}>
      <SidebarDrawer />
      <Text flex="1" minW="0" truncate fontWeight="semibold" fontSize={{ base: 'md', md: 'lg' }} data-testid="screen-title">
        {title}
      </Text>
      {/* Below the breakpoint the theme switch lives in the drawer. */}
      <Box hideBelow={DRAWER_BELOW}>
        <ThemeSwitch />
      </Box>
      <HStack gap="2" aria-live="polite" flexShrink={0}>
        <Text fontSize="sm" color="fg.muted" srOnly={{ base: true, sm: false }}>
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
        flexShrink={0}
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
