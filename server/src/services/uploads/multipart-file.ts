/**
 * @module One file field of a multipart body, read with a streaming parser (busboy): the
 * body is counted as it arrives and cut at its limit, other parts are skipped without being
 * kept, and only the named file is held, in a buffer that never exceeds its own limit.
 */
import { Readable } from 'node:stream';
import busboy from 'busboy';
import { ApiError } from '../../errors.ts';
import { limitedChunks } from '../../middleware/upload-limit/index.ts';

/** The first part named `field`: its bytes, or that it was a text field, or that there was none. */
type MultipartFile = { kind: 'file'; data: Buffer } | { kind: 'text' } | { kind: 'missing' };

interface MultipartFileOptions {
  field: string;
  /** Limit of the whole body (the file and the multipart framing around it). */
  maxBodyBytes: number;
  /** Limit of the file itself. */
  maxFileBytes: number;
  tooLarge: () => ApiError;
}

const malformed = () => new ApiError('bad_request', 'Malformed multipart body');

export function readMultipartFile(request: Request, options: MultipartFileOptions): Promise<MultipartFile> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { 'content-type': request.headers.get('content-type') ?? '' },
        // a byte past the limit tells us it is over; the rest is not kept
        limits: { fileSize: options.maxFileBytes, fields: 100, parts: 200 },
      });
    } catch {
      reject(malformed());
      return;
    }
    const source = Readable.from(limitedChunks(request.body, { maxSize: options.maxBodyBytes, tooLarge: options.tooLarge }), { objectMode: false });
    let settled = false;
    let found: 'file' | 'text' | undefined;
    let file: Buffer | undefined;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      source.unpipe(parser);
      source.destroy();
      parser.removeAllListeners();
      parser.on('error', () => {});
      reject(error instanceof ApiError ? error : malformed());
    };
    parser.on('file', (name, stream) => {
      if (name !== options.field || found) {
        // skipped, not kept; a form cut short errors it (the parser reports that too)
        stream.on('error', () => {});
        stream.resume();
        return;
      }
      found = 'file';
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
      });
      stream.on('limit', () => fail(options.tooLarge()));
      stream.on('end', () => {
        if (!stream.truncated) file = Buffer.concat(chunks, size);
      });
      stream.on('error', fail);
    });
    parser.on('field', (name) => {
      if (name === options.field && !found) found = 'text';
    });
    parser.on('error', fail);
    parser.on('close', () => {
      if (settled) return;
      settled = true;
      if (found === 'text') resolve({ kind: 'text' });
      else if (found === 'file' && file) resolve({ kind: 'file', data: file });
      else if (found === 'file') reject(malformed());
      else resolve({ kind: 'missing' });
    });
    source.on('error', fail);
    source.pipe(parser);
  });
}
