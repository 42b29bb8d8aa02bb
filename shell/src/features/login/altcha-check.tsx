import 'altcha';
// JSX typings for <altcha-widget>.
import type {} from 'altcha/types/react';
import { forwardRef, useEffect, useImperativeHandle, useRef } from 'react';

export type AltchaHandle = { reset: () => void };

type WidgetElement = HTMLElement & { reset?: () => void };
type StateChange = CustomEvent<{ state: string; payload?: string }>;

/**
 * The ALTCHA proof-of-work widget (a web component). It reports its payload once verified,
 * which is the captchaToken for sign-in; any other state (expired, error, verifying) clears it.
 */
export const AltchaCheck = forwardRef<AltchaHandle, { challengeUrl: string; onToken: (token: string | null) => void }>(function AltchaCheck(
  { challengeUrl, onToken },
  ref,
) {
  const widget = useRef<WidgetElement>(null);
  const onTokenRef = useRef(onToken);
  onTokenRef.current = onToken;

  useImperativeHandle(ref, () => ({
    reset: () => {
      widget.current?.reset?.();
      onTokenRef.current(null);
    },
  }));

  useEffect(() => {
    const el = widget.current;
    if (!el) return;
    const onStateChange = (event: Event) => {
      const { state, payload } = (event as StateChange).detail;
      onTokenRef.current(state === 'verified' && payload ? payload : null);
    };
    el.addEventListener('statechange', onStateChange);
    return () => el.removeEventListener('statechange', onStateChange);
  }, []);

  return <altcha-widget ref={widget} challenge={challengeUrl} data-testid="captcha" />;
});
