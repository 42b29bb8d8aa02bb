import { useRef, useState, type FormEvent } from 'react';
import { Alert, Box, Button, Card, Center, Field, Flex, Heading, Input, Stack, Text } from '@aim/shared-kit/ui';
import { Navigate, useLocation } from '@aim/shared-kit/router';
import { getRuntimeConfig } from '@aim/shared-kit/runtime-config';
import { useSession } from '@aim/shared-kit/session';
import { getSupabaseClient } from '@aim/shared-kit/supabase';
import { captchaErrorKind, isValidEmail } from '@aim/shared-kit/validate';
import { AltchaCheck, type AltchaHandle } from '../features/login/altcha-check.tsx';
import { PromoBanner } from '../features/frame/promo-banner.tsx';
import { ThemeSwitch } from '../features/frame/theme-switch.tsx';
import type { CallbackErrorState } from './auth-callback.tsx';

type Feedback = { kind: 'error'; reason: string } | { kind: 'sent'; email: string } | null;

/** /auth: magic link or GitHub, both behind the bot check. */
function LoginRoute() {
  const { status } = useSession();
  const [email, setEmail] = useState('');
  const [emailError, setEmailError] = useState<string | null>(null);
  const [captchaToken, setCaptchaToken] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // a sign-in redirect that came back with an error (see AuthCallbackRoute) shows its reason here
  const callbackError = (useLocation().state as CallbackErrorState | null)?.callbackError;
  const [feedback, setFeedback] = useState<Feedback>(callbackError ? { kind: 'error', reason: callbackError } : null);
  const captcha = useRef<AltchaHandle>(null);
  const config = getRuntimeConfig();

  if (status === 'signed-in') return <Navigate to="/maybe" replace />;

  const redirectTo = `${window.location.origin}/auth/callback`;
  const canSubmit = captchaToken !== null && !busy;

  function fail(message: string) {
    setFeedback({ kind: 'error', reason: message });
    // A token the server refused (expired or failed) cannot be reused: make the user solve a new one.
    const kind = captchaErrorKind(message);
    if (kind === 'expired' || kind === 'failed') captcha.current?.reset();
  }

  async function sendMagicLink(event: FormEvent) {
    event.preventDefault();
    if (!captchaToken) return;
    if (!isValidEmail(email)) {
      setEmailError('Enter a valid email address');
      return;
    }
    setEmailError(null);
    setBusy(true);
    setFeedback(null);
    const { error } = await getSupabaseClient().auth.signInWithOtp({
      email: email.trim(),
      options: { emailRedirectTo: redirectTo, captchaToken },
    });
    setBusy(false);
    if (error) fail(error.message);
    else setFeedback({ kind: 'sent', email: email.trim() });
  }

  async function signInWithGitHub() {
    setBusy(true);
    setFeedback(null);
    const { error } = await getSupabaseClient().auth.signInWithOAuth({ provider: 'github', options: { redirectTo } });
    if (error) {
      setBusy(false);
      fail(error.message);
    }
  }

  return (
    <Box minH="100vh" bg="bg">
      <PromoBanner />
      <Flex justify="flex-end" px="4" pt="4">
        <ThemeSwitch />
      </Flex>
      <Center minH="calc(100vh - 160px)" p="4">
        <Card.Root width="full" maxW="md" variant="elevated">
          <Card.Header>
            <Heading as="h1" size="2xl">
              Sign in
            </Heading>
            <Text color="fg.muted">Get a magic link by email, or continue with GitHub.</Text>
          </Card.Header>
          <Card.Body>
            <form onSubmit={sendMagicLink} noValidate>
              <Stack gap="4">
                <Field.Root invalid={emailError !== null}>
                  <Field.Label>Email</Field.Label>
                  <Input
                    type="email"
                    name="email"
                    autoComplete="email"
                    placeholder="you@example.com"
                    value={email}
                    onChange={(e) => setEmail(e.currentTarget.value)}
                  />
                  {emailError && <Field.ErrorText>{emailError}</Field.ErrorText>}
                </Field.Root>
                <AltchaCheck ref={captcha} challengeUrl={config.captcha.challengeUrl} onToken={setCaptchaToken} />
                <Button type="submit" colorPalette="brand" disabled={!canSubmit} loading={busy}>
                  Send Magic Link
                </Button>
                <Button type="button" variant="outline" disabled={!canSubmit} onClick={signInWithGitHub}>
                  Sign in with GitHub
                </Button>
                {feedback?.kind === 'error' && (
                  <Alert.Root status="error" data-testid="login-error">
                    <Alert.Indicator />
                    <Alert.Content>
                      <Alert.Title>Error</Alert.Title>
                      <Alert.Description>{feedback.reason}</Alert.Description>
                    </Alert.Content>
                  </Alert.Root>
                )}
                {feedback?.kind === 'sent' && (
                  <Alert.Root status="success" data-testid="login-sent">
                    <Alert.Indicator />
                    <Alert.Title>Check {feedback.email} for your magic link.</Alert.Title>
                  </Alert.Root>
                )}
              </Stack>
            </form>
          </Card.Body>
        </Card.Root>
      </Center>
    </Box>
  );
}

export default LoginRoute;
