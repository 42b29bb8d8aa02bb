/**
 * @module The ISO base media (MP4) container of one video track, read and written by hand:
 * the local engine writes every video through `writeMp4` (the encoder's own file has its
 * `moov` after the media; ours puts it first, so a browser learns the duration and frame size
 * from the first bytes it reads), appends a new segment to a parent's samples for an
 * extension, and tests check duration, frame size and frame count with `readMp4`. Only what a
 * single H.264 track needs; no fragments, no audio, no edit lists.
 */

/** Why a file could not be read as an MP4 video (the message completes "not an MP4 video: …"). */
export class Mp4Error extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Mp4Error';
  }
}

interface Mp4Sample {
  /** Byte offset of the sample in the file. */
  offset: number;
  size: number;
  /** In the track's timescale. */
  duration: number;
  /** A keyframe (sync sample). */
  sync: boolean;
}

export interface Mp4Video {
  /** The first sample entry's four-character code, e.g. `avc1`. */
  codec: string;
  width: number;
  height: number;
  /** Ticks per second of the track. */
  timescale: number;
  durationSec: number;
  /** The whole first sample entry box (`avc1` with its `avcC`), to be copied when re-muxing. */
  sampleEntry: Buffer;
  samples: Mp4Sample[];
  /** Box types at the top level, in file order (e.g. ftyp, moov, mdat). */
  topLevel: string[];
}

interface Box {
  type: string;
  /** Where the box's content starts (after its header) and ends. */
  start: number;
  end: number;
}

function boxesIn(data: Buffer, start: number, end: number): Box[] {
  const boxes: Box[] = [];
  let at = start;
  while (at + 8 <= end) {
    let size = data.readUInt32BE(at);
    const type = data.toString('latin1', at + 4, at + 8);
    let header = 8;
    if (size === 1) {
      if (at + 16 > end) throw new Mp4Error(`box ${type} is cut short`);
      size = Number(data.readBigUInt64BE(at + 8));
      header = 16;
    } else if (size === 0) {
      size = end - at;
    }
    if (size < header || at + size > end) throw new Mp4Error(`box ${type} at ${at} overruns its parent`);
    boxes.push({ type, start: at + header, end: at + size });
    at += size;
  }
  return boxes;
}

const child = (data: Buffer, box: Box, type: string) => boxesIn(data, box.start, box.end).find((b) => b.type === type);

function need(box: Box | undefined, what: string): Box {
  if (!box) throw new Mp4Error(`no ${what} box`);
  return box;
}

/** Entries of a full box whose content is a 32-bit count followed by fixed-size records. */
function table(data: Buffer, box: Box, recordBytes: number, headerBytes = 0): { count: number; at: number } {
  const count = data.readUInt32BE(box.start + 4 + headerBytes);
  const at = box.start + 8 + headerBytes;
  if (at + count * recordBytes > box.end) throw new Mp4Error('a sample table is cut short');
  return { count, at };
}

/**
 * Reads the first video track of an MP4 file.
 *
 * @example
 * const { durationSec, width, height, samples } = readMp4(bytes) // 5, 640, 360, 120 samples
 */
