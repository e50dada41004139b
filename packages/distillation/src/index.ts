export {
  type OffPolicyDistillationConfig,
  type OffPolicyDistillationConfigInput,
  OffPolicyDistillationConfigSchema,
  type OffPolicyDistillationDeps,
  type OffPolicyDistillationResult,
  type OffPolicyServiceClient,
  type OffPolicyTrainingClient,
  type TeacherBatch,
  teacherNll,
  teacherTargets,
  trainOffPolicyDistillation,
} from './off-policy.js';
export {
  type DistillationDataset,
  type OnPolicyDistillationConfig,
  type OnPolicyDistillationConfigInput,
  OnPolicyDistillationConfigSchema,
  type OnPolicyDistillationDeps,
  trainOnPolicyDistillation,
} from './on-policy.js';
export {
  CompositeDataset,
  DatasetTaggedBuilder,
  datasetIndexOf,
  PromptDataset,
  type PromptDatasetOptions,
  PromptGroupBuilder,
  PromptOnlyEnv,
} from './prompt-env.js';
export {
  incorporateTeacherKl,
  type ReverseKlResult,
  reverseKlAdvantages,
  type TeacherKlOptions,
} from './reverse-kl.js';
export {
  type SdftConfig,
  type SdftConfigInput,
  SdftConfigSchema,
  type SdftDeps,
  type SdftExample,
  sdftSteps,
  trainSdft,
} from './sdft/sdft.js';
export {
  loadSciKnowEval,
  loadToolAlpaca,
  MAX_SDFT_FILE_BYTES,
  OFFLINE_SDFT_EXAMPLES,
  readSdftJsonl,
} from './sdft/sdft-data.js';
export {
  DEFAULT_DEMO_TEMPLATE,
  formatDemoTemplate,
  reverseKlTopkLoss,
  SDFT_DEFAULTS,
  type StudentCompletion,
  sampledKl,
  sdftAdvantageDatum,
  sdftTeacherPrompt,
  sdftTopkDatum,
  studentCompletion,
  topkWeights,
} from './sdft/sdft-targets.js';
export {
  checkSameTokenizer,
  createTeacher,
  type Teacher,
  type TeacherServiceClient,
  type TeacherSpec,
  teacherConfigShape,
} from './teacher.js';
export {
  distillationDatum,
  fullSequence,
  logSumExp,
  type TopkRow,
  type TopkTargets,
  topkTargets,
  weightSum,
} from './topk.js';
