/**
 * @module The procedural "imagine": an SVG scene built only from (prompt, seed, variant),
 * rasterised by sharp/librsvg elsewhere. It is a stand-in for a generative model (none can
 * run here), so every tile carries a visible SIMULATED caption. No SVG filters: they cost
 * ~20× the render time (local-engine.md §1) and soft edges come from gradients instead.
 */
import { HashStream } from './random.ts';
import { TEXT_HEIGHT_UNITS, textPath, textWidth } from './pixel-font.ts';

export type RenderStyle = 'midjourney' | 'flux' | 'ideogram';

export interface TileSpec {
  prompt: string;
  seed: number;
  /** 0-based candidate number within one job (the four cells of a grid). */
  variant: number;
  width: number;
  height: number;
  style: RenderStyle;
  /** The caption text; null renders without it (only tests compare the two). */
  caption: string | null;
}

// Hues (degrees) for words that carry a colour mood; the first match in the prompt wins.
const MOOD_HUES: ReadonlyArray<[RegExp, number]> = [
  [/\b(sunset|sunrise|dusk|autumn|orange|amber)\b/, 24],
  [/\b(fire|lava|red|blood|volcano|rose)\b/, 4],
  [/\b(desert|sand|gold|golden|wheat)\b/, 42],
  [/\b(forest|jungle|green|meadow|moss|leaf|leaves)\b/, 120],
  [/\b(ocean|sea|water|blue|river|lake|wave|waves)\b/, 205],
  [/\b(night|space|galaxy|stars|midnight|moon)\b/, 235],
  [/\b(neon|cyberpunk|purple|violet|magenta)\b/, 290],
  [/\b(snow|ice|winter|frost|arctic)\b/, 195],
  [/\b(pink|candy|blossom|sakura)\b/, 330],
];

const STOP_WORDS = new Set(['the', 'and', 'with', 'for', 'from', 'into', 'over', 'under', 'that', 'this', 'very', 'of', 'on', 'in', 'at', 'a', 'an']);

const MOTIFS = ['tower', 'tree', 'wave', 'star', 'orb', 'birds'] as const;
type Motif = (typeof MOTIFS)[number];

// Words that name a motif outright; any other word gets one chosen by its hash.
const WORD_MOTIFS: ReadonlyArray<[RegExp, Motif]> = [
  [/^(tower|towers|city|castle|lighthouse|building|skyscraper|house|temple)$/, 'tower'],
  [/^(tree|trees|forest|jungle|pine|garden|woods)$/, 'tree'],
  [/^(wave|waves|ocean|sea|river|water|lake)$/, 'wave'],
  [/^(star|stars|night|galaxy|space|sparkle)$/, 'star'],
  [/^(sun|moon|planet|orb|bubble|portal)$/, 'orb'],
  [/^(bird|birds|seagull|seagulls|crow|crows|flock)$/, 'birds'],
];

function motifFor(word: string): Motif {
  for (const [pattern, kind] of WORD_MOTIFS) if (pattern.test(word)) return kind;
  return new HashStream('motif', word).pick(MOTIFS);
}

function promptKeywords(prompt: string): string[] {
  const words = prompt
    .toLowerCase()
    .replace(/--\S+(\s+\S+)?/g, ' ') // Midjourney parameters (--ar 16:9) are not scene content
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length >= 3 && !STOP_WORDS.has(word));
  return [...new Set(words)].slice(0, 6);
}

function baseHue(prompt: string, stream: HashStream): number {
  const lower = prompt.toLowerCase();
  for (const [pattern, hue] of MOOD_HUES) if (pattern.test(lower)) return hue;
  return stream.int(0, 359);
}

function n(value: number): string {
  return value.toFixed(1);
}

function hsl(h: number, s: number, l: number): string {
  return `hsl(${Math.round(((h % 360) + 360) % 360)},${Math.round(s)}%,${Math.round(l)}%)`;
}

function ridge(stream: HashStream, w: number, h: number, baseY: number, roughness: number, fill: string): string {
  const steps = stream.int(6, 12);
  let y = baseY;
  const points = [`0,${n(h)}`, `0,${n(y)}`];
  for (let i = 1; i <= steps; i += 1) {
    y = Math.min(h, Math.max(h * 0.25, y + stream.range(-roughness, roughness)));
    points.push(`${n((w * i) / steps)},${n(y)}`);
  }
  points.push(`${n(w)},${n(h)}`);
  return `<polygon points="${points.join(' ')}" fill="${fill}"/>`;
}

