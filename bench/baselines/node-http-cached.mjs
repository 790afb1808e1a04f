// The resolve scenario's second baseline: node:http answering every request
// with one cached body of the same size, nothing else.
// Usage: node node-http-cached.mjs BODY_BYTES
import http from 'node:http';
import { bodyOfSize } from '../lib/body.mjs';

const body = bodyOfSize(Number(process.argv[2]));
const server = http.createServer((_req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
  res.end(body);
});
// wrk holds its connections for the whole run; the default 5 s keep-alive is only about idle ones.
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
