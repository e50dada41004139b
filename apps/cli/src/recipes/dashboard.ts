/**
 * `cookbook dashboard`: a read-only local web app over a runs folder (`@cookbook/dashboard`): the runs with their
 * status, live metric charts, rollouts, checkpoints and evals, for this project's run folders and upstream's. Binds
 * 127.0.0.1 only, prints the URL and opens nothing; Ctrl-C stops it.
 */
import { startDashboard } from '@cookbook/dashboard';
import { z } from 'zod';
import { defineRecipe } from '../recipe.js';

export const dashboardSchema = z.object({
  dir: z.string().min(1).default('.cookbook-runs').describe('The runs folder (run folders anywhere below it)'),
  port: z.number().int().min(0).max(65535).default(8321).describe('TCP port on 127.0.0.1 (0 = any free port)'),
});

export const dashboard = defineRecipe({
  name: 'dashboard',
  description: 'Read-only web app over a runs folder: live metrics, rollouts, checkpoints, evals (127.0.0.1 only)',
  schema: dashboardSchema,
  notes:
    'Reads run folders of this project and of the Python cookbook (config.json, metrics.jsonl, checkpoints.jsonl, ' +
    'iteration_NNNNNN/<split>_rollout_summaries.jsonl, logtree JSON, eval results). Serves 127.0.0.1 only and ' +
    'answers only requests whose Host is a loopback name with this port.',
  async run(config, io) {
    const d = await startDashboard({ dir: config.dir, port: config.port });
    io.out(`dashboard of ${d.root}: ${d.url}  (Ctrl-C stops it)`);
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        d.close().then(resolve, resolve);
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
  },
});
