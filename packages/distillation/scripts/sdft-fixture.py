"""Records upstream's SDFT teacher-side formats for `sdft-format.test.ts` (never run by CI: its JSON is committed).

Runs upstream's own `distillation/sdft.py` (thinking-machines-lab/tinker-cookbook): the demonstration template, the
top-K datums (`build_topk_distillation_datums`: skip the first 3 completion tokens, drop ids beyond the vocabulary,
renormalise) and the advantage form (`compute_sdft_advantages`) on hand-made datums and a scripted teacher.
Recorded with Python 3.11, torch 2.13 and upstream's main branch of 2026-11. The Tinker SDK, chz and the cookbook
modules sdft.py imports are stubbed (the recorded functions use only the small pieces stubbed here).

Usage: python sdft-fixture.py UPSTREAM_CHECKOUT OUT_JSON
"""

import asyncio
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import types

import torch


class Anything:
    """Stands for any name sdft.py imports but the recorded functions never call; works as a decorator."""

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]
        return Anything()

    def __getattr__(self, name):
        return Anything()

    def __or__(self, other):
        return self

    def __ror__(self, other):
        return self

    def __getitem__(self, item):
        return self


class StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Anything()


class StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        if fullname.split(".")[0] in ("tinker_cookbook", "chz"):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        return StubModule(spec.name)

    def exec_module(self, module):
        module.__path__ = []


class TensorData:
    def __init__(self, data):
        self.data = data

    def to_torch(self):
        return torch.tensor(self.data)

    @staticmethod
    def from_torch(t):
        return TensorData(t.tolist())


class ModelInput:
    def __init__(self, tokens):
        self.tokens = list(tokens)

    def append_int(self, t):
        return ModelInput(self.tokens + [int(t)])

    def to_ints(self):
        return list(self.tokens)

    @property
    def length(self):
        return len(self.tokens)


class Datum:
    def __init__(self, model_input, loss_fn_inputs):
        self.model_input = model_input
        self.loss_fn_inputs = loss_fn_inputs


def install_tinker():
    tinker = StubModule("tinker")
    tinker.TensorData = TensorData
    tinker.ModelInput = ModelInput
    tinker.Datum = Datum
    tinker.SamplingParams = lambda **kw: kw
    tinker.SamplingClient = object
    tinker_types = types.ModuleType("tinker.types")
    tinker_types.LossFnType = str
    tinker.types = tinker_types
    sys.modules["tinker"] = tinker
    sys.modules["tinker.types"] = tinker_types


def vocab_row(tokens, pos):
    """The scripted teacher's top-K at position pos: 6 entries, one id past the vocabulary (1000)."""
    base = (tokens[pos] * 7 + pos) % 50
    ids = [base + 1, base + 3, 1000 + pos, base + 5, base + 8, base + 13]
    lps = [-0.5 - 0.3 * k - 0.01 * pos for k in range(6)]
    return list(zip(ids, lps))


class Teacher:
    def __init__(self):
        self.sequences = []

    async def sample_async(self, prompt, num_samples, sampling_params, include_prompt_logprobs, topk_prompt_logprobs):
        toks = prompt.to_ints()
        self.sequences.append(toks)
        rows = [None] + [vocab_row(toks, p)[:topk_prompt_logprobs] for p in range(1, len(toks))]
        return types.SimpleNamespace(topk_prompt_logprobs=rows)

    async def compute_logprobs_async(self, prompt):
        toks = prompt.to_ints()
        self.sequences.append(toks)
        return [None] + [-0.1 * ((t * 3 + p) % 11) for p, t in enumerate(toks) if p > 0]


def rl_datum(prompt, completion, student_lps):
    """An RL datum as assemble_training_data builds it: inputs = full[:-1], targets = full[1:], mask on completion."""
    full = prompt + completion
    n = len(full) - 1
    mask = [0.0] * (len(prompt) - 1) + [1.0] * len(completion)
    logprobs = [0.0] * (len(prompt) - 1) + student_lps
    return Datum(
        ModelInput(full[:-1]),
        {
            "target_tokens": TensorData(full[1:]),
            "mask": TensorData(mask),
            "logprobs": TensorData(logprobs),
            "advantages": TensorData([0.0] * n),
        },
    )


def main():
    root, out = sys.argv[1], sys.argv[2]
    sys.meta_path.insert(0, StubFinder())
    install_tinker()
    spec = importlib.util.spec_from_file_location("sdft", os.path.join(root, "tinker_cookbook/distillation/sdft.py"))
    sdft = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sdft)

    templates = [
        {"question": "What is 2 + 2?", "golden_answer": "4"},
        {"question": "Name {braces} here", "golden_answer": "Line one\nLine two"},
    ]
    formatted = [dict(t, out=sdft.DEFAULT_DEMO_TEMPLATE.format(**t)) for t in templates]
    custom = "Q: {question}\nA: {golden_answer}\n{{literal}}"
    formatted.append({"template": custom, **templates[0], "out": custom.format(**templates[0])})

    # Two problems, three datums (ragged: completions of 6, 2 and 9 tokens), teacher prompts of 4 and 7 tokens.
    student_prompts = [[11, 12, 13], [21, 22, 23, 24, 25]]
    teacher_prompts = [ModelInput([31, 32, 33, 34]), ModelInput([41, 42, 43, 44, 45, 46, 47])]
    cases = [
        (0, [101, 102, 103, 104, 105, 106], [-1.0, -1.5, -0.2, -0.7, -2.0, -0.4]),
        (1, [201, 202], [-0.3, -0.9]),
        (1, [301, 302, 303, 304, 305, 306, 307, 308, 309], [-0.1 * (i + 1) for i in range(9)]),
    ]
    records = []
    for K, vocab, max_ctx in [(4, 1000, 32768), (6, None, 32768), (3, 1000, 12)]:
        data = [rl_datum(student_prompts[g], c, lps) for g, c, lps in cases]
        meta = [{"group_idx": g} for g, _, _ in cases]
        teacher = Teacher()
        datums, metrics = asyncio.run(
            sdft.build_topk_distillation_datums(
                data, meta, teacher, teacher_prompts, topk=K, max_context_length=max_ctx, vocab_size=vocab
            )
        )
        records.append({
            "K": K,
            "vocab_size": vocab,
            "max_context_length": max_ctx,
            "teacher_sequences": teacher.sequences,
            "target_tokens": [d.loss_fn_inputs["target_tokens"].data for d in datums],
            "weights": [d.loss_fn_inputs["weights"].data for d in datums],
            "metrics": metrics,
        })
    data = [rl_datum(student_prompts[g], c, lps) for g, c, lps in cases]
    meta = [{"group_idx": g} for g, _, _ in cases]
    teacher = Teacher()
    metrics = asyncio.run(sdft.compute_sdft_advantages(data, meta, teacher, teacher_prompts))
    advantages = {
        "teacher_sequences": teacher.sequences,
        "advantages": [d.loss_fn_inputs["advantages"].data for d in data],
        "metrics": metrics,
    }
    fixture = {
        "default_template": sdft.DEFAULT_DEMO_TEMPLATE,
        "formatted": formatted,
        "cases": [{"group": g, "student_prompt": student_prompts[g], "completion": c, "student_logprobs": l} for g, c, l in cases],
        "teacher_prompts": [p.to_ints() for p in teacher_prompts],
        "topk": records,
        "advantage": advantages,
    }
    with open(out, "w") as f:
        json.dump(fixture, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
