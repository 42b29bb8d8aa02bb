import { type FormEvent, useCallback, useRef, useState } from 'react';
import { Alert, Badge, Button, Card, chakra, Code, Dialog, Field, HStack, Input, Stack, Table, Text } from '@aim/shared-kit/ui';
import { DialogShell } from '@aim/shared-kit/dialog-shell';
import { useQuery, useQueryClient } from '@aim/shared-kit/query';
import {
  type CreatedNamedKey,
  EMPTY_FORM,
  formatKeyDate,
  formatUsage,
  type FormErrors,
  KEY_SCOPES,
  type KeyForm,
  keyHint,
  type KeyScope,
  keyState,
  NAME_MAX,
  NAMED_KEY_TEXTS as T,
  type NamedKey,
  type NewNamedKey,
  readKeyForm,
  SCOPE_HELP,
  todayUtc,
} from '../named-keys.ts';
import { RotateDialog } from './rotate-dialog.tsx';
import { SecretValue } from './secret-value.tsx';

type Props = {
  list: (signal: AbortSignal) => Promise<NamedKey[]>;
  /** Creates the key; a failure is thrown with the reason to show (or null when there is none). */
  create: (body: NewNamedKey) => Promise<CreatedNamedKey>;
  /** Revokes; answers null when it failed (the failure was reported). */
  revoke: (id: string) => Promise<NamedKey | null>;
  /** Copies the new key (reports success or failure itself). */
  onCopy: (key: string) => Promise<void>;
  /** The reason to show for a failed creation (the server's 4xx message), reported elsewhere too. */
  onCreateFailed: (error: unknown) => string | null;
};

type ListState = { status: 'loading' } | { status: 'error' } | { status: 'ready'; keys: NamedKey[] };

/** The named keys on the page's QueryClient. */
const NAMED_KEYS = ['developer', 'named-keys'] as const;

const COLUMNS = ['Name', 'Key', 'Scopes', 'Created', 'Last used', 'Expires', 'Used this month', 'Status', 'Actions'] as const;
const STATE_COLOR = { active: 'green', expired: 'orange', revoked: 'gray' } as const;

