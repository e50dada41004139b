#!/usr/bin/env python3
"""Upstream's `max_examples` subsets: which rows, in which order, upstream's builders keep when given a limit.

    python3 packages/eval/scripts/upstream-subsets.py UPSTREAM_CHECKOUT SAMPLES_DIR OUT.json

UPSTREAM_CHECKOUT is a checkout of the Python tinker-cookbook (the folder holding `tinker_cookbook/`); SAMPLES_DIR
is `data/native`; OUT.json is `src/native/__fixtures__/upstream-subsets.json`, which the TypeScript tests read. CI
never runs this script.

It writes three things:
- `python_shuffle` / `numpy_permutation`: `random.Random(42).shuffle(list(range(n)))` and
  `numpy.random.default_rng(42).permutation(n)` for a few sizes (the first 64 entries of each), the two shuffles
  upstream cuts subsets with;
- `synthetic`: for MMLU-Pro, MMLU-Redux, C-Eval and SuperGPQA, rows made up here (in each dataset's row format, some
  flagged or malformed as upstream's filters see them) and, for several limits, the example ids upstream's builder
  keeps, in order — its dataset loader replaced by one that returns those rows;
- `samples`: the same for the shipped offline samples with a limit of 2.

Nothing of upstream is copied: its builders are imported from the checkout (with the stand-ins of
`upstream-verdicts.py` for modules the builders do not need) and called as upstream calls them.

Generated with: Python 3.11.7, numpy 2.4.6, datasets 5.0.1; upstream tinker-cookbook commit written in the output.
"""

import importlib
import importlib.util
import json
import os
import random
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("upstream_verdicts", os.path.join(HERE, "upstream-verdicts.py"))
uv = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(uv)

SIZES = [1, 2, 3, 10, 100, 1000, 12032, 26529]
LIMITS = [1, 4, 7, 1000]
BUILDERS = {
    "mmlu_pro": ("mmlu_pro", "MMLUProBenchmarkBuilder"),
    "mmlu_redux": ("mmlu_redux", "MMLUReduxBenchmarkBuilder"),
    "ceval": ("ceval", "CEvalBenchmarkBuilder"),
    "supergpqa": ("supergpqa", "SuperGPQABenchmarkBuilder"),
}


def synthetic_rows(name):
    rows = []
    if name == "mmlu_pro":
        for i in range(40):
            rows.append({"question_id": 800000 + i, "question": f"Synthetic question {i}?",
                         "options": ["w", "x", "y", "z"], "answer": "ABCD"[i % 4], "answer_index": i % 4,
                         "cot_content": "", "category": ["math", "law"][i % 2], "src": "synthetic"})
    elif name == "supergpqa":
        for i in range(40):
            rows.append({"uuid": f"syn-{i:03d}", "question": f"Synthetic question {i}?",
                         "options": ["p", "q", "r", "s", "t"][: 4 + i % 2], "answer": "p", "answer_letter": "A",
                         "discipline": "Science", "field": "f", "subfield": "s", "difficulty": "easy",
                         "is_calculation": False})
    elif name == "mmlu_redux":
        for s, subject in enumerate(["virology", "anatomy", "astronomy"]):
            for i in range(10):
                flag = "ok" if i % 4 else "wrong_groundtruth"
                if s == 1 and i == 5:
                    flag = None
                rows.append({"_config": subject, "question": f"{subject} question {i}?",
                             "choices": ["a", "b", "c", "d"], "answer": i % 4, "error_type": flag,
                             "source": "synthetic", "correct_answer": None, "potential_reason": None})
    elif name == "ceval":
        for subject in ["logic", "computer_network", "physician"]:
            for i in range(10):
                rows.append({"_config": subject, "id": i, "question": f"{subject} 问题 {i}?", "A": "1", "B": "2",
                             "C": "3", "D": "4", "answer": "" if i == 3 else "ABCD"[i % 4], "explanation": ""})
    return rows


def run_builder(mods, name, rows, limit):
    from datasets import Dataset

    class Config:
        max_examples = limit
        system_prompt = None

    def load(path, name=None, split="test", trust_remote_code=None):
        picked = [r for r in rows if name is None or r.get("_config", name) == name]
        return Dataset.from_list([{k: v for k, v in r.items() if k != "_config"} for r in picked])

    module, cls = BUILDERS[name]
    mod = mods[module]
    mod.load_benchmark_dataset = load
    envs = getattr(mod, cls)().make_envs(None, Config())
    return [env.kwargs["message_env"].example_id for env in envs]


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    root, samples_dir, out_path = sys.argv[1:4]
    uv.install_stand_ins(root)
    mods = {m: importlib.import_module(f"tinker_cookbook.eval.benchmarks.{m}") for m, _ in BUILDERS.values()}
    python_shuffle, numpy_permutation = {}, {}
    for n in SIZES:
        order = list(range(n))
        random.Random(42).shuffle(order)
        python_shuffle[str(n)] = order[:64]
        numpy_permutation[str(n)] = np.random.default_rng(42).permutation(n)[:64].tolist()
    synthetic = {}
    for name in BUILDERS:
        rows = synthetic_rows(name)
        synthetic[name] = {"rows": rows, "picked": {str(k): run_builder(mods, name, rows, k) for k in LIMITS}}
    samples = {}
    for name in BUILDERS:
        with open(os.path.join(samples_dir, f"{name}.jsonl")) as f:
            rows = [json.loads(line) for line in f if line.strip()]
        samples[name] = run_builder(mods, name, rows, 2)
    try:
        commit = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True, text=True,
                                check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = os.environ.get("UPSTREAM_COMMIT", "unknown")
    uv.write_json(out_path, {
        "generator": "packages/eval/scripts/upstream-subsets.py",
        "upstream_commit": commit,
        "seed": 42,
        "python_shuffle": python_shuffle,
        "numpy_permutation": numpy_permutation,
        "synthetic": synthetic,
        "samples": samples,
    })
    print(f"wrote {out_path}")


if __name__ == "__main__":
    main()
