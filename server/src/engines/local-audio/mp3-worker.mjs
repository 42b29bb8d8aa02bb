// The local audio engine's MP3 encoder thread (started by mp3.ts): lamejs on 16-bit samples
// handed over whole, so the encoding (the engine's largest cost) never runs on the event loop
// of the process that hosts the engine (in embedded mode, the API). One song at a time; a
// progress message every ~0.5 s of audio, then the frames as one buffer.
import { parentPort } from 'node:worker_threads';
import { Mp3Encoder } from '@breezystack/lamejs';

const SLICE = 1152 * 20;

/** A copy of an encoder chunk as bytes (lamejs hands out Int8Arrays over a buffer it reuses). */
const bytesOf = (chunk) => new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength).slice();

parentPort.on('message', ({ id, sampleRate, kbps, left, right }) => {
  try {
    const l = new Int16Array(left);
    const r = right ? new Int16Array(right) : undefined;
    const encoder = new Mp3Encoder(r ? 2 : 1, sampleRate, kbps);
    const parts = [];
    for (let start = 0; start < l.length; start += SLICE) {
      const end = Math.min(start + SLICE, l.length);
      const chunk = r ? encoder.encodeBuffer(l.subarray(start, end), r.subarray(start, end)) : encoder.encodeBuffer(l.subarray(start, end));
      if (chunk.length) parts.push(bytesOf(chunk));
      parentPort.postMessage({ type: 'progress', id, fraction: end / l.length });
    }
    const last = encoder.flush();
    if (last.length) parts.push(bytesOf(last));
    const data = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let offset = 0;
    for (const part of parts) {
      data.set(part, offset);
      offset += part.length;
    }
    parentPort.postMessage({ type: 'done', id, data: data.buffer }, [data.buffer]);
  } catch (error) {
    parentPort.postMessage({ type: 'error', id, message: error instanceof Error ? error.message : String(error) });
  }
});
