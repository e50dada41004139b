// Child process for the SIGKILL test: trains on a conversation file against a folder-backed FakeService, resuming
// whatever is in the log dir. Usage: kill-child.ts <logPath> <stateRoot> <dataFile>
import { fromConversationFile } from '../conversation-file.js';
import { FakeService } from './fake-service.js';
import { runSft } from './run-helpers.js';

const [logPath, root, dataFile] = process.argv.slice(2) as [string, string, string];
export const killChildConfig = (logPath: string, root: string, dataFile: string) => ({
  logPath,
  modelName: 'local/qwen3-tiny',
  dataset: fromConversationFile({
    filePath: dataFile,
    common: { modelNameForTokenizer: 'local/qwen3-tiny', batchSize: 2, maxLength: 64 },
    testSize: 4,
  }),
  serviceClient: new FakeService({ root, delayMs: 10 }),
  learningRate: 0.05,
  saveEvery: 3,
  evalEvery: 4,
  behaviorIfLogDirExists: 'resume' as const,
  console: false as const,
  writeReport: false,
  log: () => {},
});

if (logPath !== undefined && process.argv[1]?.endsWith('kill-child.ts')) {
  await runSft(killChildConfig(logPath, root, dataFile));
}