function motif(kind: Motif, stream: HashStream, w: number, h: number, hue: number): string {
  const x = stream.range(0.1, 0.9) * w;
  const y = stream.range(0.3, 0.85) * h;
  const size = stream.range(0.06, 0.16) * Math.min(w, h);
  const colour = hsl(hue + stream.range(-40, 40), stream.range(40, 80), stream.range(25, 75));
  switch (kind) {
    case 'tower': {
      const tw = size * 0.5;
      const windows = Array.from(
        { length: 4 },
        (_, i) =>
          `<rect x="${n(x - tw * 0.25)}" y="${n(y - size * 1.8 + i * size * 0.4)}" width="${n(tw * 0.5)}" height="${n(size * 0.15)}" fill="${hsl(48, 90, 75)}" opacity="0.8"/>`,
      ).join('');
      return `<rect x="${n(x - tw / 2)}" y="${n(y - size * 2)}" width="${n(tw)}" height="${n(size * 2)}" fill="${colour}"/>${windows}`;
    }
    case 'tree': {
      const layers = Array.from({ length: 3 }, (_, i) => {
        const top = y - size * (1.6 - i * 0.4);
        const half = size * (0.35 + i * 0.15);
        return `<polygon points="${n(x)},${n(top)} ${n(x - half)},${n(top + size * 0.7)} ${n(x + half)},${n(top + size * 0.7)}" fill="${colour}"/>`;
      }).join('');
      return `<rect x="${n(x - size * 0.06)}" y="${n(y - size * 0.3)}" width="${n(size * 0.12)}" height="${n(size * 0.4)}" fill="${hsl(25, 40, 22)}"/>${layers}`;
    }
    case 'wave': {
      const amplitude = size * 0.25;
      let d = `M0 ${n(y)}`;
      for (let i = 1; i <= 8; i += 1) d += ` Q${n((w * (i - 0.5)) / 8)} ${n(y + (i % 2 ? -amplitude : amplitude))} ${n((w * i) / 8)} ${n(y)}`;
      return `<path d="${d}" fill="none" stroke="${colour}" stroke-width="${n(size * 0.08)}" opacity="0.8"/>`;
    }
    case 'star': {
      const points = Array.from({ length: 10 }, (_, i) => {
        const r = i % 2 ? size * 0.4 : size;
        const a = (Math.PI * i) / 5 - Math.PI / 2;
        return `${n(x + r * Math.cos(a))},${n(y - size + r * Math.sin(a))}`;
      });
      return `<polygon points="${points.join(' ')}" fill="${colour}" opacity="0.9"/>`;
    }
    case 'orb':
      return Array.from(
        { length: 3 },
        (_, i) =>
          `<circle cx="${n(x)}" cy="${n(y - size)}" r="${n(size * (1 - i * 0.28))}" fill="none" stroke="${colour}" stroke-width="${n(size * 0.07)}" opacity="${n(0.9 - i * 0.2)}"/>`,
      ).join('');
    case 'birds':
      return Array.from({ length: stream.int(3, 6) }, () => {
        const bx = x + stream.range(-2, 2) * size;
        const by = y - stream.range(1, 3) * size;
        const span = size * stream.range(0.2, 0.4);
        return `<path d="M${n(bx - span)} ${n(by - span * 0.4)} Q${n(bx - span * 0.4)} ${n(by - span * 0.5)} ${n(bx)} ${n(by)} Q${n(bx + span * 0.4)} ${n(by - span * 0.5)} ${n(bx + span)} ${n(by - span * 0.4)}" fill="none" stroke="${hsl(0, 0, 12)}" stroke-width="${n(Math.max(1, span * 0.12))}"/>`;
      }).join('');
  }
}

/** The dark strip with the caption, placed along the bottom edge. */
function captionBar(width: number, height: number, caption: string): string {
  const barHeight = Math.max(12, Math.round(height * 0.045));
  const scale = Math.max(1, Math.floor((barHeight * 0.6) / TEXT_HEIGHT_UNITS));
  const fitted = Math.min(scale, Math.max(1, Math.floor((width * 0.9) / Math.max(1, textWidth(caption, 1)))));
  const textTop = height - barHeight + Math.round((barHeight - TEXT_HEIGHT_UNITS * fitted) / 2);
  const left = Math.round(barHeight * 0.4);
  return `<rect x="0" y="${height - barHeight}" width="${width}" height="${barHeight}" fill="#000" opacity="0.62"/><path d="${textPath(caption, left, textTop, fitted)}" fill="#fff"/>`;
}

/** Height of the caption strip for an image of this height (tests inspect that region). */
export function captionBarHeight(height: number): number {
  return Math.max(12, Math.round(height * 0.045));
}

