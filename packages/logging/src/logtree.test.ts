import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Message } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import { useTempDir } from './__fixtures__/test-utils.js';
import { ConversationFormatter } from './conversation-formatter.js';
import { initTrace, logFormatter, logTable, logText, scopeHeader, Transcript } from './logtree.js';

const tmp = useTempDir();

describe('Transcript', () => {
  it('escapes all text and levels headings by nesting', () => {
    const t = new Transcript('Run <1> & "quotes"');
    const group = t.section('Group <script>');
    group.text('<img src=x onerror=alert(1)>');
    group.section('Inner').table([{ 'a<b': '<td>', n: 0.1234567891 }], { caption: 'c&d' });
    t.details('sum<mary>', 'body </pre>');
    const html = t.toHtml(new Date('2025-01-02T03:04:05Z'));
    expect(html).toContain('<title>Run &lt;1&gt; &amp; &quot;quotes&quot;</title>');
    expect(html).toContain('<h1>Run &lt;1&gt; &amp; &quot;quotes&quot;</h1>');
    expect(html).toContain('Generated 2025-01-02T03:04:05.000Z');
    expect(html).toContain('<h2>Group &lt;script&gt;</h2>');
    expect(html).toContain('<h3>Inner</h3>');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('<th>a&lt;b</th>');
    expect(html).toContain('<td>&lt;td&gt;</td><td>0.123457</td>');
    expect(html).toContain('<caption>c&amp;d</caption>');
    expect(html).toContain('<summary>sum&lt;mary&gt;</summary><pre>body &lt;/pre&gt;</pre>');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script');
  });

  it('includes formatter CSS once and renders conversations role by role', () => {
    const messages: Message[] = [
      { role: 'user', content: 'What is 2<3?' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'compare <numbers>' },
          { type: 'text', text: 'Yes & done' },
        ],
        tool_calls: [{ type: 'function', id: 'c1', function: { name: 'calc', arguments: '{"x":"<1>"}' } }],
      },
      { role: 'tool', content: '1', tool_call_id: 'c1' },
    ];
    const t = new Transcript('conv');
    t.add(new ConversationFormatter(messages));
    t.add(new ConversationFormatter(messages));
    const html = t.toHtml();
    expect(html.match(/\.lt-msg-user \{/g)).toHaveLength(1);
    expect(html.match(/class="lt-msg lt-msg-assistant"/g)).toHaveLength(2);
    expect(html).toContain('What is 2&lt;3?');
    expect(html).toContain('<summary>thinking</summary>');
    expect(html).toContain('compare &lt;numbers&gt;');
    expect(html).toContain('calc({&quot;x&quot;:&quot;&lt;1&gt;&quot;})');
    expect(html).toContain('tool → c1');
  });
});

describe('initTrace (ambient API)', () => {
  it('writes the file atomically and keeps concurrent scopes apart', async () => {
    const path = join(tmp(), 'iteration_000001', 'train.html');
    await initTrace('Iteration 1', path, async () => {
      await Promise.all(
        [0, 1].map((g) =>
          scopeHeader(`Group ${g}`, async () => {
            logText(`start ${g}`);
            await new Promise((r) => setTimeout(r, g === 0 ? 20 : 1));
            logText(`end ${g}`);
            scopeHeader('Rollout', () => logTable({ reward: g }));
          }),
        ),
      );
      logFormatter(new ConversationFormatter([{ role: 'user', content: 'hi' }]));
    });
    const html = readFileSync(path, 'utf8');
    const g0 = html.indexOf('<h2>Group 0</h2>');
    const g1 = html.indexOf('<h2>Group 1</h2>');
    expect(g0).toBeGreaterThan(0);
    expect(html.slice(g0, g1)).toMatch(/start 0[\s\S]*end 0[\s\S]*<h3>Rollout<\/h3>/);
    expect(html.slice(g1)).toMatch(/start 1[\s\S]*end 1/);
    expect(html.slice(g0, g1)).not.toContain('start 1');
    expect(readdirSync(join(tmp(), 'iteration_000001'))).toEqual(['train.html']);
  });

  it('writes a partial transcript when the body throws, and is a no-op outside a trace', async () => {
    logText('nowhere');
    const path = join(tmp(), 'partial.html');
    await expect(
      initTrace('partial', path, () => {
        logText('before the crash');
        throw new Error('crash');
      }),
    ).rejects.toThrow('crash');
    expect(readFileSync(path, 'utf8')).toContain('before the crash');
  });
});
