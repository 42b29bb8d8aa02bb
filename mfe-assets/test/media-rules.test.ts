import { describe, expect, it } from 'vitest';
import { MEDIA, mediaFileName } from '../src/features/media/media-rules.ts';

describe('the Videos and Audios galleries', () => {
  it('Videos: tabs All, Luma AI, Kling, Runway (Midjourney clips under All only), pages of 20, with the archive', () => {
    expect(MEDIA.videos.tabs.map((t) => [t.label, t.types])).toEqual([
      ['All', ['luma', 'luma-ext', 'kling-video', 'runway', 'imagine-video', 'imagine-video-extend']],
      ['Luma AI', ['luma', 'luma-ext']],
      ['Kling', ['kling-video']],
      ['Runway', ['runway']],
    ]);
    expect(MEDIA.videos).toMatchObject({ pageSize: 20, archive: true, column: 'video_url' });
  });

  it('Audios: tabs All, Suno, Udio (lyrics-only tasks left out), pages of 20, no archive switch', () => {
    expect(MEDIA.audio.tabs.map((t) => [t.label, t.types])).toEqual([
      ['All', ['suno', 'suno-ext', 'suno-upload', 'udio']],
      ['Suno', ['suno', 'suno-ext', 'suno-upload']],
      ['Udio', ['udio']],
    ]);
    expect(MEDIA.audio).toMatchObject({ pageSize: 20, archive: false, column: 'audio_urls' });
  });

  it.each([
    ['t1', 'http://localhost:8080/media/clip.webm', 'videos', undefined, 't1.webm'],
    ['t2', 'https://cdn.example.com/v/abc', 'videos', undefined, 't2.mp4'],
    ['t3', 'https://cdn.example.com/a/song.MP3?sig=1', 'audio', 0, 't3-1.mp3'],
    ['t4', 'https://cdn.example.com/a/track', 'audio', 1, 't4-2.mp3'],
  ] as const)('download of %s from %s is named %s', (id, url, kind, index, name) => {
    expect(mediaFileName(id, url, kind, index)).toBe(name);
  });
});
