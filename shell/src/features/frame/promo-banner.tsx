import { useState } from 'react';
import { CloseButton, HStack, Link, Text } from '@aim/shared-kit/ui';
import { getRuntimeConfig } from '@aim/shared-kit/runtime-config';
import { useSession } from '@aim/shared-kit/session';

/** Versioned so a future campaign can show again to people who dismissed this one. */
function bannerStorageKey(userId: string | null | undefined): string {
  return `aim.banner.dismissed.v1:${userId ?? 'anonymous'}`;
}

function isDismissed(key: string): boolean {
  try {
    return localStorage.getItem(key) === '1';
  } catch {
    return false;
  }
}

export function PromoBanner() {
  const { user } = useSession();
  const key = bannerStorageKey(user?.id);
  // Re-read when the user changes: dismissal is per user.
  const [dismissedKeys, setDismissedKeys] = useState<Record<string, true>>({});
  if (dismissedKeys[key] || isDismissed(key)) return null;

  function dismiss() {
    try {
      localStorage.setItem(key, '1');
    } catch {
      // Without storage the banner stays hidden for this page only.
    }
    setDismissedKeys((keys) => ({ ...keys, [key]: true }));
  }

  return (
    <HStack
      data-testid="promo-banner"
      role="region"
      aria-label="Announcement"
      justify="center"
      gap="3"
      // Room for the Dismiss button on both sides, so the text stays centred and clear of it.
      px="12"
      py="2"
      minH="12"
      bg="brand.solid"
      color="brand.contrast"
      position="relative"
    >
      <Text fontSize="sm" fontWeight="medium">
        Generate AI Videos with Midjourney.{' '}
        <Link href={getRuntimeConfig().docsUrl} target="_blank" rel="noopener noreferrer" color="inherit" textDecoration="underline">
          Try it now
        </Link>
      </Text>
      <CloseButton
        size="xs"
        variant="ghost"
        color="inherit"
        aria-label="Dismiss"
        data-testid="banner-dismiss"
        position="absolute"
        right="3"
        onClick={dismiss}
      />
    </HStack>
  );
}
