import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderWebhooksSection } from '../src/openapi/webhooks-section.ts';

// The docs page's Webhooks section: events, payload, headers, signatures with the tested samples
// of docs/webhooks/ shown verbatim, the retry schedule and what counts as success.

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

describe('the Webhooks docs section', () => {
  const html = renderWebhooksSection();

  it('names every event, header and the success rule', () => {
    for (const event of ['task.progress', 'task.completed', 'task.failed', 'webhook.test']) expect(html).toContain(`<code>${event}</code>`);
    for (const header of ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'x-webhook-event', 'x-webhook-secret']) {
      expect(html).toContain(`<code>${header}</code>`);
    }
    expect(html).toContain('any <strong>2xx</strong> status within 10 s');
    expect(html).toMatch(/<section id="webhooks" aria-labelledby="webhooks-title">\n<h2 id="webhooks-title">Webhooks<\/h2>/);
  });

  it('lists the retry schedule from retry-schedule.ts', () => {
    for (const [n, when] of [
      ['2', '10 s'],
      ['3', '30 s'],
      ['4', '2 min'],
      ['5', '10 min'],
      ['6', '1 h'],
      ['7', '3 h'],
      ['8', '6 h'],
    ]) {
      expect(html).toContain(`<tr><th scope="row">${n}</th><td>${when} after attempt ${Number(n) - 1} failed</td></tr>`);
    }
    expect(html).toContain('After 8 failed attempts (about 10 hours)');
  });

  it('shows each tested sample verbatim, escaped, and says the official Python library was not tested here', () => {
    for (const file of ['verify.mjs', 'verify.py', 'verify.php', 'verify-curl.sh']) {
      const text = readFileSync(new URL(`../../docs/webhooks/${file}`, import.meta.url), 'utf8');
      expect(html).toContain(`<code>${escapeHtml(text)}</code>`);
    }
    expect(html).toContain('the official Python library could not be tested here');
    expect(html).not.toMatch(/<script/i);
  });
});
