// The receiver of bench/webhook-delivery.ts, in a process of its own so that svc's event loop
// does not also serve it: answers 204 to each delivery and keeps each one's first arrival. Asked
// over IPC, each message with an id its answer repeats: {port}; {stats} -> {arrived, received};
// {latencies} -> the sorted first-arrival times after commit (ms); {close} / {open} -> its port
// closed / opened again; {reset} -> nothing kept (after the warm-up).
import http from 'node:http';

/** First arrival (ms) per `<endpoint> <seq>`, and the commit time of each seq. */
const arrived = new Map();
const committedAt = new Map();
let received = 0;
const server = http.createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const now = Date.now();
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    received += 1;
    const key = `${request.url} ${body.data.seq}`;
    if (!arrived.has(key)) arrived.set(key, now);
    committedAt.set(body.data.seq, Date.parse(body.data.at));
    response.writeHead(204).end();
  });
});
let port = 0;
const listen = () =>
  new Promise((resolve) =>
    server.listen(port, '127.0.0.1', () => {
      port = server.address().port;
      resolve();
    }),
  );
await listen();
// The bench is gone (ended or failed): so is its receiver.
process.on('disconnect', () => process.exit(0));
process.on('message', async (message) => {
  const { id } = message;
  if (message.port) process.send({ id, port });
  if (message.stats) process.send({ id, arrived: arrived.size, received });
  if (message.latencies) {
    const list = [...arrived].map(([key, at]) => at - committedAt.get(Number(key.split(' ')[1])));
    process.send({ id, latencies: list.sort((a, b) => a - b) });
  }
  if (message.close) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    process.send({ id });
  }
  if (message.open) {
    await listen();
    process.send({ id });
  }
  if (message.reset) {
    arrived.clear();
    committedAt.clear();
    received = 0;
    process.send({ id });
  }
  if (message.exit) process.exit(0);
});
