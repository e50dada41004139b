"""Records upstream's true-thinking-score pieces for `tts-format.test.ts` (never run by CI: its JSON is committed).

Runs upstream's own `recipes/true_thinking_score/tts.py` (thinking-machines-lab/tinker-cookbook) on chosen texts:
the step splitter, the self-verification test, `has_numbers`, the seeded number perturbation, and the whole
per-chain computation (`compute_tts_for_cot`) with the early-exit confidence replaced by a fixed function of the
prefix text, which records the prefixes upstream scores and the scores it derives from them.
Recorded with Python 3.11 and upstream's main branch of 2026-11; the Tinker SDK and the cookbook modules tts.py
imports are stubbed when absent (the recorded functions do not use them).

Usage: python tts-fixture.py UPSTREAM_CHECKOUT OUT_JSON
"""

import asyncio
import importlib.util
import json
import os
import random
import sys
import types


def stub_modules():
    for name in ["tinker", "tinker_cookbook", "tinker_cookbook.recipes", "tinker_cookbook.recipes.true_thinking_score"]:
        if name not in sys.modules:
            try:
                __import__(name)
            except ImportError:
                mod = types.ModuleType(name)
                mod.__path__ = []
                sys.modules[name] = mod
    tc = sys.modules["tinker_cookbook"]
    for sub in ["model_info", "renderers", "tokenizer_utils"]:
        full = f"tinker_cookbook.{sub}"
        if full not in sys.modules:
            mod = types.ModuleType(full)
            mod.get_tokenizer = lambda name: None
            mod.Renderer = object
            sys.modules[full] = mod
            setattr(tc, sub, mod)
    tinker = sys.modules["tinker"]
    if not hasattr(tinker, "SamplingClient"):
        tinker.SamplingClient = object
        tinker.ServiceClient = object


def confidence_of(prefix):
    """The stand-in confidence: a fixed function of the prefix text (the TS test's sampler computes the same)."""
    return (sum(ord(c) for c in prefix) % 97 + 1) / 98


COTS = [
    # upstream's own test texts
    "First, I need to find the sum of 1 to 10.\nWe know the formula is n*(n+1)/2.\nSo the answer is 10*11/2 = 55.\nTherefore the sum is 55.",
    "Let me calculate 5 * 12 = 60.\nWait, let me re-check that. 5 * 12 = 60. Yes, that's correct.\nTherefore the area is 60.",
    "Step 1: x = 5.\nOK.\nStep 2: y = x + 3 = 8.",
    "The answer is 42.",
    "",
    "   ",
    # chosen: markers at line starts, list items, headers, bold, short pieces, decimals, negatives, glued numbers
    "1. Compute 3.14 * 2 = 6.28\n2) Then add -7 to get -0.72\n## Check\n**Result**: x1 stays, 12a and a12 and 007.\nHmm.\nActually I think there's a mistake: 0.50 + 1.5 = 2.00",
    "Let's set up. Since the price is 20 dollars, and the discount is 15%, we pay 17.\nBut wait, tax of 8% applies.\nThis gives 18.36 in total.\nNo, that's wrong; Let me double-check: 17 * 1.08 = 18.36.\nHence 18.36.",
    "We can see no numbers here at all.\nThen we note nothing changes.\nFinally the answer follows from symmetry.",
    "Now\nNext\nThen\nFor each n, If n is odd, Because reasons. Given x.\nUsing the identity, Substituting gives, Computing, Calculating, Evaluating, Applying, Recall that.\nI notice 3 apples and I see 4.",
    "Let me think about 3 cases first.\nThen x equals 5 now\nThen x equals 15 now\nHmm, the count of 4 items is odd here.\nWait 2\nSo 19 chars exactly?",
    "caf\u00e9 r\u00e9sum\u00e9 costs 5 \u20ac.\n**\u00c9tape** one costs 10.\n# Title\n### Sub 3\n#### not a header 4\nThen it is 5 \U0001F600\U0001F600\U0001F600\U0001F600\U0001F600",
]


def main():
    root, out = sys.argv[1], sys.argv[2]
    stub_modules()
    spec = importlib.util.spec_from_file_location("tts", os.path.join(root, "tinker_cookbook/recipes/true_thinking_score/tts.py"))
    tts = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tts)

    steps = [{"cot": c, "steps": tts.segment_cot_steps(c), "steps_min5": tts.segment_cot_steps(c, min_step_chars=5)} for c in COTS]
    texts = []
    for c in COTS:
        for s in tts.segment_cot_steps(c):
            texts.append(s)
    texts += ["variable x1 equals y2", "The value is 0", "The answer is 100", "x = 10, y = 20, z = 30", "-0.5 and -3"]
    checks = [{"text": t, "has_numbers": tts.has_numbers(t), "self_verification": tts.is_self_verification_step(t)} for t in texts]
    perturbed = []
    for seed in [0, 1, 42, 12345]:
        rng = random.Random(seed)
        perturbed.append({"seed": seed, "texts": texts, "out": [tts.perturb_numbers(t, rng) for t in texts]})

    calls = []

    async def fake_confidence(sampling_client, renderer, question, cot_prefix, answer_str):
        calls.append(cot_prefix)
        return confidence_of(cot_prefix)

    tts.compute_early_exit_confidence = fake_confidence
    chains = []
    for i, c in enumerate(COTS):
        calls.clear()
        result = asyncio.run(tts.compute_tts_for_cot(None, None, "Q?", "55", c, seed=7 + i))
        chains.append({
            "cot": c,
            "seed": 7 + i,
            "prefixes": list(calls),
            "steps": [{"text": s.step_text, "tts": s.tts, "s1_c1": s.s1_c1, "s0_c1": s.s0_c1, "s1_c0": s.s1_c0, "s0_c0": s.s0_c0, "self_verification": s.is_self_verification} for s in result.step_scores],
            "summary": result.summary(),
        })

    with open(out, "w") as f:
        json.dump({"split": steps, "checks": checks, "perturbed": perturbed, "chains": chains}, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