export function readMp4(input: Uint8Array): Mp4Video {
  const data = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  if (data.length < 12 || data.toString('latin1', 4, 8) !== 'ftyp') throw new Mp4Error('no ftyp box at the start');
  const top = boxesIn(data, 0, data.length);
  const moov = need(
    top.find((b) => b.type === 'moov'),
    'moov',
  );
  const track = boxesIn(data, moov.start, moov.end)
    .filter((b) => b.type === 'trak')
    .find((trak) => {
      const hdlr = child(data, need(child(data, trak, 'mdia'), 'mdia'), 'hdlr');
      return hdlr !== undefined && data.toString('latin1', hdlr.start + 8, hdlr.start + 12) === 'vide';
    });
  if (!track) throw new Mp4Error('no video track');
  const tkhd = need(child(data, track, 'tkhd'), 'tkhd');
  const tkhdVersion = data[tkhd.start];
  // tkhd: version/flags, times, track id, reserved, duration, reserved 8, layer, group, volume, reserved, matrix 36, then width and height (16.16)
  const sizeAt = tkhd.start + (tkhdVersion === 1 ? 88 : 76);
  const mdia = need(child(data, track, 'mdia'), 'mdia');
  const mdhd = need(child(data, mdia, 'mdhd'), 'mdhd');
  const mdhdVersion = data[mdhd.start];
  const timescale = data.readUInt32BE(mdhd.start + (mdhdVersion === 1 ? 20 : 12));
  const mediaDuration = mdhdVersion === 1 ? Number(data.readBigUInt64BE(mdhd.start + 24)) : data.readUInt32BE(mdhd.start + 16);
  if (!timescale) throw new Mp4Error('the track has no timescale');
  const stbl = need(child(data, need(child(data, mdia, 'minf'), 'minf'), 'stbl'), 'stbl');
  const find = (type: string) => child(data, stbl, type);

  const stsd = need(find('stsd'), 'stsd');
  const entry = boxesIn(data, stsd.start + 8, stsd.end)[0];
  if (!entry) throw new Mp4Error('no sample entry');
  const codec = data.toString('latin1', entry.start - 4, entry.start);
  // a visual sample entry: 6 reserved, data reference index, 16 bytes pre-defined/reserved, then width and height
  const entryWidth = data.readUInt16BE(entry.start + 24);
  const entryHeight = data.readUInt16BE(entry.start + 26);

  // sample sizes
  const stsz = need(find('stsz'), 'stsz');
  const uniform = data.readUInt32BE(stsz.start + 4);
  const sampleCount = data.readUInt32BE(stsz.start + 8);
  if (!uniform && stsz.start + 12 + sampleCount * 4 > stsz.end) throw new Mp4Error('the sample size table is cut short');
  const sizes = Array.from({ length: sampleCount }, (_, i) => (uniform ? uniform : data.readUInt32BE(stsz.start + 12 + i * 4)));

  // durations (run-length)
  const stts = table(data, need(find('stts'), 'stts'), 8);
  const durations: number[] = [];
  for (let i = 0; i < stts.count; i += 1) {
    const runs = data.readUInt32BE(stts.at + i * 8);
    const delta = data.readUInt32BE(stts.at + i * 8 + 4);
    for (let r = 0; r < runs && durations.length < sampleCount; r += 1) durations.push(delta);
  }

  // keyframes: no stss means every sample is one
  const stssBox = find('stss');
  let sync: Set<number> | undefined;
  if (stssBox) {
    const stss = table(data, stssBox, 4);
    sync = new Set(Array.from({ length: stss.count }, (_, i) => data.readUInt32BE(stss.at + i * 4) - 1));
  }

  // chunk offsets and the samples in each chunk
  const stcoBox = find('stco');
  const co64Box = find('co64');
  const chunkOffsets: number[] = [];
  if (stcoBox) {
    const stco = table(data, stcoBox, 4);
    for (let i = 0; i < stco.count; i += 1) chunkOffsets.push(data.readUInt32BE(stco.at + i * 4));
  } else {
    const co64 = table(data, need(co64Box, 'stco or co64'), 8);
    for (let i = 0; i < co64.count; i += 1) chunkOffsets.push(Number(data.readBigUInt64BE(co64.at + i * 8)));
  }
  const stsc = table(data, need(find('stsc'), 'stsc'), 12);
  const runs = Array.from({ length: stsc.count }, (_, i) => ({
    firstChunk: data.readUInt32BE(stsc.at + i * 12) - 1,
    perChunk: data.readUInt32BE(stsc.at + i * 12 + 4),
  }));
  const samples: Mp4Sample[] = [];
  for (let chunk = 0, run = 0; chunk < chunkOffsets.length && samples.length < sampleCount; chunk += 1) {
    while (run + 1 < runs.length && runs[run + 1].firstChunk <= chunk) run += 1;
    let offset = chunkOffsets[chunk];
    for (let s = 0; s < (runs[run]?.perChunk ?? 0) && samples.length < sampleCount; s += 1) {
      const index = samples.length;
      samples.push({ offset, size: sizes[index], duration: durations[index] ?? 0, sync: sync ? sync.has(index) : true });
      offset += sizes[index];
    }
  }
  if (samples.length !== sampleCount) throw new Mp4Error(`the chunk table covers ${samples.length} of ${sampleCount} samples`);
  for (const sample of samples) if (sample.offset + sample.size > data.length) throw new Mp4Error('a sample lies outside the file');

  const ticks = mediaDuration || durations.reduce((sum, d) => sum + d, 0);
  return {
    codec,
    width: data.readUInt32BE(sizeAt) / 65536 || entryWidth,
    height: data.readUInt32BE(sizeAt + 4) / 65536 || entryHeight,
    timescale,
    durationSec: ticks / timescale,
    sampleEntry: Buffer.from(data.subarray(entry.start - 8, entry.end)),
    samples,
    topLevel: top.map((b) => b.type),
  };
}

/**
 * Whether each H.264 sample holds an IDR picture (NAL unit type 5), read from its
 * length-prefixed NAL units. The encoder's own file has no sync sample table, which would
 * make a player treat every frame as a keyframe and seek onto predicted frames.
 */
export function h264Keyframes(file: Uint8Array, video: Mp4Video): boolean[] {
  // avcC inside the sample entry: 78 bytes of visual sample entry, then the avcC box; lengthSizeMinusOne in its 5th byte
  const avcC = video.sampleEntry.indexOf('avcC', 0, 'latin1');
  if (video.codec !== 'avc1' || avcC < 0) throw new Mp4Error('not an H.264 (avc1) track');
  const lengthSize = (video.sampleEntry[avcC + 4 + 4] & 3) + 1;
  return sampleBytes(file, video).map((sample) => {
    for (let at = 0; at + lengthSize < sample.length; ) {
      let length = 0;
      for (let i = 0; i < lengthSize; i += 1) length = length * 256 + sample[at + i];
      if ((sample[at + lengthSize] & 0x1f) === 5) return true;
      at += lengthSize + length;
    }
    return false;
  });
}

