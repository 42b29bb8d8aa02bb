import { lazy, Suspense } from 'react';
import { Box, Flex } from '@aim/shared-kit/ui';
import { useAtomValue } from 'jotai';
import { Outlet } from '@aim/shared-kit/router';
import { PromoBanner } from '../features/frame/promo-banner.tsx';
import { SIDEBAR_WIDTH, Sidebar, sidebarCollapsedAtom } from '../features/frame/sidebar.tsx';
import { TopBar } from '../features/frame/top-bar.tsx';

// why the account is on hold, if it is (a dispute, a negative balance, a past-due renewal): off the first render's bundle
const AccountHoldBanner = lazy(() => import('../features/frame/account-hold-banner.tsx'));

/**
 * The dashboard frame: fixed sidebar (a drawer from the top bar on phones), banner, top bar, and
 * the remote screen in the outlet.
 */
export function DashboardLayout() {
  const collapsed = useAtomValue(sidebarCollapsedAtom);
  const width = collapsed ? SIDEBAR_WIDTH.collapsed : SIDEBAR_WIDTH.expanded;
  return (
    <Box minH="100vh" bg="bg">
      <Sidebar />
      <Flex direction="column" minH="100vh" minW="0" ml={{ base: '0', md: `${width}px` }} transition="margin-left 0.15s ease">
        <Suspense fallback={null}>
          <AccountHoldBanner />
        </Suspense>
        <PromoBanner />
        <TopBar />
        {/* A word longer than a phone's line (an email, an id) breaks rather than pushing the page wider. */}
        <Box as="main" flex="1" p={{ base: 4, md: 8 }} minW="0" overflowWrap="break-word">
          <Outlet />
        </Box>
      </Flex>
    </Box>
  );
}
