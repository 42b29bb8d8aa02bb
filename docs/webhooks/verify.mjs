// Receive and verify AIM webhooks in Node.js with the official Standard Webhooks library
// (npm install standardwebhooks). Run: WEBHOOK_SECRET=whsec_… PORT=8000 node verify.mjs
//
// WEBHOOK_SECRET is the signing secret exactly as the API Keys screen shows it (whsec_…). For a
// task sent with its own webhook_secret, use that: a whsec_… value as is, any other string is
// the key as its UTF-8 bytes: 'whsec_' + base64 of them, or those bytes with { format: 'raw' }
// (not the string itself: the library reads a raw string's characters as single bytes).
import http from 'node:http';
import { Webhook } from 'standardwebhooks';

const secret = process.env.WEBHOOK_SECRET ?? '';
const webhook = secret.startsWith('whsec_') ? new Webhook(secret) : new Webhook(Buffer.from(secret, 'utf8'), { format: 'raw' });

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    // Verify the raw body exactly as received, never re-serialised JSON.
    const body = Buffer.concat(chunks).toString('utf8');
    try {
      // Checks webhook-id, webhook-timestamp (within 5 minutes) and any v1 signature in webhook-signature.
      const task = webhook.verify(body, req.headers);
      // webhook-id is the same on every retry and resend: use it to drop duplicates.
      console.log(JSON.stringify({ verified: true, id: req.headers['webhook-id'], event: req.headers['x-webhook-event'], task_id: task.task_id ?? null }));
      res.writeHead(204).end(); // any 2xx counts as delivered
    } catch (error) {
      console.log(JSON.stringify({ verified: false, reason: error.message }));
      res.writeHead(400, { 'content-type': 'text/plain' }).end('invalid signature');
    }
  });
});

server.listen(Number(process.env.PORT ?? 8000), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