/** The bytes of each sample of `video`, read from the file it came from. */
export function sampleBytes(file: Uint8Array, video: Mp4Video): Uint8Array[] {
  return video.samples.map((s) => file.subarray(s.offset, s.offset + s.size));
}

function box(type: string, ...parts: Buffer[]): Buffer {
  const header = Buffer.alloc(8);
  const body = Buffer.concat(parts);
  header.writeUInt32BE(8 + body.length, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, body]);
}

/** A full box: version 0 and `flags`, then its content. */
const fullBox = (type: string, flags: number, ...parts: Buffer[]) => box(type, u32(flags & 0xffffff), ...parts);

function u32(...values: number[]): Buffer {
  const out = Buffer.alloc(values.length * 4);
  for (const [i, value] of values.entries()) out.writeUInt32BE(value >>> 0, i * 4);
  return out;
}

const u16 = (...values: number[]) => {
  const out = Buffer.alloc(values.length * 2);
  for (const [i, value] of values.entries()) out.writeUInt16BE(value, i * 2);
  return out;
};

const IDENTITY_MATRIX = u32(0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000);

export interface Mp4Spec {
  width: number;
  height: number;
  timescale: number;
  /** A sample entry box (e.g. the encoder's `avc1` with its `avcC`). */
  sampleEntry: Buffer;
  samples: { data: Uint8Array; duration: number; sync: boolean }[];
}

/**
 * One video track in a "fast start" file: ftyp, moov, then one mdat holding every sample in
 * a single chunk, so the sample table is complete before the first media byte.
 */
export function writeMp4(spec: Mp4Spec): Buffer {
  const { samples, timescale } = spec;
  const ticks = samples.reduce((sum, s) => sum + s.duration, 0);
  const movieTimescale = 1000;
  const movieDuration = Math.round((ticks * movieTimescale) / timescale);

  const stts: number[] = [];
  for (const sample of samples) {
    if (stts.length && stts[stts.length - 1] === sample.duration) stts[stts.length - 2] += 1;
    else stts.push(1, sample.duration);
  }
  const keyframes = samples.flatMap((s, i) => (s.sync ? [i + 1] : []));
  const mediaBytes = samples.reduce((sum, s) => sum + s.data.length, 0);

  const ftyp = box('ftyp', Buffer.from('isom', 'latin1'), u32(0x200), Buffer.from('isomiso2avc1mp41', 'latin1'));
  const moovWith = (chunkOffset: number) =>
    box(
      'moov',
      fullBox('mvhd', 0, u32(0, 0, movieTimescale, movieDuration, 0x00010000), u16(0x0100, 0), u32(0, 0), IDENTITY_MATRIX, Buffer.alloc(24), u32(2)),
      box(
        'trak',
        fullBox(
          'tkhd',
          3, // enabled, in the movie
          u32(0, 0, 1, 0, movieDuration, 0, 0),
          u16(0, 0, 0, 0),
          IDENTITY_MATRIX,
          u32(spec.width * 65536, spec.height * 65536),
        ),
        box(
          'mdia',
          fullBox('mdhd', 0, u32(0, 0, timescale, ticks), u16(0x55c4, 0)), // language "und"
          fullBox('hdlr', 0, u32(0), Buffer.from('vide', 'latin1'), u32(0, 0, 0), Buffer.from('VideoHandler\0', 'latin1')),
          box(
            'minf',
            fullBox('vmhd', 1, u16(0, 0, 0, 0)),
            box('dinf', fullBox('dref', 0, u32(1), fullBox('url ', 1))),
            box(
              'stbl',
              fullBox('stsd', 0, u32(1), spec.sampleEntry),
              fullBox('stts', 0, u32(stts.length / 2, ...stts)),
              ...(keyframes.length === samples.length ? [] : [fullBox('stss', 0, u32(keyframes.length, ...keyframes))]),
              fullBox('stsc', 0, u32(1, 1, samples.length, 1)),
              fullBox('stsz', 0, u32(0, samples.length, ...samples.map((s) => s.data.length))),
              fullBox('stco', 0, u32(1, chunkOffset)),
            ),
          ),
        ),
      ),
    );
  // the moov's size does not depend on the offset it holds: measure it, then write it for real
  const moov = moovWith(0);
  const mdatHeader = Buffer.concat([u32(8 + mediaBytes), Buffer.from('mdat', 'latin1')]);
  return Buffer.concat([ftyp, moovWith(ftyp.length + moov.length + mdatHeader.length), mdatHeader, ...samples.map((s) => s.data)]);
}
