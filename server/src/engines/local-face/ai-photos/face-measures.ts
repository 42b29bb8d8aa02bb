/**
 * @module What the AI photo work measures of a detected face (runs in the face worker): eye
 * centres, pose, the mouth's opening, sharpness and skin colour, from human's 468-point mesh
 * (MediaPipe face mesh numbering) and the pixels.
 */
import type { DetectedFace, Point } from '../face-models.ts';
import type { FaceAnalysis, RgbImage } from '../protocol.ts';
import type { Region } from '../warp.ts';

/** Mesh points at the corners of each eye (outer, inner) and of the inner lips (upper, lower). */
const EYE_CORNERS: readonly [number, number][] = [
  [33, 133],
  [263, 362],
];
const INNER_LIPS: readonly [number, number] = [13, 14];
/** Cheeks, forehead and between the brows: skin that hair, beard and glasses rarely cover. */
const SKIN_POINTS = [50, 280, 151, 9];

const degrees = (radians: number) => (radians * 180) / Math.PI;
const distance = (a: Point, b: Point) => Math.hypot(a[0] - b[0], a[1] - b[1]);
const middle = (a: Point, b: Point): Point => [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];

/** The eye centres (middle of each eye's corners), the one on the image's left first. */
function eyeCentres(mesh: readonly Point[]): [Point, Point] {
  const [first, second] = EYE_CORNERS.map(([outer, inner]) => middle(mesh[outer], mesh[inner]));
  return first[0] <= second[0] ? [first, second] : [second, first];
}

/** A detected face as the AI photo work describes it. */
export function describeFace(face: DetectedFace): FaceAnalysis {
  const eyes = eyeCentres(face.mesh);
  const eyeDistance = Math.max(distance(eyes[0], eyes[1]), 1e-3);
  const rotation = face.rotation ?? { yaw: 0, pitch: 0, roll: 0 };
  const analysis: FaceAnalysis = {
    box: face.box,
    mesh: face.mesh,
    faceWidth: Math.max(...face.mesh.map(([x]) => x)) - Math.min(...face.mesh.map(([x]) => x)),
    embedding: face.embedding,
    pose: { yaw: degrees(rotation.yaw), pitch: degrees(rotation.pitch), roll: degrees(rotation.roll) },
    eyes,
    mouthGap: distance(face.mesh[INNER_LIPS[0]], face.mesh[INNER_LIPS[1]]) / eyeDistance,
  };
  if (face.age !== undefined) analysis.age = face.age;
  if (face.gender !== undefined) analysis.gender = face.gender;
  if (face.genderScore !== undefined) analysis.genderScore = face.genderScore;
  return analysis;
}

/** Standard deviation of the grey 4-neighbour Laplacian inside `area`: fine detail, i.e. focus. */
export function laplacianSharpness(image: RgbImage, area: Region): number {
  const { data, width } = image;
  const grey = (x: number, y: number) => {
    const at = (y * width + x) * 3;
    return 0.299 * data[at] + 0.587 * data[at + 1] + 0.114 * data[at + 2];
  };
  let sum = 0;
  let squares = 0;
  let count = 0;
  for (let y = Math.max(1, area.y); y < Math.min(image.height - 1, area.y + area.height); y += 1) {
    for (let x = Math.max(1, area.x); x < Math.min(width - 1, area.x + area.width); x += 1) {
      const value = 4 * grey(x, y) - grey(x - 1, y) - grey(x + 1, y) - grey(x, y - 1) - grey(x, y + 1);
      sum += value;
      squares += value * value;
      count += 1;
    }
  }
  if (count === 0) return 0;
  const mean = sum / count;
  return Math.sqrt(Math.max(squares / count - mean * mean, 0));
}

/** Mean RGB of small patches around the skin points, each a sixteenth of the eye distance across. */
export function skinColour(image: RgbImage, face: FaceAnalysis): [number, number, number] {
  const radius = Math.max(1, Math.round(distance(face.eyes[0], face.eyes[1]) / 16));
  const sum = [0, 0, 0];
  let count = 0;
  for (const index of SKIN_POINTS) {
    const [cx, cy] = face.mesh[index];
    for (let y = Math.round(cy) - radius; y <= Math.round(cy) + radius; y += 1) {
      for (let x = Math.round(cx) - radius; x <= Math.round(cx) + radius; x += 1) {
        if (x < 0 || y < 0 || x >= image.width || y >= image.height) continue;
        const at = (y * image.width + x) * 3;
        for (let c = 0; c < 3; c += 1) sum[c] += image.data[at + c];
        count += 1;
      }
    }
  }
  const mean = (c: number) => (count > 0 ? Math.round(sum[c] / count) : 0);
  return [mean(0), mean(1), mean(2)];
}
