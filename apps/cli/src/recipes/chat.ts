/**
 * `cookbook chat`: talk to a base model or a sampler checkpoint in the terminal, through any Tinker service (the
 * embedded one when nothing is configured, `base_url` / `TINKER_BASE_URL`, or the hosted one with `TINKER_API_KEY`).
 * The conversation core is `chat/chat-session.ts` (sampling, history, save) and `chat/chat-loop.ts` (lines,
 * commands, display); this file only connects them to the process's terminal.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { samplerPathFromRunFolder } from '@cookbook/eval';
import { ModelResolver } from '@cookbook/openai-server';
import { serviceClientFor } from '@cookbook/training';
import { z } from 'zod';
import { CHAT_HELP, runChatLoop } from '../chat/chat-loop.js';
import { ChatSession } from '../chat/chat-session.js';
import { defineRecipe } from '../recipe.js';

export const chatSchema = z.object({
  model: z
    .string()
    .default('local/qwen3-tiny')
    .describe(
      'Base model name (or HF folder), tinker:// sampler path, sampler checkpoint name, or a run folder (its last sampler checkpoint)',
    ),
  rendererName: z.string().nullable().default(null).describe("Renderer (null = the base model's catalogued renderer)"),
  system: z.string().default('').describe('System prompt (empty = none)'),
  maxTokens: z.number().int().positive().default(1024).describe('Most tokens of one reply'),
  temperature: z.number().min(0).max(2).default(0.7).describe('Sampling temperature (0 = greedy)'),
  topP: z.number().gt(0).max(1).default(1).describe('Nucleus sampling mass'),
  seed: z.number().int().nullable().default(null).describe('Seed of each reply (null = random)'),
  chunkTokens: z
    .number()
    .int()
    .positive()
    .max(256)
    .default(8)
    .describe('Tokens sampled per request while a reply streams (smaller: smoother, more requests)'),
  baseUrl: z
    .string()
    .default('')
    .describe('Tinker service URL (empty = TINKER_BASE_URL, the hosted service with TINKER_API_KEY, else embedded)'),
});

export const chat = defineRecipe({
  name: 'chat',
  description:
    'Chat with a base model or checkpoint in the terminal (/reset, /system, /save FILE; Ctrl-C stops a reply)',
  schema: chatSchema,
  notes:
    'Replies stream in chunks of chunk_tokens tokens, each one sampling request continuing the last. Thinking is shown dimmed. /save appends the conversation as one {"messages": [...]} JSONL line, the format sl_basic and sl_loop read.',
  async run(config, io) {
    const client = serviceClientFor(config, { warn: io.err });
    try {
      const resolver = new ModelResolver(
        async () => client,
        config.rendererName !== null ? { rendererName: config.rendererName } : {},
      );
      // A run folder (it has checkpoints.jsonl) stands for its last sampler checkpoint.
      const name = existsSync(join(config.model, 'checkpoints.jsonl'))
        ? samplerPathFromRunFolder(config.model)
        : config.model;
      const model = await resolver.resolve(name);
      const session = new ChatSession({
        sampler: model.sampler,
        setup: model.setup,
        system: config.system,
        maxTokens: config.maxTokens,
        temperature: config.temperature,
        topP: config.topP,
        seed: config.seed ?? undefined,
        chunkTokens: config.chunkTokens,
      });
      const terminal = process.stdin.isTTY === true;
      io.out(
        `chatting with ${name}${model.modelPath ? ` (base ${model.baseModel})` : ''}, renderer ${model.setup.rendererName}`,
      );
      if (terminal) io.out(CHAT_HELP);
      const loop = runChatLoop({
        session,
        input: process.stdin,
        output: process.stdout,
        color: process.stdout.isTTY === true && !process.env.NO_COLOR,
        terminal,
      });
      const onSigint = () => {
        if (!loop.interrupt()) process.exit(130);
      };
      if (!terminal) process.on('SIGINT', onSigint);
      try {
        await loop.done;
      } finally {
        process.off('SIGINT', onSigint);
      }
    } finally {
      await client.close();
    }
  },
});
