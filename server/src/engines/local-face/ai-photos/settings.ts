/**
 * @module The knobs of the local AI photo work, with their defaults (spec §5: 10–30 photos a
 * training; local-engine.md §4: 512 px aligned references).
 */
import type { PhotoLimits } from './photo-check.ts';

export interface AiPhotoOptions {
  /** Fewest usable photos of one person an upload or a training accepts. Default 10. */
  minPhotos?: number;
  /** Most reference crops a training keeps (the best ranked). Default 12. */
  maxReferences?: number;
  /** Side of the aligned reference crops. Default 512. */
  referenceSize?: number;
  /** Narrowest usable face in an upload, in pixels. Default 80. */
  minFaceSize?: number;
  /** Encoding of generated photos. Default jpeg. */
  format?: 'jpeg' | 'png';
}

export interface AiPhotoSettings {
  minPhotos: number;
  maxReferences: number;
  referenceSize: number;
  format: 'jpeg' | 'png';
  limits: PhotoLimits;
}

export function aiPhotoSettings(options: AiPhotoOptions, maxPixels: number, detectionSize: number): AiPhotoSettings {
  return {
    minPhotos: options.minPhotos ?? 10,
    maxReferences: options.maxReferences ?? 12,
    referenceSize: options.referenceSize ?? 512,
    format: options.format ?? 'jpeg',
    limits: { maxPixels, detectionSize, minFaceSize: options.minFaceSize ?? 80 },
  };
}
