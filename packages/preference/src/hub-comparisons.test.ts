import { afterEach, describe, expect, it } from 'vitest';
import {
  helpSteer3RowToComparison,
  hhRowToComparison,
  loadHubComparisons,
  parseHhTranscript,
  ultraFeedbackRowToComparison,
} from './hub-comparisons.js';

describe('Hub comparison rows', () => {
  it('parses HH-RLHF transcripts into a shared prompt and the two last replies', () => {
    const prompt = '\n\nHuman: What is 2+2?\n\nAssistant: Let me think.\n\nHuman: And?';
    const row = { chosen: `${prompt}\n\nAssistant: It is 4.`, rejected: `${prompt}\n\nAssistant: No idea.` };
    expect(hhRowToComparison(row)).toEqual({
      comparison: {
        promptConversation: [
          { role: 'user', content: 'What is 2+2?' },
          { role: 'assistant', content: 'Let me think.' },
          { role: 'user', content: 'And?' },
        ],
        completionA: [{ role: 'assistant', content: 'It is 4.' }],
        completionB: [{ role: 'assistant', content: 'No idea.' }],
      },
      label: 'A',
    });
  });

  it('skips HH-RLHF rows whose prompts differ or that do not parse', () => {
    expect(
      hhRowToComparison({ chosen: '\n\nHuman: a\n\nAssistant: b', rejected: '\n\nHuman: c\n\nAssistant: d' }),
    ).toBe(undefined);
    expect(parseHhTranscript('no roles here')).toBeUndefined();
    expect(parseHhTranscript('\n\nHuman: a\n\nHuman: b')).toBeUndefined();
    expect(hhRowToComparison({ chosen: 1 })).toBeUndefined();
  });

  it('labels HelpSteer3 by the sign of overall_preference (negative = response 1)', () => {
    const row = (p: number) => ({
      context: [{ role: 'user', content: 'q' }],
      response1: 'r1',
      response2: 'r2',
      overall_preference: p,
    });
    expect(helpSteer3RowToComparison(row(-2))!.label).toBe('A');
    expect(helpSteer3RowToComparison(row(3))!.label).toBe('B');
    expect(helpSteer3RowToComparison(row(0))!.label).toBe('Tie');
    expect(helpSteer3RowToComparison({ ...row(1), context: 'q' })).toBeUndefined();
  });

  it('reads UltraFeedback binarized rows with the chosen response as A', () => {
    const c = ultraFeedbackRowToComparison({ instruction: 'i', chosen_response: 'c', rejected_response: 'r' })!;
    expect(c.comparison.completionA[0]!.content).toBe('c');
    expect(c.label).toBe('A');
  });
});

describe('loadHubComparisons', () => {
  const saved = process.env.HF_HUB_OFFLINE;
  afterEach(() => {
    if (saved === undefined) delete process.env.HF_HUB_OFFLINE;
    else process.env.HF_HUB_OFFLINE = saved;
  });

  it('fails offline with a message naming the data set and the local-file alternative', async () => {
    delete process.env.HF_HUB_OFFLINE;
    const offline = (async () => {
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('getaddrinfo'), { code: 'ENOTFOUND' }) });
    }) as typeof fetch;
    await expect(loadHubComparisons('hhh', { fetch: offline })).rejects.toThrow(
      /Anthropic\/hh-rlhf\): the Hub is not reachable \(no network\?\).*dataset=path\/to\/train\.jsonl/,
    );
    process.env.HF_HUB_OFFLINE = '1';
    await expect(loadHubComparisons('ultrafeedback')).rejects.toThrow(/HF_HUB_OFFLINE=1 is set/);
  });

  it('converts the rows a server returns and holds out the last rows when there is no test split', async () => {
    delete process.env.HF_HUB_OFFLINE;
    const rows = Array.from({ length: 5 }, (_, i) => ({
      row: { instruction: `q${i}`, chosen_response: 'c', rejected_response: 'r' },
    }));
    const fake = (async () => new Response(JSON.stringify({ rows }))) as typeof fetch;
    const { train, test } = await loadHubComparisons('ultrafeedback', { fetch: fake, testSize: 2, maxTrainRows: 3 });
    expect(train.map((c) => c.comparison.promptConversation[0]!.content)).toEqual(['q0', 'q1', 'q2']);
    expect(test).toHaveLength(2);
  });
});
