// A song card's players (spec §2 Audios gallery: a player per song with its cover and lyrics):
// each song of the task (Suno and Udio make two) with its cover, title, length, an <audio>
// player, a Download and its lyrics behind a Lyrics toggle.
import { Box, Button, HStack, Image, Stack, Text } from '@aim/shared-kit/ui';
import type { MediaItem, SongEntry } from './gateway.ts';
import { mediaFileName } from './media-rules.ts';

/** The songs of an audio task: the worker's entries (result.songs), else the task's audio_urls with its lyrics (older rows, upstream rows). */
export function songsOf(item: MediaItem): SongEntry[] {
  const recorded = (item.songs ?? []).filter((s) => typeof s?.audio_url === 'string');
  if (recorded.length) return recorded;
  return (item.audio_urls ?? []).map((audio_url, i) => ({ audio_url, lyrics: i === 0 ? (item.lyrics ?? undefined) : undefined }));
}

/** 94.5 → '1:34'. */
export function formatDuration(seconds: number): string {
  // whole seconds down, as the browser's player counts them
  const whole = Math.max(0, Math.floor(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
}

export function AudioSongs(props: {
  item: MediaItem;
  /** The URL being downloaded, for its button's spinner. */
  downloading: string | null;
  download(key: string, url: string, fileName: string): void;
}) {
  const { item, downloading, download } = props;
  const songs = songsOf(item);
  return (
    <Stack gap="3" data-testid="songs">
      {songs.map((song, i) => {
        const title = song.title || `Song ${i + 1}`;
        return (
          <Stack key={song.audio_url} gap="2" data-testid="song">
            <HStack gap="3" align="center">
              {song.image_url ? (
                <Image src={song.image_url} alt={`Cover of ${title}`} boxSize="56px" borderRadius="md" objectFit="cover" loading="lazy" flexShrink={0} />
              ) : (
                <Box boxSize="56px" borderRadius="md" bg="bg.muted" flexShrink={0} aria-hidden />
              )}
              <Stack gap="0" minW="0" flex="1">
                <Text fontSize="sm" fontWeight="medium" truncate title={title}>
                  {title}
                </Text>
                <Text fontSize="xs" color="fg.muted">
                  {[song.duration ? formatDuration(song.duration) : null, song.tags].filter(Boolean).join(' · ') || '\u00a0'}
                </Text>
              </Stack>
              <Button
                size="xs"
                variant="outline"
                loading={downloading === song.audio_url}
                onClick={() => download(song.audio_url, song.audio_url, mediaFileName(item.id, song.audio_url, 'audio', i))}
                aria-label={`Download song ${i + 1} of ${item.id}`}
              >
                Download
              </Button>
            </HStack>
            {/* biome-ignore lint/a11y/useMediaCaption: generated songs have no captions to offer */}
            <audio src={song.audio_url} controls preload="none" style={{ width: '100%' }} aria-label={`Song ${i + 1}`} />
            {song.lyrics && (
              <Box as="details" fontSize="sm">
                <summary>Lyrics</summary>
                <Text whiteSpace="pre-wrap" mt="1">
                  {song.lyrics}
                </Text>
              </Box>
            )}
          </Stack>
        );
      })}
    </Stack>
  );
}
