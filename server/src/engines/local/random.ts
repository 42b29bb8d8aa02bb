/**
 * @module Deterministic randomness for the procedural renderer: SHA-256 in counter mode over
 * a string key, so a (prompt, seed, variant) triple always yields the same number stream on
 * every platform and Node version.
 */
import { createHash } from 'node:crypto';

export class HashStream {
  private readonly key: string;
  private counter = 0;
  private block: Buffer = Buffer.alloc(0);
  private offset = 0;

  constructor(...parts: Array<string | number>) {
    this.key = parts.map(String).join('\u241f');
  }

  /** A uniformly distributed 32-bit unsigned integer. */
  uint32(): number {
    if (this.offset + 4 > this.block.length) {
      this.block = createHash('sha256')
        .update(`${this.key}#${this.counter++}`)
        .digest();
      this.offset = 0;
    }
    const value = this.block.readUInt32BE(this.offset);
    this.offset += 4;
    return value;
  }

  /** A float in [0, 1). */
  next(): number {
    return this.uint32() / 2 ** 32;
  }

  range(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** An integer in [min, max] inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
}

/** A 32-bit seed derived from arbitrary bytes and labels (e.g. a variation's parent image). */
export function deriveSeed(...parts: Array<string | number | Uint8Array>): number {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(typeof part === 'string' || typeof part === 'number' ? `${part}\u241f` : part);
  return hash.digest().readUInt32BE(0);
}
