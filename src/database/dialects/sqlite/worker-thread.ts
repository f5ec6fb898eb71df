// Starts one of this folder's worker modules in a thread. Compiled, the module is <name>.js beside
// this file. Run from source through tsx (tests, development), Node 20 does not hand tsx's loader
// to a worker's entry module, so a two-line bootstrap registers tsx inside the worker first.
import { Worker } from 'node:worker_threads';

const FROM_SOURCE = import.meta.url.endsWith('.ts');

export function startWorkerThread(name: string, workerData: unknown): Worker {
  const entry = new URL(`./${name}${FROM_SOURCE ? '.ts' : '.js'}`, import.meta.url);
  if (!FROM_SOURCE) return new Worker(entry, { workerData });
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const bootstrap = `import(${tsx}).then((api) => api.register()).then(() => import(${JSON.stringify(entry.href)}))`;
  return new Worker(bootstrap, { eval: true, workerData });
}
