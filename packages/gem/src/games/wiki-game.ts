/**
 * WikiGame (GEM `wikigame/`): reach a target Wikipedia page from a random start by naming, each turn, one of the
 * current page's links in `\boxed{…}`. Online only: pages come from the public MediaWiki API (GEM's default backend);
 * offline, `reset` fails with a message that says so.
 *
 * As in GEM's default "noregrets" variant: the action is the content of the last `\boxed{…}` (brace-matched, GEM's
 * `extract_last_boxed_answer`); none is a format error (-0.2) that does NOT end the episode; `<PREV_PAGE>` (backtracking)
 * and a title that is not one of the current page's links are invalid (-0.2; a link containing the guess, ignoring
 * case, is suggested); a move costs -0.05; the target pays 1.0 and ends the episode; a page without links ends it with
 * 0; the turn limit ends it with 0 (terminated and truncated). Page summaries are the first 100 characters of the plain
 * text. Not ported: GEM's other variants (oneback, freenav, eidetic) and its Kiwix backend.
 */

import { z } from 'zod';
import type { Env, ResetResult, StepResult } from '../core/env.js';
import type { EnvOptions } from '../core/registry.js';
import { parseGameOptions } from './internal/options.js';
import { MediaWikiBackend, type WikiBackend, WikiBackendError, type WikiPage } from './internal/wiki-backend.js';

/** GEM's WikiGame rewards (`wikigame/rewards.py`). */
export const WikiGameReward = {
  success: 1.0,
  internalStep: -0.05,
  fail: 0.0,
  invalidAction: -0.2,
  formatError: -0.2,
} as const;

export const WikiGameOptions = z.object({
  maxTurns: z.number().int().min(1).default(10).describe('turn limit (pages visited after the start)'),
  url: z
    .string()
    .url()
    .default('https://en.wikipedia.org/w/api.php')
    .describe("MediaWiki API endpoint (GEM's default: English Wikipedia)"),
  pageSummaryLength: z.number().int().min(1).default(100).describe('characters of a page shown as its summary'),
});

/**
 * GEM's `extract_last_boxed_answer`: the text inside the last `\boxed{…}` with nested braces matched; `undefined` when
 * there is none, the braces never close, or the last command is `\fbox` / `\boxed` not followed by `{`.
 */
export function extractLastBoxed(text: string): string | undefined {
  let idx = text.lastIndexOf('\\boxed');
  if (idx < 0) idx = text.lastIndexOf('\\fbox');
  if (idx < 0) return undefined;
  let open = 0;
  for (let i = idx; i < text.length; i++) {
    if (text[i] === '{') open += 1;
    if (text[i] === '}') {
      open -= 1;
      if (open === 0) {
        const boxed = text.slice(idx, i + 1);
        return boxed.startsWith('\\boxed{') ? boxed.slice('\\boxed{'.length, -1) : undefined;
      }
    }
  }
  return undefined;
}

export class WikiGame implements Env {
  envId?: string;
  maxTurns: number;
  turnCount = 0;
  readonly backend: WikiBackend;
  readonly pageSummaryLength: number;
  private start: WikiPage | undefined;
  private target: WikiPage | undefined;
  private current: WikiPage | undefined;

  constructor(options: EnvOptions = {}, backend?: WikiBackend) {
    const o = parseGameOptions('WikiGame', WikiGameOptions, options);
    this.maxTurns = o.maxTurns;
    this.pageSummaryLength = o.pageSummaryLength;
    this.backend = backend ?? new MediaWikiBackend({ url: o.url });
  }

  private summary(page: WikiPage): string {
    return [...page.content].slice(0, this.pageSummaryLength).join('');
  }

  private page(which: 'current' | 'target'): WikiPage {
    const p = which === 'current' ? this.current : this.target;
    if (p === undefined) throw new WikiBackendError('WikiGame: call reset() before step() or taskSuffix()');
    return p;
  }

  taskSuffix(): string {
    const current = this.page('current');
    const links = `\n- ${current.links.map((l) => `\\boxed{${l}}`).join('\n- ')}`;
    return (
      `You are currently on the '${current.title}' page. Your target page is '${this.page('target').title}'.\n` +
      `Here is a summary of the page:\n${this.summary(current)}...\n` +
      `This page has the following neighboring pages: ${links}\n` +
      'Enter the title of the neighboring page you want to navigate to.'
    );
  }

