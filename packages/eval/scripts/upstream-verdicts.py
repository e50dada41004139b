#!/usr/bin/env python3
"""Upstream's verdicts on the grader cases: runs the benchmark message envs of an upstream checkout on each response.

    python3 packages/eval/scripts/upstream-verdicts.py CASES.json UPSTREAM_CHECKOUT OUT.json [SAMPLES_DIR PROMPTS.json]

CASES.json is `upstream-grader-cases.json` (written by `make-cases.mjs`); UPSTREAM_CHECKOUT is a checkout of the
Python tinker-cookbook (the folder holding `tinker_cookbook/`); OUT.json is the fixture the TypeScript test reads
(`src/native/__fixtures__/upstream-verdicts.json`). CI never runs this script.

Nothing of upstream is copied here: the script imports upstream's benchmark modules from the checkout and calls
each benchmark's own message env (`<Benchmark>MessageEnv(...).step(reply)`), so the verdict includes upstream's
extraction, normalisation and comparison exactly. Modules the graders do not use (the Tinker SDK, renderers, the
RL env wrappers, the benchmark registry) are replaced by small stand-ins before the import.

With SAMPLES_DIR (`data/native`, the shipped offline samples: dataset rows, one a line) and PROMPTS.json, it also
feeds each sample file to upstream's benchmark builder (its dataset loader replaced by one that returns the file's
rows) and writes, per row, the example id, the messages and the expected answer upstream builds from it
(`src/native/__fixtures__/upstream-prompts.json`).

Two optional grader dependencies are not installable here and are replaced by stand-ins that record being
called and raise (what upstream's own code does when they are missing): `pylatexenc` (MATH-500's LaTeX-to-text
step) and ANTLR for `sympy.parsing.latex.parse_latex` (HMMT's third strategy). A case whose grading consulted
one of them is written with `"exact": false`: its verdict is upstream's without that dependency, not upstream's
verdict with the dependency installed. Every other case is `"exact": true`.

Generated with: Python 3.11.7, sympy 1.14.0, datasets 5.0.1; upstream tinker-cookbook commit written in the output.
"""

import asyncio
import json
import os
import subprocess
import sys
import types


def stub(name, **attrs):
    mod = types.ModuleType(name)
    mod.__dict__.update(attrs)
    sys.modules[name] = mod
    return mod


CONSULTED = []


def install_stand_ins(root):
    class StepResult:
        def __init__(self, **kw):
            self.__dict__.update(kw)

    class Anything:
        def __init__(self, *a, **kw):
            self.args = a
            self.kwargs = kw

    pkg = lambda name, path=None: stub(name, __path__=[path] if path else [])  # noqa: E731
    pkg("tinker_cookbook", os.path.join(root, "tinker_cookbook"))
    pkg("tinker_cookbook.eval", os.path.join(root, "tinker_cookbook", "eval"))
    pkg("tinker_cookbook.eval.benchmarks", os.path.join(root, "tinker_cookbook", "eval", "benchmarks"))
    sys.modules["tinker_cookbook.eval.benchmarks"].register = lambda b: b
    stub(
        "tinker_cookbook.eval.benchmarks._types",
        BenchmarkBuilder=object,
        BenchmarkConfig=Anything,
        BenchmarkResult=Anything,
        Metrics=dict,
    )
    stub("tinker_cookbook.renderers", get_text_content=lambda m: m["content"], Message=dict)
    stub("tinker_cookbook.renderers.base", Message=dict, Renderer=object)
    pkg("tinker_cookbook.rl")
    stub(
        "tinker_cookbook.rl.message_env",
        EnvFromMessageEnv=Anything,
        MessageEnv=object,
        MessageStepResult=StepResult,
    )
    stub("tinker_cookbook.rl.types", Env=object, StepResult=StepResult)
    pkg("tinker_cookbook.recipes", os.path.join(root, "tinker_cookbook", "recipes"))
    pkg("tinker_cookbook.recipes.math_rl", os.path.join(root, "tinker_cookbook", "recipes", "math_rl"))
    stub("tinker")

    class LatexNodes2Text:
        def latex_to_text(self, expr):
            CONSULTED.append("pylatexenc")
            raise ImportError("pylatexenc is not installed")

    stub("pylatexenc")
    stub("pylatexenc.latex2text", LatexNodes2Text=LatexNodes2Text)
    sys.modules["pylatexenc"].latex2text = sys.modules["pylatexenc.latex2text"]

    import sympy.parsing.latex as spl

    def parse_latex(*a, **kw):
        CONSULTED.append("antlr4")
        raise ImportError("antlr4-python3-runtime is not installed")

    spl.parse_latex = parse_latex


def write_json(path, doc):
    with open(path + ".tmp", "w") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")
    os.replace(path + ".tmp", path)


