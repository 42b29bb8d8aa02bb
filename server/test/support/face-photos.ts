/**
 * Photos of one person for AI photo tests and benchmarks: `count`
 * distinct JPEGs made at run time from one public-domain portrait of test/fixtures/faces (see
 * its README) with sharp: a crop around the face, a mirror image every other photo, a small
 * rotation, brighter or darker, a different size. Deterministic: photo i is always the same bytes.
 *
 * Also a command line, for a manual upload:
 *
 *   npx tsx test/support/face-photos.ts --out <dir> [--count 12] [--person grace-hopper]
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import sharp from 'sharp';

type FixturePerson = 'grace-hopper' | 'eileen-collins';

export interface FacePhotoOptions {
  /** Whose portrait. Default grace-hopper. */
  person?: FixturePerson;
  /** Longest side of the first photo; the others are up to 240 px larger. Default 640 (the screen warns under 512×512). */
  longSide?: number;
}

const FIXTURES = fileURLToPath(new URL('../fixtures/faces/', import.meta.url));

/** Where the face's centre sits in the fixture portraits, as a share of width and height. */
const FACE_CENTRE: Record<FixturePerson, [number, number]> = { 'grace-hopper': [0.5, 0.4], 'eileen-collins': [0.44, 0.24] };

/** Photo i's variation, spread over small ranges by co-prime steps (no randomness). */
function variation(i: number) {
  return {
    mirror: i % 2 === 1,
    degrees: ((i * 7) % 15) - 7,
    keep: 0.72 + (0.28 * ((i * 5) % 8)) / 7,
    shift: [(((i * 3) % 5) - 2) * 0.03, (((i * 2) % 5) - 2) * 0.02] as const,
    brightness: 0.82 + (0.36 * ((i * 3) % 7)) / 6,
    grow: ((i * 4) % 5) * 60,
  };
}

async function photo(portrait: Buffer, centre: [number, number], i: number, longSide: number): Promise<Buffer> {
  const v = variation(i);
  // each geometric step in its own pipeline: sharp orders extract/rotate/flop by stage, not by call
  const turned = await sharp(portrait).rotate(v.degrees, { background: '#7f7f7f' }).toBuffer({ resolveWithObject: true });
  const { width, height } = turned.info;
  const cutWidth = Math.round(width * v.keep);
  const cutHeight = Math.round(height * v.keep);
  const left = Math.round(Math.min(Math.max((centre[0] + v.shift[0]) * width - cutWidth / 2, 0), width - cutWidth));
  const top = Math.round(Math.min(Math.max((centre[1] + v.shift[1]) * height - cutHeight / 2, 0), height - cutHeight));
  const cut = await sharp(turned.data).extract({ left, top, width: cutWidth, height: cutHeight }).toBuffer();
  const side = longSide + v.grow;
  const sized = await sharp(cut).resize(side, side, { fit: 'inside', kernel: 'lanczos3' }).modulate({ brightness: v.brightness }).toBuffer();
  return (v.mirror ? sharp(sized).flop() : sharp(sized)).jpeg({ quality: 88, mozjpeg: true }).toBuffer();
}

/** `count` JPEG photos of one person (see the module comment). */
export async function facePhotos(count: number, options: FacePhotoOptions = {}): Promise<Buffer[]> {
  const person = options.person ?? 'grace-hopper';
  const portrait = await readFile(path.join(FIXTURES, `${person}.jpg`));
  const photos: Buffer[] = [];
  for (let i = 0; i < count; i += 1) photos.push(await photo(portrait, FACE_CENTRE[person], i, options.longSide ?? 640));
  return photos;
}

/** Writes `count` photos of one person into `dir` as `<person>-01.jpg`…; answers their paths. */
async function writeFacePhotos(dir: string, count: number, options: FacePhotoOptions = {}): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const person = options.person ?? 'grace-hopper';
  const files: string[] = [];
  for (const [i, data] of (await facePhotos(count, options)).entries()) {
    const file = path.join(dir, `${person}-${String(i + 1).padStart(2, '0')}.jpg`);
    await writeFile(file, data);
    files.push(file);
  }
  return files;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const { values } = parseArgs({
    options: { out: { type: 'string' }, count: { type: 'string', default: '12' }, person: { type: 'string', default: 'grace-hopper' } },
  });
  if (!values.out || (values.person !== 'grace-hopper' && values.person !== 'eileen-collins')) {
    process.stderr.write('usage: face-photos.ts --out <dir> [--count 12] [--person grace-hopper|eileen-collins]\n');
    process.exit(2);
  }
  const files = await writeFacePhotos(values.out, Number(values.count), { person: values.person });
  process.stdout.write(`${files.join('\n')}\n`);
}
