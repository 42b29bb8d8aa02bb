/**
 * @module How good a swap looks, measured from the target, the result and the target's face
 * mesh (the faceswap benchmark and the engine tests use it): the change outside the face, the
 * seam along the face border relative to the target's own edges there, and the skin colour
 * step (CIEDE2000) between the swapped face's border ring and the skin just outside it.
 *
 * Geometry: the convex hull of the 468 mesh points is "the face"; a pixel's radial coordinate
 * r is the smallest scale (about the hull's centre) of that hull that contains it, so r = 1 is
 * the face border, r = 0.9 a ring just inside it and r = 1.1 one just outside.
 */
import { gaussianBlur } from './blur.ts';
import type { Point } from './face-models.ts';
import type { RgbImage } from './protocol.ts';

interface Hull {
  centre: Point;
  /** Outward unit normals of the hull's edges and each edge's distance from the centre. */
  normals: Point[];
  distances: number[];
  /** Width of the mesh, cheek to cheek. */
  faceWidth: number;
  /** Bounding box of the mesh. */
  box: { left: number; top: number; right: number; bottom: number };
}

const cross = (o: Point, a: Point, b: Point) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);

/** Convex hull (Andrew's monotone chain), counter-clockwise in image coordinates flipped: orientation is normalised below. */
function convexHull(points: readonly Point[]): Point[] {
  const sorted = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const lower: Point[] = [];
  for (const p of sorted) {
    while (lower.length >= 2 && cross(lower[lower.length - 2], lower[lower.length - 1], p) <= 0) lower.pop();
    lower.push(p);
  }
  const upper: Point[] = [];
  for (const p of sorted.reverse()) {
    while (upper.length >= 2 && cross(upper[upper.length - 2], upper[upper.length - 1], p) <= 0) upper.pop();
    upper.push(p);
  }
  return [...lower.slice(0, -1), ...upper.slice(0, -1)];
}

function faceHull(mesh: readonly Point[]): Hull {
  const hull = convexHull(mesh);
  const centre: Point = [hull.reduce((s, p) => s + p[0], 0) / hull.length, hull.reduce((s, p) => s + p[1], 0) / hull.length];
  const normals: Point[] = [];
  const distances: number[] = [];
  for (let i = 0; i < hull.length; i += 1) {
    const a = hull[i];
    const b = hull[(i + 1) % hull.length];
    const length = Math.hypot(b[0] - a[0], b[1] - a[1]);
    if (length < 1e-6) continue;
    let n: Point = [(b[1] - a[1]) / length, -(b[0] - a[0]) / length];
    let d = n[0] * (a[0] - centre[0]) + n[1] * (a[1] - centre[1]);
    if (d < 0) {
      n = [-n[0], -n[1]];
      d = -d;
    }
    if (d < 1e-6) continue;
    normals.push(n);
    distances.push(d);
  }
  const xs = mesh.map((p) => p[0]);
  const ys = mesh.map((p) => p[1]);
  const box = { left: Math.min(...xs), top: Math.min(...ys), right: Math.max(...xs), bottom: Math.max(...ys) };
  return { centre, normals, distances, faceWidth: box.right - box.left, box };
}

/** The radial coordinate of (x, y) and the index of the hull edge that sets it. */
function radial(hull: Hull, x: number, y: number): { r: number; edge: number } {
  const dx = x - hull.centre[0];
  const dy = y - hull.centre[1];
  let r = 0;
  let edge = 0;
  for (let i = 0; i < hull.normals.length; i += 1) {
    const value = (hull.normals[i][0] * dx + hull.normals[i][1] * dy) / hull.distances[i];
    if (value > r) {
      r = value;
      edge = i;
    }
  }
  return { r, edge };
}

const D65 = [0.95047, 1, 1.08883];
const linear = (v: number) => {
  const c = v / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};
const labF = (t: number) => (t > (6 / 29) ** 3 ? Math.cbrt(t) : t / (3 * (6 / 29) ** 2) + 4 / 29);