def make_env(mods, case):
    b = case["benchmark"]
    if b == "gsm8k":
        return mods["gsm8k"].GSM8KMessageEnv("q", case["expected"])
    if b == "math500":
        return mods["math500"].MATH500MessageEnv("p", case["expected"])
    if b == "aime":
        return mods["aime"].AIMEMessageEnv("p", case["expected"])
    if b == "mmlu_pro":
        return mods["mmlu_pro"].MMLUProMessageEnv("p", case["expected"], case["valid_letters"])
    if b == "mmlu_redux":
        return mods["mmlu_redux"].MMLUReduxMessageEnv("p", case["expected"], "subject")
    if b == "gpqa":
        return mods["gpqa"].GPQAMessageEnv("p", case["expected"])
    if b == "ceval":
        return mods["ceval"].CEvalMessageEnv("p", case["expected"])
    if b == "supergpqa":
        return mods["supergpqa"].SuperGPQAMessageEnv("p", case["expected"], valid_letters=case["valid_letters"])
    if b == "hmmt":
        return mods["_hmmt"].HMMTMessageEnv("p", case["expected"])
    if b == "ifeval":
        return mods["ifeval"].IFEvalMessageEnv(
            [{"role": "user", "content": "p"}], case["instruction_id_list"], case["kwargs"]
        )
    raise SystemExit(f"unknown benchmark {b!r} in the cases")


BUILDERS = {
    "gsm8k": ("gsm8k", "GSM8KBenchmarkBuilder", ()),
    "math500": ("math500", "MATH500BenchmarkBuilder", ()),
    "aime_2025": ("aime", "_AIMEBenchmarkBuilder", ("2025", "aime_2025")),
    "aime_2026": ("aime", "_AIMEBenchmarkBuilder", ("2026", "aime_2026")),
    "hmmt_feb_2025": ("_hmmt", "_HMMTBenchmarkBuilder", ("feb_2025", "hmmt_feb_2025")),
    "hmmt_nov_2025": ("_hmmt", "_HMMTBenchmarkBuilder", ("nov_2025", "hmmt_nov_2025")),
    "mmlu_pro": ("mmlu_pro", "MMLUProBenchmarkBuilder", ()),
    "mmlu_redux": ("mmlu_redux", "MMLUReduxBenchmarkBuilder", ()),
    "gpqa": ("gpqa", "GPQABenchmarkBuilder", ()),
    "ceval": ("ceval", "CEvalBenchmarkBuilder", ()),
    "supergpqa": ("supergpqa", "SuperGPQABenchmarkBuilder", ()),
}


def upstream_prompts(mods, samples_dir):
    from datasets import Dataset

    class Config:
        max_examples = None
        system_prompt = None

    out = {}
    for name, (module, cls, args) in BUILDERS.items():
        with open(os.path.join(samples_dir, f"{name}.jsonl")) as f:
            rows = [json.loads(line) for line in f if line.strip()]

        def load(path, name=None, split="test", trust_remote_code=None, rows=rows):
            picked = [r for r in rows if name is None or r.get("_config", name) == name]
            return Dataset.from_list([{k: v for k, v in r.items() if k != "_config"} for r in picked])

        mod = mods[module]
        mod.load_benchmark_dataset = load
        envs = getattr(mod, cls)(*args).make_envs(None, Config())
        entries = []
        for env in envs:
            inner = env.kwargs["message_env"]
            entries.append(
                {
                    "id": inner.example_id,
                    "messages": asyncio.run(inner.initial_observation()),
                    "expected": str(inner.expected),
                }
            )
        out[name] = entries
    return out


def main():
    if len(sys.argv) not in (4, 6):
        raise SystemExit(__doc__)
    cases_path, root, out_path = sys.argv[1:4]
    install_stand_ins(root)
    import importlib

    names = ["gsm8k", "math500", "aime", "mmlu_pro", "mmlu_redux", "gpqa", "ceval", "supergpqa", "_hmmt", "ifeval"]
    mods = {n: importlib.import_module(f"tinker_cookbook.eval.benchmarks.{n}") for n in names}
    with open(cases_path) as f:
        cases = json.load(f)
    out = []
    for case in cases:
        CONSULTED.clear()
        env = make_env(mods, case)
        entry = {"benchmark": case["benchmark"], "id": case["id"]}
        try:
            res = asyncio.run(env.step({"role": "assistant", "content": case["response"]}))
            entry["correct"] = res.metrics["correct"] == 1.0
            entry["reward"] = res.reward
            if "extracted" in res.logs:
                entry["extracted"] = res.logs["extracted"]
            if "fraction" in res.metrics:
                entry["fraction"] = res.metrics["fraction"]
        except Exception as e:  # an exception is a verdict too: the runner records it as the example's error
            entry["error"] = type(e).__name__
        entry["exact"] = not CONSULTED
        if CONSULTED:
            entry["missing_dependency"] = sorted(set(CONSULTED))
        out.append(entry)
    try:
        commit = subprocess.run(
            ["git", "-C", root, "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = os.environ.get("UPSTREAM_COMMIT", "unknown")
    doc = {
        "generator": "packages/eval/scripts/upstream-verdicts.py",
        "upstream_commit": commit,
        "python": sys.version.split()[0],
        "verdicts": out,
    }
    write_json(out_path, doc)
    if len(sys.argv) == 6:
        prompts = upstream_prompts(mods, sys.argv[4])
        write_json(sys.argv[5], {"upstream_commit": commit, "benchmarks": prompts})
        print(f"prompts of {sum(len(v) for v in prompts.values())} sample rows")
    print(f"{len(out)} verdicts, {sum(1 for e in out if not e['exact'])} not exact, "
          f"{sum(1 for e in out if 'error' in e)} errors")


if __name__ == "__main__":
    main()
