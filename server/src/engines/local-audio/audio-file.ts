/**
 * @module Reading an audio file a user brought (suno-upload) or a song to continue
 * (suno-extend): what it is and how long it lasts (music-metadata parses the container and
 * the first frames: MP3, WAV, Ogg Vorbis/Opus, M4A), and its samples where this engine can
 * decode them (MP3 through mpg123, WAV here). Every failure is an EngineError a user can act on.
 */
import { parseBuffer } from 'music-metadata';
import { EngineError } from '../engine.ts';
import { decodeMp3 } from './mp3.ts';
import { type Pcm, resample, SAMPLE_RATE, toStereo } from './pcm.ts';
import { decodeWav, WavFormatError } from './wav.ts';

export interface AudioFacts {
  /** mp3, wav, ogg or m4a. */
  format: string;
  /** e.g. 'MPEG 1 Layer 3', 'PCM', 'Vorbis I', 'AAC'. */
  codec?: string;
  durationSec: number;
  sampleRate?: number;
  channels?: number;
  /** Bits per second, when the container says. */
  bitrate?: number;
}

const FORMAT_OF: Readonly<Record<string, string>> = { 'audio/mpeg': 'mp3', 'audio/wav': 'wav', 'audio/ogg': 'ogg', 'audio/mp4': 'm4a' };

/** Longest song this engine reads (an hour); anything longer is refused before decoding. */
const MAX_AUDIO_SECONDS = 3600;

/** The format and duration of an audio file whose type was read from its bytes (contentType). */
export async function inspectAudio(data: Buffer, contentType: string, which = 'audio'): Promise<AudioFacts> {
  const format = FORMAT_OF[contentType];
  if (!format) throw new EngineError('invalid_input', `The ${which} is not an MP3, WAV, Ogg or M4A file.`);
  let parsed: Awaited<ReturnType<typeof parseBuffer>>;
  try {
    parsed = await parseBuffer(data, { mimeType: contentType, size: data.length }, { duration: true, skipCovers: true });
  } catch (error) {
    throw new EngineError('invalid_input', `The ${which} could not be read as ${format.toUpperCase()}.`, { detail: String(error), cause: error });
  }
  const { duration, codec, sampleRate, numberOfChannels, bitrate } = parsed.format;
  if (!duration || !Number.isFinite(duration) || duration <= 0) {
    throw new EngineError('invalid_input', `The ${which} has no playable audio (its length could not be read).`);
  }
  if (duration > MAX_AUDIO_SECONDS) throw new EngineError('invalid_input', `The ${which} is longer than ${MAX_AUDIO_SECONDS / 60} minutes.`);
  return { format, codec, durationSec: duration, sampleRate, channels: numberOfChannels, bitrate };
}

/**
 * The samples of an MP3 or WAV file as 44.1 kHz stereo; Ogg and M4A are refused (this engine
 * has no decoder for Vorbis, Opus or AAC), with a message saying which formats work.
 */
export async function decodeAudio(data: Buffer, contentType: string, which = 'song'): Promise<Pcm> {
  let pcm: Pcm;
  try {
    if (contentType === 'audio/mpeg') pcm = await decodeMp3(data);
    else if (contentType === 'audio/wav') pcm = decodeWav(data);
    else {
      const format = (FORMAT_OF[contentType] ?? contentType).toUpperCase();
      throw new EngineError('unsupported', `The local engine can continue MP3 and WAV songs, not ${format}; upload the ${which} as MP3 or WAV.`);
    }
  } catch (error) {
    if (error instanceof EngineError) throw error;
    const reason = error instanceof WavFormatError ? `: ${error.message}` : '';
    throw new EngineError('invalid_input', `The ${which} could not be decoded${reason}.`, { detail: String(error), cause: error });
  }
  if (pcm.channels[0].length / pcm.sampleRate > MAX_AUDIO_SECONDS) {
    throw new EngineError('invalid_input', `The ${which} is longer than ${MAX_AUDIO_SECONDS / 60} minutes.`);
  }
  return resample(toStereo(pcm), SAMPLE_RATE);
}
