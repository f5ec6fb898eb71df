// A real local HTTP receiver of webhook deliveries (node:http): it keeps every request it is
// sent and answers `status`; `down()` closes its port and `up()` opens the same port again.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  /** The request's path and query. */
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

export class WebhookReceiver {
  readonly received: Received[] = [];
  /** What it answers. */
  status = 200;
  /** What it answers the next requests, one each, before `status` again. */
  readonly nextStatuses: number[] = [];
  /** Keep each request unanswered (a receiver that hangs). */
  hold = false;
  private server: http.Server | null = null;
  private port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  async up(): Promise<void> {
    const server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(request.headers))
          if (typeof value === 'string') headers[name] = value;
        this.received.push({
          url: request.url ?? '',
          headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        if (!this.hold) response.writeHead(this.nextStatuses.shift() ?? this.status).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async down(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }

  /** Resolves once `count` requests have come (fails after `ms`). */
  async waitFor(count: number, ms = 15_000): Promise<Received[]> {
    const deadline = Date.now() + ms;
    while (this.received.length < count) {
      if (Date.now() > deadline)
        throw new Error(`Expected ${count} deliveries, got ${this.received.length}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return this.received;
  }
}
