/**
 * What the v1 contract suites serve over real sockets: the API under test, its worker, signed
 * task webhooks, and a loopback receiver that records every delivery (headers and raw body).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Db } from '@aim/supabase/db';
import { createWebhookService } from '../../src/webhooks/index.ts';
import { sendTaskWebhooks } from '../../src/webhooks/task-webhooks.ts';
import { captureLogger } from '../helpers.ts';
import type { TaskHarness } from './tasks.ts';

export interface V1Platform {
  baseUrl: string;
  /** Where a request's webhook_url should point. */
  receiverUrl: string;
  /** Every delivery the receiver got, in order. */
  received: { headers: http.IncomingHttpHeaders; body: string }[];
  /** Stops the webhook service and both servers (the harness and the database are the caller's). */
  close(): Promise<void>;
}

export async function startV1Platform({ db, h, worker }: { db: Db; h: TaskHarness; worker: ReturnType<TaskHarness['worker']> }): Promise<V1Platform> {
  const log = captureLogger();
  const webhooks = createWebhookService({ db, log, allowPrivateTargets: true, pollIntervalMs: 50 });
  sendTaskWebhooks({ db, events: worker, webhooks, log });
  webhooks.start();
  await worker.start();
  const server = await new Promise<http.Server>((resolve) => {
    const s = serve({ fetch: h.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s as http.Server));
  });
  const received: V1Platform['received'] = [];
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    receiverUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1-hook`,
    received,
    async close() {
      await webhooks.stop();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    },
  };
}
