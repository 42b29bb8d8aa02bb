import { useEffect, useState } from 'react';
import { Box, Button, Circle, CloseButton, Dialog, Flex, HStack, IconButton, Portal, Stack, Text } from '@aim/shared-kit/ui';
import { atomWithStorage } from 'jotai/utils';
import { useAtom } from 'jotai';
import { NavLink, useLocation, useNavigate } from '@aim/shared-kit/router';
import { planLabel } from '@aim/shared-kit/domain';
import { shortName, userInitial } from '@aim/shared-kit/format';
import { signOut, useSession, useUserRow } from '@aim/shared-kit/session';
import { ThemeSwitch } from './theme-switch.tsx';

export const SIDEBAR_WIDTH = { collapsed: 84, expanded: 240 } as const;

/**
 * Below Chakra's `md` breakpoint (48em) the sidebar is a drawer opened from the top bar: a phone
 * has no room for 240 px beside the content. The spec's 84/240 px collapse applies from `md` up.
 */
export const DRAWER_BELOW = 'md';
const WIDE_QUERY = '(min-width: 48em)';

export const sidebarCollapsedAtom = atomWithStorage('aim.sidebar.collapsed', false);

type NavItem = { label: string; to: string; icon: string };

const NAV_GROUPS: readonly { title: string; items: NavItem[] }[] = [
  {
    title: 'TOOLS',
    items: [
      { label: 'Midjourney', to: '/dashboard/tools/midjourney', icon: '✦' },
      { label: 'AI Photos', to: '/dashboard/tools/ai-photos', icon: '◉' },
    ],
  },
  {
    title: 'ASSETS',
    items: [
      { label: 'Images', to: '/dashboard/assets/images', icon: '▣' },
      { label: 'Videos', to: '/dashboard/assets/videos', icon: '▶' },
    ],
  },
  {
    title: 'BILLING',
    items: [
      { label: 'Subscription', to: '/dashboard/billing/subscription', icon: '★' },
      { label: 'Payment Methods', to: '/dashboard/billing/payment-methods', icon: '▭' },
      { label: 'Invoices', to: '/dashboard/billing/invoices', icon: '≡' },
    ],
  },
  {
    title: 'API & LOGS',
    items: [
      { label: 'API Keys', to: '/dashboard/api-keys', icon: '◆' },
      { label: 'Task Logs', to: '/dashboard/task-logs', icon: '☰' },
    ],
  },
];

/** The fixed sidebar of screens from `md` up (hidden below: see SidebarDrawer). */
export function Sidebar() {
  const [collapsed, setCollapsed] = useAtom(sidebarCollapsedAtom);
  return (
    <Flex
      as="nav"
      aria-label="Main"
      data-testid="sidebar"
      data-collapsed={collapsed}
      direction="column"
      position="fixed"
      insetY="0"
      left="0"
      width={`${collapsed ? SIDEBAR_WIDTH.collapsed : SIDEBAR_WIDTH.expanded}px`}
      transition="width 0.15s ease"
      bg="bg.panel"
      borderRightWidth="1px"
      zIndex="docked"
      overflowX="hidden"
      hideBelow={DRAWER_BELOW}
    >
      <HStack justify={collapsed ? 'center' : 'space-between'} px="4" h="16" flexShrink={0}>
        {!collapsed && (
          <Text fontWeight="bold" fontSize="lg" color="brand.fg" whiteSpace="nowrap">
            AI Media
          </Text>
        )}
        <IconButton
          size="sm"
          variant="ghost"
          aria-label={collapsed ? 'Expand sidebar' : 'Collapse sidebar'}
          aria-expanded={!collapsed}
          data-testid="sidebar-toggle"
          onClick={() => setCollapsed((c) => !c)}
        >
          <span aria-hidden>{collapsed ? '»' : '«'}</span>
        </IconButton>
      </HStack>
      <SidebarContent collapsed={collapsed} />
    </Flex>
  );
}

/**
 * The menu button of the top bar below `md` and the drawer it opens: the same groups, user and
 * Logout as the sidebar, plus the theme switch (no room for it in a phone's top bar). Focus is
 * trapped inside, Escape or a navigation closes it, and focus returns to the button.
 */
