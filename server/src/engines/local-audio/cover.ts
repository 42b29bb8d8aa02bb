/**
 * @module A song's cover: a procedural picture, labelled SIMULATED in its pixels like the
 * local engine's images: colours from the title and seed (darker for minor keys), a record
 * whose ring of bars is the song's own loudness over time (measured from its samples), the
 * title in the font-independent pixel font, rasterised by sharp to a 640×640 JPEG.
 */
import sharp from 'sharp';
import type { EngineImage } from '../engine.ts';
import { textPath, textWidth } from '../local/pixel-font.ts';
import { HashStream } from '../local/random.ts';
import { type Pcm, pcmLength } from './pcm.ts';

const SIZE = 640;
const BARS = 96;
const COVER_LABEL = 'SIMULATED COVER - LOCAL AUDIO ENGINE';

/** Loudness of `count` equal stretches of the song, 0–1 (the loudest is 1). */
function envelope(pcm: Pcm, count: number): number[] {
  const length = pcmLength(pcm);
  const step = Math.max(1, Math.floor(length / count));
  const levels = Array.from({ length: count }, (_, b) => {
    let sum = 0;
    const from = b * step;
    const to = Math.min(length, from + step);
    for (const channel of pcm.channels) for (let i = from; i < to; i += 4) sum += channel[i] * channel[i];
    return Math.sqrt(sum / Math.max(1, ((to - from) / 4) * pcm.channels.length));
  });
  const peak = Math.max(...levels, 1e-9);
  return levels.map((l) => l / peak);
}

/** Splits a title into at most two lines of `max` characters. */
function titleLines(title: string, max: number): string[] {
  const lines: string[] = [];
  let current = '';
  for (const word of title.toUpperCase().split(/\s+/).filter(Boolean)) {
    const next = current ? `${current} ${word}` : word;
    if (next.length <= max) current = next;
    else {
      if (current) lines.push(current);
      current = word.slice(0, max);
    }
    if (lines.length === 2) break;
  }
  if (current && lines.length < 2) lines.push(current);
  return lines.length ? lines : ['UNTITLED'];
}

function coverSvg(options: { title: string; seed: number; minor: boolean; pcm?: Pcm }): string {
  const stream = new HashStream('local-audio-cover', options.title, options.seed);
  const hue = stream.int(0, 359);
  const hue2 = (hue + stream.int(40, 140)) % 360;
  const light = options.minor ? 22 : 42;
  const c = SIZE / 2;
  const levels = options.pcm ? envelope(options.pcm, BARS) : Array.from({ length: BARS }, () => 0.3 + 0.7 * stream.next());
  const bars = levels
    .map((level, i) => {
      const angle = (i / BARS) * 2 * Math.PI - Math.PI / 2;
      const inner = 150;
      const outer = inner + 8 + level * 110;
      const [x1, y1, x2, y2] = [c + inner * Math.cos(angle), c + inner * Math.sin(angle), c + outer * Math.cos(angle), c + outer * Math.sin(angle)];
      return `<line x1="${x1.toFixed(1)}" y1="${y1.toFixed(1)}" x2="${x2.toFixed(1)}" y2="${y2.toFixed(1)}"/>`;
    })
    .join('');
  const grooves = [140, 120, 100, 80].map((r) => `<circle cx="${c}" cy="${c}" r="${r}" fill="none" stroke="#ffffff" stroke-opacity="0.08"/>`).join('');
  const lines = titleLines(options.title, 17);
  const scale = 5;
  const title = lines.map((text, i) => `<path d="${textPath(text, (SIZE - textWidth(text, scale)) / 2, 40 + i * 9 * scale, scale)}"/>`).join('');
  const labelScale = 2;
  const label = `<path d="${textPath(COVER_LABEL, (SIZE - textWidth(COVER_LABEL, labelScale)) / 2, SIZE - 27, labelScale)}"/>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}" viewBox="0 0 ${SIZE} ${SIZE}">
<defs><linearGradient id="bg" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(${hue},55%,${light}%)"/><stop offset="1" stop-color="hsl(${hue2},60%,${light - 12}%)"/></linearGradient></defs>
<rect width="${SIZE}" height="${SIZE}" fill="url(#bg)"/>
<circle cx="${c}" cy="${c}" r="145" fill="#0b0b10" fill-opacity="0.85"/>${grooves}
<circle cx="${c}" cy="${c}" r="42" fill="hsl(${hue2},70%,60%)"/><circle cx="${c}" cy="${c}" r="5" fill="#0b0b10"/>
<g stroke="hsl(${hue},80%,78%)" stroke-width="3" stroke-linecap="round">${bars}</g>
<g fill="#ffffff" fill-opacity="0.92">${title}</g>
<rect y="${SIZE - 40}" width="${SIZE}" height="40" fill="#000000" fill-opacity="0.7"/><g fill="#ffd54a">${label}</g>
</svg>`;
}

export async function renderCover(options: { title: string; seed: number; minor: boolean; pcm?: Pcm }): Promise<EngineImage> {
  const data = await sharp(Buffer.from(coverSvg(options)))
    .jpeg({ quality: 85 })
    .toBuffer();
  return { source: 'buffer', data, contentType: 'image/jpeg', width: SIZE, height: SIZE };
}