/** Named, scoped keys below the primary key card: the table, Create (shown once) and Revoke. */
export function NamedKeysCard({ list, create, revoke, onCopy, onCreateFailed }: Props) {
  const client = useQueryClient();
  const query = useQuery({ queryKey: NAMED_KEYS, queryFn: ({ signal }) => list(signal) });
  const state: ListState =
    query.isFetching || !(query.data || query.isError)
      ? { status: 'loading' }
      : query.data && !query.isError
        ? { status: 'ready', keys: query.data }
        : { status: 'error' };
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<NamedKey | null>(null);
  const [busy, setBusy] = useState(false);

  const upsert = useCallback(
    (key: NamedKey) =>
      client.setQueryData<NamedKey[]>(NAMED_KEYS, (keys) => {
        if (!keys) return keys;
        const at = keys.findIndex((k) => k.id === key.id);
        return at === -1 ? [key, ...keys] : keys.map((k) => (k.id === key.id ? key : k));
      }),
    [client],
  );

  async function confirmRevoke() {
    if (!revoking) return;
    setBusy(true);
    try {
      const done = await revoke(revoking.id);
      if (done) upsert(done);
    } finally {
      setBusy(false);
      setRevoking(null);
    }
  }

  return (
    <Card.Root variant="outline" data-testid="named-keys-card">
      <Card.Header>
        <HStack justify="space-between" align="start" gap="4" wrap="wrap">
          <Stack gap="1" flex="1" minW="60">
            <Card.Title as="h2">{T.title}</Card.Title>
            <Card.Description>{T.description}</Card.Description>
          </Stack>
          <Button size="sm" onClick={() => setCreating(true)} disabled={state.status !== 'ready'}>
            {T.create}
          </Button>
        </HStack>
      </Card.Header>
      <Card.Body>
        {state.status === 'error' ? (
          <Alert.Root status="error" data-testid="named-keys-error">
            <Alert.Indicator />
            <Alert.Title flex="1">{T.loadFailed}</Alert.Title>
            <Button size="xs" variant="outline" onClick={() => void query.refetch()}>
              Retry
            </Button>
          </Alert.Root>
        ) : (
          <Table.ScrollArea borderWidth="1px" rounded="l3">
            <Table.Root size="sm" data-testid="named-keys-table" aria-busy={state.status === 'loading'}>
              <Table.Caption srOnly>Named API keys</Table.Caption>
              <Table.Header>
                <Table.Row>
                  {COLUMNS.map((c) => (
                    <Table.ColumnHeader key={c} whiteSpace="nowrap" textAlign={c === 'Actions' ? 'end' : undefined}>
                      {c}
                    </Table.ColumnHeader>
                  ))}
                </Table.Row>
              </Table.Header>
              <Table.Body>
                {state.status === 'loading' || state.keys.length === 0 ? (
                  <Table.Row>
                    <Table.Cell colSpan={COLUMNS.length} textAlign="center" py="8" color="fg.muted" data-testid="named-keys-empty">
                      {state.status === 'loading' ? T.loading : T.empty}
                    </Table.Cell>
                  </Table.Row>
                ) : (
                  state.keys.map((k) => {
                    const st = keyState(k);
                    return (
                      <Table.Row key={k.id} data-testid="named-key-row" data-key-id={k.id} data-state={st}>
                        <Table.Cell fontWeight="medium" maxW="48" overflowWrap="anywhere">
                          {k.name}
                        </Table.Cell>
                        <Table.Cell whiteSpace="nowrap">
                          <Code size="sm">{keyHint(k)}</Code>
                        </Table.Cell>
                        <Table.Cell>
                          <HStack gap="1">
                            {k.scopes.map((s) => (
                              <Badge key={s} variant="outline">
                                {s}
                              </Badge>
                            ))}
                          </HStack>
                        </Table.Cell>
                        <Table.Cell whiteSpace="nowrap">{formatKeyDate(k.created_at)}</Table.Cell>
                        <Table.Cell whiteSpace="nowrap">{formatKeyDate(k.last_used_at, 'Never')}</Table.Cell>
                        <Table.Cell whiteSpace="nowrap">{formatKeyDate(k.expires_at, 'Never')}</Table.Cell>
                        <Table.Cell whiteSpace="nowrap" data-testid="named-key-usage">
                          {formatUsage(k)}
                        </Table.Cell>
                        <Table.Cell>
                          <Badge colorPalette={STATE_COLOR[st]} variant="subtle">
                            {st}
                          </Badge>
                        </Table.Cell>
                        <Table.Cell textAlign="end">
                          {st !== 'revoked' && (
                            <Button size="xs" variant="outline" colorPalette="red" aria-label={`Revoke ${k.name}`} onClick={() => setRevoking(k)}>
                              Revoke
                            </Button>
                          )}
                        </Table.Cell>
                      </Table.Row>
                    );
                  })
                )}
              </Table.Body>
            </Table.Root>
          </Table.ScrollArea>
        )}
      </Card.Body>

      <CreateKeyDialog
        open={creating}
        onClose={() => setCreating(false)}
        create={async (body) => {
          const created = await create(body);
          const { key: _shownOnce, ...listed } = created;
          upsert(listed);
          return created;
        }}
        onCopy={onCopy}
        onCreateFailed={onCreateFailed}
      />

      <RotateDialog
        open={revoking !== null}
        onOpenChange={(open) => !open && setRevoking(null)}
        rotating={busy}
        title={T.revokeConfirm}
        onConfirm={() => void confirmRevoke()}
        testId="revoke-key-dialog"
        confirmLabel="Revoke"
        busyLabel="Revoking..."
      >
        <Text>
          <strong>{revoking?.name}</strong> ({revoking ? keyHint(revoking) : ''}) stops working at once, in every app that uses it. This cannot be undone.
        </Text>
      </RotateDialog>
    </Card.Root>
  );
}

