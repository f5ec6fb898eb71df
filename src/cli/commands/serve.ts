// svc serve: migrate, then listen on HOST:PORT until SIGTERM/SIGINT, closing gracefully.
import { loadConfig } from '../../config/config.js';
import { startService } from '../../service.js';
import type { Command } from '../command.js';
import { closeOnSignals } from '../graceful-shutdown.js';

export const serve: Command = {
  summary: 'Run the HTTP service (what npm start runs)',
  async run() {
    const config = loadConfig();
    const service = await startService(config);
    closeOnSignals(service, { timeoutMs: config.shutdownTimeoutMs });
    await service.app.listen({ host: config.host, port: config.port });
    return new Promise<never>(() => {});
  },
};
