import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { LogFields } from '../src/logger.ts';
import { installProcessGuards } from '../src/process-guards.ts';

function fakeProcess() {
  const emitter = new EventEmitter();
  const exits: number[] = [];
  const lines: { msg: string; fields?: LogFields }[] = [];
  const log = {
    info: (msg: string, fields?: LogFields) => lines.push({ msg, fields }),
    error: (msg: string, fields?: LogFields) => lines.push({ msg, fields }),
  };
  const proc = Object.assign(emitter, { exit: (code: number) => void exits.push(code) });
  installProcessGuards(log, proc as never);
  return { proc, exits, lines };
}

// README.md "Operating it": an uncaught exception is fatal (exit 1, the supervisor restarts),
// an unhandled rejection is logged and the process serves on.
describe('process guards', () => {
  it('logs an uncaught exception as one line, then exits 1', () => {
    const { proc, exits, lines } = fakeProcess();
    proc.emit('uncaughtException', new TypeError('Invalid URL'), 'uncaughtException');
    expect(exits).toEqual([1]);
    expect(lines).toEqual([
      { msg: 'uncaught exception: exiting', fields: expect.objectContaining({ error: 'TypeError: Invalid URL', origin: 'uncaughtException', fatal: true }) },
    ]);
    expect(lines[0]?.fields?.stack).toContain('TypeError: Invalid URL');
  });

  it('logs an unhandled rejection and keeps the process', () => {
    const { proc, exits, lines } = fakeProcess();
    proc.emit('unhandledRejection', new Error('mail relay down'), Promise.resolve());
    proc.emit('unhandledRejection', 'a bare string', Promise.resolve());
    expect(exits).toEqual([]);
    expect(lines.map((l) => [l.msg, l.fields?.error, l.fields?.fatal])).toEqual([
      ['unhandled rejection: still serving', 'Error: mail relay down', false],
      ['unhandled rejection: still serving', 'a bare string', false],
    ]);
  });
});
