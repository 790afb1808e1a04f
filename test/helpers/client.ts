/** The client package's harness: the built client, a real file-backed storage, a seeded server or `paywalld serve` process. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import type * as Client from '../../client/index.ts';
import { emptyDatabase } from './backend.ts';
import { runCli, type ServeProcess, spawnServe } from './cli.ts';
import { example } from './example-paywall.ts';
import { api, seedProducts } from './paywalls.ts';
import { startTestServer, type TestServer } from './server.ts';

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

/** The export query for every stored event of the seeded paywall (exported() in events.ts). */
export const ONBOARDING_EVENTS = { paywallId: 'onboarding', from: '0' };

/** A server with the README tour's products and the reference example paywall ("onboarding", en + de) published. */
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
  /** What `--db` takes: the SQLite file, or the PostgreSQL URL on that backend. */
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
  // On the test backend, as startTestServer's servers are (helpers/backend.ts).
  const database = await emptyDatabase();
  t.after(() => database.remove());
  const dbPath = database.db;
  const created = await runCli(['projects', 'create', 'app', '--json', '--db', dbPath]);
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
