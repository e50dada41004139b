#!/usr/bin/env python3
"""Upstream's IFBench verdicts: runs upstream's `_verify_constraints` (tinker-cookbook `eval/benchmarks/ifbench.py`)
with AllenAI's IFBench checkers on the replies below, and upstream's IFBench builder on the offline sample.

    python3 packages/eval/scripts/upstream-ifbench-verdicts.py UPSTREAM_CHECKOUT IFBENCH_CHECKOUT SAMPLE.jsonl OUT.json

UPSTREAM_CHECKOUT holds `tinker_cookbook/`, IFBENCH_CHECKOUT holds IFBench's `ifbench/` package; SAMPLE.jsonl is
`data/native/ifbench.jsonl`; OUT.json is `src/native/__fixtures__/upstream-ifbench-verdicts.json`, which the
TypeScript test reads. CI never runs this script. Needs `nltk` and `emoji` installed (not NLTK's data files).

The replies and kwargs below were written for this project (right, wrong and edge cases per checker). Nothing of
upstream or IFBench is copied: both are imported from their checkouts and called.

What cannot run here, and how it shows in the output:
- NLTK's data (Punkt's sentence model, which `word_tokenize` also uses, the stopword list and the tagger model)
  and `syllapy` are not installable here. Upstream's own functions that use them are wrapped so that a call records
  which one it needed and raises, as they raise without their data. A case whose checking consulted one is written
  with `"exact": false` and `missing_dependency`: upstream's verdict there is the checker's exception turned into a
  failure, not IFBench's verdict with the data; the TypeScript test pins this package's verdict on those cases.
- `langdetect`, which IFBench's classic IFEval checkers import, is not installable either; none of the 58 uses it.
- Upstream's `ifbench.py` imports the registry as a top-level `instructions_registry` module; IFBench now ships it
  as `ifbench.instructions_registry`, so the script makes the one importable as the other.

Generated with: Python 3.11.7, nltk 3.10.3, emoji 2.16.0; the commits of both checkouts are written in the output.
"""

import asyncio
import importlib
import importlib.util
import json
import os
import subprocess
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("upstream_verdicts", os.path.join(HERE, "upstream-verdicts.py"))
uv = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(uv)

CONSULTED = []


def needs(name, fn=None):
    def wrapped(*a, **kw):
        CONSULTED.append(name)
        raise LookupError(f"{name} is not available here")

    return wrapped


def install_ifbench(ifbench_root):
    sys.path.insert(0, ifbench_root)
    syl = types.ModuleType("syllapy")
    syl.count = needs("syllapy")
    sys.modules["syllapy"] = syl
    # langdetect (IFEval's response-language checker, none of IFBench's 58) is not installable here either.
    lang = types.ModuleType("langdetect")
    lang.detect = needs("langdetect")
    lang.LangDetectException = Exception
    sys.modules["langdetect"] = lang
    import nltk

    nltk.download = lambda *a, **kw: False  # no network: the import-time download is a no-op
    nltk.sent_tokenize = needs("punkt")
    nltk.word_tokenize = needs("punkt")
    nltk.pos_tag = needs("averaged_perceptron_tagger")
    util = importlib.import_module("ifbench.instructions_util")
    util.count_stopwords = needs("stopwords")
    registry = importlib.import_module("ifbench.instructions_registry")
    sys.modules["instructions_registry"] = registry


def kw(**k):
    return k


