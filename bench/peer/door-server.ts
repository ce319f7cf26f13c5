import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { announceReady } from '@relay/core';

/**
 * A bare HTTP door: reads a request, parses its JSON, answers a small JSON 50 ms later (the
 * bench's upstream latency). What taking and answering a request costs Node with nothing behind
 * it, against which the api's CPU is read (npm run bench:queue).
 */
const answer = JSON.stringify({ created: 1, data: [{ url: 'http://127.0.0.1/files/img_0123456789abcdef0123.jpeg', size: '1024x1024' }] });

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    JSON.parse(Buffer.concat(chunks).toString());
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(answer);
    }, 50);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => announceReady({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
