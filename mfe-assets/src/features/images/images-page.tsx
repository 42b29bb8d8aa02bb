import { useState } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { Badge, Box, Button, Card, HStack, Heading, Image, Input, NativeSelect, SimpleGrid, Stack, Switch, Tabs, Text } from '@chakra-ui/react';
import { NEXT_PAGE_DELAY_MS, PAGE_SIZES } from '@aim/shared-kit/domain';
import { relativeTime } from '@aim/shared-kit/format';
import { FavoriteButton, GALLERY_TEXTS, GalleryStatus, ListEnd, Skeletons, saveBlob, showsStatus } from '../shared/gallery-ui.tsx';
import { useDebounced } from '../shared/use-debounced.ts';
import { usePagedList } from '../shared/use-paged-list.ts';
import { IMAGE_FILTERS, IMAGE_TABS, type ImageFilter, type ImageTab, toolLinkOf } from './gallery-rules.ts';
import type { GalleryImage, GalleryQuery, ImagesGateway } from './gateway.ts';

export type ImagesPageProps = {
  gateway: ImagesGateway;
  /** The signed-in user's email; null while the session loads. */
  email: string | null;
  /** An error toast. */
  notifyError(title: string): void;
  /** Delay before each further page (spec §9: 1 second); tests shorten it. */
  nextPageDelayMs?: number;
};

/** Spec §2 Images gallery: the account's pictures, newest first, by tab, filter and prompt search, with the archive. */
export function ImagesPage({ gateway, email, notifyError, nextPageDelayMs = NEXT_PAGE_DELAY_MS }: ImagesPageProps) {
  const [tab, setTab] = useState<ImageTab>('All');
  const [filter, setFilter] = useState<ImageFilter>('Everything');
  const [archive, setArchive] = useState(false);
  const [searchInput, setSearchInput] = useState('');
  const search = useDebounced(searchInput, 300);
  const [downloading, setDownloading] = useState<string | null>(null);
  const query: GalleryQuery = { tab, filter, search, archive };
  const list = usePagedList<GalleryImage>({
    fetchPage: email ? (offset) => gateway.page(email, query, offset) : null,
    pageSize: PAGE_SIZES.images,
    viewKey: JSON.stringify(query),
    delayMs: nextPageDelayMs,
  });
  const { items, setItems, phase } = list;

  async function toggleFavorite(image: GalleryImage) {
    if (!email) return;
    const flip = (favorite: boolean) => setItems((prev) => prev.map((i) => (i.id === image.id ? { ...i, favorite } : i)));
    flip(!image.favorite);
    try {
      flip(await gateway.toggleFavorite(email, image.id));
    } catch {
      flip(image.favorite);
      notifyError(GALLERY_TEXTS.favoriteFailed);
    }
  }

  async function download(image: GalleryImage) {
    setDownloading(image.id);
    try {
      saveBlob(await gateway.fetchImage(image.image_url), `${image.id}.png`);
    } catch {
      notifyError(GALLERY_TEXTS.downloadFailed);
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

      {showsStatus(list) ? (
        <GalleryStatus
          list={list}
          narrowed={Boolean(search) || filter !== 'Everything' || tab !== 'All' || archive}
          noun="pictures"
          origin="Pictures you make in the tools or with the API appear here."
        />
      ) : (
        <SimpleGrid columns={{ base: 2, md: 3, xl: 5 }} gap="4" data-testid="image-grid" aria-busy={phase === 'loading' || phase === 'more'}>
          {items.map((image) => {
            const toolLink = toolLinkOf(image);
            return (
              <Card.Root key={image.id} overflow="hidden" size="sm" data-testid="image-card" data-task-id={image.id}>
                <Box position="relative">
                  <Image src={image.image_url} alt={image.prompt ?? image.type} aspectRatio={1} objectFit="cover" w="full" loading="lazy" bg="bg.muted" />
                  <FavoriteButton overlay favorite={image.favorite} onToggle={() => void toggleFavorite(image)} />
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
          {(phase === 'loading' || phase === 'more') && <Skeletons pageSize={PAGE_SIZES.images} aspectRatio={1} />}
        </SimpleGrid>
      )}

      <ListEnd list={list} noun="pictures" />
    </Stack>
  );
}
