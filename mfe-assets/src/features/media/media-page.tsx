import { useState } from 'react';
import { Badge, Card, HStack, Heading, Image, SimpleGrid, Stack, Text } from '@aim/shared-kit/ui';
import { NEXT_PAGE_DELAY_MS } from '@aim/shared-kit/domain';
import { relativeTime } from '@aim/shared-kit/format';
import { FavoriteButton, GALLERY_TEXTS, GalleryChoices, GalleryStatus, GalleryTabs, ListEnd, Skeletons, showsStatus } from '../shared/gallery-ui.tsx';
import { useGalleryActions } from '../shared/use-gallery-actions.ts';
import type { MediaGateway, MediaItem, MediaQuery } from './gateway.ts';
import { MEDIA, MEDIA_FILTERS, type MediaFilter, type MediaKind } from './media-rules.ts';
import { AudioSongs } from './audio-songs.tsx';
import { VideoClips } from './video-clips.tsx';
import { useKeysetList } from '@aim/shared-kit/query';

export const MEDIA_TEXTS = {
  favoriteFailed: GALLERY_TEXTS.favoriteFailed,
  downloadFailed: 'Error downloading file',
} as const;

export type MediaPageProps = {
  kind: MediaKind;
  gateway: MediaGateway;
  /** The signed-in user's email; null while the session loads. */
  email: string | null;
  notifyError(title: string): void;
  /** Delay before each further page (spec §9: 1 second); tests shorten it. */
  nextPageDelayMs?: number;
};

/** Spec §2 Videos and Audios galleries: the account's videos or songs, newest first, by tab and favourites. */
export function MediaPage({ kind, gateway, email, notifyError, nextPageDelayMs = NEXT_PAGE_DELAY_MS }: MediaPageProps) {
  const config = MEDIA[kind];
  const [tab, setTab] = useState(config.tabs[0].label);
  const [filter, setFilter] = useState<MediaFilter>('Everything');
  const [archive, setArchive] = useState(false);
  const query: MediaQuery = { tab, filter, archive };
  const list = useKeysetList<MediaItem>({
    queryKey: ['assets', kind, email, query],
    fetchPage: email ? (after) => gateway.page(email, kind, query, after) : null,
    pageSize: config.pageSize,
    delayMs: nextPageDelayMs,
  });
  const { toggleFavorite, download, downloading } = useGalleryActions({
    email,
    mapItems: list.mapItems,
    toggle: (owner, taskId) => gateway.toggleFavorite(owner, taskId),
    fetchFile: (url) => gateway.fetchFile(url),
    notifyError,
    downloadFailed: MEDIA_TEXTS.downloadFailed,
  });

  return (
    <Stack gap="5" w="full" data-testid={`screen-${kind}`}>
      <Stack gap="1">
        <Heading as="h1" size="xl">
          {config.title}
        </Heading>
        <Text color="fg.muted">Everything you made, newest first.</Text>
      </Stack>

      <GalleryChoices
        filter={filter}
        filters={MEDIA_FILTERS}
        onFilter={(f) => setFilter(f)}
        filterTestId="media-filter"
        archive={config.archive ? { checked: archive, onChange: setArchive } : undefined}
      />

      <GalleryTabs tab={tab} tabs={config.tabs.map((t) => t.label)} onTab={setTab}>
        {showsStatus(list) ? (
          <GalleryStatus list={list} narrowed={filter !== 'Everything' || tab !== 'All' || archive} noun={config.noun} origin={config.origin} />
        ) : (
          <SimpleGrid columns={{ base: 1, md: 2, xl: 3 }} gap="4" data-testid="media-grid" aria-busy={list.phase === 'loading' || list.phase === 'more'}>
            {list.items.map((item) => (
              <Card.Root key={item.id} overflow="hidden" size="sm" data-testid="media-card" data-task-id={item.id}>
                {kind === 'videos' && item.video_url ? (
                  <VideoClips item={item} downloading={downloading} download={(key, url, name) => void download(key, url, name)} />
                ) : (
                  item.image_url && <Image src={item.image_url} alt={item.prompt ?? item.type} aspectRatio={2} objectFit="cover" w="full" loading="lazy" />
                )}
                <Card.Body gap="2" p="3">
                  <HStack justify="space-between" gap="2">
                    <HStack gap="2">
                      <Badge variant="subtle" size="sm">
                        {item.type}
                      </Badge>
                      <Text fontSize="xs" color="fg.muted" title={item.created_at}>
                        {relativeTime(item.created_at)}
                      </Text>
                    </HStack>
                    <FavoriteButton favorite={item.favorite} onToggle={() => void toggleFavorite(item)} />
                  </HStack>
                  <Text fontSize="sm" lineClamp={2} title={item.prompt ?? undefined}>
                    {item.prompt || '—'}
                  </Text>
                  {kind === 'audio' && <AudioSongs item={item} downloading={downloading} download={(key, url, name) => void download(key, url, name)} />}
                </Card.Body>
              </Card.Root>
            ))}
            {(list.phase === 'loading' || list.phase === 'more') && <Skeletons pageSize={config.pageSize} aspectRatio={kind === 'videos' ? 16 / 9 : 2} />}
          </SimpleGrid>
        )}
      </GalleryTabs>

      <ListEnd list={list} noun={config.noun} />
    </Stack>
  );
}
