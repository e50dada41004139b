import { getRenderer } from '@cookbook/renderers';
import { getTokenizer } from '@cookbook/tokenizers';
import { Bm25Index, searchTool } from '@cookbook/tools';
import { describe, expect, it } from 'vitest';
import { generateMultiHopWorld } from './multi-hop-world.js';
import { answerMatches, SearchQaDataset, searchQaDemonstration, searchQaEnv } from './search-qa-env.js';

const renderer = getRenderer('qwen3_disable_thinking', getTokenizer('local/qwen3-tiny'));

describe('multi-hop world', () => {
  it('is deterministic in the seed, with unique document ids', () => {
    const a = generateMultiHopWorld(3);
    expect(generateMultiHopWorld(3)).toEqual(a);
    expect(generateMultiHopWorld(4)).not.toEqual(a);
    expect(new Set(a.documents.map((d) => d.id)).size).toBe(a.documents.length);
  });

  it("answers need every hop: the expert's queries find the supporting documents, and the last names the answer", () => {
    const world = generateMultiHopWorld(7);
    const index = new Bm25Index(world.documents);
    for (const q of world.questions) {
      q.queries.forEach((query, i) => {
        expect(index.search(query, 1)[0]?.document.id, `${q.id}: ${query}`).toBe(q.supportingDocs[i]);
      });
      const last = world.documents.find((d) => d.id === q.supportingDocs.at(-1))!;
      expect(last.text).toContain(q.answer);
      const first = world.documents.find((d) => d.id === q.supportingDocs[0])!;
      expect(first.text).not.toContain(q.answer);
    }
  });
});

describe('search QA env', () => {
  it('matches answers as whole normalised words', () => {
    expect(answerMatches('It is Nesnes.', 'Nesnes')).toBe(true);
    expect(answerMatches('the founder was yorlo anpel', 'Yorlo Anpel')).toBe(true);
    expect(answerMatches('Nesnesville', 'Nesnes')).toBe(false);
    expect(answerMatches('', 'Nesnes')).toBe(false);
  });

  it("the expert's demonstration, replayed in the env, earns reward 1", async () => {
    const world = generateMultiHopWorld(7);
    const index = new Bm25Index(world.documents);
    const tool = searchTool(index);
    const q = world.questions[1]!;
    const demo = searchQaDemonstration(renderer, index, tool, q);
    const env = searchQaEnv(renderer, tool, q);
    await env.initialObservation();
    let reward = 0;
    let done = false;
    for (const [i, m] of demo.entries()) {
      if (m.role !== 'assistant') continue;
      const history = env.conversation;
      const prompt = renderer.buildGenerationPrompt(history).toInts();
      const { trainable: _t, ...turn } = m;
      const full = renderer.buildSupervisedExample([...history, turn]).modelInput.toInts();
      const step = await env.step(full.slice(prompt.length));
      reward += step.reward;
      done = step.episodeDone;
      if (!done) expect(env.conversation.at(-1)!.content).toBe(demo[i + 1]!.content); // the same search results
    }
    expect(done).toBe(true);
    expect(reward).toBe(1);
  });

  it('serves seeded batches of groups', async () => {
    const world = generateMultiHopWorld(7);
    const ds = new SearchQaDataset(renderer, world.documents, world.questions, 2, 3, 4, 0);
    const batch = ds.getBatch(0);
    expect(batch).toHaveLength(2);
    expect(await batch[0]!.makeEnvs()).toHaveLength(3);
    expect(batch[0]!.logtreeTag?.()).toBe('search_qa');
  });
});
