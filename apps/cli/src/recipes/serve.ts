/**
 * `cookbook serve`: run the embedded Tinker-compatible service in the foreground, so other processes (or the
 * official Python SDK, with TINKER_BASE_URL) can train and sample through it.
 */
import { defaultRoot, startLocalTinker } from '@cookbook/local-tinker';
import { z } from 'zod';
import { defineRecipe } from '../recipe.js';

export const serveSchema = z.object({
  host: z.string().default('127.0.0.1').describe('Address to bind; anything but loopback requires api_key'),
  port: z.number().int().min(0).max(65535).default(8000).describe('TCP port (0 = any free port)'),
  root: z
    .string()
    .default('')
    .describe(
      'Folder for runs and checkpoints (default: COOKBOOK_LOCAL_TINKER_ROOT or ~/.cache/cookbook/local-tinker)',
    ),
  api_key: z.string().default('').describe('Require this key in X-API-Key (empty = no key; loopback only)'),
  long_poll_ms: z
    .number()
    .int()
    .positive()
    .default(20_000)
    .describe('How long retrieve_future holds a pending request, ms'),
});

export const serve = defineRecipe({
  name: 'serve',
  description: 'Run the embedded Tinker-compatible service (point TINKER_BASE_URL at it)',
  schema: serveSchema,
  async run(config, io) {
    const service = await startLocalTinker({
      host: config.host,
      port: config.port,
      root: config.root || defaultRoot(),
      longPollMs: config.long_poll_ms,
      ...(config.api_key ? { apiKey: config.api_key } : {}),
      log: io.err,
    });
    io.out(`local Tinker service listening on ${service.baseURL} (data in ${service.root}); Ctrl-C stops it`);
    io.out(`use it with: TINKER_BASE_URL=${service.baseURL}${config.api_key ? ' TINKER_API_KEY=<your key>' : ''}`);
    await new Promise<void>((resolve) => {
      const stop = () => {
        io.out('stopping: finishing queued work…');
        service.close().then(resolve, resolve);
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
  },
});
