import { useState } from 'react';
import { Link as RouterLink } from '@aim/shared-kit/router';
import { Badge, Box, Button, Card, HStack, Heading, Image, Input, SimpleGrid, Stack, Text } from '@aim/shared-kit/ui';
import { NEXT_PAGE_DELAY_MS, PAGE_SIZES } from '@aim/shared-kit/domain';
import { relativeTime } from '@aim/shared-kit/format';
import { useKeysetList } from '@aim/shared-kit/query';
import { FavoriteButton, GALLERY_TEXTS, GalleryChoices, GalleryStatus, GalleryTabs, ListEnd, Skeletons, showsStatus } from '../shared/gallery-ui.tsx';
import { useGalleryActions } from '../shared/use-gallery-actions.ts';
import { useDebounced } from '../shared/use-debounced.ts';
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
  const query: GalleryQuery = { tab, filter, search, archive };
  const list = useKeysetList<GalleryImage>({
    queryKey: ['assets', 'images', email, query],
    fetchPage: email ? (after) => gateway.page(email, query, after) : null,
    pageSize: PAGE_SIZES.images,
    delayMs: nextPageDelayMs,
  });
  const { items, mapItems, phase } = list;
  const { toggleFavorite, download, downloading } = useGalleryActions({
    email,
    mapItems,
    toggle: (owner, taskId) => gateway.toggleFavorite(owner, taskId),
    fetchFile: (url) => gateway.fetchImage(url),
    notifyError,
    downloadFailed: GALLERY_TEXTS.downloadFailed,
  });

  return (
    <Stack gap="5" w="full" data-testid="screen-images">
      <Stack gap="1">
        <Heading as="h1" size="xl">
          Images
        </Heading>
        <Text color="fg.muted">Every picture you made, newest first. Favourite the ones to keep in view.</Text>
      </Stack>

      <GalleryChoices
        filter={filter}
        filters={IMAGE_FILTERS}
        onFilter={(f) => setFilter(f)}
        filterTestId="image-filter"
        archive={{ checked: archive, onChange: setArchive }}
      >
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
      </GalleryChoices>

      <GalleryTabs tab={tab} tabs={IMAGE_TABS} onTab={(t) => setTab(t as ImageTab)}>
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
                      onClick={() => void download(image.id, image.image_url, `${image.id}.png`)}
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
      </GalleryTabs>

      <ListEnd list={list} noun="pictures" />
    </Stack>
  );
}
