/** What the client tests share: the built client, a real file-backed storage, a seeded server, the event export. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import type * as Client from '../../client/index.ts';
import { runCli, type ServeProcess, spawnServe } from '../helpers/cli.ts';
import { bearer, startTestServer, type TestServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/temp.ts';
import { api, example, seedProducts } from '../paywalls/api.ts';

/** The client as `npm run build` writes it: the tests run the bundle apps get, not the sources. */
export const DIST_CLIENT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/client/index.js');

export async function loadClient(): Promise<typeof Client> {
  return (await import(DIST_CLIENT)) as typeof Client;
}

/** A storage adapter over one JSON file, the way a Node or desktop app would keep the client's state. */
export function fileStorage(file: string): Client.ClientStorage {
  const read = (): Record<string, string> => (fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {});
  const write = (items: Record<string, string>) => {
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(items));
    fs.renameSync(`${file}.tmp`, file);
  };
  return {
    getItem: (key) => read()[key] ?? null,
    setItem: (key, value) => write({ ...read(), [key]: value }),
    removeItem: (key) => {
      const items = read();
      delete items[key];
      write(items);
    },
  };
}

/** A server with the README's products and the example paywall ("onboarding", en + de) published. */
export async function seededServer(t: TestContext, overrides: Parameters<typeof startTestServer>[1] = {}): Promise<TestServer> {
  const server = await startTestServer(t, overrides);
  const client = api(server);
  await seedProducts(client);
  await client.putPaywall('onboarding', example());
  await client.publish('onboarding');
  return server;
}

export interface ServerProcess {
  url: string;
  dbPath: string;
  keys: { sdk: string; secret: string };
  /** SIGTERM, and wait for the process to exit; nothing listens at url any more. */
  stop(): Promise<void>;
  /** Starts `paywalld serve` again on the same database, reachable at the same url, as after a restart. */
  restart(): Promise<void>;
}

/**
 * A TCP front on a fixed port, as a load balancer's address stays while the
 * process behind it is replaced: a restarted paywalld cannot bind the port it
 * just left (connections it closed linger in TIME_WAIT), this front can.
 */
class Front {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  async open(target: number): Promise<void> {
    this.server = net.createServer((client) => {
      const upstream = net.connect(target, '127.0.0.1');
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('error', () => {});
        socket.on('close', () => {
          this.sockets.delete(socket);
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    const server = this.server;
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(this.port, '127.0.0.1', () => resolve()));
    this.port = (server.address() as net.AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => (this.server ? this.server.close(resolve) : resolve(undefined)));
    this.server = undefined;
  }
}

/**
 * `paywalld serve` from the bundle as a child process, seeded like
 * seededServer: stopping it ends the process, so no kept-alive connection can
 * answer afterwards, as with a real server that went away.
 */
export async function seededProcess(t: TestContext): Promise<ServerProcess> {
  const dbPath = path.join(tempDir(t), 'paywalld.db');
  const created = runCli(['projects', 'create', 'app', '--json', '--db', dbPath]);
  assert.equal(created.status, 0, created.stderr);
  const keys = JSON.parse(created.stdout).keys as { sdk: string; secret: string };
  const flags = ['--db', dbPath, '--rate-limit-sdk', '0', '--rate-limit-api', '0'];
  let serve: ServeProcess = await spawnServe(t, flags);
  const front = new Front();
  await front.open(serve.port);
  t.after(() => front.close());
  const url = `http://127.0.0.1:${front.port}`;
  const management = api({ url, keys });
  await seedProducts(management);
  await management.putPaywall('onboarding', example());
  await management.publish('onboarding');
  return {
    url,
    dbPath,
    keys,
    stop: async () => {
      assert.equal(await serve.stop(), 0);
      await front.close();
    },
    restart: async () => {
      serve = await spawnServe(t, flags);
      await front.open(serve.port);
    },
  };
}

export interface ExportedEvent {
  id: string | null;
  type: string;
  paywall_id: string;
  client_ts: number;
  user_id: string | null;
  variant_id: string | null;
  audience: string | null;
}

/** Every stored event of a paywall, through GET /api/events (the NDJSON export). */
export async function exported(url: string, secret: string, paywallId: string): Promise<ExportedEvent[]> {
  const response = await fetch(`${url}/api/events?paywallId=${paywallId}&from=0`, { headers: bearer(secret) });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as ExportedEvent);
}

/** A counter of the server's /metrics, such as the 304s of the resolve route. */
export async function metric(url: string, secret: string, series: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { headers: bearer(secret) })).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

/** Polls a condition until it holds or the deadline passes (no sleeps as synchronisation). */
export async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