export function SidebarDrawer() {
  // Open on the screen it was opened on only: any navigation (a link, Back) closes it.
  const { pathname } = useLocation();
  const [openOn, setOpenOn] = useState<string | null>(null);
  const open = openOn === pathname;
  const setOpen = (next: boolean) => setOpenOn(next ? pathname : null);
  useEffect(() => {
    // Widened past the breakpoint (rotation, resize): the fixed sidebar takes over.
    const wide = window.matchMedia(WIDE_QUERY);
    const close = () => wide.matches && setOpenOn(null);
    wide.addEventListener('change', close);
    return () => wide.removeEventListener('change', close);
  }, []);

  return (
    <>
      {/* Outside the dialog: a closed Dialog.Root renders nothing until Chakra's lazy chunk is
          there, and it no longer fetches that chunk before the page's content (shared-kit/src/ui.ts) */}
      <IconButton
        size="sm"
        variant="ghost"
        aria-label="Open menu"
        aria-haspopup="dialog"
        aria-expanded={open}
        data-testid="menu-button"
        hideFrom={DRAWER_BELOW}
        flexShrink={0}
        onClick={() => setOpen(true)}
      >
        <span aria-hidden>☰</span>
      </IconButton>
      <Dialog.Root open={open} onOpenChange={(e) => setOpen(e.open)} size="full" motionPreset="slide-in-left" lazyMount unmountOnExit>
        <Portal>
          <Dialog.Backdrop />
          <Dialog.Positioner justifyContent="flex-start">
            <Dialog.Content data-testid="sidebar-drawer" w="72" maxW="calc(100vw - 3rem)" mx="0" rounded="none">
              <HStack justify="space-between" px="4" h="16" flexShrink={0}>
                <Dialog.Title fontWeight="bold" fontSize="lg" color="brand.fg">
                  AI Media
                </Dialog.Title>
                <Dialog.CloseTrigger asChild position="static">
                  <CloseButton size="sm" aria-label="Close menu" />
                </Dialog.CloseTrigger>
              </HStack>
              <Flex as="nav" aria-label="Main" direction="column" flex="1" minH="0">
                <SidebarContent collapsed={false} onNavigate={() => setOpen(false)} withThemeSwitch />
              </Flex>
            </Dialog.Content>
          </Dialog.Positioner>
        </Portal>
      </Dialog.Root>
    </>
  );
}

function SidebarContent({ collapsed, onNavigate, withThemeSwitch = false }: { collapsed: boolean; onNavigate?: () => void; withThemeSwitch?: boolean }) {
  const { user } = useSession();
  const { row } = useUserRow();
  const navigate = useNavigate();
  const email = row?.email ?? user?.email ?? '';

  async function logout() {
    await signOut();
    navigate('/auth', { replace: true });
  }

  return (
    <>
      <Stack gap="5" px="3" py="2" flex="1" overflowY="auto">
        {NAV_GROUPS.map((group) => (
          <Stack key={group.title} gap="1" role="group" aria-label={group.title}>
            {collapsed ? (
              <Box borderTopWidth="1px" mx="3" my="1" aria-hidden />
            ) : (
              <Text fontSize="xs" fontWeight="semibold" color="fg.muted" px="2" whiteSpace="nowrap">
                {group.title}
              </Text>
            )}
            {group.items.map((item) => (
              <NavLink key={item.to} to={item.to} title={item.label} style={{ textDecoration: 'none' }} onClick={onNavigate}>
                {({ isActive }) => (
                  <HStack
                    gap="3"
                    px="3"
                    py="2"
                    rounded="md"
                    justify={collapsed ? 'center' : 'flex-start'}
                    bg={isActive ? 'brand.subtle' : undefined}
                    color={isActive ? 'brand.fg' : 'fg'}
                    fontWeight={isActive ? 'semibold' : 'normal'}
                    _hover={{ bg: 'bg.muted' }}
                    aria-current={isActive ? 'page' : undefined}
                  >
                    <Box as="span" aria-hidden w="5" textAlign="center">
                      {item.icon}
                    </Box>
                    {collapsed ? (
                      <Box as="span" srOnly>
                        {item.label}
                      </Box>
                    ) : (
                      <Text as="span" fontSize="sm" whiteSpace="nowrap">
                        {item.label}
                      </Text>
                    )}
                  </HStack>
                )}
              </NavLink>
            ))}
          </Stack>
        ))}
      </Stack>
      <Stack borderTopWidth="1px" p="3" gap="3" flexShrink={0}>
        {withThemeSwitch && <ThemeSwitch />}
        <HStack gap="3" justify={collapsed ? 'center' : 'flex-start'}>
          <Circle size="9" bg="brand.solid" color="brand.contrast" fontWeight="bold" data-testid="user-initial" flexShrink={0}>
            {userInitial(email)}
          </Circle>
          {!collapsed && (
            <Stack gap="0" minW="0">
              <Text fontSize="sm" fontWeight="semibold" data-testid="user-short-name" truncate>
                {shortName(email)}
              </Text>
              <Text fontSize="xs" color="fg.muted" data-testid="user-plan">
                {planLabel(row?.plan)}
              </Text>
            </Stack>
          )}
        </HStack>
        <Button size="sm" variant="outline" onClick={logout} data-testid="logout" aria-label="Logout" px={collapsed ? 0 : undefined}>
          {collapsed ? '↪' : 'Logout'}
        </Button>
      </Stack>
    </>
  );
}