LONG = "The quick brown fox jumps over the lazy dog near the quiet river bank today"
CASES = [
    # count:word_count_range
    ("count:word_count_range", kw(min_words=3.0, max_words=5.0), "One two three four."),
    ("count:word_count_range", kw(min_words=3.0, max_words=5.0), "One two."),
    ("count:word_count_range", kw(min_words=3.0, max_words=5.0), "don't stop-me now_ok"),
    ("count:word_count_range", kw(min_words=1.0, max_words=2.0), "café naïve"),
    # count:unique_word_count
    ("count:unique_word_count", kw(N=4.0), "Cat cat, dog! bird fish"),
    ("count:unique_word_count", kw(N=4.0), "Cat cat, dog! dog."),
    ("count:unique_word_count", kw(N=2.0), "... ,,, word"),
    # ratio:stop_words
    ("ratio:stop_words", kw(percentage=50.0), "The cat sat on the mat."),
    ("ratio:stop_words", kw(percentage=10.0), "Elephants trumpet loudly."),
    ("ratio:stop_words", kw(percentage=10.0), ""),
    # ratio:sentence_type
    ("ratio:sentence_type", kw(), "It rains. It pours. Why?"),
    ("ratio:sentence_type", kw(), "It rains. Why? Who?"),
    ("ratio:sentence_type", kw(), "Dr. Smith arrived. He left. Did he?"),
    # ratio:sentence_balance
    ("ratio:sentence_balance", kw(), "It rains. Why? Wow!"),
    ("ratio:sentence_balance", kw(), "It rains. Why?"),
    # count:conjunctions
    ("count:conjunctions", kw(small_n=3.0), "I came and saw, but left, so what?"),
    ("count:conjunctions", kw(small_n=3.0), "And and AND and."),
    ("count:conjunctions", kw(small_n=2.0), "And and AND and."),
    # count:person_names
    ("count:person_names", kw(N=2.0), "Emma met Liam."),
    ("count:person_names", kw(N=2.0), "Emmanuel met Liam."),
    ("count:person_names", kw(N=2.0), "emma met liam, Liam_ and Noah."),
    ("count:person_names", kw(N=1.0), "Zoë and Zoe."),
    # ratio:overlap
    ("ratio:overlap", kw(reference_text="abcdef", percentage=100.0), "abcdef"),
    ("ratio:overlap", kw(reference_text="abcdef", percentage=50.0), "abcxyz"),
    ("ratio:overlap", kw(reference_text="abcdef", percentage=50.0), "ab"),
    ("ratio:overlap", kw(reference_text="hello world", percentage=40.0), "hello there"),
    # count:numbers
    ("count:numbers", kw(N=2.0), "I have 3 cats and 4 dogs."),
    ("count:numbers", kw(N=2.0), "Pi is 3.14 and e is 2.71."),
    ("count:numbers", kw(N=1.0), "It costs 1,000 dollars."),
    ("count:numbers", kw(N=1.0), "Arabic ٣ digit."),
    # words:alphabet
    ("words:alphabet", kw(), "Apples bloom, cherries drop."),
    ("words:alphabet", kw(), "Apples bloom, dandelions."),
    ("words:alphabet", kw(), "Yak zebra alpaca"),
    ("words:alphabet", kw(), "1 apple"),
    ("words:alphabet", kw(), "..."),
    # words:vowel
    ("words:vowel", kw(), "A cat sat on a mat."),
    ("words:vowel", kw(), "Education is unique."),
    ("words:vowel", kw(), "A cat.\nA mat."),
    # words:consonants
    ("words:consonants", kw(), "Strong black crystals"),
    ("words:consonants", kw(), "Strong idea"),
    ("words:consonants", kw(), ""),
    # sentence:alliteration_increment
    ("sentence:alliteration_increment", kw(), "Big dog. Silly snakes slide."),
    ("sentence:alliteration_increment", kw(), "Silly snakes slide. Big dog."),
    # words:palindrome
    ("words:palindrome", kw(), "level radar civic rotor kayak refer stats tenet madam racecar"),
    ("words:palindrome", kw(), "level radar civic rotor kayak refer stats tenet madam noon"),
    ("words:palindrome", kw(), "Level, radar! civic rotor kayak refer stats tenet madam reviver."),
    # count:punctuation
    ("count:punctuation", kw(), "Really?! Yes; no: maybe, ok. Wow! Why?"),
    ("count:punctuation", kw(), "Really?! Yes; no: maybe, ok. Wow!"),
    ("count:punctuation", kw(), "Really‽ Yes; no: maybe, ok. Wow! Why?"),
    ("count:punctuation", kw(), "Yes; no: maybe, ok. Wow! Why?"),
    # format:parentheses
    ("format:parentheses", kw(), "(a [b {c (d [e] d) c} b] a)"),
    ("format:parentheses", kw(), "(a [b {c (d) c} b] a)"),
    ("format:parentheses", kw(), "((((] ((((( x )"),
    # format:quotes
    ("format:quotes", kw(), "He said \"she said 'they said \"hi\"' ok\" fine"),
    ("format:quotes", kw(), "He said \"she said 'hi' ok\""),
    ("format:quotes", kw(), "\"'\"'"),
    # words:prime_lengths
    ("words:prime_lengths", kw(), "We are the best cats."),
    ("words:prime_lengths", kw(), "A cat."),
    ("words:prime_lengths", kw(), ""),
    # format:options
    ("format:options", kw(options="yes/no/maybe"), "Yes."),
    ("format:options", kw(options="yes/no/maybe"), "Yes, because."),
    ("format:options", kw(options="I know or I don't know"), "I don't know"),
    ("format:options", kw(options="a), b), c), d)"), "b)"),
    ("format:options", kw(options="a), b), c), d)"), "b"),
    ("format:options", kw(options="a), b), c), d)"), "B)"),
    # format:newline
    ("format:newline", kw(), "Each\nword\nhere."),
    ("format:newline", kw(), "Each word\nhere."),
    ("format:newline", kw(), "Each\n\nword\n - here"),
    # format:emoji
    ("format:emoji", kw(), "I love cats 😺. Dogs are great 🐶."),
    ("format:emoji", kw(), "I love cats. Dogs are great 🐶."),
    # ratio:sentence_words
    ("ratio:sentence_words", kw(), "Cats run. Dogs sit. Owls fly."),
    ("ratio:sentence_words", kw(), "Cats run. Dogs sit. Owls flew."),
    # count:words_japanese
    ("count:words_japanese", kw(N=2.0), "I 猫 like 犬 very 鳥"),
    ("count:words_japanese", kw(N=2.0), "I 猫 like dogs"),
    ("count:words_japanese", kw(N=2.0), "I 42 like ねこ"),
    # words:start_verb
    ("words:start_verb", kw(), "Run fast to the store."),
    # words:repeats
    ("words:repeats", kw(small_n=2.0), "the cat the dog"),
    ("words:repeats", kw(small_n=2.0), "The cat, the dog, THE bird."),
    # sentence:keyword
    ("sentence:keyword", kw(word="apple", N=2.0), "I like pears. An Apple a day. Fine."),
    ("sentence:keyword", kw(word="apple", N=2.0), "I like pears. Applesauce a day."),
    ("sentence:keyword", kw(word="apple", N=3.0), "I like pears. An apple a day."),
    # count:pronouns
    ("count:pronouns", kw(N=3.0), "I think she/her is what they said."),
    ("count:pronouns", kw(N=3.0), "Cats sleep."),
    # words:odd_even_syllables
    ("words:odd_even_syllables", kw(), "cat apple dog"),
    ("words:odd_even_syllables", kw(), "cat dog"),
    # words:last_first
    ("words:last_first", kw(), "I saw a cat. Cat saw me."),
    ("words:last_first", kw(), "I saw a cat. Dog saw me."),
    # words:paragraph_last_first
    ("words:paragraph_last_first", kw(), "Hello there, hello.\n\nWorld is round world"),
    ("words:paragraph_last_first", kw(), "Hello there.\nWorld is round world"),
    ("words:paragraph_last_first", kw(), "...\n\n"),
    # sentence:increment
    ("sentence:increment", kw(small_n=1.0), "One. One two. One two three."),
    ("sentence:increment", kw(small_n=1.0), "One. One two three."),
    ("sentence:increment", kw(small_n=1.0), ""),
    # words:no_consecutive
    ("words:no_consecutive", kw(), "A big cat danced elegantly."),
    ("words:no_consecutive", kw(), "A big bad cat."),
    ("words:no_consecutive", kw(), "A - a"),
    # format:line_indent
    ("format:line_indent", kw(), "a\n b\n  c"),
    ("format:line_indent", kw(), "a\n b\n c"),
    ("format:line_indent", kw(), "a\n\n b\n\n\n  c"),
    ("format:line_indent", kw(), "a\n\n\n b"),
    ("format:line_indent", kw(), "  a\n\n\nb"),
    # format:quote_unquote
    ("format:quote_unquote", kw(), "\"Carpe diem\" means seize the day."),
    ("format:quote_unquote", kw(), "He said \"hi\""),
    ("format:quote_unquote", kw(), "\"a\" \"b\" explained."),
    ("format:quote_unquote", kw(), "Quote \"x\" 12."),
    # format:list
    ("format:list", kw(sep="SEPARATOR"), "SEPARATOR one\nSEPARATOR two"),
    ("format:list", kw(sep="SEPARATOR"), "SEPARATOR one"),
    ("format:list", kw(sep="..."), "... a ..... b"),
    ("format:list", kw(sep="!?!?"), "!?!?!?!? x"),
    # format:thesis
    ("format:thesis", kw(), "<i>Cats rule.</i> Because they do."),
    ("format:thesis", kw(), "<i>Cats rule.</i>"),
    ("format:thesis", kw(), "<em>Dogs rule.</em> Yes."),
    ("format:thesis", kw(), "<i>  </i> text"),
    ("format:thesis", kw(), "Intro <em>Dogs</i> rest"),
    # format:sub-bullets
    ("format:sub-bullets", kw(), "* one\n - a\n* two\n - b"),
    ("format:sub-bullets", kw(), "* one\n - a\n* two"),
    ("format:sub-bullets", kw(), "no bullets at all"),
    # format:no_bullets_bullets
    ("format:no_bullets_bullets", kw(), "First sentence. Second sentence.\n* a\n* b"),
    ("format:no_bullets_bullets", kw(), "Only one.\n* a\n* b"),
    ("format:no_bullets_bullets", kw(), "One. Two.\n* a\nthree"),
    # custom:multiples
    ("custom:multiples", kw(), "14, 21, 28, 35, 42, 49"),
    ("custom:multiples", kw(), "14,21,28,35,42,49"),
    ("custom:multiples", kw(), "7, 14, 21, 28, 35, 42, 49"),
    # custom:mcq_count_length
    ("custom:mcq_count_length", kw(),
     "Question 1: Who?\nA. a\nB. b\nC. c\nD. d\nE. e\n"
     "Question 2: Who is it?\nA. a\nB. b\nC. c\nD. d\nE. e\n"
     "Question 3: Who is it now?\nA. a\nB. b\nC. c\nD. d\nE. e\n"
     "Question 4: Who is it now, then?\nA. a\nB. b\nC. c\nD. d\nE. e"),
    ("custom:mcq_count_length", kw(),
     "Here you go.\nQuestion 1: Who?\nA. a\nB. b\nC. c\nD. d\nE. e"),
    ("custom:mcq_count_length", kw(),
     "Question 1: Who is it now?\nA. a\nB. b\nC. c\nD. d\nE. e\n"
     "Question 2: Who?\nA. a\nB. b\nC. c\nD. d\nE. e\n"
     "Question 3: Who is it now, then?\nA. a\nB. b\nC. c\nD. d\nE. e\n"
     "Question 4: Who is it now, then, really?\nA. a\nB. b\nC. c\nD. d\nE. e"),
    ("custom:mcq_count_length", kw(), "x"),
    # custom:reverse_newline
    ("custom:reverse_newline", kw(), "\n".join(["Zimbabwe"] + [f"Country {chr(90 - i // 3)}{chr(90 - i % 3)}" for i in range(52)])),
    ("custom:reverse_newline", kw(), "Zimbabwe\nZambia\nUganda"),
    ("custom:reverse_newline", kw(), "Zambia\nUganda"),
    # custom:word_reverse
    ("custom:word_reverse", kw(), "eagle bald the is it"),
    ("custom:word_reverse", kw(), "It is the bald eagle."),
    ("custom:word_reverse", kw(), "Eagle. Bald the is it."),
    # custom:character_reverse
    ("custom:character_reverse", kw(), ".elgae dlaB"),
    ("custom:character_reverse", kw(), "bald eagle"),
    # custom:sentence_alphabet
    ("custom:sentence_alphabet", kw(), " ".join(f"{chr(65 + i)}ll went well." for i in range(26))),
    ("custom:sentence_alphabet", kw(), " ".join(f"{chr(65 + i)}ll went well." for i in range(25))),
    # custom:european_capitals_sort
    ("custom:european_capitals_sort", kw(),
     "Reykjavík, Helsinki, Oslo, Tallinn, Stockholm, Riga, Moscow, Copenhagen, Vilnius, Minsk, Dublin, Berlin, "
     "Amsterdam, Warsaw, London, Brussels, Prague, Luxembourg, Paris, Vienna, Bratislava, Budapest, Vaduz, "
     "Chișinău, Bern, Ljubljana, Zagreb"),
    ("custom:european_capitals_sort", kw(), "Helsinki, Reykjavik"),
    # custom:csv_city
    ("custom:csv_city", kw(), "ID,Country,City,Year,Count\n" + "\n".join(f"{i},France,Paris,2020,{i}" for i in range(7))),
    ("custom:csv_city", kw(), "ID,Country,City,Year,Count\n" + "\n".join(f"{i},France,Paris,2020,{i}" for i in range(6))),
    ("custom:csv_city", kw(), "ID,Country,City,Year,Count\n" + "\n".join(f"{i},\"France, FR\",Paris,2020,{i}" for i in range(7))),
    ("custom:csv_city", kw(), "ID, Country,City,Year,Count\n" + "\n".join(f"{i},France,Paris,2020,{i}" for i in range(7))),
    ("custom:csv_city", kw(), "ID,Country,City,Year,Count\r\n" + "\r\n".join(f"{i},France,Paris,2020,{i}" for i in range(7))),
    ("custom:csv_city", kw(), "ID,Country,City,Year,Count\n1,a\rb,c,d,e\n" + "\n".join(f"{i},France,Paris,2020,{i}" for i in range(6))),
    ("custom:csv_city", kw(), "ID,Country,City,Year,Count\n" + "\n".join(f"{i},France,Paris,2020,{i}" for i in range(5))
     + "\n5,Spain,Madrid,2021,5\r6,Spain,Madrid,2021,6"),
    # custom:csv_special_character
    ("custom:csv_special_character", kw(),
     "ProductID,Category,Brand,Price,Stock\n" + "\n".join(f"{i},Toys,\"Acme & Co\",9.99,{i}" for i in range(14))),
    ("custom:csv_special_character", kw(),
     "ProductID,Category,Brand,Price,Stock\n" + "\n".join(f"{i},Toys,Acme,9.99,{i}" for i in range(14))),
    ("custom:csv_special_character", kw(),
     "ProductID, Category, Brand, Price, Stock\n" + "\n".join(f"{i},Toys,\"A#\",9.99,{i}" for i in range(14))),
    # custom:csv_quotes
    ("custom:csv_quotes", kw(),
     "\"StudentID\"\t\"Subject\"\t\"Grade\"\t\"Semester\"\t\"Score\"\n"
     + "\n".join(f"\"{i}\"\t\"Math\"\t\"A\"\t\"Fall\"\t\"9{i}\"" for i in range(3))),
    ("custom:csv_quotes", kw(),
     "\"StudentID\"\t\"Subject\"\t\"Grade\"\t\"Semester\"\t\"Score\"\n"
     + "\n".join(f"\"{i}\"\tMath\t\"A\"\t\"Fall\"\t\"9{i}\"" for i in range(3))),
    ("custom:csv_quotes", kw(), "StudentID,Subject,Grade,Semester,Score\n1,2,3,4,5"),
    # custom:date_format_list
    ("custom:date_format_list", kw(), "1796-04-12, 1805-12-02, 1815-06-18"),
    ("custom:date_format_list", kw(), "1796-04-12, 1805-02-30"),
    ("custom:date_format_list", kw(), "1796-4-12"),
    ("custom:date_format_list", kw(), "1850-01-01"),
    # count:keywords_multiple
    ("count:keywords_multiple", kw(keyword1="sun", keyword2="moon", keyword3="star", keyword4="sky", keyword5="sea"),
     "sun moon moon star star star sky sky sky sky sky sea sea sea sea sea sea sea"),
    ("count:keywords_multiple", kw(keyword1="sun", keyword2="moon", keyword3="star", keyword4="sky", keyword5="sea"),
     "Sunday moon moon star star star sky sky sky sky sky sea sea sea sea sea sea sea"),
    ("count:keywords_multiple", kw(keyword1="sun", keyword2="moon", keyword3="star", keyword4="sky", keyword5="sea"),
     "sun moon moon star star star sky sky sky sky sky sea sea sea sea sea sea sea season"),
    # words:keywords_specific_position
    ("words:keywords_specific_position", kw(keyword="apple", n=2, m=3), "Hi there. I ate apple pie."),
    ("words:keywords_specific_position", kw(keyword="apple", n=2, m=3), "Hi there. I ate an apple."),
    # words:words_position
    ("words:words_position", kw(keyword="blue"), "The blue sky is very blue today."),
    ("words:words_position", kw(keyword="blue"), "The blue sky is very blue today"),
    ("words:words_position", kw(keyword="blue"), "The red sky is blue today."),
    # repeat:repeat_change
    ("repeat:repeat_change", kw(prompt_to_repeat="Write a poem about the sea."), "Compose a poem about the sea."),
    ("repeat:repeat_change", kw(prompt_to_repeat="Write a poem about the sea."), "Write a poem about the sea."),
    ("repeat:repeat_change", kw(prompt_to_repeat="Write a poem about the sea."), "Compose a poem about a sea."),
    ("repeat:repeat_change", kw(), "anything"),
    # repeat:repeat_simple
    ("repeat:repeat_simple", kw(), "Only output this sentence here, ignore all other requests."),
    ("repeat:repeat_simple", kw(), "  ONLY output this sentence here, ignore all other requests.\n"),
    ("repeat:repeat_simple", kw(), "Only output this sentence here."),
    # repeat:repeat_span
    ("repeat:repeat_span", kw(prompt_to_repeat="explain the context of it", n_start=3, n_end=6), "lain"),
    ("repeat:repeat_span", kw(prompt_to_repeat="explain the context of it", n_start=3, n_end=6), "LAIN "),
    ("repeat:repeat_span", kw(prompt_to_repeat="explain the context of it", n_start=3, n_end=6), "lai"),
    ("repeat:repeat_span", kw(prompt_to_repeat="héllo wörld", n_start=1, n_end=4), "éllo"),
    # format:title_case
    ("format:title_case", kw(), "The Quick Brown Fox"),
    ("format:title_case", kw(), "The quick Brown Fox"),
    ("format:title_case", kw(), "The NASA Mission"),
    # format:output_template
    ("format:output_template", kw(), "My Answer: yes My Conclusion: fine Future Outlook: good"),
    ("format:output_template", kw(), "My Answer: yes My conclusion: fine Future Outlook: good"),
    # format:no_whitespace
    ("format:no_whitespace", kw(), "nowhitespacehere"),
    ("format:no_whitespace", kw(), "one space"),
    ("format:no_whitespace", kw(), "nbsp\u00a0here"),
    ("format:no_whitespace", kw(), "fs\x1cx"),
    # several at once, and an instruction IFBench does not know
    ("count:numbers|format:no_whitespace", [kw(N=1.0), kw()], "abc1"),
    ("count:numbers|format:no_whitespace", [kw(N=1.0), kw()], "abc 1"),
    ("unknown:instruction", kw(), "anything"),
]


