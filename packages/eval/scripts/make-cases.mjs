// Writes upstream-grader-cases.json: model responses, each with the target it is graded against, covering the
// extraction rules of every native benchmark (right, wrong, malformed, several boxes, nested braces, a letter in
// prose, units, LaTeX fractions, instruction-following edge cases). Run: node packages/eval/scripts/make-cases.mjs
import { writeFileSync } from 'node:fs';

const cases = [];
const add = (benchmark, id, response, target) => cases.push({ benchmark, id, response, ...target });

// gsm8k: the boxed answer, then `#### x`, then "answer is", then bold numbers, then the last number.
const g = (id, r, expected = '72') => add('gsm8k', id, r, { expected });
g('boxed_right', 'She sold 48 + 24 = 72 clips. \\boxed{72}');
g('boxed_wrong', 'So the total is \\boxed{70}.');
g('two_boxes_first_wins', 'First guess \\boxed{72}, corrected: \\boxed{70}');
g('two_boxes_second_right', 'First guess \\boxed{70}, corrected: \\boxed{72}');
g('boxed_units', 'The cost is \\boxed{\\$72 \\text{ dollars}}');
g('boxed_comma', 'Total: \\boxed{1,072}', '1072');
g('expected_comma', 'Total: \\boxed{2125}', '2,125');
g('hash_answer', 'Work...\n#### 72');
g('answer_is', 'The answer is $72.');
g('answer_colon_negative', 'Answer: -5 degrees', '-5');
g('bold_last', 'We get **70** apples then **72** in total.');
g('last_number_fallback', 'First 12, then 30, finally 72 apples');
g('no_number', 'I cannot solve this.');
g('decimal_equal', '\\boxed{72.0}');
g('empty_box_falls_through', 'The result \\boxed{} is 72');
g('unbalanced_box', 'So \\boxed{72 is the answer');
g('fraction_in_box', '\\boxed{\\frac{1}{2}}', '0.5');
g('nested_braces', '\\boxed{{72}}');
g('thousands_text', 'It costs 1,234 dollars', '1234');
g('hash_before_later_number', 'Work...\n#### 72\nChecked in 3 steps.');
g('answer_is_before_later_number', 'The answer is 72. That took 5 minutes.');
g('bold_before_later_number', 'So **72** apples, from 3 baskets');
g('no_number_expected_zero', 'no idea', '0');
g('box_beats_hash', '\\boxed{72}\n#### 70');

// math500: the LAST \boxed{} (hendrycks-style grading with normalisation and a symbolic check).
const m = (id, r, expected) => add('math500', id, r, { expected });
m('frac_right', 'So $x = \\boxed{\\frac{1}{2}}$', '\\frac{1}{2}');
m('dfrac_equiv', '\\boxed{\\dfrac{1}{2}}', '\\frac12');
m('last_box_wins', 'Try \\boxed{3}; no, the answer is \\boxed{4}', '4');
m('last_box_wrong', 'Try \\boxed{4}; no, the answer is \\boxed{3}', '4');
m('nested_braces', '\\boxed{\\frac{\\sqrt{3}}{2}}', '\\frac{\\sqrt{3}}{2}');
m('no_box', 'The answer is 4.', '4');
m('units_degrees', '\\boxed{30^\\circ}', '30');
m('text_wrapper', '\\boxed{\\text{(C)}}', '\\text{(C)}');
m('tuple', '\\boxed{(1, 2)}', '(1,2)');
m('tuple_wrong_order', '\\boxed{(2, 1)}', '(1,2)');
m('decimal_vs_frac', '\\boxed{0.5}', '\\frac{1}{2}');
m('unreduced_frac', '\\boxed{2/4}', '1/2');
m('int_vs_float', '\\boxed{4.0}', '4');
m('boxed_space_form', 'so \\boxed 7', '7');
m('sqrt_equiv', '\\boxed{2\\sqrt{2}}', '\\sqrt{8}');
m('dollars', '\\boxed{\\$18.90}', '18.90');
m('unmatched_close', 'x} then \\boxed{4}', '4');
m('percent', '\\boxed{25\\%}', '25');
m('plain_expression', '\\boxed{x^2+2x+1}', '(x+1)^2');

// aime: first \boxed{} → first number in it; else the gsm8k chain; integer compare after int(float(x)).
const a = (id, r, expected = 204) => add('aime', id, r, { expected });
a('boxed_right', 'Therefore \\boxed{204}.');
a('boxed_leading_zero', '\\boxed{034}', 34);
a('boxed_wrong', '\\boxed{205}');
a('two_boxes_first_wins', '\\boxed{204} or maybe \\boxed{205}');
a('two_boxes_second_right', '\\boxed{205} or maybe \\boxed{204}');
a('decimal_truncates', '\\boxed{204.9}');
a('text_in_box', '\\boxed{\\text{answer: }204}');
a('no_box_last_number', 'The count is 204');
a('no_number', 'No idea.');
a('box_inf_overflow', '\\boxed{\\infty}');
a('word_inf', 'Answer: infinite', 0);
a('boxed_inf_raises', 'So \\boxed{inf}');
a('negative', '\\boxed{-3}', -3);
a('fraction_box', '\\boxed{\\frac{408}{2}}');

