export {
  type OffPolicyDistillationConfig,
  type OffPolicyDistillationConfigInput,
  OffPolicyDistillationConfigSchema,
  type OffPolicyDistillationDeps,
  type OffPolicyDistillationResult,
  trainOffPolicyDistillation,
} from './off-policy.js';
export {
  type OnPolicyDistillationConfig,
  type OnPolicyDistillationConfigInput,
  OnPolicyDistillationConfigSchema,
  type OnPolicyDistillationDeps,
  trainOnPolicyDistillation,
} from './on-policy.js';
export {
  CompositeDataset,
  PromptDataset,
  type PromptDatasetOptions,
  PromptOnlyEnv,
} from './prompt-env.js';
export type { ReverseKlResult, TeacherKlOptions } from './reverse-kl.js';
export {
  type SdftConfig,
  type SdftConfigInput,
  SdftConfigSchema,
  type SdftDeps,
  type SdftExample,
  trainSdft,
} from './sdft/sdft.js';
export {
  loadSciKnowEval,
  loadToolAlpaca,
  OFFLINE_SDFT_EXAMPLES,
  readSdftJsonl,
} from './sdft/sdft-data.js';