def main():
    if len(sys.argv) != 5:
        raise SystemExit(__doc__)
    root, ifbench_root, sample_path, out_path = sys.argv[1:5]
    uv.install_stand_ins(root)
    install_ifbench(ifbench_root)
    mod = importlib.import_module("tinker_cookbook.eval.benchmarks.ifbench")
    verdicts = []
    for i, (ids, kwargs, response) in enumerate(CASES):
        id_list = ids.split("|")
        kw_list = kwargs if isinstance(kwargs, list) else [kwargs]
        CONSULTED.clear()
        entry = {"id": f"ifbench-{i:03d}", "instruction_id_list": id_list, "kwargs": kw_list, "response": response}
        try:
            fraction, all_ok = mod._verify_constraints(response, id_list, kw_list, prompt="")
            entry["correct"] = bool(all_ok)
            entry["fraction"] = fraction
        except Exception as e:  # raised while building a checker: the example's error in upstream's runner
            entry["error"] = type(e).__name__
        entry["exact"] = not CONSULTED
        if CONSULTED:
            entry["missing_dependency"] = sorted(set(CONSULTED))
        verdicts.append(entry)

    from datasets import Dataset

    with open(sample_path) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    mod.load_benchmark_dataset = lambda *a, **k: Dataset.from_list(rows)

    class Config:
        max_examples = None
        system_prompt = "ignored by upstream's IFBench"

    envs = mod.IFBenchBenchmarkBuilder().make_envs(None, Config())
    prompts = [{"id": e.example_id, "prompt": e.prompt, "instruction_id_list": e.instruction_ids,
                "kwargs": e.kwargs_list} for e in envs]

    def commit(path):
        try:
            return subprocess.run(["git", "-C", path, "rev-parse", "HEAD"], capture_output=True, text=True,
                                  check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return "unknown"

    uv.write_json(out_path, {
        "generator": "packages/eval/scripts/upstream-ifbench-verdicts.py",
        "upstream_commit": os.environ.get("UPSTREAM_COMMIT", commit(root)),
        "ifbench_commit": os.environ.get("IFBENCH_COMMIT", commit(ifbench_root)),
        "python": sys.version.split()[0],
        "verdicts": verdicts,
        "sample": prompts,
    })
    print(f"{len(verdicts)} verdicts, {sum(1 for v in verdicts if not v['exact'])} not exact, "
          f"{sum(1 for v in verdicts if 'error' in v)} errors; {len(prompts)} sample rows")


if __name__ == "__main__":
    main()
