// Secrets the operator may leave unset: generated once into DATA_DIR (mode 0600) and kept, so
// restarts keep sessions valid. Several instances must share one value through the environment.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export function persistentSecret(dataDir: string, name: string, fromEnv: string | null): string {
  if (fromEnv) return fromEnv;
  const file = path.join(dataDir, `${name}.secret`);
  try {
    const stored = fs.readFileSync(file, 'utf8').trim();
    if (stored) return stored;
  } catch {
    // not generated yet
  }
  // Created by svc: its owner's alone (one the operator made keeps its mode).
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secret = randomBytes(32).toString('base64url');
  fs.writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}
