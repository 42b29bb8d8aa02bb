import { useCallback, useEffect, useRef, useState } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import {
  Badge,
  Box,
  Button,
  Card,
  EmptyState,
  HStack,
  Heading,
  IconButton,
  Image,
  Input,
  NativeSelect,
  SimpleGrid,
  Skeleton,
  Stack,
  Switch,
  Tabs,
  Text,
} from '@chakra-ui/react';
import { MAX_SKELETONS, NEXT_PAGE_DELAY_MS, PAGE_SIZES } from '@aim/shared-kit/domain';
import { relativeTime } from '@aim/shared-kit/format';
import { IMAGE_FILTERS, IMAGE_TABS, type ImageFilter, type ImageTab, toolLinkOf } from './gallery-rules.ts';
import type { GalleryImage, GalleryQuery, ImagesGateway } from './gateway.ts';

export const TEXTS = {
  favoriteFailed: 'An unexpected error occured, Please refresh and try again!',
  downloadFailed: 'Error downloading image',
  loadFailed: 'Your pictures could not be loaded',
} as const;

export type ImagesPageProps = {
  gateway: ImagesGateway;
  /** The signed-in user's email; null while the session loads. */
  email: string | null;
  /** An error toast. */
  notifyError(title: string): void;
  /** Delay before each further page (spec §9: 1 second); tests shorten it. */
  nextPageDelayMs?: number;
};

/** loading: the first page; more: a further page (after the delay); end: nothing more to load. */
type Phase = 'loading' | 'idle' | 'more' | 'end' | 'error';

const SEARCH_DEBOUNCE_MS = 300;

function saveBlob(blob: Blob, fileName: string) {
  const href = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = href;
  link.download = fileName;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(href), 0);
}

function Skeletons({ count }: { count: number }) {
  return Array.from({ length: count }, (_, i) => <Skeleton key={`skeleton-${i}`} aspectRatio={1} rounded="l3" data-testid="image-skeleton" />);
}

function Heart({ filled }: { filled: boolean }) {
  return (
    <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" fill={filled ? 'currentColor' : 'none'} stroke="currentColor" strokeWidth="2">
      <path d="M12 21s-7.5-4.6-9.5-9.2C1 8.3 3.2 5 6.6 5c2 0 3.4 1.1 4.4 2.6C12 6.1 13.4 5 15.4 5 18.8 5 21 8.3 19.5 11.8 17.5 16.4 12 21 12 21z" />
    </svg>
  );
}