/** The create form, then (once created) the key itself with Copy and the shown-once warning. */
function CreateKeyDialog(props: {
  open: boolean;
  onClose: () => void;
  create: (body: NewNamedKey) => Promise<CreatedNamedKey>;
  onCopy: (key: string) => Promise<void>;
  onCreateFailed: (error: unknown) => string | null;
}) {
  const { open, onClose, create, onCopy, onCreateFailed } = props;
  const [form, setForm] = useState<KeyForm>(EMPTY_FORM);
  const [errors, setErrors] = useState<FormErrors>({});
  const [serverError, setServerError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const [created, setCreated] = useState<CreatedNamedKey | null>(null);
  const nameRef = useRef<HTMLInputElement>(null);

  function close() {
    if (submitting) return;
    onClose();
    // the key leaves memory with the dialog: it is never shown again
    setCreated(null);
    setForm(EMPTY_FORM);
    setErrors({});
    setServerError(null);
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    const read = readKeyForm(form);
    if (!read.ok) {
      setErrors(read.errors);
      return;
    }
    setErrors({});
    setServerError(null);
    setSubmitting(true);
    try {
      setCreated(await create(read.body));
    } catch (error) {
      setServerError(onCreateFailed(error) ?? T.createFailed);
    } finally {
      setSubmitting(false);
    }
  }

  const toggleScope = (scope: KeyScope, on: boolean) =>
    setForm((f) => ({ ...f, scopes: on ? [...new Set([...f.scopes, scope])] : f.scopes.filter((s) => s !== scope) }));

  return (
    <DialogShell
      open={open}
      onClose={close}
      testId="create-key-dialog"
      closeOnInteractOutside={!submitting && !created}
      initialFocusEl={() => nameRef.current}
      closeDisabled={submitting}
    >
      {created ? (
        <>
          <Dialog.Header>
            <Dialog.Title>Your new key: {created.name}</Dialog.Title>
          </Dialog.Header>
          <Dialog.Body>
            <Stack gap="4">
              <Alert.Root status="warning">
                <Alert.Indicator />
                <Alert.Title>{T.shownOnce}</Alert.Title>
              </Alert.Root>
              <SecretValue testId="new-key-value">{created.key}</SecretValue>
            </Stack>
          </Dialog.Body>
          <Dialog.Footer>
            <Button variant="outline" onClick={() => void onCopy(created.key)}>
              Copy key
            </Button>
            <Button onClick={close}>Done</Button>
          </Dialog.Footer>
        </>
      ) : (
        <chakra.form onSubmit={(e) => void submit(e)} noValidate>
          <Dialog.Header>
            <Dialog.Title>Create an API key</Dialog.Title>
          </Dialog.Header>
          <Dialog.Body>
            <Stack gap="4">
              <Field.Root invalid={!!errors.name} required>
                <Field.Label>Name</Field.Label>
                <Input
                  ref={nameRef}
                  value={form.name}
                  maxLength={NAME_MAX}
                  placeholder="e.g. Production server"
                  onChange={(e) => setForm((f) => ({ ...f, name: e.target.value }))}
                  data-testid="new-key-name"
                />
                {errors.name && <Field.ErrorText>{errors.name}</Field.ErrorText>}
              </Field.Root>
              <Field.Root invalid={!!errors.scopes}>
                <chakra.fieldset border="0" p="0" m="0" minW="0">
                  <chakra.legend textStyle="sm" fontWeight="medium" mb="1.5">
                    Scopes
                  </chakra.legend>
                  <Stack gap="2">
                    {KEY_SCOPES.map((scope) => (
                      <chakra.label key={scope} display="flex" gap="2" alignItems="start" cursor="pointer">
                        <chakra.input
                          type="checkbox"
                          mt="1"
                          w="4"
                          h="4"
                          accentColor="colorPalette.solid"
                          checked={form.scopes.includes(scope)}
                          onChange={(e) => toggleScope(scope, e.target.checked)}
                          data-testid={`new-key-scope-${scope}`}
                        />
                        <span>
                          <Text as="span" fontWeight="medium">
                            {scope}
                          </Text>
                          <Text as="span" color="fg.muted" textStyle="sm">
                            {' '}
                            — {SCOPE_HELP[scope]}
                          </Text>
                        </span>
                      </chakra.label>
                    ))}
                  </Stack>
                </chakra.fieldset>
                {errors.scopes && <Field.ErrorText>{errors.scopes}</Field.ErrorText>}
              </Field.Root>
              <Field.Root invalid={!!errors.expiresOn}>
                <Field.Label>Expires on (optional)</Field.Label>
                <Input
                  type="date"
                  min={todayUtc()}
                  value={form.expiresOn}
                  onChange={(e) => setForm((f) => ({ ...f, expiresOn: e.target.value }))}
                  data-testid="new-key-expires"
                />
                {errors.expiresOn ? (
                  <Field.ErrorText>{errors.expiresOn}</Field.ErrorText>
                ) : (
                  <Field.HelperText>The key stops working at the end of that day (UTC). Blank: never.</Field.HelperText>
                )}
              </Field.Root>
              <Field.Root invalid={!!errors.monthlyLimit}>
                <Field.Label>Monthly credit limit (optional)</Field.Label>
                <Input
                  inputMode="numeric"
                  value={form.monthlyLimit}
                  placeholder="No limit"
                  onChange={(e) => setForm((f) => ({ ...f, monthlyLimit: e.target.value }))}
                  data-testid="new-key-limit"
                />
                {errors.monthlyLimit ? (
                  <Field.ErrorText>{errors.monthlyLimit}</Field.ErrorText>
                ) : (
                  <Field.HelperText>Credits this key's tasks may use per calendar month (UTC); refunds count back.</Field.HelperText>
                )}
              </Field.Root>
              {serverError && (
                <Alert.Root status="error" data-testid="create-key-error">
                  <Alert.Indicator />
                  <Alert.Title>{serverError}</Alert.Title>
                </Alert.Root>
              )}
            </Stack>
          </Dialog.Body>
          <Dialog.Footer>
            <Button variant="outline" onClick={close} disabled={submitting}>
              Cancel
            </Button>
            <Button type="submit" loading={submitting} loadingText="Creating...">
              Create key
            </Button>
          </Dialog.Footer>
        </chakra.form>
      )}
    </DialogShell>
  );
}
