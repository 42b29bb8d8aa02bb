/**
 * @module The local stand-in for Kling's virtual try-on: no try-on model runs here, so the
 * picture says so. The person's picture (at most 1024 px on its long side) with the garment's
 * picture beside them in a framed inset and a caption strip; nothing is fitted to the body.
 */
import sharp from 'sharp';
import { EngineError, type ImageInput } from '../engine.ts';
import { caption, imageShape } from './frames.ts';

const MAX_SIDE = 1024;
const MAX_INPUT_PIXELS = 40_000_000;

const TRYON_CAPTION = 'SIMULATED TRY-ON - GARMENT NOT FITTED';

async function decode(image: ImageInput, which: string, box: { width: number; height: number; fit: 'inside' | 'contain' }): Promise<Buffer> {
  try {
    return await sharp(image.data, { limitInputPixels: MAX_INPUT_PIXELS })
      .rotate()
      .resize(box.width, box.height, { fit: box.fit, background: '#ffffff' })
      .flatten({ background: '#ffffff' })
      .png()
      .toBuffer();
  } catch (error) {
    throw new EngineError('invalid_input', `The ${which} image could not be read.`, { detail: String(error), cause: error });
  }
}

/** The person with the garment shown beside them (PNG), and its size. */
export async function tryOnPicture(human: ImageInput, cloth: ImageInput): Promise<{ data: Buffer; width: number; height: number }> {
  const shape = await imageShape(human.data, 'human');
  const scale = Math.min(1, MAX_SIDE / Math.max(shape.width, shape.height));
  const width = Math.max(64, Math.round(shape.width * scale));
  const height = Math.max(64, Math.round(shape.height * scale));
  const person = await decode(human, 'human', { width, height, fit: 'inside' });
  const side = Math.round(Math.min(width, height) * 0.34);
  const border = Math.max(2, Math.round(side * 0.03));
  const garment = await decode(cloth, 'cloth', { width: side - 2 * border, height: side - 2 * border, fit: 'contain' });
  const label = await caption(TRYON_CAPTION, { width, height });
  const margin = Math.round(side * 0.08);
  const inset = { left: width - side - margin, top: Math.max(0, label.top - side - margin) };
  const data = await sharp({ create: { width, height, channels: 3, background: '#ffffff' } })
    .composite([
      { input: person, gravity: 'center' },
      { input: { create: { width: side, height: side, channels: 3, background: '#ffffff' } }, ...inset },
      { input: garment, left: inset.left + border, top: inset.top + border },
      { input: label.rgba, raw: { width, height: height - label.top, channels: 4 }, left: 0, top: label.top },
    ])
    .png()
    .toBuffer();
  return { data, width, height };
}
