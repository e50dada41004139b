import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { configFields, configFromKeyStyle, configHelp, configToKeyStyle, parseConfig } from './config.js';
import { ConfigError } from './errors.js';

const Schema = z.object({
  model_name: z.string().default('local/qwen3-tiny').describe('Base model'),
  learning_rate: z.number().positive().default(1e-4).describe('Peak learning rate'),
  num_epochs: z.number().int().default(1).describe('Passes over the data'),
  shuffle: z.boolean().default(true).describe('Shuffle each epoch'),
  lr_schedule: z.enum(['constant', 'linear', 'cosine']).default('linear').describe('LR schedule'),
  tags: z.array(z.string()).default([]).describe('Run tags'),
  sizes: z.array(z.number()).default([]).describe('Sizes'),
  max_steps: z.number().int().nullable().default(null).describe('Stop early'),
  optimizer: z
    .object({
      beta1: z.number().default(0.9).describe('Adam beta1'),
      eps: z.number().default(1e-8).describe('Adam epsilon'),
    })
    .default({ beta1: 0.9, eps: 1e-8 }),
  log_path: z.string().describe('Where to write logs'),
});

describe('parseConfig', () => {
  it('applies defaults and coerces numbers, booleans, enums, lists, nulls and nested keys', () => {
    const c = parseConfig(Schema, [
      'learning_rate=3e-4',
      'num_epochs=2',
      'shuffle=false',
      'lr_schedule=cosine',
      'tags=a,b',
      'sizes=[1,2.5]',
      'optimizer.beta1=0.8',
      'max_steps=10',
      'log_path=/tmp/x=y',
    ]);
    expect(c).toEqual({
      model_name: 'local/qwen3-tiny',
      learning_rate: 3e-4,
      num_epochs: 2,
      shuffle: false,
      lr_schedule: 'cosine',
      tags: ['a', 'b'],
      sizes: [1, 2.5],
      max_steps: 10,
      optimizer: { beta1: 0.8, eps: 1e-8 },
      log_path: '/tmp/x=y',
    });
    expect(parseConfig(Schema, ['log_path=a', 'max_steps=null']).max_steps).toBeNull();
  });

  it('lets arguments override base values', () => {
    const c = parseConfig(Schema, ['num_epochs=3'], { log_path: 'base', num_epochs: 5 });
    expect(c.log_path).toBe('base');
    expect(c.num_epochs).toBe(3);
  });

  it('names the unknown key and suggests the closest one', () => {
    expect(() => parseConfig(Schema, ['learning_rat=1'])).toThrow(
      /unknown config key "learning_rat"; did you mean "learning_rate"/,
    );
    expect(() => parseConfig(Schema, ['optimizer.beta=1'])).toThrow(/did you mean "optimizer.beta1"/);
    try {
      parseConfig(Schema, ['lerning_rate=1']);
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).key).toBe('lerning_rate');
    }
  });

  it('names the key and value on bad values', () => {
    expect(() => parseConfig(Schema, ['log_path=x', 'learning_rate=fast'])).toThrow(
      /learning_rate=fast: expected a number/,
    );
    expect(() => parseConfig(Schema, ['log_path=x', 'shuffle=maybe'])).toThrow(/shuffle=maybe: expected true or false/);
    expect(() => parseConfig(Schema, ['log_path=x', 'lr_schedule=cosin'])).toThrow(/did you mean "cosine"/);
    expect(() => parseConfig(Schema, ['log_path=x', 'learning_rate=-1'])).toThrow(
      /config field "learning_rate" \(-1\)/,
    );
    expect(() => parseConfig(Schema, ['log_path=x', 'num_epochs=1.5'])).toThrow(/num_epochs/);
    expect(() => parseConfig(Schema, ['log_path'])).toThrow(/not of the form key=value/);
  });

  it('reports a missing required field', () => {
    expect(() => parseConfig(Schema, [])).toThrow(/config field "log_path" \(missing\)/);
  });
});