// Multiple choice: first \boxed{} if it is one valid letter, else the FIRST "answer is/answer:" (case-insensitive
// letter), else the last standalone letter in the last 300 characters.
const mc = (bench, id, r, expected, extra = {}) => add(bench, id, r, { expected, ...extra });
for (const bench of ['mmlu_redux', 'gpqa', 'ceval']) {
  mc(bench, 'boxed_right', 'Reasoning... \\boxed{B}', 'B');
  mc(bench, 'boxed_lowercase', '\\boxed{ b }', 'B');
  mc(bench, 'boxed_wrong', '\\boxed{C}', 'B');
  mc(bench, 'answer_is_paren', 'The answer is (B).', 'B');
  mc(bench, 'answer_colon', 'Answer: D', 'D');
  mc(bench, 'answer_is_lowercase_article', 'I think the answer is a tricky one; B fits.', 'B');
  mc(bench, 'first_answer_phrase_wins', 'The answer is C. On reflection, the answer is B.', 'B');
  mc(bench, 'last_standalone_letter', 'Option A is wrong, so D', 'D');
  mc(bench, 'letter_outside_range', 'The answer is (E).', 'B');
  mc(bench, 'no_letter', 'none of these', 'A');
  mc(bench, 'boxed_text_then_letter', '\\boxed{\\text{B}} so B', 'B');
  mc(bench, 'two_boxes_first_wins', '\\boxed{A} then \\boxed{B}', 'B');
  mc(bench, 'letter_in_word', 'Because Alpha, B', 'B');
}
mc('ceval', 'chinese_answer', '所以答案是B', 'B');
mc('ceval', 'chinese_spaced', '答案: C', 'C');
mc('ceval', 'chinese_letter_adjacent', '选B', 'B');
mc('gpqa', 'letter_beyond_300', `B ${'x'.repeat(400)}`, 'B');
mc('mmlu_pro', 'letter_j', 'The answer is (J)', 'J', { valid_letters: 'ABCDEFGHIJ' });
mc('mmlu_pro', 'boxed_h', '\\boxed{H}', 'H', { valid_letters: 'ABCDEFGHIJ' });
mc('mmlu_pro', 'boxed_k_invalid', '\\boxed{K} so answer: C', 'C', { valid_letters: 'ABCDEFGHIJ' });
mc('mmlu_pro', 'last_letter_i', 'It must be I', 'I', { valid_letters: 'ABCDEFGHIJ' });
mc('supergpqa', 'five_options_e', 'Answer: E', 'E', { valid_letters: 'ABCDE' });
mc('supergpqa', 'five_options_f_invalid', 'Answer: F. So E', 'E', { valid_letters: 'ABCDE' });
mc('supergpqa', 'ten_options_boxed', '\\boxed{G}', 'G', { valid_letters: 'ABCDEFGHIJ' });

// hmmt: first \boxed{}, compared after LaTeX normalisation, then as floats, then symbolically (needs antlr4).
const h = (id, r, expected) => add('hmmt', id, r, { expected });
h('same_string', '\\boxed{\\frac{3}{4}}', '\\frac{3}{4}');
h('text_wrapper', '\\boxed{\\text{12}}', '12');
h('float_equal', '\\boxed{0.250}', '0.25');
h('left_right', '\\boxed{\\left(1,2\\right)}', '(1,2)');
h('trailing_period', '\\boxed{42.}', '42');
h('dollars', '\\boxed{$7$}', '7');
h('no_box', 'The answer is 7', '7');
h('empty_box', '\\boxed{}', '7');
h('wrong_number', '\\boxed{8}', '7');
h('two_boxes_first_wins', '\\boxed{7} and \\boxed{8}', '8');
h('frac_vs_decimal', '\\boxed{\\frac{1}{4}}', '0.25');
h('sqrt_equiv', '\\boxed{\\sqrt{8}}', '2\\sqrt{2}');
h('whitespace', '\\boxed{ 2 \\pi }', '2 \\pi');
h('nested_braces', '\\boxed{\\frac{\\sqrt{3}}{2}}', '\\frac{\\sqrt{3}}{2}');
h('text_answer_period', '\\boxed{\\text{odd}.}', 'odd');
h('mathrm_answer', '\\boxed{\\mathrm{Alice}}', 'Alice');