/** sRGB 0–255 to CIE L*a*b* (D65). */
function rgbToLab(r: number, g: number, b: number): [number, number, number] {
  const [lr, lg, lb] = [linear(r), linear(g), linear(b)];
  const fx = labF((0.4124564 * lr + 0.3575761 * lg + 0.1804375 * lb) / D65[0]);
  const fy = labF((0.2126729 * lr + 0.7151522 * lg + 0.072175 * lb) / D65[1]);
  const fz = labF((0.0193339 * lr + 0.119192 * lg + 0.9503041 * lb) / D65[2]);
  return [116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)];
}

/** CIEDE2000 colour difference (Sharma, Wu & Dalal 2005), kL = kC = kH = 1. */
export function deltaE2000(lab1: readonly number[], lab2: readonly number[]): number {
  const [l1, a1, b1] = lab1;
  const [l2, a2, b2] = lab2;
  const rad = Math.PI / 180;
  const cBar = (Math.hypot(a1, b1) + Math.hypot(a2, b2)) / 2;
  const g = 0.5 * (1 - Math.sqrt(cBar ** 7 / (cBar ** 7 + 25 ** 7)));
  const a1p = (1 + g) * a1;
  const a2p = (1 + g) * a2;
  const c1p = Math.hypot(a1p, b1);
  const c2p = Math.hypot(a2p, b2);
  const hue = (b: number, a: number) => {
    if (b === 0 && a === 0) return 0;
    const h = Math.atan2(b, a) / rad;
    return h < 0 ? h + 360 : h;
  };
  const h1p = hue(b1, a1p);
  const h2p = hue(b2, a2p);
  const dLp = l2 - l1;
  const dCp = c2p - c1p;
  let dhp = 0;
  if (c1p * c2p !== 0) {
    dhp = h2p - h1p;
    if (dhp > 180) dhp -= 360;
    else if (dhp < -180) dhp += 360;
  }
  const dHp = 2 * Math.sqrt(c1p * c2p) * Math.sin((dhp * rad) / 2);
  const lBarP = (l1 + l2) / 2;
  const cBarP = (c1p + c2p) / 2;
  let hBarP = h1p + h2p;
  if (c1p * c2p !== 0) {
    if (Math.abs(h1p - h2p) <= 180) hBarP = (h1p + h2p) / 2;
    else hBarP = h1p + h2p < 360 ? (h1p + h2p + 360) / 2 : (h1p + h2p - 360) / 2;
  }
  const t =
    1 -
    0.17 * Math.cos((hBarP - 30) * rad) +
    0.24 * Math.cos(2 * hBarP * rad) +
    0.32 * Math.cos((3 * hBarP + 6) * rad) -
    0.2 * Math.cos((4 * hBarP - 63) * rad);
  const dTheta = 30 * Math.exp(-(((hBarP - 275) / 25) ** 2));
  const rc = 2 * Math.sqrt(cBarP ** 7 / (cBarP ** 7 + 25 ** 7));
  const sl = 1 + (0.015 * (lBarP - 50) ** 2) / Math.sqrt(20 + (lBarP - 50) ** 2);
  const sc = 1 + 0.045 * cBarP;
  const sh = 1 + 0.015 * cBarP * t;
  const rt = -Math.sin(2 * dTheta * rad) * rc;
  return Math.sqrt((dLp / sl) ** 2 + (dCp / sc) ** 2 + (dHp / sh) ** 2 + rt * (dCp / sc) * (dHp / sh));
}

/** Skin by the YCbCr box of Chai & Ngan (1999): good enough to leave hair and backdrops out. */
function isSkin(r: number, g: number, b: number): boolean {
  const cb = 128 - 0.168736 * r - 0.331264 * g + 0.5 * b;
  const cr = 128 + 0.5 * r - 0.418688 * g - 0.081312 * b;
  return cb >= 77 && cb <= 127 && cr >= 133 && cr <= 173;
}

