/**
 * The model catalog's table (see `model-catalog.ts`): every model's facts, from the upstream cookbook's
 * `model_info.py` (names, renderers, vision), `hyperparam_utils.py` (hidden sizes of the learning-rate rule),
 * `tokenizer_utils.py` (Llama's ungated tokenizer copy, Kimi's pinned revisions), its eval defaults (the service's
 * context windows), and the models' public config.json files (LoRA-sizing dims).
 */
import type {
  EntryFields,
  LrRule,
  ModelEntry,
  ModelShape,
  OfflineTokenizerName,
  TokenizerSource,
} from './model-catalog.js';

/** Upstream `get_lr`'s per-family exponents. */
export const LR_EXPONENTS = { llama: 0.781, qwen: 0.0775 } as const;

const LLAMA3 = ['llama3'];
const ROLE_COLON = ['role_colon'];
const QWEN3 = ['qwen3', 'qwen3_disable_thinking'];
const QWEN3_INSTRUCT = ['qwen3_instruct'];
const QWEN3_VL_INSTRUCT = ['qwen3_vl_instruct'];
const QWEN3_5 = ['qwen3_5', 'qwen3_5_disable_thinking'];
const QWEN3_8 = [
  'qwen3_8_xhigh_reasoning',
  'qwen3_8_disable_thinking',
  'qwen3_8_medium_reasoning',
  'qwen3_8_low_reasoning',
];
const DEEPSEEKV3 = ['deepseekv3', 'deepseekv3_thinking'];
const GPT_OSS = ['gpt_oss_no_sysprompt', 'gpt_oss_medium_reasoning'];
const NEMOTRON3 = ['nemotron3', 'nemotron3_disable_thinking', 'nemotron3_preserve_thinking'];
const NEMOTRON3_ULTRA = [
  'nemotron3_ultra',
  'nemotron3_ultra_disable_thinking',
  'nemotron3_ultra_medium_thinking',
  'nemotron3_ultra_preserve_thinking',
];
const NEMOTRON3_LIGHTNING = [
  'nemotron3_ultra',
  'nemotron3_ultra_disable_thinking',
  'nemotron3_ultra_preserve_thinking',
];

/** A dense model's LoRA-sizing dims (from its public config.json). */
function dims(
  hidden: number,
  inter: number,
  layers: number,
  heads: number,
  kv: number,
  vocab: number,
  tie: boolean,
  headDim: number,
): ModelShape {
  return {
    hidden_size: hidden,
    intermediate_size: inter,
    num_hidden_layers: layers,
    num_attention_heads: heads,
    num_key_value_heads: kv,
    head_dim: headDim,
    vocab_size: vocab,
    tie_word_embeddings: tie,
  };
}

const llamaLr = (hiddenSize: number): LrRule => ({ kind: 'hidden-size', exponent: LR_EXPONENTS.llama, hiddenSize });
const qwenLr = (hiddenSize: number): LrRule => ({ kind: 'hidden-size', exponent: LR_EXPONENTS.qwen, hiddenSize });
const UNCALIBRATED: LrRule = { kind: 'uncalibrated' };

function entries(defaults: (name: string) => TokenizerSource, table: Record<string, EntryFields>): ModelEntry[] {
  return Object.entries(table).map(([name, e]) => ({
    name,
    ...e,
    tokenizer: e.tokenizer ?? defaults(name),
    vision: e.vision ?? false,
    base: e.base ?? false,
    hosted: e.hosted ?? true,
  }));
}

const offline =
  (tok: OfflineTokenizerName, hubRepo?: string) =>
  (name: string): TokenizerSource => ({ kind: 'offline', name: tok, hubRepo: hubRepo ?? name });
const hub = (name: string): TokenizerSource => ({ kind: 'hub', hubRepo: name });

// Upstream maps every meta-llama/Llama-3* name to one ungated copy of the instruct tokenizer (the Llama 3.1+
// files); offline those are the llama3_1 package.
const LLAMA_TOKENIZER_REPO = 'thinkingmachineslabinc/meta-llama-3-instruct-tokenizer';

