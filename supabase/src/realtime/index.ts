import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { LocalContext } from '../context.ts';

export interface RealtimeServer {
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  close(): Promise<void>;
}

// Placeholder until the Realtime subset lands (see supabase/README.md).
export function createRealtime(_ctx: LocalContext): RealtimeServer {
  return {
    handleUpgrade: (_req, socket) => socket.destroy(),
    close: async () => {},
  };
}