export interface SwapQuality {
  /** Mean absolute difference (0–255, all channels) outside the face box grown by `BACKGROUND_GROW` on each side. */
  backgroundMeanAbs: number;
  /** Share of those pixels that changed at all. */
  backgroundChangedShare: number;
  /**
   * Seam: per ring of r (steps of 0.025) over the blend border r 0.85–1.1 (the outer part of the
   * face, where a mesh swap hands over to the target), the mean gradient across the border
   * (along the hull's outward normal) of the luminance blurred at a fiftieth of the face width; the largest ratio
   * result ÷ target over those rings. 1 = no new edge along the border. (Rings further in hold
   * the new face's own features, which differ from the target's by design.)
   */
  seamRatio: number;
  /**
   * CIEDE2000 between the result's skin in the ring just inside the face border (r 0.75–0.95,
   * where the new face meets the old picture) and the target's own skin in that ring, per
   * angular sector whose inner and outer rings (r 1.04–1.16) are mostly skin in the target
   * (forehead, cheeks, jaw to neck), averaged: how far the swapped border's colour departs
   * from the skin it must continue into. Null when no sector qualifies.
   */
  skinDeltaE: number | null;
  /** The result's step from that inner ring to the skin just outside (r 1.04–1.16), CIEDE2000, same sectors. */
  skinStepOutside: number | null;
  /** The target's own step there (its natural one, e.g. a shadowed neck): the reference for `skinStepOutside`. */
  targetSkinStepOutside: number | null;
}

/** Share of the face box added on each side before "background" starts. */
const BACKGROUND_GROW = 0.3;

const SECTORS = 24;
/** The blend border: the outer part of the face hull, where any mesh swap hands over to the target. */
const RING_START = 0.85;
const RING_STEP = 0.025;
const RING_COUNT = 10;