/** Spec §2 Images gallery: the account's pictures, newest first, by tab, filter and prompt search, with the archive. */
export function ImagesPage({ gateway, email, notifyError, nextPageDelayMs = NEXT_PAGE_DELAY_MS }: ImagesPageProps) {
  const [tab, setTab] = useState<ImageTab>('All');
  const [filter, setFilter] = useState<ImageFilter>('Everything');
  const [archive, setArchive] = useState(false);
  const [searchInput, setSearchInput] = useState('');
  const [search, setSearch] = useState('');
  const [items, setItems] = useState<GalleryImage[]>([]);
  const [phase, setPhase] = useState<Phase>('loading');
  const [downloading, setDownloading] = useState<string | null>(null);
  const sentinel = useRef<HTMLDivElement>(null);
  // A newer view (tab, filter, search, archive) makes the answers for older ones stale.
  const view = useRef(0);
  const state = useRef({ phase, count: 0 });
  state.current = { phase, count: items.length };

  useEffect(() => {
    const timer = setTimeout(() => setSearch(searchInput), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [searchInput]);

  const load = useCallback(
    async (query: GalleryQuery, offset: number, current: number) => {
      if (!email) return;
      if (offset > 0) await new Promise((r) => setTimeout(r, nextPageDelayMs));
      try {
        const rows = await gateway.page(email, query, offset);
        if (current !== view.current) return;
        setItems((prev) => (offset === 0 ? rows : [...prev, ...rows.filter((r) => !prev.some((p) => p.id === r.id))]));
        setPhase(rows.length < PAGE_SIZES.images ? 'end' : 'idle');
      } catch {
        if (current === view.current) setPhase('error');
      }
    },
    [gateway, email, nextPageDelayMs],
  );

  const query: GalleryQuery = { tab, filter, search, archive };
  const queryKey = JSON.stringify(query);

  /** The first page of the current view, dropping whatever an older view still delivers. */
  function reload() {
    const current = ++view.current;
    setItems([]);
    setPhase('loading');
    void load(query, 0, current);
  }

  // `queryKey` stands for the whole view: one first page per distinct view
  useEffect(reload, [load, queryKey]);

  const loadMore = useCallback(() => {
    if (state.current.phase !== 'idle') return;
    setPhase('more');
    void load(query, state.current.count, view.current);
  }, [load, queryKey]);

  // Infinite scroll: the next page when the end of the grid comes near. A new observer after
  // each page reports at once if the end is still in view (a tall screen, a short page).
  useEffect(() => {
    const el = sentinel.current;
    if (!el || phase !== 'idle' || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && loadMore(), { rootMargin: '600px' });
    observer.observe(el);
    return () => observer.disconnect();
  }, [loadMore, phase, items.length]);

  async function toggleFavorite(image: GalleryImage) {
    if (!email) return;
    const flip = (favorite: boolean) => setItems((prev) => prev.map((i) => (i.id === image.id ? { ...i, favorite } : i)));
    flip(!image.favorite);
    try {
      flip(await gateway.toggleFavorite(email, image.id));
    } catch {
      flip(image.favorite);
      notifyError(TEXTS.favoriteFailed);
    }
  }

  async function download(image: GalleryImage) {
    setDownloading(image.id);
    try {
      saveBlob(await gateway.fetchImage(image.image_url), `${image.id}.png`);
    } catch {
      notifyError(TEXTS.downloadFailed);
    } finally {
      setDownloading(null);
    }
  }

  return (
    <Stack gap="5" w="full" data-testid="screen-images">
      <Stack gap="1">
        <Heading as="h1" size="xl">
          Images
        </Heading>
        <Text color="fg.muted">Every picture you made, newest first. Favourite the ones to keep in view.</Text>
      </Stack>

      <HStack gap="3" wrap="wrap" align="center">
        <Input
          maxW="sm"
          size="sm"
          type="search"
          placeholder="Search prompts"
          aria-label="Search prompts"
          value={searchInput}
          onChange={(e) => setSearchInput(e.currentTarget.value)}
          data-testid="image-search"
        />
        <NativeSelect.Root size="sm" w="44">
          <NativeSelect.Field aria-label="Show" value={filter} onChange={(e) => setFilter(e.currentTarget.value as ImageFilter)} data-testid="image-filter">
            {IMAGE_FILTERS.map((f) => (
              <option key={f} value={f}>
                {f}
              </option>
            ))}
          </NativeSelect.Field>
          <NativeSelect.Indicator />
        </NativeSelect.Root>
        <Switch.Root checked={archive} onCheckedChange={(e) => setArchive(e.checked)} colorPalette="brand" data-testid="archive-switch">
          <Switch.HiddenInput />
          <Switch.Control />
          <Switch.Label>Show Archive</Switch.Label>
        </Switch.Root>
      </HStack>

      <Tabs.Root value={tab} onValueChange={(e) => setTab(e.value as ImageTab)} variant="line" size="sm">
        <Tabs.List>
          {IMAGE_TABS.map((t) => (
            <Tabs.Trigger key={t} value={t}>
              {t}
            </Tabs.Trigger>
          ))}
        </Tabs.List>
      </Tabs.Root>

      {phase === 'error' && items.length === 0 ? (
        <EmptyState.Root borderWidth="1px" rounded="l3" data-testid="images-error">
          <EmptyState.Content>
            <EmptyState.Title>{TEXTS.loadFailed}</EmptyState.Title>
            <Button size="sm" variant="outline" onClick={reload}>
              Retry
            </Button>
          </EmptyState.Content>
        </EmptyState.Root>
      ) : phase === 'end' && items.length === 0 ? (
        <EmptyState.Root borderWidth="1px" borderStyle="dashed" rounded="l3" data-testid="images-empty">
          <EmptyState.Content>
            <EmptyState.Title>{search || filter !== 'Everything' || tab !== 'All' || archive ? 'No pictures match' : 'No pictures yet'}</EmptyState.Title>
            <EmptyState.Description>
              {search || filter !== 'Everything' || tab !== 'All' || archive
                ? 'Try another tab, filter or search.'
                : 'Pictures you make in the tools or with the API appear here.'}
            </EmptyState.Description>
          </EmptyState.Content>
        </EmptyState.Root>
      ) : (
        <SimpleGrid columns={{ base: 2, md: 3, xl: 5 }} gap="4" data-testid="image-grid" aria-busy={phase === 'loading' || phase === 'more'}>
          {items.map((image) => {
            const toolLink = toolLinkOf(image);
            return (
              <Card.Root key={image.id} overflow="hidden" size="sm" data-testid="image-card" data-task-id={image.id}>
                <Box position="relative">
                  <Image src={image.image_url} alt={image.prompt ?? image.type} aspectRatio={1} objectFit="cover" w="full" loading="lazy" bg="bg.muted" />
                  <IconButton
                    position="absolute"
                    top="2"
                    right="2"
                    size="sm"
                    rounded="full"
                    variant="solid"
                    colorPalette={image.favorite ? 'red' : 'gray'}
                    aria-label={image.favorite ? 'Remove from favorites' : 'Add to favorites'}
                    aria-pressed={image.favorite}
                    onClick={() => void toggleFavorite(image)}
                  >
                    <Heart filled={image.favorite} />
                  </IconButton>
                </Box>
                <Card.Body gap="1" p="3">
                  <HStack justify="space-between" gap="2">
                    <Badge variant="subtle" size="sm">
                      {image.type}
                    </Badge>
                    <Text fontSize="xs" color="fg.muted" title={image.created_at}>
                      {relativeTime(image.created_at)}
                    </Text>
                  </HStack>
                  <Text fontSize="sm" lineClamp={2} title={image.prompt ?? undefined}>
                    {image.prompt || '—'}
                  </Text>
                </Card.Body>
                <Card.Footer p="3" pt="0" gap="2">
                  {toolLink && (
                    <Button asChild size="xs" variant="outline">
                      <RouterLink to={toolLink}>Open</RouterLink>
                    </Button>
                  )}
                  <Button
                    size="xs"
                    variant="outline"
                    loading={downloading === image.id}
                    onClick={() => void download(image)}
                    aria-label={`Download ${image.id}`}
                  >
                    Download
                  </Button>
                </Card.Footer>
              </Card.Root>
            );
          })}
          {(phase === 'loading' || phase === 'more') && <Skeletons count={Math.min(MAX_SKELETONS, PAGE_SIZES.images)} />}
        </SimpleGrid>
      )}

      {phase === 'idle' && (
        <Box ref={sentinel} textAlign="center">
          <Button size="sm" variant="ghost" onClick={loadMore}>
            Load more
          </Button>
        </Box>
      )}
      {phase === 'error' && items.length > 0 && (
        <HStack justify="center" role="alert">
          <Text color="fg.muted">The next pictures could not be loaded.</Text>
          <Button
            size="sm"
            variant="outline"
            onClick={() => {
              setPhase('more');
              void load(query, items.length, view.current);
            }}
          >
            Retry
          </Button>
        </HStack>
      )}
    </Stack>
  );
}
