// The ceiling of the resolve scenario: uWebSockets.js answering every request
// with one cached body, nothing else. The addon is loaded the way
// src/native.ts loads it in the bundle: process.dlopen of the file that
// build.mjs copied into dist/. It counts its answers and serves the count at
// /bench/answers (bench/lib/answers.mjs), as paywalld does in /metrics.
// Usage: node uws-cached.mjs ADDON_FILE BODY_BYTES
import { ANSWERS_PATH } from '../lib/answers-path.mjs';
import { bodyOfSize } from '../lib/body.mjs';

const [addon, size] = process.argv.slice(2);
const module = { exports: {} };
process.dlopen(module, addon);
const uws = module.exports;

const body = bodyOfSize(Number(size));
let answered = 0;
uws
  .App()
  .get(ANSWERS_PATH, (res) => {
    res.writeHeader('Content-Type', 'application/json').end(JSON.stringify({ 200: answered }));
  })
  .any('/*', (res) => {
    answered++;
    res.writeHeader('Content-Type', 'application/json').end(body);
  })
  .listen('127.0.0.1', 0, uws.LIBUS_LISTEN_EXCLUSIVE_PORT, (socket) => {
    if (!socket) {
      console.error('cannot listen');
      process.exit(1);
    }
    console.log(`listening ${uws.us_socket_local_port(socket)}`);
  });
process.on('SIGTERM', () => process.exit(0));
