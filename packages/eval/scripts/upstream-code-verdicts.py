#!/usr/bin/env python3
"""Upstream's examples and verdicts for the code benchmarks' offline samples.

    python3 packages/eval/scripts/upstream-code-verdicts.py UPSTREAM_CHECKOUT OUT.json

UPSTREAM_CHECKOUT is a checkout of the Python tinker-cookbook (the folder holding `tinker_cookbook/`); OUT.json is
the fixture the TypeScript test reads (`src/native/__fixtures__/upstream-code-verdicts.json`). CI never runs this.

Nothing of upstream is copied: the script imports upstream's `mbpp` and `_livecodebench` benchmark modules from the
checkout, feeds each shipped sample file (`data/native/<name>.jsonl`) to the benchmark's own builder (its dataset
loader replaced by one returning the file's rows) and writes, per row, the example id and the prompt upstream
builds. For MBPP it then plays upstream's own message env (`MBPPMessageEnv.step`) on a set of replies and writes its
verdicts; the env's sandbox is a stand-in that runs `python3` in a temporary folder (the replies are ours and
trusted). Upstream's `extract_python_code` is also applied to a few replies. The SDK, renderers and RL wrappers are
small stand-ins, as in `upstream-verdicts.py`.

Generated with: Python 3.11.7, datasets 5.0.1; upstream tinker-cookbook commit written in the output.
"""

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.join(HERE, "..", "data", "native")


def stub(name, **attrs):
    mod = types.ModuleType(name)
    mod.__dict__.update(attrs)
    sys.modules[name] = mod
    return mod


def install_stand_ins(root):
    class StepResult:
        def __init__(self, **kw):
            self.__dict__.update(kw)

    class Anything:
        def __init__(self, *a, **kw):
            self.args = a
            self.kwargs = kw

    def pkg(name, path=None):
        return stub(name, __path__=[path] if path else [])

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
    stub("tinker_cookbook.rl.message_env", EnvFromMessageEnv=Anything, MessageEnv=object, MessageStepResult=StepResult)
    stub("tinker_cookbook.rl.types", Env=object, StepResult=StepResult)
    stub("tinker")


class Result:
    def __init__(self, exit_code, stdout, stderr):
        self.exit_code = exit_code
        self.stdout = stdout
        self.stderr = stderr


class LocalSandbox:
    """Upstream's sandbox interface over a temporary folder: `/tmp/<file>` maps into it."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="upstream-code-")

    def _path(self, p):
        return os.path.join(self.dir, os.path.basename(p))

    async def write_file(self, path, content):
        with open(self._path(path), "w") as f:
            f.write(content)

    async def run_command(self, cmd, timeout=60):
        args = [self._path(a) if a.startswith("/tmp/") else a for a in cmd.split()]
        try:
            p = subprocess.run(args, capture_output=True, text=True, timeout=timeout, cwd=self.dir)
            return Result(p.returncode, p.stdout, p.stderr)
        except subprocess.TimeoutExpired:
            return Result(-1, "", "timeout")

    async def cleanup(self):
        pass


async def make_sandbox():
    return LocalSandbox()


class Config:
    max_examples = None
    system_prompt = None
    sandbox_factory = staticmethod(make_sandbox)


def rows_of(name):
    with open(os.path.join(SAMPLES, f"{name}.jsonl")) as f:
        return [json.loads(line) for line in f if line.strip()]


def loader(rows):
    from datasets import Dataset

    def load(path, name=None, split="test", trust_remote_code=None):
        return Dataset.from_list(rows)

    return load


# Replies to the first MBPP sample task (count_vowels) and to the second (point_distance, asserts use math).
GOOD = "def count_vowels(s):\n    return sum(c in 'aeiouAEIOU' for c in s)"
MBPP_REPLIES = [
    ("correct", 9001, f"Here it is:\n```python\n{GOOD}\n```"),
    ("wrong answer", 9001, "```python\ndef count_vowels(s):\n    return len(s)\n```"),
    ("crash", 9001, "```python\ndef count_vowels(s):\n    raise ValueError('no')\n```"),
    ("no code block", 9001, "Count the vowels with a loop over the string."),
    ("bare code, no fence", 9001, GOOD),
    ("plain fence", 9001, f"```\n{GOOD}\n```"),
    (
        "first python block wins",
        9001,
        f"```python\n{GOOD}\n```\nor, shorter:\n```python\ndef count_vowels(s):\n    return 0\n```",
    ),
    ("last plain block wins", 9001, f"```\ndef count_vowels(s):\n    return 0\n```\n```\n{GOOD}\n```"),
    (
        "asserts need an import the solution lacks",
        9002,
        "```python\ndef point_distance(x1, y1, x2, y2):\n    return ((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5\n```",
    ),
    (
        "solution imports what the asserts need",
        9002,
        "```python\nimport math\ndef point_distance(x1, y1, x2, y2):\n    return math.dist((x1, y1), (x2, y2))\n```",
    ),
]

EXTRACT = [
    "```python\nprint(1)\n```\n```python\nprint(2)\n```",
    "```\nprint(1)\n```\ntext\n```py\nprint(2)\n```",
    "```python   \nx = 1\n```",
    "no code at all  ",
    "```python\nprint(3)```",
]


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    root, out_path = sys.argv[1:3]
    install_stand_ins(root)
    import importlib

    mbpp = importlib.import_module("tinker_cookbook.eval.benchmarks.mbpp")
    lcb = importlib.import_module("tinker_cookbook.eval.benchmarks._livecodebench")
    common = importlib.import_module("tinker_cookbook.eval.benchmarks._common")

    mbpp.load_benchmark_dataset = loader(rows_of("mbpp"))
    envs = {}
    mbpp_examples = []
    for env in mbpp.MBPPBenchmarkBuilder().make_envs(None, Config()):
        inner = env.kwargs["message_env"]
        envs[inner.example_id] = inner
        messages = asyncio.run(inner.initial_observation())
        mbpp_examples.append({"id": inner.example_id, "messages": messages})
    verdicts = []
    for name, task, reply in MBPP_REPLIES:
        env = envs[f"mbpp_{task}"]
        asyncio.run(env.initial_observation())
        res = asyncio.run(env.step({"role": "assistant", "content": reply}))
        verdicts.append({"name": name, "example": f"mbpp_{task}", "response": reply, "correct": res.reward == 1.0})

    lcb.load_benchmark_dataset = loader(rows_of("livecodebench"))
    lcb_examples = [
        {"id": e.example_id, "prompt": e.prompt, "difficulty": e.difficulty}
        for e in lcb.LiveCodeBenchBenchmarkBuilder().make_envs(None, Config())
    ]

    try:
        commit = subprocess.run(
            ["git", "-C", root, "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = os.environ.get("UPSTREAM_COMMIT", "unknown")
    doc = {
        "generator": "packages/eval/scripts/upstream-code-verdicts.py",
        "upstream_commit": commit,
        "python": sys.version.split()[0],
        "mbpp": {"examples": mbpp_examples, "verdicts": verdicts},
        "livecodebench": {"examples": lcb_examples},
        "extract_python_code": [{"response": r, "code": common.extract_python_code(r)} for r in EXTRACT],
    }
    with open(out_path + ".tmp", "w") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")
    os.replace(out_path + ".tmp", out_path)
    print(f"{len(mbpp_examples)} MBPP and {len(lcb_examples)} LiveCodeBench examples, {len(verdicts)} verdicts")


main()
