// Child process of the keep_last test: trains local/qwen3-tiny on the embedded service (its root survives a SIGKILL),
// with timed checkpoints and keep_last = 2, resuming whatever is in the log dir.
// Usage: keep-last-child.ts <logPath> <serviceRoot> <dataFile>
import { startLocalTinker } from '@cookbook/local-tinker';
import { ServiceClient } from '@cookbook/tinker-client';
import { fromConversationFile } from '../conversation-file.js';
import type { SupervisedServiceClient } from '../types.js';
import { runSft, type SftOptions } from './run-helpers.js';

/** The run's settings: a timed save (`saveEverySeconds`), no step cadence, the two newest resume states kept. */
export const keepLastConfig = (logPath: string, dataFile: string, service: ServiceClient): SftOptions => ({
  logPath,
  modelName: 'local/qwen3-tiny',
  dataset: fromConversationFile({
    filePath: dataFile,
    common: { modelNameForTokenizer: 'local/qwen3-tiny', batchSize: 2, maxLength: 48 },
    testSize: 4,
  }),
  serviceClient: service as unknown as SupervisedServiceClient,
  learningRate: 1e-2,
  loraRank: 4,
  maxSteps: 10,
  saveEvery: 0,
  saveEverySeconds: 0.2,
  keepLast: 2,
  evalEvery: 4,
  behaviorIfLogDirExists: 'resume',
  console: false,
  progress: false,
  writeReport: false,
  log: () => {},
});

const [logPath, root, dataFile] = process.argv.slice(2) as [string, string, string];
if (logPath !== undefined && process.argv[1]?.endsWith('keep-last-child.ts')) {
  const server = await startLocalTinker({ port: 0, root });
  const service = new ServiceClient({ baseURL: server.baseURL });
  await runSft(keepLastConfig(logPath, dataFile, service));
  await service.close();
  await server.close();
}