const LLAMA: ModelEntry[] = entries(offline('llama3_1', LLAMA_TOKENIZER_REPO), {
  'meta-llama/Llama-3.1-8B-Instruct': {
    family: 'llama3',
    recommendedRenderers: LLAMA3,
    lr: llamaLr(4096),
    shape: dims(4096, 14336, 32, 32, 8, 128256, false, 128),
  },
  'meta-llama/Llama-3.2-1B': {
    family: 'llama3',
    recommendedRenderers: ROLE_COLON,
    base: true,
    lr: llamaLr(2048),
    shape: dims(2048, 8192, 16, 32, 8, 128256, true, 64),
  },
  'meta-llama/Llama-3.2-3B': {
    family: 'llama3',
    recommendedRenderers: ROLE_COLON,
    base: true,
    lr: llamaLr(3072),
    shape: dims(3072, 8192, 28, 24, 8, 128256, true, 128),
  },
  'meta-llama/Llama-3.1-8B': {
    family: 'llama3',
    recommendedRenderers: ROLE_COLON,
    base: true,
    lr: llamaLr(4096),
    shape: dims(4096, 14336, 32, 32, 8, 128256, false, 128),
  },
  'meta-llama/Llama-3.1-70B': {
    family: 'llama3',
    recommendedRenderers: ROLE_COLON,
    base: true,
    lr: llamaLr(8192),
    shape: dims(8192, 28672, 80, 64, 8, 128256, false, 128),
  },
  'meta-llama/Llama-3.3-70B-Instruct': {
    family: 'llama3',
    recommendedRenderers: LLAMA3,
    lr: llamaLr(8192),
    shape: dims(8192, 28672, 80, 64, 8, 128256, false, 128),
  },
  // Llama 3.0 (not hosted): the 3.0 tokenizer files (same vocabulary, a different EOS).
  'meta-llama/Meta-Llama-3-8B-Instruct': {
    family: 'llama3',
    recommendedRenderers: LLAMA3,
    hosted: false,
    tokenizer: { kind: 'offline', name: 'llama3', hubRepo: 'meta-llama/Meta-Llama-3-8B-Instruct' },
    lr: llamaLr(4096),
  },
  'meta-llama/Meta-Llama-3-8B': {
    family: 'llama3',
    recommendedRenderers: ROLE_COLON,
    base: true,
    hosted: false,
    tokenizer: { kind: 'offline', name: 'llama3', hubRepo: 'meta-llama/Meta-Llama-3-8B' },
    lr: llamaLr(4096),
  },
});

const QWEN3_MODELS: ModelEntry[] = entries(offline('qwen3'), {
  'Qwen/Qwen3-8B-Base': {
    family: 'qwen3',
    recommendedRenderers: ROLE_COLON,
    base: true,
    lr: qwenLr(4096),
    shape: dims(4096, 12288, 36, 32, 8, 151936, false, 128),
  },
  'Qwen/Qwen3-30B-A3B-Base': { family: 'qwen3', recommendedRenderers: ROLE_COLON, base: true, lr: qwenLr(2048) },
  'Qwen/Qwen3-8B': {
    family: 'qwen3',
    recommendedRenderers: QWEN3,
    contextLength: 32768,
    lr: qwenLr(4096),
    shape: dims(4096, 12288, 36, 32, 8, 151936, false, 128),
  },
  'Qwen/Qwen3-32B': {
    family: 'qwen3',
    recommendedRenderers: QWEN3,
    lr: qwenLr(5120),
    shape: dims(5120, 25600, 64, 64, 8, 151936, false, 128),
  },
  'Qwen/Qwen3-30B-A3B': { family: 'qwen3', recommendedRenderers: QWEN3, lr: qwenLr(2048) },
  'Qwen/Qwen3-4B-Instruct-2507': {
    family: 'qwen3',
    recommendedRenderers: QWEN3_INSTRUCT,
    lr: qwenLr(2560),
    shape: dims(2560, 9728, 36, 32, 8, 151936, true, 128),
  },
  'Qwen/Qwen3-30B-A3B-Instruct-2507': { family: 'qwen3', recommendedRenderers: QWEN3_INSTRUCT, lr: qwenLr(2048) },
  'Qwen/Qwen3-235B-A22B-Instruct-2507': { family: 'qwen3', recommendedRenderers: QWEN3_INSTRUCT, lr: qwenLr(4096) },
  // Open checkpoints the embedded engine can load from a folder (not hosted).
  'Qwen/Qwen3-0.6B': {
    family: 'qwen3',
    recommendedRenderers: QWEN3,
    hosted: false,
    lr: qwenLr(1024),
    shape: dims(1024, 3072, 28, 16, 8, 151936, true, 128),
  },
  'Qwen/Qwen3-1.7B': {
    family: 'qwen3',
    recommendedRenderers: QWEN3,
    hosted: false,
    lr: qwenLr(2048),
    shape: dims(2048, 6144, 28, 16, 8, 151936, true, 128),
  },
  'Qwen/Qwen3-4B': {
    family: 'qwen3',
    recommendedRenderers: QWEN3,
    hosted: false,
    lr: qwenLr(2560),
    shape: dims(2560, 9728, 36, 32, 8, 151936, true, 128),
  },
});

