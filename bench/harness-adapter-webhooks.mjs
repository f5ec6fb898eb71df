// svc for the shared harness with SVC_BENCH_WEBHOOKS (default 5) active webhook endpoints
// receiving every change (issue 34), beside plain svc in one run:
//   node ../shared/bench/run-all.mjs --requests C1,U1 \
//     --servers ceiling,$PWD/bench/harness-adapter.mjs,$PWD/bench/harness-adapter-webhooks.mjs
// bench/harness-webhooks.mjs starts the server, the receiver and the endpoints.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import svc from './harness-adapter.mjs';

const endpoints = process.env.SVC_BENCH_WEBHOOKS || '5';

export default {
  ...svc,
  name: `${svc.name}-${endpoints}-webhooks`,
  label: `${svc.label}, ${endpoints} webhook endpoints receiving`,
  get token() {
    return svc.token;
  },
  start(options) {
    const plain = svc.start(options);
    return {
      ...plain,
      args: [path.join(path.dirname(fileURLToPath(import.meta.url)), 'harness-webhooks.mjs')],
      env: {
        ...plain.env,
        WEBHOOKS_ALLOW_PRIVATE: 'true',
        SVC_BENCH_WEBHOOKS: endpoints,
      },
    };
  },
};
