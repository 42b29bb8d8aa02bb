import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  clampRect,
  encodeGreyPng,
  encodeMask,
  isMaskEmpty,
  type MaskShape,
  moveSelection,
  rasterizeMask,
  rectFromCorners,
} from '../src/features/midjourney/region-mask.ts';

/** A minimal PNG reader (signature, chunk CRCs checked by length only, IHDR, IDAT inflated, filter 0 rows). */
function decodePng(bytes: Uint8Array) {
  expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let o = 8;
  let width = 0;
  let height = 0;
  let bitDepth = 0;
  let colorType = -1;
  const idat: Uint8Array[] = [];
  const types: string[] = [];
  while (o < bytes.length) {
    const len = view.getUint32(o);
    const type = String.fromCharCode(...bytes.subarray(o + 4, o + 8));
    const data = bytes.subarray(o + 8, o + 8 + len);
    types.push(type);
    if (type === 'IHDR') {
      width = view.getUint32(o + 8);
      height = view.getUint32(o + 12);
      bitDepth = data[8]!;
      colorType = data[9]!;
    }
    if (type === 'IDAT') idat.push(data);
    o += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  expect(raw.length).toBe((width + 1) * height);
  const pixels = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    expect(raw[y * (width + 1)], `row ${y} filter`).toBe(0);
    pixels.set(raw.subarray(y * (width + 1) + 1, (y + 1) * (width + 1)), y * width);
  }
  return { width, height, bitDepth, colorType, pixels, types };
}

const at = (pixels: Uint8Array, width: number, x: number, y: number) => pixels[y * width + x];

describe('rasterizeMask', () => {
  it('marks the pixels whose centres lie inside a rectangle, and nothing else', () => {
    const px = rasterizeMask([{ kind: 'rect', x: 2, y: 1, width: 3, height: 2 }], 8, 5);
    const rows = Array.from({ length: 5 }, (_, y) => [...px.subarray(y * 8, y * 8 + 8)].map((v) => (v ? '#' : '.')).join(''));
    expect(rows).toEqual(['........', '..###...', '..###...', '........', '........']);
  });

  it('marks a round brush stroke along its path with the brush radius', () => {
    const stroke: MaskShape = {
      kind: 'stroke',
      radius: 2,
      points: [
        { x: 5, y: 10 },
        { x: 15, y: 10 },
      ],
    };
    const px = rasterizeMask([stroke], 20, 20);
    expect(at(px, 20, 10, 10)).toBe(255); // on the line
    expect(at(px, 20, 10, 11)).toBe(255); // 1.5 px from it
    expect(at(px, 20, 10, 12)).toBe(0); // 2.5 px from it
    expect(at(px, 20, 3, 9)).toBe(255); // the round cap before the first point
    expect(at(px, 20, 2, 9)).toBe(0);
    expect(at(px, 20, 17, 10)).toBe(0); // 2.5 px past the last point
  });

  it('clips shapes that run past the picture', () => {
    const px = rasterizeMask([{ kind: 'rect', x: -10, y: -10, width: 12, height: 100 }], 4, 4);
    expect([...px]).toEqual([255, 255, 0, 0, 255, 255, 0, 0, 255, 255, 0, 0, 255, 255, 0, 0]);
  });

  it.each([
    [[], true],
    [[{ kind: 'stroke', radius: 0, points: [{ x: 1, y: 1 }] }], true],
    [[{ kind: 'rect', x: 50, y: 50, width: 10, height: 10 }], true],
    [[{ kind: 'stroke', radius: 1, points: [{ x: 1, y: 1 }] }], false],
  ] as [MaskShape[], boolean][])('isMaskEmpty(%j) is %s', (shapes, empty) => {
    expect(isMaskEmpty(shapes, 10, 10)).toBe(empty);
  });
});

