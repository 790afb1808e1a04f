#!/usr/bin/env node
import { main } from './cli/index.ts';

// A closed stdout (a pipe whose reader went away) must not crash the server.
process.stdout.on('error', () => {});

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
  // The uWS loop keeps idle keep-alive connections open; after a clean stop nothing is left to wait for.
  if (process.argv[2] === 'serve') process.exit(code);
});