describe('configHelp', () => {
  it('lists every field with type, default and description', () => {
    const fields = configFields(Schema);
    expect(fields.map((f) => f.path)).toContain('optimizer.eps');
    const help = configHelp(Schema);
    expect(help).toMatch(/learning_rate\s+number\s+\(default: 0.0001\)/);
    expect(help).toMatch(/lr_schedule\s+"constant" \| "linear" \| "cosine"/);
    expect(help).toMatch(/log_path\s+string\s+\(required\)/);
    expect(help).toMatch(/max_steps\s+integer \| null/);
    expect(help).toMatch(/num_epochs\s+integer\s+\(default: 1\)/);
    expect(help).toContain('Adam epsilon');
  });
});

const CamelSchema = z.object({
  logPath: z.string().describe('Run folder'),
  learningRate: z.number().positive().default(1e-4).describe('Peak learning rate'),
  maxSteps: z.number().int().positive().nullable().default(null).describe('Stop early'),
  adamBeta1: z.number().default(0.9).describe('Adam beta1'),
  lossFnConfig: z.record(z.string(), z.number()).nullable().default(null).describe('Loss settings'),
  streamMinibatch: z
    .object({ groupsPerBatch: z.number().int().positive().describe('Groups'), numMinibatches: z.number().int() })
    .nullable()
    .default(null)
    .describe('Streaming'),
});

describe('snake_case keys over a camelCase schema', () => {
  const snake = { keyStyle: 'snake_case' } as const;

  it('accepts the snake_case spelling of every key, nested and in maps, and returns camelCase values', () => {
    const c = parseConfig(
      CamelSchema,
      [
        'log_path=/tmp/x',
        'learning_rate=3e-4',
        'adam_beta1=0.8',
        'loss_fn_config={"clip_low_threshold":0.8}',
        'stream_minibatch.groups_per_batch=4',
        'stream_minibatch.num_minibatches=2',
      ],
      {},
      snake,
    );
    expect(c).toEqual({
      logPath: '/tmp/x',
      learningRate: 3e-4,
      maxSteps: null,
      adamBeta1: 0.8,
      lossFnConfig: { clip_low_threshold: 0.8 },
      streamMinibatch: { groupsPerBatch: 4, numMinibatches: 2 },
    });
  });

  it('rejects the camelCase spelling with a hint, and names snake_case keys in errors', () => {
    expect(() => parseConfig(CamelSchema, ['logPath=x'], {}, snake)).toThrow(
      /unknown config key "logPath"; did you mean "log_path"\?/,
    );
    expect(() => parseConfig(CamelSchema, ['log_path=x', 'max_steps=1.5'], {}, snake)).toThrow(
      'config field "max_steps" (1.5): expected an integer',
    );
    expect(() => parseConfig(CamelSchema, ['log_path=x', 'max_steps=0'], {}, snake)).toThrow(
      'config field "max_steps" (0): must be greater than 0',
    );
  });

  it('lists snake_case keys in help', () => {
    const help = configHelp(CamelSchema, undefined, snake);
    expect(help).toMatch(/learning_rate\s+number\s+\(default: 0.0001\)/);
    expect(help).toMatch(/stream_minibatch.groups_per_batch\s+integer/);
    expect(help).not.toContain('learningRate');
  });

  it('writes and reloads a config in snake_case, leaving map keys alone', () => {
    const c = CamelSchema.parse({
      logPath: 'p',
      lossFnConfig: { clipLow: 1 },
      streamMinibatch: { groupsPerBatch: 2, numMinibatches: 1 },
    });
    const outside = configToKeyStyle(CamelSchema, c, snake);
    expect(outside).toEqual({
      log_path: 'p',
      learning_rate: 1e-4,
      max_steps: null,
      adam_beta1: 0.9,
      loss_fn_config: { clipLow: 1 },
      stream_minibatch: { groups_per_batch: 2, num_minibatches: 1 },
    });
    expect(CamelSchema.parse(configFromKeyStyle(CamelSchema, JSON.parse(JSON.stringify(outside)), snake))).toEqual(c);
  });
});

describe('argument errors', () => {
  it('refuses a key given twice', () => {
    expect(() => parseConfig(Schema, ['log_path=a', 'log_path=b'])).toThrow(
      'log_path is given twice; give each key once',
    );
  });

  it('refuses a number that is not finite', () => {
    expect(() => parseConfig(Schema, ['log_path=a', 'max_steps=1e999'])).toThrow(
      'max_steps=1e999: expected a finite number',
    );
  });
});
