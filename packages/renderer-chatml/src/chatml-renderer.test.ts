import { getRenderer, getTokenizer, isRendererRegistered, TrainOnWhat, unregisterRenderer } from '@cookbook/renderers';
import { Template } from '@huggingface/jinja';
import { describe, expect, it } from 'vitest';
import { CHATML_RENDERER_NAME, ChatmlRenderer, registerChatmlRenderer } from './index.js';

const tok = getTokenizer('Qwen/Qwen3-8B');
// The ChatML reference format, as a Jinja template (the common "chatml" template of HF models).
const CHATML =
  "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

describe('cookbook-renderer-chatml', () => {
  it('registers "chatml" on import, through the public registry', () => {
    expect(isRendererRegistered(CHATML_RENDERER_NAME)).toBe(true);
    expect(getRenderer('chatml', tok)).toBeInstanceOf(ChatmlRenderer);
    unregisterRenderer('chatml');
    expect(isRendererRegistered('chatml')).toBe(false);
    registerChatmlRenderer();
    registerChatmlRenderer(); // idempotent
    expect(isRendererRegistered('chatml')).toBe(true);
  });
  it('matches the ChatML template token for token', () => {
    const messages = [
      { role: 'system', content: 'Be kind.' },
      { role: 'user', content: 'Bonjour 🙂' },
      { role: 'assistant', content: 'Salut !' },
      { role: 'user', content: 'Encore ?' },
    ];
    const expected = new Template(CHATML).render({ messages, add_generation_prompt: true });
    expect(getRenderer('chatml', tok).buildGenerationPrompt(messages).toInts()).toEqual(tok.encode(expected));
  });
  it('builds supervised examples and parses responses', () => {
    const r = getRenderer('chatml', tok);
    const msgs = [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello!' },
    ];
    const { modelInput, weights } = r.buildSupervisedExample(msgs, TrainOnWhat.LAST_ASSISTANT_MESSAGE);
    const action = modelInput.toInts().filter((_, i) => weights[i] === 1);
    expect(r.parseResponse(action)).toEqual({
      message: { role: 'assistant', content: 'Hello!' },
      termination: 'stop_sequence',
    });
  });
});