describe('the mask PNG', () => {
  it.each([
    ['compressed', true],
    ['stored blocks', false],
  ])('is an 8-bit greyscale PNG of the picture size with white where painted (%s)', async (_label, compress) => {
    const width = 300;
    const height = 200;
    const shapes: MaskShape[] = [
      {
        kind: 'stroke',
        radius: 10,
        points: [
          { x: 40, y: 40 },
          { x: 120, y: 60 },
        ],
      },
      { kind: 'rect', x: 200, y: 100, width: 50, height: 80 },
    ];
    const png = decodePng(await encodeGreyPng(rasterizeMask(shapes, width, height), width, height, { compress }));
    expect(png).toMatchObject({ width, height, bitDepth: 8, colorType: 0 });
    expect(png.types).toEqual(['IHDR', 'IDAT', 'IEND']);
    expect(at(png.pixels, width, 80, 50)).toBe(255); // on the stroke
    expect(at(png.pixels, width, 225, 140)).toBe(255); // inside the rectangle
    expect(at(png.pixels, width, 5, 190)).toBe(0);
    expect(at(png.pixels, width, 160, 20)).toBe(0);
    expect(new Set(png.pixels)).toEqual(new Set([0, 255]));
  });

  it('stores a picture larger than one stored block (65535 bytes)', async () => {
    const width = 400;
    const height = 300;
    const png = decodePng(
      await encodeGreyPng(rasterizeMask([{ kind: 'rect', x: 0, y: 299, width: 400, height: 1 }], width, height), width, height, { compress: false }),
    );
    expect(png.pixels.filter((v) => v === 255)).toHaveLength(400);
    expect(at(png.pixels, width, 399, 299)).toBe(255);
  });

  it('encodeMask answers the PNG as plain base64', async () => {
    const base64 = await encodeMask([{ kind: 'rect', x: 0, y: 0, width: 2, height: 1 }], 4, 2);
    expect(base64).toMatch(/^[A-Za-z0-9+/]+=*$/);
    const png = decodePng(new Uint8Array(Buffer.from(base64, 'base64')));
    expect([...png.pixels]).toEqual([255, 255, 0, 0, 0, 0, 0, 0]);
  });

  it('refuses pixels that do not match the size', async () => {
    await expect(encodeGreyPng(new Uint8Array(5), 2, 2)).rejects.toThrow('expected 4 pixels');
  });
});

describe('the keyboard rectangle', () => {
  const start = { x: 100, y: 100, width: 200, height: 200 };
  it.each([
    ['ArrowRight', false, { x: 150, y: 100, width: 200, height: 200 }],
    ['ArrowLeft', false, { x: 50, y: 100, width: 200, height: 200 }],
    ['ArrowUp', false, { x: 100, y: 50, width: 200, height: 200 }],
    ['ArrowDown', false, { x: 100, y: 150, width: 200, height: 200 }],
    ['ArrowRight', true, { x: 100, y: 100, width: 250, height: 200 }],
    ['ArrowLeft', true, { x: 100, y: 100, width: 150, height: 200 }],
    ['ArrowDown', true, { x: 100, y: 100, width: 200, height: 250 }],
    ['ArrowUp', true, { x: 100, y: 100, width: 200, height: 150 }],
  ] as const)('%s (resize %s) moves or resizes by 5%% of the picture', (key, resize, expected) => {
    expect(moveSelection(start, key, resize, 1000, 1000)).toEqual(expected);
  });

  it('stays inside the picture and never shrinks below one step', () => {
    let r = start;
    for (let i = 0; i < 40; i++) r = moveSelection(r, 'ArrowLeft', false, 1000, 1000);
    expect(r.x).toBe(0);
    for (let i = 0; i < 40; i++) r = moveSelection(r, 'ArrowUp', true, 1000, 1000);
    expect(r.height).toBe(50);
    for (let i = 0; i < 40; i++) r = moveSelection(r, 'ArrowRight', true, 1000, 1000);
    expect(r).toEqual({ x: 0, y: 100, width: 1000, height: 50 });
    expect(clampRect({ x: 900, y: 900, width: 300, height: 300 }, 1000, 1000)).toEqual({ x: 700, y: 700, width: 300, height: 300 });
  });

  it('builds a rectangle from corners in any order', () => {
    expect(rectFromCorners({ x: 30, y: 5 }, { x: 10, y: 25 })).toEqual({ x: 10, y: 5, width: 20, height: 20 });
  });
});
