// A TCP proxy the resilience tests put between svc and its database server, so they can take
// the database away (and bring it back) without touching the machine's database.
import net from 'node:net';

export interface TcpProxy {
  /** The port svc connects to instead of the database's. */
  readonly port: number;
  /** Connections forwarded so far. */
  connections(): number;
  /**
   * Takes the database away: open connections are ended and new ones refused (the listening
   * socket is closed, so a connect attempt gets ECONNREFUSED, as with a stopped server).
   */
  cut(): Promise<void>;
  /**
   * A server that accepts connections but never answers (hung, or its host overloaded): open
   * connections are ended, new ones are accepted and then left without a byte.
   */
  stall(): void;
  /** Brings the database back on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/** A proxy on a free local port forwarding to `target` (host:port of a database URL). */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<net.Socket>();
  let forwarded = 0;
  let stalled = false;
  const server = net.createServer((client) => {
    if (stalled) {
      open.add(client);
      client.on('error', () => open.delete(client)).on('close', () => open.delete(client));
      return;
    }
    forwarded += 1;
    const upstream = net.connect(target.port, target.host);
    open.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the proxy has no port');
  const port = address.port;
  const reset = () => {
    // destroy(), not resetAndDestroy(): the peer sees its connection end either way, and a test
    // process whose sockets were reset sometimes never exited (Node spun in its exit-time clean-up).
    for (const socket of open) socket.destroy();
    open.clear();
  };
  return {
    port,
    connections: () => forwarded,
    async cut() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      reset();
      await closed;
    },
    stall() {
      stalled = true;
      reset();
    },
    async restore() {
      if (stalled) {
        stalled = false;
        reset();
      }
      if (!server.listening) await listen(port);
    },
    async close() {
      for (const socket of open) socket.destroy();
      open.clear();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** `url` with its host and port replaced by the proxy's. */
export function throughProxy(url: string, proxy: TcpProxy): string {
  const parsed = new URL(url);
  parsed.hostname = '127.0.0.1';
  parsed.port = String(proxy.port);
  return parsed.toString();
}

const DEFAULT_PORTS: Record<string, number> = {
  'postgres:': 5432,
  'postgresql:': 5432,
  'mysql:': 3306,
  'mariadb:': 3306,
};

/** A proxy to the server of database `url`, and the same URL through the proxy. */
export async function proxyDatabase(url: string): Promise<{ proxy: TcpProxy; url: string }> {
  const parsed = new URL(url);
  const port = Number(parsed.port) || DEFAULT_PORTS[parsed.protocol];
  if (!port) throw new Error(`no default port for ${parsed.protocol}`);
  const proxy = await startTcpProxy({ host: parsed.hostname, port });
  return { proxy, url: throughProxy(url, proxy) };
}
