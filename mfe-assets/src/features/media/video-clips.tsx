// A video card's player (spec §2 Videos gallery: each card plays inline with its poster frame and
// controls) and its Download. A task with several clips (Midjourney video makes four) gets a
// choice of clip; the player, its poster and Download follow the choice.
import { useState } from 'react';
import { Button, HStack, Text } from '@aim/shared-kit/ui';
import type { MediaItem, VideoEntry } from './gateway.ts';
import { mediaFileName } from './media-rules.ts';

/** The clips of a video task: the worker's entries, else the task's video_url alone (older rows, upstream rows). */
function clipsOf(item: MediaItem): VideoEntry[] {
  const recorded = (item.videos ?? []).filter((v) => typeof v?.video_url === 'string');
  if (recorded.length) return recorded;
  return item.video_url ? [{ video_url: item.video_url, poster_url: item.image_url ?? undefined }] : [];
}

export function VideoClips(props: {
  item: MediaItem;
  /** The URL being downloaded, for its button's spinner. */
  downloading: string | null;
  download(key: string, url: string, fileName: string): void;
}) {
  const { item, downloading, download } = props;
  const clips = clipsOf(item);
  const [chosen, setChosen] = useState(0);
  const clip = clips[Math.min(chosen, clips.length - 1)];
  if (!clip) return null;
  const several = clips.length > 1;
  const name = mediaFileName(item.id, clip.video_url, 'videos', several ? chosen : undefined);
  return (
    <>
      {/* biome-ignore lint/a11y/useMediaCaption: generated videos have no captions to offer */}
      <video
        key={clip.video_url}
        src={clip.video_url}
        poster={clip.poster_url ?? item.image_url ?? undefined}
        controls
        preload="metadata"
        playsInline
        aria-label={several ? `Clip ${chosen + 1} of ${item.id}` : `Video ${item.id}`}
        style={{ width: '100%', aspectRatio: '16 / 9', background: 'black', objectFit: 'contain' }}
      />
      <HStack justify="space-between" gap="2" px="3" pt="3">
        {several ? (
          <HStack gap="1" role="group" aria-label="Clips">
            <Text fontSize="xs" color="fg.muted" me="1">
              Clip
            </Text>
            {clips.map((c, i) => (
              <Button
                key={c.video_url}
                size="2xs"
                variant={i === chosen ? 'solid' : 'outline'}
                aria-pressed={i === chosen}
                aria-label={`Play clip ${i + 1}`}
                onClick={() => setChosen(i)}
              >
                {i + 1}
              </Button>
            ))}
          </HStack>
        ) : (
          <span />
        )}
        <Button
          size="xs"
          variant="outline"
          loading={downloading === clip.video_url}
          onClick={() => download(clip.video_url, clip.video_url, name)}
          aria-label={several ? `Download clip ${chosen + 1} of ${item.id}` : `Download ${item.id}`}
        >
          Download
        </Button>
      </HStack>
    </>
  );
}
