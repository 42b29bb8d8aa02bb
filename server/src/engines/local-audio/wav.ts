/**
 * @module RIFF WAVE, read and written here (no dependency): writing 16-bit PCM; reading
 * integer PCM of 8, 16, 24 or 32 bits and IEEE float of 32 or 64 bits, plain or in a
 * WAVE_FORMAT_EXTENSIBLE header, any channel count, chunks walked by their sizes.
 */
import type { Pcm } from './pcm.ts';

export class WavFormatError extends Error {}

/** 16-bit little-endian PCM, interleaved, with the canonical 44-byte header. */
export function encodeWav(pcm: Pcm): Buffer {
  const channels = pcm.channels.length;
  const frames = pcm.channels[0]?.length ?? 0;
  const dataBytes = frames * channels * 2;
  const out = Buffer.alloc(44 + dataBytes);
  out.write('RIFF', 0, 'ascii');
  out.writeUInt32LE(36 + dataBytes, 4);
  out.write('WAVE', 8, 'ascii');
  out.write('fmt ', 12, 'ascii');
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(1, 20);
  out.writeUInt16LE(channels, 22);
  out.writeUInt32LE(pcm.sampleRate, 24);
  out.writeUInt32LE(pcm.sampleRate * channels * 2, 28);
  out.writeUInt16LE(channels * 2, 32);
  out.writeUInt16LE(16, 34);
  out.write('data', 36, 'ascii');
  out.writeUInt32LE(dataBytes, 40);
  let offset = 44;
  for (let i = 0; i < frames; i++) {
    for (let ch = 0; ch < channels; ch++) {
      const s = Math.max(-1, Math.min(1, pcm.channels[ch][i]));
      out.writeInt16LE(Math.round(s < 0 ? s * 32768 : s * 32767), offset);
      offset += 2;
    }
  }
  return out;
}

interface WavFormat {
  encoding: 'int' | 'float';
  channels: number;
  sampleRate: number;
  bits: number;
}

function readFormat(data: Buffer, offset: number, size: number): WavFormat {
  if (size < 16) throw new WavFormatError('the fmt chunk is too short');
  let tag = data.readUInt16LE(offset);
  const channels = data.readUInt16LE(offset + 2);
  const sampleRate = data.readUInt32LE(offset + 4);
  const bits = data.readUInt16LE(offset + 14);
  // WAVE_FORMAT_EXTENSIBLE: the real format is the first two bytes of the sub-format GUID
  if (tag === 0xfffe && size >= 40) tag = data.readUInt16LE(offset + 24);
  const encoding = tag === 1 ? 'int' : tag === 3 ? 'float' : undefined;
  if (!encoding) throw new WavFormatError(`WAV format ${tag} is not PCM or float`);
  if (channels < 1 || channels > 16) throw new WavFormatError(`${channels} channels`);
  if (sampleRate < 1000 || sampleRate > 384_000) throw new WavFormatError(`sample rate ${sampleRate}`);
  const valid = encoding === 'int' ? [8, 16, 24, 32] : [32, 64];
  if (!valid.includes(bits)) throw new WavFormatError(`${bits}-bit ${encoding === 'int' ? 'PCM' : 'float'}`);
  return { encoding, channels, sampleRate, bits };
}

function sampleReader(data: Buffer, format: WavFormat): (offset: number) => number {
  if (format.encoding === 'float') return format.bits === 32 ? (o) => data.readFloatLE(o) : (o) => data.readDoubleLE(o);
  switch (format.bits) {
    case 8:
      return (o) => (data[o] - 128) / 128;
    case 16:
      return (o) => data.readInt16LE(o) / 32768;
    case 24:
      return (o) => data.readIntLE(o, 3) / 8_388_608;
    default:
      return (o) => data.readInt32LE(o) / 2_147_483_648;
  }
}

/** The samples of a WAV file, or a WavFormatError saying what is wrong with it. */
export function decodeWav(data: Buffer): Pcm {
  if (data.length < 12 || data.toString('ascii', 0, 4) !== 'RIFF' || data.toString('ascii', 8, 12) !== 'WAVE') {
    throw new WavFormatError('not a RIFF WAVE file');
  }
  let format: WavFormat | undefined;
  let offset = 12;
  while (offset + 8 <= data.length) {
    const id = data.toString('ascii', offset, offset + 4);
    const size = data.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ') format = readFormat(data, body, Math.min(size, data.length - body));
    if (id === 'data') {
      if (!format) throw new WavFormatError('the data chunk comes before the fmt chunk');
      const frameBytes = (format.bits / 8) * format.channels;
      // a truncated file (or a streaming writer's 0 / 0xFFFFFFFF size) keeps what is there
      const available = data.length - body;
      const bytes = size === 0 || size > available ? available : size;
      const frames = Math.floor(bytes / frameBytes);
      const read = sampleReader(data, format);
      const step = format.bits / 8;
      const channels = Array.from({ length: format.channels }, () => new Float32Array(frames));
      for (let i = 0; i < frames; i++) {
        const frame = body + i * frameBytes;
        for (let ch = 0; ch < format.channels; ch++) channels[ch][i] = read(frame + ch * step);
      }
      return { sampleRate: format.sampleRate, channels };
    }
    offset = body + size + (size % 2);
  }
  throw new WavFormatError('no data chunk');
}