/** Measures `result` (the swap onto `target`, same size) around the target face `targetMesh`. */
export function measureSwap(target: RgbImage, result: RgbImage, targetMesh: readonly Point[]): SwapQuality {
  if (target.width !== result.width || target.height !== result.height) throw new Error('result and target differ in size');
  const { width, height } = target;
  const hull = faceHull(targetMesh);
  const faceHeight = hull.box.bottom - hull.box.top;
  const grown = {
    left: hull.box.left - hull.faceWidth * BACKGROUND_GROW,
    right: hull.box.right + hull.faceWidth * BACKGROUND_GROW,
    top: hull.box.top - faceHeight * BACKGROUND_GROW,
    bottom: hull.box.bottom + faceHeight * BACKGROUND_GROW,
  };
  let backgroundSum = 0;
  let backgroundChanged = 0;
  let backgroundCount = 0;
  for (let y = 0; y < height; y += 1) {
    const inRows = y >= grown.top && y < grown.bottom;
    for (let x = 0; x < width; x += 1) {
      if (inRows && x >= grown.left && x < grown.right) continue;
      const at = (y * width + x) * 3;
      const diff =
        Math.abs(target.data[at] - result.data[at]) + Math.abs(target.data[at + 1] - result.data[at + 1]) + Math.abs(target.data[at + 2] - result.data[at + 2]);
      backgroundSum += diff / 3;
      if (diff > 0) backgroundChanged += 1;
      backgroundCount += 1;
    }
  }

  // the work area: the hull scaled by 1.25 about its centre
  const reach = 1.25;
  const x0 = Math.max(0, Math.floor(hull.centre[0] - (hull.centre[0] - hull.box.left) * reach) - 2);
  const x1 = Math.min(width, Math.ceil(hull.centre[0] + (hull.box.right - hull.centre[0]) * reach) + 2);
  const y0 = Math.max(0, Math.floor(hull.centre[1] - (hull.centre[1] - hull.box.top) * reach) - 2);
  const y1 = Math.min(height, Math.ceil(hull.centre[1] + (hull.box.bottom - hull.centre[1]) * reach) + 2);
  const w = x1 - x0;
  const h = y1 - y0;
  const luma = (image: RgbImage) => {
    const plane = new Float32Array(w * h);
    for (let y = 0; y < h; y += 1) {
      for (let x = 0; x < w; x += 1) {
        const at = ((y0 + y) * width + x0 + x) * 3;
        plane[y * w + x] = 0.299 * image.data[at] + 0.587 * image.data[at + 1] + 0.114 * image.data[at + 2];
      }
    }
    // blurred at a fiftieth of the face width: skin texture fades, a tone step or crease stays
    return gaussianBlur(plane, w, h, Math.max(1, hull.faceWidth / 50));
  };
  const [targetLuma, resultLuma] = [luma(target), luma(result)];
  const ringTarget = new Float64Array(RING_COUNT);
  const ringResult = new Float64Array(RING_COUNT);
  const inner = Array.from({ length: SECTORS }, () => ({ result: [0, 0, 0], target: [0, 0, 0], count: 0, pixels: 0 }));
  const outer = Array.from({ length: SECTORS }, () => ({ lab: [0, 0, 0], count: 0, pixels: 0 }));
  const addLab = (sum: number[], image: RgbImage, at: number) => {
    const lab = rgbToLab(image.data[at], image.data[at + 1], image.data[at + 2]);
    for (let c = 0; c < 3; c += 1) sum[c] += lab[c];
  };
  for (let y = 1; y < h - 1; y += 1) {
    for (let x = 1; x < w - 1; x += 1) {
      const { r, edge } = radial(hull, x0 + x, y0 + y);
      const i = y * w + x;
      const ring = Math.floor((r - RING_START) / RING_STEP);
      if (ring >= 0 && ring < RING_COUNT) {
        const [nx, ny] = hull.normals[edge];
        const across = (plane: Float32Array) => Math.abs(((plane[i + 1] - plane[i - 1]) * nx + (plane[i + w] - plane[i - w]) * ny) / 2);
        ringTarget[ring] += across(targetLuma);
        ringResult[ring] += across(resultLuma);
      }
      const isInner = r >= 0.75 && r < 0.95;
      const isOuter = r >= 1.04 && r < 1.16;
      if (!isInner && !isOuter) continue;
      const angle = Math.atan2(y0 + y - hull.centre[1], x0 + x - hull.centre[0]);
      const sector = Math.min(SECTORS - 1, Math.floor(((angle + Math.PI) / (2 * Math.PI)) * SECTORS));
      const at = ((y0 + y) * width + x0 + x) * 3;
      // skin is judged on the target (the result's inner ring is whatever the swap made of it)
      const skin = isSkin(target.data[at], target.data[at + 1], target.data[at + 2]);
      if (isInner) {
        inner[sector].pixels += 1;
        if (!skin) continue;
        inner[sector].count += 1;
        addLab(inner[sector].result, result, at);
        addLab(inner[sector].target, target, at);
      } else {
        outer[sector].pixels += 1;
        if (!skin) continue;
        outer[sector].count += 1;
        addLab(outer[sector].lab, result, at);
      }
    }
  }
  let seamRatio = 1;
  for (let ring = 0; ring < RING_COUNT; ring += 1) {
    if (ringTarget[ring] > 0) seamRatio = Math.max(seamRatio, ringResult[ring] / ringTarget[ring]);
  }
  let resultDelta = 0;
  let resultStep = 0;
  let targetStep = 0;
  let sectors = 0;
  for (let s = 0; s < SECTORS; s += 1) {
    const [a, b] = [inner[s], outer[s]];
    // a sector counts when most of both rings is skin
    if (a.count < 0.6 * a.pixels || b.count < 0.6 * b.pixels || a.count < 8 || b.count < 8) continue;
    const mean = (sum: number[], n: number) => sum.map((v) => v / n);
    const [resultInside, targetInside, outside] = [mean(a.result, a.count), mean(a.target, a.count), mean(b.lab, b.count)];
    resultDelta += deltaE2000(resultInside, targetInside);
    resultStep += deltaE2000(resultInside, outside);
    targetStep += deltaE2000(targetInside, outside);
    sectors += 1;
  }
  const round = (v: number) => Math.round(v * 1000) / 1000;
  return {
    backgroundMeanAbs: round(backgroundCount > 0 ? backgroundSum / backgroundCount : 0),
    backgroundChangedShare: round(backgroundCount > 0 ? backgroundChanged / backgroundCount : 0),
    seamRatio: round(seamRatio),
    skinDeltaE: sectors > 0 ? round(resultDelta / sectors) : null,
    skinStepOutside: sectors > 0 ? round(resultStep / sectors) : null,
    targetSkinStepOutside: sectors > 0 ? round(targetStep / sectors) : null,
  };
}