// Qwen3-VL's tokenizer is Qwen3's vocabulary (the same BPE and control tokens, `<|vision_start|>`, `<|image_pad|>`
// and `<|vision_end|>` included): offline, the Qwen3 package reads it; the Hub repo named is the model's own.
const QWEN_VL_MODELS: ModelEntry[] = entries(offline('qwen3'), {
  'Qwen/Qwen3-VL-30B-A3B-Instruct': {
    family: 'qwen3_vl',
    recommendedRenderers: QWEN3_VL_INSTRUCT,
    vision: true,
    lr: qwenLr(2048),
  },
  'Qwen/Qwen3-VL-235B-A22B-Instruct': {
    family: 'qwen3_vl',
    recommendedRenderers: QWEN3_VL_INSTRUCT,
    vision: true,
    lr: qwenLr(4096),
  },
});

// Qwen3.5, 3.6 and 3.8 have no offline tokenizer package (a larger vocabulary): their own repository on the Hub.
const QWEN_HUB_MODELS: ModelEntry[] = entries(hub, {
  'Qwen/Qwen3.5-4B': q35(QWEN3_5, 2560, 65536),
  'Qwen/Qwen3.5-9B': q35(QWEN3_5, 4096, 65536),
  'Qwen/Qwen3.5-9B-Base': { ...q35(ROLE_COLON, 4096, 65536), base: true },
  'Qwen/Qwen3.5-27B': q35(QWEN3_5, 5120),
  'Qwen/Qwen3.5-35B-A3B': q35(QWEN3_5, 2048),
  'Qwen/Qwen3.5-35B-A3B-Base': { ...q35(ROLE_COLON, 2048, 65536), base: true },
  'Qwen/Qwen3.5-397B-A17B': q35(QWEN3_5, 4096, 65536),
  // Qwen3.6 shares Qwen3.5's tokenizer and chat template (upstream reuses the qwen3_5 renderers).
  'Qwen/Qwen3.6-27B': q35(QWEN3_5, 5120, 65536),
  'Qwen/Qwen3.6-35B-A3B': q35(QWEN3_5, 2048, 65536),
  // Qwen3.8 keeps the tokenizer; its template adds reasoning effort and keeps earlier reasoning.
  'Qwen/Qwen3.8-27B': { ...q35(QWEN3_8, 5120, 65536), family: 'qwen3_8' },
});

function q35(renderers: readonly string[], hiddenSize: number, contextLength?: number): EntryFields {
  return {
    family: 'qwen3_5',
    recommendedRenderers: renderers,
    vision: true,
    lr: qwenLr(hiddenSize),
    ...(contextLength === undefined ? {} : { contextLength }),
  };
}

const OTHER_HOSTED: ModelEntry[] = [
  ...entries(offline('deepseek_v3_1'), {
    'deepseek-ai/DeepSeek-V3.1': {
      family: 'deepseek_v3',
      recommendedRenderers: DEEPSEEKV3,
      contextLength: 32768,
      lr: UNCALIBRATED,
    },
    'deepseek-ai/DeepSeek-V3.1-Base': {
      family: 'deepseek_v3',
      recommendedRenderers: ROLE_COLON,
      base: true,
      lr: UNCALIBRATED,
    },
  }),
  ...entries(offline('gpt_oss'), {
    'openai/gpt-oss-20b': { family: 'gpt_oss', recommendedRenderers: GPT_OSS, contextLength: 32768, lr: UNCALIBRATED },
    'openai/gpt-oss-120b': { family: 'gpt_oss', recommendedRenderers: GPT_OSS, contextLength: 32768, lr: UNCALIBRATED },
  }),
  // Kimi's tokenizer (tiktoken files) is read at the revisions upstream pins.
  ...entries(hub, {
    'moonshotai/Kimi-K2-Thinking': {
      family: 'kimi_k2',
      recommendedRenderers: ['kimi_k2'],
      tokenizer: kimi('moonshotai/Kimi-K2-Thinking', 'a51ccc050d73dab088bf7b0e2dd9b30ae85a4e55'),
      lr: UNCALIBRATED,
    },
    'moonshotai/Kimi-K2.5': {
      family: 'kimi_k2',
      recommendedRenderers: ['kimi_k25', 'kimi_k25_disable_thinking'],
      vision: true,
      tokenizer: kimi('moonshotai/Kimi-K2.5', '2426b45b6af0da48d0dcce71bbce6225e5c73adc'),
      lr: UNCALIBRATED,
    },
    'moonshotai/Kimi-K2.6': {
      family: 'kimi_k2',
      recommendedRenderers: ['kimi_k26', 'kimi_k26_disable_thinking', 'kimi_k26_preserve_thinking'],
      vision: true,
      contextLength: 32768,
      tokenizer: kimi('moonshotai/Kimi-K2.6', 'b5aabbfb20227ed42becbf5541dbffd213942c58'),
      lr: UNCALIBRATED,
    },
    'nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16': nemotron(NEMOTRON3),
    'nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16': nemotron([...NEMOTRON3, 'nemotron3_low_thinking']),
    'nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16': nemotron(NEMOTRON3_ULTRA),
    'nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16': nemotron(NEMOTRON3_LIGHTNING),
  }),
];

