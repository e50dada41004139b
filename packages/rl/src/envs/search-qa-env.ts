/**
 * Multi-hop question answering with a search tool (upstream `recipes/search_tool/search_env.py`): the agent searches a
 * document collection (BM25 here, an embedding store upstream) as often as its turn limit allows and answers with a
 * name. Reward 1 when the normalised answer contains the normalised reference (upstream's substring match), else 0;
 * `format` metric: the episode ended with an answer rather than a limit.
 */
import { deriveSeed, getTextContent, type Message, Mulberry32Rng } from '@cookbook/core';
import type { Renderer } from '@cookbook/renderers';
import { Bm25Index, formatSearchHits, type SearchDocument, searchTool, type Tool, toolSpecs } from '@cookbook/tools';
import type { EnvGroupBuilder, RLDataset, RolloutLimits } from '@cookbook/training';
import { AgentToolEnv, AgentToolGroupBuilder } from './agent-tool-env.js';
import type { MultiHopQuestion } from './multi-hop-world.js';

/** The system prompt of the search agent. */
export const SEARCH_QA_SYSTEM_PROMPT =
  'You answer questions about a document collection. Search it with the search tool (several times if the answer ' +
  'needs several facts), then reply with just the answer.';

/** Options of {@link SearchQaDataset}. */
export interface SearchQaOptions {
  /** Rollout limits per episode. Default 6 turns. */
  limits?: RolloutLimits;
  /** Results per search when the call gives no k. Default 3. */
  defaultK?: number;
}

/** SQuAD-style answer normalisation: lower case, no punctuation, no articles, single spaces. */
export function normalizeQaAnswer(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .replace(/\b(a|an|the)\b/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Whether `reply` contains `reference` as whole words once both are normalised. */
export function answerMatches(reply: string, reference: string): boolean {
  const want = normalizeQaAnswer(reference);
  return want !== '' && ` ${normalizeQaAnswer(reply)} `.includes(` ${want} `);
}

/** The agent env of one question. */
export function searchQaEnv(
  renderer: Renderer,
  tool: Tool,
  question: MultiHopQuestion,
  options: SearchQaOptions = {},
): AgentToolEnv {
  return new AgentToolEnv({
    renderer,
    tools: [tool],
    systemPrompt: SEARCH_QA_SYSTEM_PROMPT,
    messages: [{ role: 'user', content: question.question }],
    limits: { maxTurns: 6, ...(options.limits ?? {}) },
    reward: ({ finalAnswer }) => {
      const correct = finalAnswer !== undefined && answerMatches(getTextContent(finalAnswer), question.answer);
      return { reward: correct ? 1 : 0, metrics: { correct: correct ? 1 : 0, format: finalAnswer ? 1 : 0 } };
    },
  });
}

/** An expert's episode: the question's queries, their results, and the answer. */
export function searchQaDemonstration(
  renderer: Renderer,
  index: Bm25Index,
  tool: Tool,
  question: MultiHopQuestion,
  defaultK = 3,
): Message[] {
  const out: Message[] = [
    ...renderer
      .createConversationPrefixWithTools(toolSpecs([tool]), SEARCH_QA_SYSTEM_PROMPT)
      .map((m) => ({ ...m, trainable: false })),
    { role: 'user', content: question.question, trainable: false },
  ];
  for (const query of question.queries) {
    out.push({
      role: 'assistant',
      content: '',
      tool_calls: [{ type: 'function', function: { name: tool.name, arguments: JSON.stringify({ query }) } }],
      trainable: true,
    });
    out.push({
      role: 'tool',
      name: tool.name,
      content: formatSearchHits(index.search(query, defaultK)),
      trainable: false,
    });
  }
  out.push({ role: 'assistant', content: question.answer, trainable: true });
  return out;
}

/** Batches of search-QA groups, one question per group, questions drawn in a seeded order. */
export class SearchQaDataset implements RLDataset {
  readonly index: Bm25Index;
  readonly tool: Tool;

  constructor(
    readonly renderer: Renderer,
    documents: readonly SearchDocument[] | Bm25Index,
    readonly questions: readonly MultiHopQuestion[],
    readonly groupsPerBatch: number,
    readonly groupSize: number,
    readonly length: number,
    readonly seed: number,
    readonly options: SearchQaOptions = {},
  ) {
    this.index = documents instanceof Bm25Index ? documents : new Bm25Index(documents);
    this.tool = searchTool(this.index, { defaultK: options.defaultK ?? 3 });
  }

  getBatch(index: number): EnvGroupBuilder[] {
    const rng = new Mulberry32Rng(deriveSeed(this.seed, index));
    return Array.from({ length: this.groupsPerBatch }, () => {
      const q = rng.choice(this.questions);
      return new AgentToolGroupBuilder(() => searchQaEnv(this.renderer, this.tool, q, this.options), this.groupSize, {
        tag: 'search_qa',
        demonstrations: async () => [
          searchQaDemonstration(this.renderer, this.index, this.tool, q, this.options.defaultK ?? 3),
        ],
      });
    });
  }
}
