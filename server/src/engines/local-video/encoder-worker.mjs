// The H.264 encoder thread of the local video engine: h264-mp4-encoder (minih264 and a small
// MP4 writer compiled to WebAssembly, inside its npm package) runs here so its CPU-bound
// encoding never blocks the API's event loop. Plain JavaScript: it needs no TypeScript loader.
// Messages (protocol.ts): open, frame (RGBA, transferred; answered with an ack), close
// (answered with the MP4 bytes), abort. Sessions are independent encoders sharing one
// WebAssembly instance; each writes its own file in the instance's memory file system.
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';

const require = createRequire(import.meta.url);
const { createH264MP4Encoder } = require('h264-mp4-encoder');

/** id → encoder */
const sessions = new Map();
// the WebAssembly module loads once; messages wait for it in order
let ready = Promise.resolve();

function reply(message, transfer) {
  parentPort.postMessage(message, transfer);
}

async function handle(message) {
  const { id } = message;
  try {
    if (message.type === 'open') {
      const encoder = await createH264MP4Encoder();
      encoder.outputFilename = `video-${id}.mp4`;
      encoder.width = message.width;
      encoder.height = message.height;
      encoder.frameRate = message.fps;
      encoder.quantizationParameter = message.qp;
      encoder.speed = message.speed;
      encoder.groupOfPictures = message.gop;
      encoder.initialize();
      sessions.set(id, encoder);
      return;
    }
    const encoder = sessions.get(id);
    if (!encoder) return;
    if (message.type === 'frame') {
      encoder.addFrameRgba(new Uint8Array(message.rgba));
      reply({ type: 'ack', id });
    } else if (message.type === 'close') {
      encoder.finalize();
      const bytes = encoder.FS.readFile(encoder.outputFilename);
      encoder.FS.unlink(encoder.outputFilename);
      encoder.delete();
      sessions.delete(id);
      // a copy that owns its buffer, so it can be transferred
      const data = bytes.slice();
      reply({ type: 'done', id, data: data.buffer }, [data.buffer]);
    } else if (message.type === 'abort') {
      sessions.delete(id);
      // the encoder must be finalized before it is deleted; what it wrote is thrown away
      try {
        encoder.finalize();
        encoder.FS.unlink(encoder.outputFilename);
      } finally {
        encoder.delete();
      }
    }
  } catch (error) {
    sessions.delete(id);
    reply({ type: 'error', id, message: error instanceof Error ? error.message : String(error) });
  }
}

parentPort.on('message', (message) => {
  ready = ready.then(() => handle(message));
});