function kimi(hubRepo: string, revision: string): TokenizerSource {
  return { kind: 'hub', hubRepo, revision };
}

function nemotron(renderers: readonly string[]): EntryFields {
  return { family: 'nemotron3', recommendedRenderers: renderers, contextLength: 65536, lr: UNCALIBRATED };
}

const INKLING_TOKENIZER: TokenizerSource = {
  kind: 'none',
  why: "Inkling renders with the o200k_base chat tokenizer of Thinking Machines' tml-renderers, which has no Hugging Face files",
};

/** Every `thinkingmachines/Inkling*` name (upstream matches the prefix). */
export function inklingEntry(name: string): ModelEntry {
  return {
    name,
    family: 'inkling',
    tokenizer: INKLING_TOKENIZER,
    recommendedRenderers: ['tml_v0'],
    vision: true,
    base: false,
    hosted: true,
    lr: UNCALIBRATED,
  };
}

/** The tiny built-ins of the embedded engine: real tokenizers, small seeded (and pretrained) layers. */
const LOCAL: ModelEntry[] = [
  {
    name: 'local/qwen3-tiny',
    family: 'qwen3',
    tokenizer: { kind: 'offline', name: 'qwen3', hubRepo: 'Qwen/Qwen3-8B' },
    recommendedRenderers: ['qwen3_disable_thinking', 'qwen3'],
    vision: false,
    base: false,
    hosted: false,
    contextLength: 4096,
    lr: qwenLr(64),
    shape: dims(64, 192, 2, 4, 2, 151936, true, 16),
    local: {
      seed: 3,
      layersFile: 'qwen3-tiny.layers.safetensors',
      config: {
        architectures: ['Qwen3ForCausalLM'],
        model_type: 'qwen3',
        vocab_size: 151936,
        hidden_size: 64,
        intermediate_size: 192,
        num_hidden_layers: 2,
        num_attention_heads: 4,
        num_key_value_heads: 2,
        head_dim: 16,
        rms_norm_eps: 1e-6,
        rope_theta: 1_000_000,
        rope_scaling: null,
        tie_word_embeddings: true,
        max_position_embeddings: 4096,
        bos_token_id: 151643,
        eos_token_id: [151645, 151643],
      },
    },
  },
  {
    name: 'local/llama3-tiny',
    family: 'llama3',
    tokenizer: { kind: 'offline', name: 'llama3', hubRepo: 'meta-llama/Meta-Llama-3-8B-Instruct' },
    recommendedRenderers: ['llama3'],
    vision: false,
    base: false,
    hosted: false,
    contextLength: 4096,
    lr: llamaLr(64),
    shape: dims(64, 192, 2, 4, 2, 128256, false, 16),
    local: {
      seed: 7,
      config: {
        architectures: ['LlamaForCausalLM'],
        model_type: 'llama',
        vocab_size: 128256,
        hidden_size: 64,
        intermediate_size: 192,
        num_hidden_layers: 2,
        num_attention_heads: 4,
        num_key_value_heads: 2,
        head_dim: 16,
        rms_norm_eps: 1e-5,
        rope_theta: 500_000,
        rope_scaling: {
          rope_type: 'llama3',
          factor: 8,
          low_freq_factor: 1,
          high_freq_factor: 4,
          original_max_position_embeddings: 8192,
        },
        tie_word_embeddings: false,
        max_position_embeddings: 4096,
        bos_token_id: 128000,
        eos_token_id: [128001, 128009, 128008],
      },
    },
  },
];

/** Every catalogued model, local built-ins first. */
export const MODEL_TABLE: readonly ModelEntry[] = [
  ...LOCAL,
  ...LLAMA,
  ...QWEN3_MODELS,
  ...QWEN_VL_MODELS,
  ...QWEN_HUB_MODELS,
  ...OTHER_HOSTED,
  ...['Inkling', 'Inkling-Small'].map((n) => inklingEntry(`thinkingmachines/${n}`)),
];
