// Spec §2 Videos and Audios galleries, §9: the tabs, what each shows, page sizes.
import { PAGE_SIZES } from '@aim/shared-kit/domain';

export type MediaKind = 'videos' | 'audio';
export const MEDIA_FILTERS = ['Everything', 'Favorites'] as const;
export type MediaFilter = (typeof MEDIA_FILTERS)[number];

type MediaTab = { label: string; types: readonly string[] };

export type MediaConfig = {
  title: string;
  /** In sentences: 'No videos yet'. */
  noun: string;
  origin: string;
  tabs: readonly MediaTab[];
  /** The column holding the media; a task without it is not finished (or made none). */
  column: 'video_url' | 'audio_urls';
  archive: boolean;
  pageSize: number;
};

/** All first: every tab's types, and `alsoInAll` (types no tab of the spec names). */
const withAll = (tabs: MediaTab[], alsoInAll: string[] = []): MediaTab[] => [{ label: 'All', types: [...tabs.flatMap((t) => t.types), ...alsoInAll] }, ...tabs];

export const MEDIA: Record<MediaKind, MediaConfig> = {
  videos: {
    title: 'Videos',
    noun: 'videos',
    origin: 'Videos you make with the API (Luma, Kling, Runway) appear here.',
    // Midjourney's clips (imagine-video, -extend) have no tab of their own (spec §2), so show under All;
    // Kling's try-on makes a picture, not a video
    tabs: withAll(
      [
        { label: 'Luma AI', types: ['luma', 'luma-ext'] },
        { label: 'Kling', types: ['kling-video'] },
        { label: 'Runway', types: ['runway'] },
      ],
      ['imagine-video', 'imagine-video-extend'],
    ),
    column: 'video_url',
    archive: true,
    pageSize: PAGE_SIZES.videos,
  },
  audio: {
    title: 'Audios',
    noun: 'songs',
    origin: 'Songs you make with the API (Suno, Udio) appear here.',
    // suno-lyrics writes words, not a song
    tabs: withAll([
      { label: 'Suno', types: ['suno', 'suno-ext', 'suno-upload'] },
      { label: 'Udio', types: ['udio'] },
    ]),
    column: 'audio_urls',
    // spec: a Show Archive switch on this page is not shown
    archive: false,
    pageSize: PAGE_SIZES.audios,
  },
};

/** A download's file name: `<task id>[-n].<extension of the URL>`, else the kind's usual one. */
export function mediaFileName(taskId: string, url: string, kind: MediaKind, index?: number): string {
  const ext = /\.([a-z0-9]{2,4})$/i.exec(new URL(url, 'http://x').pathname)?.[1]?.toLowerCase() ?? (kind === 'videos' ? 'mp4' : 'mp3');
  return `${taskId}${index === undefined ? '' : `-${index + 1}`}.${ext}`;
}
