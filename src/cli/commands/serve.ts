// svc serve: migrate, then listen on HOST:PORT until SIGTERM/SIGINT, closing gracefully.
import { loadConfig } from '../../config/config.js';
import { startService } from '../../service.js';
import type { Command } from '../command.js';

export const serve: Command = {
  summary: 'Run the HTTP service (what npm start runs)',
  async run() {
    const config = loadConfig();
    const service = await startService(config);
    const stop = (signal: string) => {
      service.app.log.info({ signal }, 'shutting down');
      service.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
    await service.app.listen({ host: config.host, port: config.port });
    return new Promise<never>(() => {});
  },
};
