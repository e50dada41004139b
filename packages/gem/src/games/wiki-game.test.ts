import { describe, expect, it } from 'vitest';
import { make } from '../core/registry.js';
import { MediaWikiBackend, type WikiBackend, WikiBackendError, type WikiPage } from './internal/wiki-backend.js';
import { extractLastBoxed, WikiGame } from './wiki-game.js';

const PAGES: Record<string, WikiPage> = {
  Cat: { title: 'Cat', content: 'The cat is a small domesticated carnivorous mammal.', links: ['Dog', 'Mammal'] },
  Dog: { title: 'Dog', content: 'The dog is a domesticated descendant of the wolf.', links: ['Wolf', 'Cat'] },
  Mammal: { title: 'Mammal', content: 'Mammals are animals with mammary glands.', links: [] },
  Wolf: { title: 'Wolf', content: 'The wolf is a large canine.', links: ['Dog'] },
};

const fake: WikiBackend = {
  random: async () => PAGES.Cat,
  getPage: async (t) => PAGES[t],
  fail: (m) => {
    throw new WikiBackendError(m);
  },
};

describe('WikiGame (GEM noregrets rules, pages from a backend)', () => {
  it("reads the last \\boxed{} with nested braces, as GEM's extract_last_boxed_answer", () => {
    expect(extractLastBoxed('go \\boxed{Dog} then \\boxed{C{a}t}')).toBe('C{a}t');
    expect(extractLastBoxed('\\boxed{Dog')).toBeUndefined();
    expect(extractLastBoxed('\\fbox{Dog}')).toBeUndefined();
    expect(extractLastBoxed('none')).toBeUndefined();
  });

  it('plays format errors, invalid titles, backtracking, moves, dead ends and the target with GEM rewards', async () => {
    const env = new WikiGame({ max_turns: 5 }, fake);
    const r = await env.resetToPages('Cat', 'Wolf');
    expect(r.observation).toContain("You started at 'Cat' and your target page is 'Wolf'.");
    expect(String(r.info.suffix)).toContain('neighboring pages: \n- \\boxed{Dog}\n- \\boxed{Mammal}');
    const fmt = await env.step('no box');
    expect([fmt.observation, fmt.reward, fmt.terminated]).toEqual([
      'At turn 1, you did not provide a valid page title.',
      -0.2,
      false,
    ]);
    const bad = await env.step('\\boxed{do}');
    expect(bad.observation).toBe(
      "At turn 2, you guessed 'do', which is neither a neighboring page of 'Cat', Did you mean 'Dog'?You must match **exactly** one of the neighboring page titles to navigate there.",
    );
    expect(bad.reward).toBe(-0.2);
    expect((await env.step('\\boxed{<PREV_PAGE>}')).reward).toBe(-0.2);
    const move = await env.step('\\boxed{Dog}');
    expect([move.observation.split('\n')[0], move.reward]).toEqual([
      "At turn 4, you navigated to the 'Dog' page. Here is a summary of the page:",
      -0.05,
    ]);
    const win = await env.step('\\boxed{Wolf}');
    expect(win).toMatchObject({
      observation: "Congratulations! You have reached the target page 'Wolf' in 5 turns.",
      reward: 1,
      terminated: true,
      truncated: false,
    });
    await env.resetToPages('Cat', 'Wolf');
    const dead = await env.step('\\boxed{Mammal}');
    expect([dead.reward, dead.terminated, dead.truncated]).toEqual([0, true, false]);
  });

  it('the turn limit ends the episode with 0, terminated and truncated', async () => {
    const env = new WikiGame({ max_turns: 1 }, fake);
    await env.resetToPages('Cat', 'Wolf');
    expect(await env.step('\\boxed{Dog}')).toMatchObject({ reward: 0, terminated: true, truncated: true });
  });

  it('registers GEM ids with their turn limits', () => {
    expect((make('game:WikiGame-v0-easy') as WikiGame).maxTurns).toBe(30);
    expect((make('game:WikiGame-v0-hard') as WikiGame).maxTurns).toBe(15);
  });
});

describe('MediaWikiBackend', () => {
  it('queries like GEM (first batch, redirects, main-namespace links) and resolves disambiguation', async () => {
    const urls: URL[] = [];
    const answer = (query: unknown) => new Response(JSON.stringify({ batchcomplete: true, query }));
    const fetchFake = (async (input: string) => {
      const url = new URL(input);
      urls.push(url);
      const p = url.searchParams;
      if (p.get('list') === 'random') return answer({ random: [{ title: 'Mercury' }] });
      if (p.get('titles') === 'Mercury') {
        return answer({
          pages: [{ title: 'Mercury', pageprops: { disambiguation: '' }, links: [{ title: 'Mercury (planet)' }] }],
        });
      }
      return answer({
        pages: [{ title: 'Mercury (planet)', extract: 'Mercury is a planet.', links: [{ title: 'Sun' }] }],
      });
    }) as unknown as typeof fetch;
    const backend = new MediaWikiBackend({ url: 'https://example.org/w/api.php', fetch: fetchFake });
    const page = await backend.random();
    expect(page).toEqual({ title: 'Mercury (planet)', content: 'Mercury is a planet.', links: ['Sun'] });
    const q = urls[1]!.searchParams;
    expect(Object.fromEntries(q)).toMatchObject({
      action: 'query',
      formatversion: '2',
      prop: 'extracts|links|info|pageprops',
      explaintext: '1',
      redirects: '1',
      ppprop: 'disambiguation',
      plnamespace: '0',
    });
  });

  it('offline: reset fails saying WikiGame needs the network', async () => {
    const offline = (async () => {
      throw new TypeError('fetch failed');
    }) as unknown as typeof fetch;
    const env = new WikiGame({}, new MediaWikiBackend({ url: 'https://example.org/w/api.php', fetch: offline }));
    await expect(env.reset()).rejects.toThrow(/online only: it needs the network/);
    await expect(env.reset()).rejects.toBeInstanceOf(WikiBackendError);
  });
});
