/**
 * The pure rules behind the AI photo calls, by table: prices per photo (never from a client),
 * base64 photos decoded strictly, which photos of an upload can be trained on, expiry.
 */
import { describe, expect, it } from 'vitest';
import type { TaskRow } from '../src/repositories/task-repository.ts';
import { priceOf } from '../src/services/pricing/catalog.ts';
import { isExpired, subjectOf, usablePhotoIndexes } from '../src/services/tasks/ai-photo-rules.ts';
import { decodeBase64Image } from '../src/storage/base64-image.ts';

const MB = 1024 * 1024;

describe('AI photo prices', () => {
  it.each([
    ['ai-photo-upload', undefined, 2],
    ['ai-photo-upload', 30, 2],
    ['ai-photo-train', 10, 40],
    ['ai-photo-train', 29, 116],
    ['ai-photo-train', 1, 4],
    ['ai-photo-generate', undefined, 1],
    ['ai-photo-generate', 4, 4],
    ['ai-photo-generate', 3, 3],
    ['ai-photo-train', 0, undefined],
    ['ai-photo-train', -2, undefined],
    ['ai-photo-train', 2.5, undefined],
    ['ai-photo-generate', Number.NaN, undefined],
    ['imagine', 7, 4],
    ['faceswap', undefined, 2],
    ['ai-photo-nope', 1, undefined],
  ])('%s × %s costs %s', (type, quantity, expected) => {
    expect(priceOf(type, quantity)).toBe(expected);
  });
});

describe('base64 photos', () => {
  const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
  it.each([
    ['plain base64', png.toString('base64'), png],
    ['a data: URI', `data:image/png;base64,${png.toString('base64')}`, png],
    ['a data: URI with parameters, any case', `DATA:image/png;name=a.png;BASE64,${png.toString('base64')}`, png],
    ['line breaks and spaces', `  ${png.toString('base64').replace(/(.{8})/g, '$1\r\n')}  `, png],
    ['no padding', png.toString('base64').replace(/=+$/, ''), png],
    ['the URL-safe alphabet', Buffer.from([0xfb, 0xff, 0xfe]).toString('base64url'), Buffer.from([0xfb, 0xff, 0xfe])],
  ])('decodes %s', (_, text, expected) => {
    expect(decodeBase64Image(text, MB)).toEqual({ ok: true, data: expected });
  });

  it.each([
    ['characters outside base64', 'abc$def', 'not base64 (or a data:…;base64, URI)'],
    ['a lone trailing character', 'abcde', 'not base64 (or a data:…;base64, URI)'],
    ['padding in the middle', 'ab=c', 'not base64 (or a data:…;base64, URI)'],
    ['padding at a wrong length', 'abcdef=', 'not base64 (or a data:…;base64, URI)'],
    ['a data: URI that is not base64', 'data:image/png,%89PNG', 'a data: URI must carry base64 (data:image/jpeg;base64,…)'],
    ['nothing', '', 'empty'],
    ['only a data: prefix', 'data:image/png;base64,', 'empty'],
    ['more bytes than allowed', Buffer.alloc(MB + 1).toString('base64'), 'larger than 1 MB'],
    ['a huge string, judged by its length', 'A'.repeat(4 * MB), 'larger than 1 MB'],
  ])('refuses %s', (_, text, problem) => {
    expect(decodeBase64Image(text, MB)).toEqual({ ok: false, problem });
  });

  it('takes exactly the limit', () => {
    expect(decodeBase64Image(Buffer.alloc(MB).toString('base64'), MB)).toMatchObject({ ok: true });
  });
});

const uploadRow = (result: Record<string, unknown> | null, count = 5, input: Record<string, unknown> = {}): TaskRow =>
  ({
    input_data: { gender: 'female', ethnicity: 'asian', age: 30, images: Array.from({ length: count }, (_, i) => `http://x/media/${i}.png`), ...input },
    result,
    expires_at: null,
  }) as unknown as TaskRow;

describe('which photos of an upload can be trained on', () => {
  it.each([
    ['no verdicts: all', null, [0, 1, 2, 3, 4]],
    ['verdicts without photos data: all', { engine: 'x' }, [0, 1, 2, 3, 4]],
    ['usable flags', { photos: [0, 1, 2, 3, 4].map((index) => ({ index, usable: index !== 2 })) }, [0, 1, 3, 4]],
    ['accepted flags', { photos: [0, 1, 2, 3, 4].map((index) => ({ index, accepted: index % 2 === 0 })) }, [0, 2, 4]],
    [
      'ok flags, out of order',
      {
        photos: [
          { index: 4, ok: true },
          { index: 0, ok: true },
        ],
      },
      [0, 4],
    ],
    [
      'a status',
      {
        photos: [
          { index: 0, status: 'accepted' },
          { index: 1, status: 'rejected' },
          { index: 2, status: 'ok' },
        ],
      },
      [0, 2],
    ],
    ['a reason without a flag means rejected', { photos: [{ index: 0 }, { index: 1, reason: 'two faces' }, { index: 2, reason: ' ' }] }, [0, 2]],
    ['positions when there is no index', { photos: [{ usable: true }, { usable: false }, { usable: true }] }, [0, 2]],
    ['the images alias', { images: [{ index: 1, usable: true }] }, [1]],
    [
      'indexes out of range are ignored',
      {
        photos: [
          { index: 9, usable: true },
          { index: 1, usable: true },
        ],
      },
      [1],
    ],
    ['only the rejected ones', { rejected: [{ index: 1, reason: 'blurry' }, { index: 3 }] }, [0, 2, 4]],
    ['nothing usable', { photos: [0, 1, 2, 3, 4].map((index) => ({ index, usable: false })) }, []],
  ])('%s', (_, result, expected) => {
    expect(usablePhotoIndexes(uploadRow(result as Record<string, unknown> | null))).toEqual(expected);
  });

  it('reads the person, or nothing when the upload does not say', () => {
    expect(subjectOf(uploadRow(null))).toEqual({ gender: 'female', ethnicity: 'asian', age: 30 });
    expect(subjectOf(uploadRow(null, 1, { gender: 'other' }))).toBeUndefined();
    expect(subjectOf(uploadRow(null, 1, { age: 'old' }))).toBeUndefined();
  });

  it('is expired from its expires_at on, never without one', () => {
    const now = new Date('2026-11-24T10:00:00Z');
    const at = (expires_at: Date | null) => ({ ...uploadRow(null), expires_at }) as TaskRow;
    expect(isExpired(at(null), now)).toBe(false);
    expect(isExpired(at(new Date('2026-11-24T10:00:01Z')), now)).toBe(false);
    expect(isExpired(at(new Date('2026-11-24T10:00:00Z')), now)).toBe(true);
  });
});
