// Pieces the galleries share: skeletons, the favourite heart, the empty and error states, the
// end of the list (infinite scroll sentinel, Load more, Retry).
import { Box, Button, EmptyState, HStack, IconButton, NativeSelect, Skeleton, Switch, Tabs, Text } from '@aim/shared-kit/ui';
import type { ReactNode } from 'react';
import { DEFAULT_API_ERROR } from '@aim/shared-kit/api';
import { MAX_SKELETONS } from '@aim/shared-kit/domain';
import type { KeysetList } from '@aim/shared-kit/query';

/** What the shared pieces read of a list, whatever its items. */
type ListView = Pick<KeysetList<{ id: string }>, 'items' | 'phase' | 'reload' | 'loadMore' | 'sentinel'>;

export const GALLERY_TEXTS = {
  favoriteFailed: DEFAULT_API_ERROR,
  downloadFailed: 'Error downloading image',
} as const;

/** A gallery's choice bar: the Show select (Everything, Favorites, …) and, where there is one, Show Archive. */
export function GalleryChoices<F extends string>(props: {
  filter: F;
  filters: readonly F[];
  onFilter(filter: F): void;
  filterTestId: string;
  /** Absent where the gallery has no archive switch. */
  archive?: { checked: boolean; onChange(checked: boolean): void };
  children?: ReactNode;
}) {
  return (
    <HStack gap="3" wrap="wrap" align="center">
      {props.children}
      <NativeSelect.Root size="sm" w="44">
        <NativeSelect.Field
          aria-label="Show"
          value={props.filter}
          onChange={(e) => props.onFilter(e.currentTarget.value as F)}
          data-testid={props.filterTestId}
        >
          {props.filters.map((f) => (
            <option key={f} value={f}>
              {f}
            </option>
          ))}
        </NativeSelect.Field>
        <NativeSelect.Indicator />
      </NativeSelect.Root>
      {props.archive && (
        <Switch.Root
          checked={props.archive.checked}
          onCheckedChange={(e) => props.archive?.onChange(e.checked)}
          colorPalette="brand"
          data-testid="archive-switch"
        >
          <Switch.HiddenInput />
          <Switch.Control />
          <Switch.Label>Show Archive</Switch.Label>
        </Switch.Root>
      )}
    </HStack>
  );
}

/**
 * A gallery's tabs (All, then one per source) around the tab panel (`children`: the list or its
 * status). Values without spaces: Zag derives the tab and panel ids from them ("AI Photos").
 */
export function GalleryTabs({ tab, tabs, onTab, children }: { tab: string; tabs: readonly string[]; onTab(tab: string): void; children: ReactNode }) {
  const value = (t: string) => t.replace(/\s+/g, '-');
  return (
    <Tabs.Root value={value(tab)} onValueChange={(e) => onTab(tabs.find((t) => value(t) === e.value) ?? tab)} variant="line" size="sm">
      <Tabs.List maxW="full" overflowX="auto">
        {tabs.map((t) => (
          <Tabs.Trigger key={t} value={value(t)} flexShrink={0}>
            {t}
          </Tabs.Trigger>
        ))}
      </Tabs.List>
      <Tabs.Content value={value(tab)} pt="5">
        {children}
      </Tabs.Content>
    </Tabs.Root>
  );
}

/** Up to 10 placeholders (§9) while a page is on its way. */
export function Skeletons({ pageSize, aspectRatio }: { pageSize: number; aspectRatio: number }) {
  return Array.from({ length: Math.min(MAX_SKELETONS, pageSize) }, (_, i) => (
    <Skeleton key={`skeleton-${i}`} aspectRatio={aspectRatio} rounded="l3" data-testid="gallery-skeleton" />
  ));
}

function Heart({ filled }: { filled: boolean }) {
  return (
    <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" fill={filled ? 'currentColor' : 'none'} stroke="currentColor" strokeWidth="2">
      <path d="M12 21s-7.5-4.6-9.5-9.2C1 8.3 3.2 5 6.6 5c2 0 3.4 1.1 4.4 2.6C12 6.1 13.4 5 15.4 5 18.8 5 21 8.3 19.5 11.8 17.5 16.4 12 21 12 21z" />
    </svg>
  );
}

export function FavoriteButton({ favorite, onToggle, overlay = false }: { favorite: boolean; onToggle(): void; overlay?: boolean }) {
  return (
    <IconButton
      {...(overlay ? { position: 'absolute', top: '2', right: '2' } : {})}
      size="sm"
      rounded="full"
      variant={overlay ? 'solid' : 'ghost'}
      colorPalette={favorite ? 'red' : 'gray'}
      aria-label={favorite ? 'Remove from favorites' : 'Add to favorites'}
      aria-pressed={favorite}
      onClick={onToggle}
    >
      <Heart filled={favorite} />
    </IconButton>
  );
}

/** The first page failed (with Retry), or there is nothing to show (narrowed by a choice, or not yet). */
export function GalleryStatus({ list, narrowed, noun, origin }: { list: ListView; narrowed: boolean; noun: string; origin: string }) {
  if (list.phase === 'error' && list.items.length === 0) {
    return (
      <EmptyState.Root borderWidth="1px" rounded="l3" data-testid="gallery-error">
        <EmptyState.Content>
          <EmptyState.Title as="h2">Your {noun} could not be loaded</EmptyState.Title>
          <Button size="sm" variant="outline" onClick={list.reload}>
            Retry
          </Button>
        </EmptyState.Content>
      </EmptyState.Root>
    );
  }
  return (
    <EmptyState.Root borderWidth="1px" borderStyle="dashed" rounded="l3" data-testid="gallery-empty">
      <EmptyState.Content>
        <EmptyState.Title as="h2">{narrowed ? `No ${noun} match` : `No ${noun} yet`}</EmptyState.Title>
        <EmptyState.Description>{narrowed ? 'Try another tab, filter or search.' : origin}</EmptyState.Description>
      </EmptyState.Content>
    </EmptyState.Root>
  );
}

/** What follows the list: the scroll sentinel with Load more (also for keyboards), or Retry of a failed next page. */
export function ListEnd({ list, noun }: { list: ListView; noun: string }) {
  if (list.phase === 'idle') {
    return (
      <Box ref={list.sentinel} textAlign="center">
        <Button size="sm" variant="ghost" onClick={list.loadMore}>
          Load more
        </Button>
      </Box>
    );
  }
  if (list.phase === 'error' && list.items.length > 0) {
    return (
      <HStack justify="center" role="alert">
        <Text color="fg.muted">The next {noun} could not be loaded.</Text>
        <Button size="sm" variant="outline" onClick={list.loadMore}>
          Retry
        </Button>
      </HStack>
    );
  }
  return null;
}

/** True while the list shows nothing but a state (empty or failed first page). */
export function showsStatus(list: ListView): boolean {
  return list.items.length === 0 && (list.phase === 'end' || list.phase === 'error');
}