  private instructions(): string {
    return (
      `You are playing the Wikipedia Game, and must reach the target Wikipedia page within ${this.maxTurns} turns.\n` +
      'This game tests your general knowledge and navigation skills.\n' +
      'A page refers to a webpage.\n' +
      'A Wikipedia page is a webpage on Wikipedia containing articles on a specific topic, as identified by its title.\n' +
      'A neighboring page is any page accessible via a hyperlink from the current page.\n' +
      'You will start at a random Wikipedia page, and must navigate to a target Wikipedia page by visiting neighboring pages.\n' +
      'To visit a neighboring page, enter its EXACT title, wrapped in \\boxed{} tags (for example, \\boxed{Python_(programming_language)}).\n' +
      'Choose wisely, as you may NOT backtrack; you can only visit neighboring pages (though you may revisit pages). ' +
      'Note that trying to backtrack is an illegal move and will still count towards your maximum number of turns.\n' +
      `You started at '${this.page('current').title}' and your target page is '${this.page('target').title}'.\n` +
      `Here is a summary of the target page:\n${this.summary(this.page('target'))}...\n` +
      `You can visit up to ${this.maxTurns} neighboring pages (excluding the starting page) to reach the target page.\n` +
      'Use the information to navigate to the target page before you run out of turns. Before you make a guess, mention ' +
      "the pages you think will help you reach the target page quickly. Then, justify which is the best and enter that page's title " +
      'in \\boxed{} tags to navigate there.\n' +
      'Enter your first guess to start the game.\n'
    );
  }

  /** A random page that is no disambiguation page and has links (GEM retries up to 10 times). */
  private async randomPage(): Promise<WikiPage> {
    for (let i = 0; i < 10; i++) {
      const page = await this.backend.random();
      if (page !== undefined && !page.title.toLowerCase().includes('disambiguation')) return page;
    }
    return this.backend.fail('no usable random page after 10 tries');
  }

  /** New episode: a random start and a different random target. The seed is accepted and unused (pages are live). */
  async reset(_seed?: number): Promise<ResetResult> {
    let start = await this.randomPage();
    let target = await this.randomPage();
    while (start.title === target.title) {
      start = await this.randomPage();
      target = await this.randomPage();
    }
    this.start = start;
    this.target = target;
    this.current = start;
    this.turnCount = 0;
    return { observation: this.instructions(), info: { suffix: this.taskSuffix() } };
  }

  /** Starts from given pages (GEM's `_reset_fixed_page`, for tests and evaluation). */
  async resetToPages(startTitle: string, targetTitle: string): Promise<ResetResult> {
    this.start = (await this.backend.getPage(startTitle)) ?? this.backend.fail(`page not found: ${startTitle}`);
    this.target = (await this.backend.getPage(targetTitle)) ?? this.backend.fail(`page not found: ${targetTitle}`);
    this.current = this.start;
    this.turnCount = 0;
    return { observation: this.instructions(), info: { suffix: this.taskSuffix() } };
  }

  private result(observation: string, reward: number, terminated: boolean, truncated: boolean): StepResult {
    return { observation, reward, terminated, truncated, info: { suffix: this.taskSuffix() } };
  }

  async step(action: string): Promise<StepResult> {
    this.turnCount += 1;
    const k = this.turnCount;
    const title = extractLastBoxed(action);
    const current = this.page('current');
    const target = this.page('target');
    if (!title) {
      return this.result(
        `At turn ${k}, you did not provide a valid page title.`,
        WikiGameReward.formatError,
        false,
        k === this.maxTurns,
      );
    }
    if (title === '<PREV_PAGE>') {
      return this.result(
        `At turn ${k}, you attempted to backtrack to the previous page, but backtracking is not allowed in this variant of the Wikipedia Game.`,
        WikiGameReward.invalidAction,
        false,
        k === this.maxTurns,
      );
    }
    let observation: string;
    let reward: number;
    if (!current.links.includes(title)) {
      const near = current.links.find((l) => l.toLowerCase().includes(title.toLowerCase()));
      const snippet =
        near === undefined
          ? 'and neither could it be construed as a valid neighboring page title of it. '
          : `Did you mean '${near}'?`;
      observation =
        `At turn ${k}, you guessed '${title}', which is neither a neighboring page of '${current.title}', ${snippet}` +
        'You must match **exactly** one of the neighboring page titles to navigate there.';
      reward = WikiGameReward.invalidAction;
    } else {
      const next = (await this.backend.getPage(title)) ?? this.backend.fail(`could not load the page '${title}'`);
      if (next.title === target.title) {
        this.current = next;
        return this.result(
          `Congratulations! You have reached the target page '${target.title}' in ${k} turns.`,
          WikiGameReward.success,
          true,
          false,
        );
      }
      if (next.links.length === 0) {
        this.current = next;
        return this.result(
          `At turn ${k}, you navigated to the '${next.title}' page, which is a dead-end pagewith no neighboring pages.`,
          WikiGameReward.fail,
          true,
          false,
        );
      }
      this.current = next;
      observation = `At turn ${k}, you navigated to the '${next.title}' page. Here is a summary of the page:\n${this.summary(next)}...\n`;
      reward = WikiGameReward.internalStep;
    }
    if (k >= this.maxTurns) {
      return this.result(
        `At turn ${k}, you have reached the maximum number of turns without reaching the target page '${target.title}'.`,
        WikiGameReward.fail,
        true,
        true,
      );
    }
    return this.result(observation, reward, false, false);
  }

  /** A random link of the current page (GEM's `sample_random_action`). */
  sampleRandomAction(): string {
    const links = this.page('current').links;
    return `\\boxed{${links[Math.floor(Math.random() * links.length)] ?? ''}}`;
  }
}
