/**
 * `cookbook prompt_distillation` (upstream `recipes/prompt_distillation/`): a teacher answers questions with a long
 * system prompt in front of them; the student is then fine-tuned on the same questions WITHOUT the prompt, so it
 * learns to behave as if the prompt were there. The task here, as upstream, is language identification: the prompt
 * explains the task and the answer format (a two-letter code). Teacher data is written to
 * `<log_path>/teacher-data.jsonl` once and reused when the run resumes.
 *
 * Offline the teacher is the tiny stand-in `local/qwen3-tiny`, so its labels are noise: the recipe shows the mechanics
 * (sampling → data → SFT). With `TINKER_API_KEY`, `model_name=Qwen/Qwen3-8B` produces real labels.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, configToKeyStyle, getTextContent, type Message } from '@cookbook/core';
import { writeFileAtomicSync } from '@cookbook/logging';
import { loadModelSetup, type Renderer } from '@cookbook/renderers';
import {
  fromConversationFile,
  readConversationFile,
  runSupervisedSteps,
  SampleTranscriptEvaluator,
  SupervisedTrainConfigSchema,
} from '@cookbook/supervised';
import type { ServiceClient, ServiceClientLike } from '@cookbook/tinker-client';
import { loopService, planRun, runLoop } from '@cookbook/training';
import { z } from 'zod';
import { defineRecipe } from '../recipe.js';
import { connectService } from './common.js';
import { slRecipeSchema } from './sl-common.js';

/** The sentences shipped with the CLI (original text, eight languages). */
export const EXAMPLE_SENTENCES = fileURLToPath(
  new URL('../../data/prompt-distillation-sentences.txt', import.meta.url),
);

/** The long prompt the teacher sees and the student never does. */
export const TEACHER_PROMPT = `You are a language identification system. You will be given one sentence.
Decide which language the sentence is written in and answer with its two-letter ISO 639-1 code, in lower case.

Rules:
- Answer with the code only: no punctuation, no explanation, no quotes.
- Use "en" for English, "fr" for French, "es" for Spanish, "de" for German, "it" for Italian,
  "pt" for Portuguese, "nl" for Dutch, "sv" for Swedish, and the matching ISO 639-1 code for any other language.
- If the sentence mixes languages, answer with the language of most of its words.
- If you cannot tell, answer "ot".

Examples:
Sentence: The weather is nice today. -> en
Sentence: Je voudrais un café, s'il vous plaît. -> fr
Sentence: ¿Dónde está la estación? -> es
Sentence: Ich habe heute keine Zeit. -> de`;

const lib = slRecipeSchema.shape;

export const promptDistillationSchema = slRecipeSchema.extend({
  logPath: lib.logPath.default('.cookbook-runs/prompt_distillation'),
  questionsFile: z
    .string()
    .default('example')
    .describe('example (shipped sentences) or a text file with one question per line'),
  teacherModel: z
    .string()
    .nullable()
    .default(null)
    .describe('Model that labels the questions with the long prompt; null = model_name'),
  teacherTemperature: z
    .number()
    .nonnegative()
    .default(1)
    .describe('Teacher sampling temperature (0 = greedy; seeded per question)'),
  teacherMaxTokens: z.number().int().positive().default(8).describe('Tokens the teacher may sample per answer'),
  testSize: z.number().int().nonnegative().default(4).describe('Teacher-labelled conversations held out for test/nll'),
  numEpochs: lib.numEpochs.default(4),
  evalEvery: lib.evalEvery.default(5),
  infrequentEvalEvery: lib.infrequentEvalEvery.default(0),
});

/** The teacher's answers (with the long prompt in front) as student conversations without it; empty answers dropped. */
async function labelQuestions(
  service: Pick<ServiceClientLike, 'createSamplingClient'>,
  teacherModel: string,
  teacherRenderer: Renderer,
  questions: readonly string[],
  config: Pick<z.infer<typeof promptDistillationSchema>, 'teacherMaxTokens' | 'teacherTemperature'>,
): Promise<{ messages: Message[] }[]> {
  const teacher = await service.createSamplingClient({ baseModel: teacherModel });
  const answers = await Promise.all(
    questions.map(async (q, i) => {
      const prompt = teacherRenderer.buildGenerationPrompt([
        { role: 'system', content: TEACHER_PROMPT },
        { role: 'user', content: q },
      ]);
      const res = await teacher.sample({
        prompt,
        numSamples: 1,
        samplingParams: {
          maxTokens: config.teacherMaxTokens,
          temperature: config.teacherTemperature,
          seed: i,
          stop: teacherRenderer.getStopSequences(),
        },
      });
      return getTextContent(teacherRenderer.parseResponse(res.sequences[0]?.tokens ?? []).message).trim();
    }),
  );
  return questions
    .map((q, i) => ({ q, a: answers[i]! }))
    .filter(({ a }) => a !== '')
    .map(({ q, a }) => ({
      messages: [
        { role: 'user', content: q },
        { role: 'assistant', content: a },
      ],
    }));
}