// ifeval: upstream's own verifier; strict = every instruction followed.
const ie = (id, r, ids, kwargs) => add('ifeval', id, r, { instruction_id_list: ids, kwargs });
ie('no_comma_ok', 'No commas here at all.', ['punctuation:no_comma'], [{}]);
ie('no_comma_bad', 'Yes, a comma.', ['punctuation:no_comma'], [{}]);
ie('lowercase_ok', 'all lower case words.', ['change_case:english_lowercase'], [{}]);
ie('lowercase_bad', 'Not all lower.', ['change_case:english_lowercase'], [{}]);
ie('capital_ok', 'ALL CAPS HERE.', ['change_case:english_capital'], [{}]);
ie(
  'words_at_least',
  'one two three four five',
  ['length_constraints:number_words'],
  [{ relation: 'at least', num_words: 5 }],
);
ie(
  'words_less_than',
  'one two three four five',
  ['length_constraints:number_words'],
  [{ relation: 'less than', num_words: 5 }],
);
ie('keyword_existence_case', 'We love Paris in spring.', ['keywords:existence'], [{ keywords: ['paris', 'spring'] }]);
ie('forbidden_substring', 'A catalogue of items.', ['keywords:forbidden_words'], [{ forbidden_words: ['cat'] }]);
ie(
  'frequency',
  'the cat and the hat and the bat',
  ['keywords:frequency'],
  [{ keyword: 'the', relation: 'at least', frequency: 3 }],
);
ie(
  'letter_frequency',
  'banana',
  ['keywords:letter_frequency'],
  [{ letter: 'a', let_relation: 'less than', let_frequency: 3 }],
);
ie('title_ok', '<<My Title>>\nBody text.', ['detectable_format:title'], [{}]);
ie('title_missing', 'My Title\nBody text.', ['detectable_format:title'], [{}]);
ie('json_fenced', '```json\n{"a": 1}\n```', ['detectable_format:json_format'], [{}]);
ie('json_plain', '{"a": 1}', ['detectable_format:json_format'], [{}]);
ie('bullets_exact', '* one\n* two\n* three', ['detectable_format:number_bullet_lists'], [{ num_bullets: 3 }]);
ie('bullets_dash', '- one\n- two', ['detectable_format:number_bullet_lists'], [{ num_bullets: 2 }]);
ie(
  'highlighted',
  'This *is* one and *two* here',
  ['detectable_format:number_highlighted_sections'],
  [{ num_highlights: 2 }],
);
ie(
  'sections',
  'SECTION 1\nintro\nSECTION 2\nbody',
  ['detectable_format:multiple_sections'],
  [{ section_spliter: 'SECTION', num_sections: 2 }],
);
ie('postscript', 'Hello.\nP.S. see you', ['detectable_content:postscript'], [{ postscript_marker: 'P.S.' }]);
ie(
  'placeholders',
  'Send to [name] at [address].',
  ['detectable_content:number_placeholders'],
  [{ num_placeholders: 2 }],
);
ie(
  'end_checker',
  'That is all. Any other questions?',
  ['startend:end_checker'],
  [{ end_phrase: 'Any other questions?' }],
);
ie(
  'end_checker_trailing_space',
  'That is all. Any other questions?  ',
  ['startend:end_checker'],
  [{ end_phrase: 'Any other questions?' }],
);
ie('quotation', '"Wrapped in quotes"', ['startend:quotation'], [{}]);
ie(
  'paragraphs',
  'First para.\n\n***\n\nSecond para.',
  ['length_constraints:number_paragraphs'],
  [{ num_paragraphs: 2 }],
);
ie(
  'sentences',
  'One. Two. Three.',
  ['length_constraints:number_sentences'],
  [{ relation: 'less than', num_sentences: 3 }],
);
ie('two_responses', 'Answer one.\n******\nAnswer two.', ['combination:two_responses'], [{}]);
ie(
  'capital_frequency',
  'THE BIG DOG ran',
  ['change_case:capital_word_frequency'],
  [{ capital_relation: 'at least', capital_frequency: 3 }],
);
ie('language_unported', 'Bonjour tout le monde', ['language:response_language'], [{ language: 'fr' }]);
ie('two_instructions_one_fails', 'hello, world', ['change_case:english_lowercase', 'punctuation:no_comma'], [{}, {}]);
ie(
  'null_kwargs_values',
  'short reply',
  ['length_constraints:number_words'],
  [{ relation: 'less than', num_words: 10, extra: null }],
);
ie('unknown_instruction', 'anything', ['made_up:instruction'], [{}]);

writeFileSync(new URL('./upstream-grader-cases.json', import.meta.url), `${JSON.stringify(cases, null, 1)}\n`);
console.log(`${cases.length} cases`);
