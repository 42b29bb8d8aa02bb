import { describe, expect, it } from 'vitest';
import { isSubmitKey, promptWithImage, shouldShowUploadUrl, validatePrompt } from '../src/features/midjourney/prompt-rules.ts';
import { EMPTY_PROMPT_MESSAGE } from '../src/features/midjourney/task-model.ts';

describe('validatePrompt (spec §5: non-empty)', () => {
  it.each([
    ['', EMPTY_PROMPT_MESSAGE],
    ['   ', EMPTY_PROMPT_MESSAGE],
    ['\n\t', EMPTY_PROMPT_MESSAGE],
    ['a cat', null],
    ['  a cat  ', null],
  ])('%j -> %j', (prompt, expected) => expect(validatePrompt(prompt)).toBe(expected));
});

describe('isSubmitKey: Enter submits, Shift+Enter is a newline', () => {
  it.each([
    [{ key: 'Enter', shiftKey: false }, true],
    [{ key: 'Enter', shiftKey: true }, false],
    [{ key: 'Enter', shiftKey: false, isComposing: true }, false],
    [{ key: 'a', shiftKey: false }, false],
  ])('%j -> %s', (event, expected) => expect(isSubmitKey(event)).toBe(expected));
});

describe('shouldShowUploadUrl: https URLs, or any URL in embedded mode', () => {
  it.each([
    ['https://media.example.com/a.png', 'production', true],
    ['http://media.example.com/a.png', 'production', false],
    ['http://localhost:8080/media/a.png', 'embedded', true],
    ['https://localhost:8080/media/a.png', 'embedded', true],
    ['http://cdn.example.com/?via=https', 'production', true],
  ])('%s in %s -> %s', (url, mode, expected) => expect(shouldShowUploadUrl(url, mode)).toBe(expected));
});

describe('promptWithImage: the URL goes first, once', () => {
  it.each([
    ['', 'http://x/a.png', 'http://x/a.png '],
    ['a cat', 'http://x/a.png', 'http://x/a.png a cat'],
    ['  a cat ', 'http://x/a.png', 'http://x/a.png a cat'],
    ['http://x/a.png a cat', 'http://x/a.png', 'http://x/a.png a cat'],
  ])('%j + %s -> %j', (prompt, url, expected) => expect(promptWithImage(prompt, url)).toBe(expected));
});
