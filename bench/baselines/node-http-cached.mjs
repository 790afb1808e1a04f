// The resolve scenario's second baseline: node:http answering every request
// with one cached body of the same size, nothing else. It counts its answers
// and serves the count at /bench/answers (bench/lib/answers.mjs).
// Usage: node node-http-cached.mjs BODY_BYTES
import http from 'node:http';
import { ANSWERS_PATH } from '../lib/answers-path.mjs';
import { bodyOfSize } from '../lib/body.mjs';

const body = bodyOfSize(Number(process.argv[2]));
let answered = 0;
const server = http.createServer((req, res) => {
  if (req.url === ANSWERS_PATH) {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ 200: answered }));
    return;
  }
  answered++;
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
  res.end(body);
});
// wrk holds its connections for the whole run; the default 5 s keep-alive is only about idle ones.
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
