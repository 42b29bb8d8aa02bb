import { useCallback, useEffect, useState } from 'react';
import { Alert, Badge, Button, Code, HStack, Heading, Spinner, Stack, Table, Text } from '@aim/shared-kit/ui';
import { SHARED_KIT_CONTRACT } from '@aim/shared-kit/contract';
import { getRuntimeConfig } from '@aim/shared-kit/runtime-config';
import { currentPreview } from '../mf/preview.ts';
import { type RemoteVerdict, checkManifest, remoteVerdict } from '../mf/remote-check.ts';

type Status = { state: 'checking' } | { state: 'unreachable'; error: string } | { state: 'checked'; verdict: RemoteVerdict; loadedHere: boolean };
type Row = { remote: string; url: string; preview: boolean } & Status;

const origin = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
};

/** What this page loaded (remote-check.ts), else the manifest the config names, fetched now. */
async function inspect(remote: string, url: string): Promise<Status> {
  const seen = remoteVerdict(remote);
  if (seen && seen.url === url) return { state: 'checked', verdict: seen, loadedHere: true };
  try {
    const res = await fetch(url, { cache: 'no-cache' });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return { state: 'checked', verdict: checkManifest(remote, url, await res.json()), loadedHere: false };
  } catch (err) {
    return { state: 'unreachable', error: (err as Error).message };
  }
}

/**
 * /dashboard/diagnostics, for operators and remote teams (not in the sidebar): which build of each
 * remote this tab runs, where from, built against which shared-kit contract, whether it is a
 * preview, and every refusal with its reason.
 */
function DiagnosticsRoute() {
  const config = getRuntimeConfig();
  const preview = currentPreview();
  const [rows, setRows] = useState<Row[]>([]);

  const check = useCallback(() => {
    const active = new Set((preview?.active ?? []).map((o) => o.name));
    const initial = Object.entries(config.remotes).map(([remote, url]): Row => ({ remote, url, preview: active.has(remote), state: 'checking' }));
    setRows(initial);
    for (const row of initial) {
      void inspect(row.remote, row.url).then((result) => setRows((all) => all.map((r) => (r.remote === row.remote ? ({ ...r, ...result } as Row) : r))));
    }
  }, [config.remotes, preview]);

  useEffect(check, [check]);

  const refusedPreviews = preview?.refused ?? [];
  return (
    <Stack gap="6" data-testid="screen-diagnostics">
      <Stack gap="1">
        <Heading as="h1" size="lg">
          Diagnostics
        </Heading>
        <Text color="fg.muted">
          This shell provides shared-kit contract <Code>{SHARED_KIT_CONTRACT}</Code>. Remotes come from the runtime config; a preview replaces one for this tab
          only.
        </Text>
      </Stack>

      {refusedPreviews.length > 0 && (
        <Alert.Root status="warning" data-testid="diagnostics-refused-previews">
          <Alert.Indicator />
          <Alert.Content>
            <Alert.Title>Preview overrides refused</Alert.Title>
            {refusedPreviews.map((r) => (
              <Alert.Description key={r.name}>
                {r.name} → {r.url}: {r.reason}.
              </Alert.Description>
            ))}
          </Alert.Content>
        </Alert.Root>
      )}

      {rows.length === 0 ? (
        <Text data-testid="diagnostics-empty">The runtime config lists no remotes.</Text>
      ) : (
        <Table.ScrollArea borderWidth="1px" rounded="md">
          <Table.Root size="sm" data-testid="diagnostics-remotes">
            <Table.Caption>Remotes in this tab</Table.Caption>
            <Table.Header>
              <Table.Row>
                <Table.ColumnHeader>Remote</Table.ColumnHeader>
                <Table.ColumnHeader>Origin</Table.ColumnHeader>
                <Table.ColumnHeader>Version</Table.ColumnHeader>
                <Table.ColumnHeader>Commit</Table.ColumnHeader>
                <Table.ColumnHeader>Contract</Table.ColumnHeader>
                <Table.ColumnHeader>Preview</Table.ColumnHeader>
                <Table.ColumnHeader>Status</Table.ColumnHeader>
              </Table.Row>
            </Table.Header>
            <Table.Body>
              {rows.map((row) => (
                <DiagnosticsRow key={row.remote} row={row} />
              ))}
            </Table.Body>
          </Table.Root>
        </Table.ScrollArea>
      )}

      <HStack>
        <Button size="sm" variant="outline" onClick={check} data-testid="diagnostics-recheck">
          Check again
        </Button>
      </HStack>
    </Stack>
  );
}

function DiagnosticsRow({ row }: { row: Row }) {
  const verdict = row.state === 'checked' ? row.verdict : undefined;
  const dash = <Text color="fg.muted">—</Text>;
  return (
    <Table.Row data-testid={`diagnostics-${row.remote}`}>
      <Table.Cell fontWeight="medium">{row.remote}</Table.Cell>
      <Table.Cell>
        <Text title={row.url}>{origin(row.url)}</Text>
      </Table.Cell>
      <Table.Cell>{verdict?.version ?? dash}</Table.Cell>
      <Table.Cell>{verdict?.commit ? <Code>{verdict.commit}</Code> : dash}</Table.Cell>
      <Table.Cell>{verdict ? (verdict.contract ?? <Text color="fg.muted">not stamped</Text>) : dash}</Table.Cell>
      <Table.Cell>
        {row.preview ? (
          <Badge colorPalette="orange" variant="surface">
            Preview
          </Badge>
        ) : (
          'No'
        )}
      </Table.Cell>
      <Table.Cell data-testid={`diagnostics-status-${row.remote}`}>
        {row.state === 'checking' && (
          <HStack gap="2" color="fg.muted">
            <Spinner size="xs" />
            <Text>Checking...</Text>
          </HStack>
        )}
        {row.state === 'unreachable' && <Text color="fg.error">Unreachable: {row.error}</Text>}
        {verdict?.refused && <Text color="fg.warning">Refused: {verdict.refused}</Text>}
        {verdict && !verdict.refused && <Text color="fg.success">{row.state === 'checked' && row.loadedHere ? 'Accepted in this tab' : 'Compatible'}</Text>}
      </Table.Cell>
    </Table.Row>
  );
}

export default DiagnosticsRoute;
