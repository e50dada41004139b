import { describe, expect, it } from 'vitest';
import type { GradeInput, GradeResult, GradeTarget } from '../benchmark.js';
import {
  answerLetter,
  boxedMath,
  contains,
  customGrader,
  exactMatch,
  extractChoiceLetter,
  instructions,
  instructionsAll,
  instructionsLoose,
  multipleChoice,
  regex,
} from './graders.js';
import { countSentences, countWords, followsInstruction } from './instructions.js';

const input = (response: string, target: GradeTarget): GradeInput => ({
  response,
  target,
  example: { id: 'x', messages: [{ role: 'user', content: 'q' }], ...target },
  turn: 0,
  prompt: [{ role: 'user', content: 'q' }],
});
const grade = (g: typeof exactMatch, response: string, target: GradeTarget) =>
  g(input(response, target)) as GradeResult;

describe('graders', () => {
  it('exact match ignores case, spacing, quotes and final punctuation, and accepts aliases', () => {
    expect(grade(exactMatch, '  "Paris."  ', { answer: 'paris' })).toMatchObject({ correct: true, score: 1 });
    expect(grade(exactMatch, 'New   York', { answer: ['NYC', 'new york'] })).toMatchObject({ correct: true });
    expect(grade(exactMatch, 'Paris, France', { answer: 'Paris' })).toMatchObject({ correct: false, score: 0 });
    expect(grade(exactMatch, '', { answer: 'x' })).toMatchObject({ correct: false });
  });

  it('contains needs the answer as a whole word', () => {
    expect(grade(contains, 'The capital of Peru is Lima.', { answer: 'Lima' }).correct).toBe(true);
    expect(grade(contains, '4 + 8 = 120', { answer: '12' }).correct).toBe(false);
    expect(grade(contains, '12 * 3 = 36.', { answer: '36' }).correct).toBe(true);
    expect(grade(contains, 'It is -5.', { answer: '5' }).correct).toBe(true);
  });

  it('boxed math grades the last boxed answer by value and symbolically; no box is wrong', () => {
    expect(grade(boxedMath, 'So \\boxed{3} then \\boxed{\\dfrac{1}{2}}', { answer: '0.5' })).toMatchObject({
      correct: true,
      extracted: '\\dfrac{1}{2}',
    });
    expect(grade(boxedMath, '\\boxed{2\\sqrt{2}}', { answer: '\\sqrt{8}' }).correct).toBe(true);
    expect(grade(boxedMath, '\\boxed{1,000}', { answer: '1000' }).correct).toBe(true);
    expect(grade(boxedMath, 'the answer is 7', { answer: '7' }).correct).toBe(false);
    expect(grade(boxedMath, '\\boxed{\\frac{2}{4}}', { answer: '\\frac{1}{2}' }).correct).toBe(true);
    expect(grade(boxedMath, '\\boxed{7.5}', { answer: '7' }).correct).toBe(false);
  });

  it('multiple choice finds the picked letter in common phrasings', () => {
    expect(extractChoiceLetter('Answer: (C)', 4)).toBe('C');
    expect(extractChoiceLetter('the answer is b.', 4)).toBe('B');
    expect(extractChoiceLetter('\\boxed{D}', 4)).toBe('D');
    expect(extractChoiceLetter('B', 4)).toBe('B');
    expect(extractChoiceLetter('A is tempting, but I pick (D)', 4)).toBe('D');
    expect(extractChoiceLetter('E', 4)).toBeUndefined();
    expect(extractChoiceLetter('I think so', 4)).toBeUndefined();
    expect(answerLetter(2, ['x', 'y', 'z'])).toBe('C');
    expect(answerLetter('z', ['x', 'y', 'z'])).toBe('C');
    expect(answerLetter('(b)')).toBe('B');
    const target = { choices: ['Lima', 'Oslo', 'Rome'], answer: 'Oslo' };
    expect(grade(multipleChoice, 'Answer: B', target)).toMatchObject({ correct: true, extracted: 'B' });
    expect(grade(multipleChoice, 'Answer: A', target).correct).toBe(false);
  });

  it('regex reads /pattern/flags or a bare pattern', () => {
    expect(grade(regex, 'The Answer is 42', { answer: '/answer is \\d+/i' }).correct).toBe(true);
    expect(grade(regex, 'The Answer is 42', { answer: 'answer is \\d+' }).correct).toBe(false);
    expect(() => grade(regex, 'x', { answer: '(' })).toThrow(/invalid pattern/);
  });

  it('instructions: strict and loose, with partial credit', () => {
    const target: GradeTarget = {
      instructions: [
        { id: 'punctuation:no_comma' },
        { id: 'length_constraints:number_words', kwargs: { relation: 'less than', num_words: 5 } },
        { id: 'startend:end_checker', kwargs: { end_phrase: 'Any other questions?' } },
      ],
    };
    expect(grade(instructions, 'Yes it is. Any other questions?', target)).toMatchObject({
      correct: false,
      score: 2 / 3,
    });
    expect(grade(instructions, 'Sure. Any other questions?', target)).toMatchObject({ correct: true, score: 1 });
    // Loose accepts the reply without its first line.
    const t2: GradeTarget = { instructions: [{ id: 'startend:quotation' }] };
    expect(grade(instructions, 'Here you go:\n"quoted"', t2).correct).toBe(false);
    expect(grade(instructionsLoose, 'Here you go:\n"quoted"', t2).correct).toBe(true);
    expect(grade(instructions, '', { instructions: [{ id: 'punctuation:no_comma' }] }).correct).toBe(false);
    // All or nothing: the same verdicts, without partial credit.
    expect(grade(instructionsAll, 'Yes it is. Any other questions?', target)).toMatchObject({
      correct: false,
      score: 0,
    });
    expect(grade(instructionsAll, 'Sure. Any other questions?', target)).toMatchObject({ correct: true, score: 1 });
  });

  it('instruction checks follow their IFEval definitions', () => {
    const f = (r: string, id: string, kwargs: Record<string, unknown> = {}) => followsInstruction(r, { id, kwargs });
    expect(countWords("It's 3 o'clock, ok?")).toBe(6);
    expect(countSentences('One. Two! Three? four')).toBe(4);
    expect(f('a b c', 'length_constraints:number_words', { relation: 'at least', num_words: 3 })).toBe(true);
    expect(f('One. Two.', 'length_constraints:number_sentences', { relation: 'less than', num_sentences: 2 })).toBe(
      false,
    );
    expect(f('I love AI and ai', 'keywords:frequency', { keyword: 'AI', frequency: 2, relation: 'at least' })).toBe(
      true,
    );
    expect(f('a pineapple', 'keywords:forbidden_words', { forbidden_words: ['apple'] })).toBe(true);
    expect(f('an apple', 'keywords:forbidden_words', { forbidden_words: ['apple'] })).toBe(false);
    expect(f('```json\n{"a": 1}\n```', 'detectable_format:json_format')).toBe(true);
    expect(f('<<Title>>\ntext', 'detectable_format:title')).toBe(true);
    expect(f('* one\n* two\n- three', 'detectable_format:number_bullet_lists', { num_bullets: 3 })).toBe(true);
    expect(f('body\nP.S. hi', 'detectable_content:postscript', { postscript_marker: 'P.S.' })).toBe(true);
    expect(
      f('one\n\nTwo words\n\nthree', 'length_constraints:nth_paragraph_first_word', {
        num_paragraphs: 3,
        nth_paragraph: 2,
        first_word: 'two',
      }),
    ).toBe(true);
    expect(f('a ****** b', 'combination:two_responses')).toBe(true);
    expect(f('HELLO THERE', 'change_case:english_capital')).toBe(true);
    expect(
      f('SECTION 1 a SECTION 2 b', 'detectable_format:multiple_sections', {
        section_spliter: 'SECTION',
        num_sections: 2,
      }),
    ).toBe(true);
    expect(() => f('x', 'language:response_language', { language: 'fr' })).toThrow(/unsupported instruction/);
    expect(() => f('x', 'length_constraints:number_words', { relation: 'about', num_words: 3 })).toThrow(/less than/);
  });

  it('custom graders return a boolean or a score in [0, 1]', () => {
    const g = customGrader((r, a) => r.length === String(a).length);
    expect(grade(g, 'abc', { answer: 'xyz' })).toMatchObject({ correct: true, score: 1 });
    expect(
      grade(
        customGrader(() => 0.5),
        'x',
        {},
      ),
    ).toMatchObject({ correct: false, score: 0.5 });
    expect(() =>
      grade(
        customGrader(() => 2),
        'x',
        {},
      ),
    ).toThrow(/expected a boolean or a score/);
  });
});
