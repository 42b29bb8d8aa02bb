import { describe, expect, it } from 'vitest';
import { createVerifyLimiter } from '../src/auth/verify-limits.ts';

// The counting rules of the /verify guard on a fake clock (the HTTP behaviour is in auth-verify-limits.test.ts).
describe('verify limiter', () => {
  const setup = () => {
    let t = 1_000_000;
    const limiter = createVerifyLimiter({ perToken: 3, perAddress: 4, windowSeconds: 60 }, 3600, () => t);
    const advance = (ms: number) => {
      t += ms;
    };
    return { limiter, advance };
  };
  const limited = (fn: () => unknown) => expect(fn).toThrow(expect.objectContaining({ status: 429, code: 'over_request_rate_limit' }));

  it('burns a code on its last allowed wrong try and refuses the next', () => {
    const { limiter } = setup();
    expect(limiter.begin('a', 'x@example.com').fail()).toBe(false);
    expect(limiter.begin('b', 'x@example.com').fail()).toBe(false);
    expect(limiter.begin('c', 'x@example.com').fail()).toBe(true);
    limited(() => limiter.begin('d', 'x@example.com'));
    // a new code for that email starts again; other emails were never affected
    limiter.reset('x@example.com');
    expect(limiter.begin('d', 'x@example.com').fail()).toBe(false);
    limiter.begin('d', 'y@example.com').release();
  });

  it('counts failures, not successes, and each try once', () => {
    const { limiter } = setup();
    for (let i = 0; i < 10; i++) limiter.begin('a', `u${i}@example.com`).release();
    const attempt = limiter.begin('a');
    attempt.fail();
    attempt.fail();
    attempt.release();
    for (let i = 0; i < 3; i++) limiter.begin('a').fail();
    limited(() => limiter.begin('a'));
    limiter.begin('b').release();
  });

  it('holds a place for tries still being checked', () => {
    const { limiter } = setup();
    const pending = [1, 2, 3].map(() => limiter.begin('a', 'x@example.com'));
    limited(() => limiter.begin('b', 'x@example.com'));
    for (const p of pending) p.release();
    limiter.begin('b', 'x@example.com').release();
  });

  it('forgets an address’s failures after the window', () => {
    const { limiter, advance } = setup();
    for (let i = 0; i < 4; i++) limiter.begin('a').fail();
    limited(() => limiter.begin('a'));
    advance(59_000);
    limited(() => limiter.begin('a'));
    advance(2_000);
    limiter.begin('a').fail();
  });
});