function readQuestions(path: string): string[] {
  if (!existsSync(path)) throw new ConfigError(`questions_file: no such file ${path}`, { key: 'questions_file' });
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  if (lines.length === 0) throw new ConfigError(`questions_file ${path} has no questions`, { key: 'questions_file' });
  return lines;
}

export const promptDistillation = defineRecipe({
  name: 'prompt_distillation',
  description:
    'Teacher answers with a long system prompt; the student learns the behaviour without it (offline: mechanics on ' +
    'local/qwen3-tiny; hosted: TINKER_API_KEY=… model_name=Qwen/Qwen3-8B)',
  schema: promptDistillationSchema,
  async run(config, io) {
    const teacherModel = config.teacherModel ?? config.modelName;
    const { rendererName, renderer } = await loadModelSetup(config);
    const teacherRenderer = (
      await loadModelSetup({
        modelName: teacherModel,
        rendererName: config.teacherModel === null ? rendererName : null,
      })
    ).renderer;
    const questions = readQuestions(
      config.questionsFile === 'example' ? EXAMPLE_SENTENCES : resolve(config.questionsFile),
    );
    const dataPath = join(config.logPath, 'teacher-data.jsonl');
    const samplePrompts: Message[][] = questions.slice(0, 4).map((q) => [{ role: 'user', content: q }]);
    // One run: the log-dir policy (a resumed run reuses its teacher data, a deleted one relabels), config.json,
    // teacher labelling, then SFT on the labels; the lifecycle closes the service at the end. The server is contacted
    // before the log dir is touched.
    // The SFT plan comes from the command line's parse (the recipe schema extends the SFT fields): no second parse.
    // config.json records it: the recipe's fields with the renderer and the learning rate resolved.
    const plan = planRun(
      SupervisedTrainConfigSchema,
      { ...config, rendererName, recipeName: 'prompt_distillation' },
      {
        loop: 'supervised',
        hparams: {
          ...(configToKeyStyle(
            promptDistillationSchema,
            { ...config, rendererName },
            { keyStyle: 'snake_case' },
          ) as object),
          teacher_prompt: TEACHER_PROMPT,
        },
      },
    );
    const connection = loopService<ServiceClient>(undefined, () => connectService(config.baseUrl));
    await runLoop(
      {
        connect: connection.connect,
        ...config,
        config: plan.recorded,
        console: false,
        log: io.err,
      },
      async (run) => {
        const service = connection.get();
        if (existsSync(dataPath)) {
          io.err(`reusing teacher data ${dataPath} (${readConversationFile(dataPath).length} conversations)`);
        } else {
          io.err(`teacher ${teacherModel} labels ${questions.length} questions with the long prompt…`);
          const conversations = await labelQuestions(service, teacherModel, teacherRenderer, questions, config);
          if (conversations.length <= config.testSize) {
            throw new ConfigError(
              `the teacher gave ${conversations.length} non-empty answers; need more than test_size=${config.testSize}`,
              { key: 'test_size' },
            );
          }
          writeFileAtomicSync(dataPath, conversations.map((c) => JSON.stringify(c)).join('\n') + '\n');
          io.err(`wrote ${conversations.length} teacher-labelled conversations to ${dataPath}`);
        }
        const datasets = await fromConversationFile({
          filePath: dataPath,
          common: {
            modelNameForTokenizer: config.modelName,
            rendererName,
            maxLength: config.maxLength,
            batchSize: config.batchSize,
            trainOnWhat: config.trainOnWhat,
          },
          testSize: config.testSize,
        })();
        return runSupervisedSteps(run, plan, datasets, {
          evaluators: [
            new SampleTranscriptEvaluator({
              prompts: samplePrompts,
              renderer,
              maxTokens: config.teacherMaxTokens,
              name: 'student_samples',
            }),
          ],
          serviceClient: service,
          onStepLogged: (step, m) =>
            io.out(
              `step ${String(step).padStart(4)}  train_mean_nll ${m.train_mean_nll?.toFixed(4)}` +
                (m['test/nll'] === undefined ? '' : `  test/nll ${m['test/nll'].toFixed(4)}`),
            ),
        });
      },
    );
  },
});