function scene(stream: HashStream, spec: Pick<TileSpec, 'prompt' | 'width' | 'height' | 'style' | 'variant'>): string {
  const { width: w, height: h } = spec;
  // distinct candidates: each variant turns the palette a quarter of the way round
  const hue = baseHue(spec.prompt, stream) + spec.variant * stream.range(18, 34);
  const saturation = spec.style === 'flux' ? stream.range(35, 55) : stream.range(50, 80);
  const skyTop = hsl(hue + 200, saturation, stream.range(12, 30));
  const skyBottom = hsl(hue, saturation, stream.range(55, 75));
  const sunX = stream.range(0.15, 0.85) * w;
  const sunY = stream.range(0.15, 0.5) * h;
  const sunR = stream.range(0.07, 0.16) * Math.min(w, h);
  const parts: string[] = [
    `<defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${skyTop}"/><stop offset="1" stop-color="${skyBottom}"/></linearGradient>`,
    `<radialGradient id="sun"><stop offset="0" stop-color="${hsl(hue + 20, 95, 88)}"/><stop offset="0.55" stop-color="${hsl(hue + 10, 90, 70)}" stop-opacity="0.85"/><stop offset="1" stop-color="${hsl(hue, 90, 60)}" stop-opacity="0"/></radialGradient>`,
    `<radialGradient id="bokeh"><stop offset="0" stop-color="#fff" stop-opacity="0.55"/><stop offset="1" stop-color="#fff" stop-opacity="0"/></radialGradient></defs>`,
    `<rect width="${w}" height="${h}" fill="url(#sky)"/>`,
    `<circle cx="${n(sunX)}" cy="${n(sunY)}" r="${n(sunR * 2.2)}" fill="url(#sun)"/>`,
  ];
  const bokehCount = stream.int(5, 12);
  for (let i = 0; i < bokehCount; i += 1) {
    parts.push(
      `<circle cx="${n(stream.next() * w)}" cy="${n(stream.range(0, 0.6) * h)}" r="${n(stream.range(0.02, 0.07) * Math.min(w, h))}" fill="url(#bokeh)"/>`,
    );
  }
  const layers = spec.style === 'ideogram' ? 2 : stream.int(3, 4);
  for (let i = 0; i < layers; i += 1) {
    const baseY = h * (0.5 + i * 0.12) + stream.range(-0.05, 0.05) * h;
    parts.push(ridge(stream, w, h, baseY, h * stream.range(0.04, 0.12), hsl(hue + 180 + i * 12, saturation * 0.6, 32 - i * 7)));
  }
  for (const word of promptKeywords(spec.prompt)) {
    parts.push(motif(motifFor(word), stream, w, h, hue));
  }
  return parts.join('');
}

export function tileSvg(spec: TileSpec): string {
  const stream = new HashStream(spec.style, spec.prompt, spec.seed, spec.variant);
  const caption = spec.caption === null ? '' : captionBar(spec.width, spec.height, spec.caption);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${spec.width}" height="${spec.height}" viewBox="0 0 ${spec.width} ${spec.height}">${scene(stream, spec)}${caption}</svg>`;
}

/**
 * A translucent layer of new motifs and the caption, laid over a recoloured parent cell to
 * make one variation candidate: it keeps the parent's composition and adds seeded changes.
 */
export function variationOverlaySvg(options: { prompt: string; seed: number; variant: number; width: number; height: number; caption: string }): string {
  const { width: w, height: h } = options;
  const stream = new HashStream('variation', options.prompt, options.seed, options.variant);
  const hue = stream.int(0, 359);
  const motifs = promptKeywords(options.prompt);
  const count = Math.max(2, motifs.length);
  const shapes = Array.from({ length: count }, (_, i) => motif(motifs.length ? motifFor(motifs[i % motifs.length]) : stream.pick(MOTIFS), stream, w, h, hue));
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}"><g opacity="0.55">${shapes.join('')}</g>${captionBar(w, h, options.caption)}</svg>`;
}

/** A rectangle of an image, in pixels. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * An SVG of the whole `width`×`height` image with a caption bar drawn only inside `rect`
 * (clipped to it), along the rect's bottom (or across its middle): how simulated content that fills part of a
 * picture says so (the new strip of a pan or zoom, the region of a vary). The text shrinks to
 * fit; when even the smallest does not fit, the shorter `fallback` is used.
 */
export function regionLabelSvg(width: number, height: number, rect: Rect, text: string, options: { fallback?: string; middle?: boolean } = {}): string {
  const fallback = options.fallback ?? 'SIMULATED';
  const barHeight = Math.min(rect.height, captionBarHeight(Math.max(rect.height, Math.min(width, height))));
  const room = rect.width * 0.9;
  const chosen = textWidth(text, 1) <= room ? text : fallback;
  const scale = Math.max(1, Math.min(Math.floor((barHeight * 0.6) / TEXT_HEIGHT_UNITS), Math.floor(room / Math.max(1, textWidth(chosen, 1)))));
  const top = options.middle ? rect.y + Math.round((rect.height - barHeight) / 2) : rect.y + rect.height - barHeight;
  const textTop = top + Math.round((barHeight - TEXT_HEIGHT_UNITS * scale) / 2);
  const left = rect.x + Math.max(1, Math.round((rect.width - textWidth(chosen, scale)) / 2));
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
    `<defs><clipPath id="r"><rect x="${rect.x}" y="${rect.y}" width="${rect.width}" height="${rect.height}"/></clipPath></defs>` +
    `<g clip-path="url(#r)"><rect x="${rect.x}" y="${top}" width="${rect.width}" height="${barHeight}" fill="#000" opacity="0.62"/>` +
    `<path d="${textPath(chosen, left, textTop, scale)}" fill="#fff"/></g></svg>`
  );
}

/** A caption bar along the bottom of a whole `width`×`height` picture, as an SVG to lay over it. */
export function captionSvg(width: number, height: number, caption: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${captionBar(width, height, caption)}</svg>`;
}
