"""Records upstream's rubric formats for `rubric-format.test.ts` (never run by CI: the JSON it writes is committed).

Runs upstream's own `recipes/rubric/data.py` and `generate_data.py` (thinking-machines-lab/tinker-cookbook) on chosen
inputs: the judge prompt, the score extraction, the Prometheus mapping and the seeded data generator.
Recorded with Python 3.11 and upstream's main branch of 2026-11; chz and the renderers module are stubbed when
absent (data.py only takes type names from them).

Usage: python rubric-fixture.py UPSTREAM_CHECKOUT OUT_JSON
"""

import contextlib
import hashlib
import importlib.util
import io
import json
import os
import sys
import tempfile
import types


def stub_modules():
    try:
        import chz  # noqa: F401
    except ImportError:
        chz = types.ModuleType("chz")
        chz.chz = lambda cls: cls
        sys.modules["chz"] = chz
    for name in ["tinker_cookbook", "tinker_cookbook.recipes", "tinker_cookbook.recipes.rubric"]:
        if name not in sys.modules:
            mod = types.ModuleType(name)
            mod.__path__ = []
            sys.modules[name] = mod
    renderers = types.ModuleType("tinker_cookbook.renderers")
    renderers.Message = dict
    renderers.Role = str
    sys.modules["tinker_cookbook.renderers"] = renderers


def load(root, rel, name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(root, rel))
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def main():
    root, out = sys.argv[1], sys.argv[2]
    stub_modules()
    data = load(root, "tinker_cookbook/recipes/rubric/data.py", "tinker_cookbook.recipes.rubric.data")
    gen = load(root, "tinker_cookbook/recipes/rubric/generate_data.py", "tinker_cookbook.recipes.rubric.generate_data")
    Rubric = data.Rubric

    convos = [
        [{"role": "assistant", "content": "42"}],
        [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "What is 4 + 5?"},
            {"role": "assistant", "content": "9"},
            {"role": "user", "content": "What is 122 + 12?\nShow nothing else."},
            {"role": "assistant", "content": "134"},
        ],
        [
            {"role": "user", "content": "Call the tool."},
            {"role": "tool", "content": "{\"ok\": true}"},
            {"role": "assistant", "content": "Done: caf\u00e9 <score>1</score>"},
        ],
    ]
    rubrics = [
        Rubric(rubric_str="Does the chatbot correctly get the answer 134?"),
        Rubric(
            rubric_str="Is the reply polite?\nScore 1 if so.",
            extraction_regex=r"Score: ([0-9.]+)",
            grader_output_format_instruction="End with 'Score: x' where x is in [0, 1].",
        ),
    ]
    prompts = []
    for r in rubrics:
        for c in convos:
            prompts.append({"rubric": r.to_dict(), "convo": c, "prompt": r.get_grader_prompt(c)})

    responses = [
        "<score>0.75</score>",
        "The reply is right. <score> 1 </score>",
        "no score here",
        "<score>abc</score>",
        "<score>1_0</score>",
        "<score>.5</score>",
        "<score>1e-1</score>",
        "<score>0.3</score> and later <score>0.9</score>",
        "<score>\n0.4\n</score>",
        "<score>-2</score>",
        "<score>+3.</score>",
        "<score>INF</score>",
        "<score></score>",
        "<score>0x10</score>",
        "<score>1__0</score>",
        "Score: 0.8",
        "Score: 1.2.3",
    ]
    regexes = [r"<score>(.*?)</score>", r"<score>(.*)</score>", r"Score: ([0-9.]+)", r"(?P<s>\d+)/10"]
    scores = []
    for regex in regexes:
        r = Rubric(rubric_str="x", extraction_regex=regex)
        for resp in responses + ["7/10", "rated 10/10 twice 3/10"]:
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                value = r.extract_score(resp)
            warned = "Warning" in buf.getvalue()
            if not warned and (value != value or abs(value) == float("inf")):
                value = repr(value)  # JSON has no inf / nan: recorded as Python's repr
            scores.append({"regex": regex, "response": resp, "score": None if warned else value})

    row = {
        "orig_instruction": "Explain photosynthesis to a child.",
        "orig_criteria": "Is the explanation simple and accurate",
        "orig_reference_answer": "Plants use sunlight to make food from air and water.",
    }
    for i in range(1, 6):
        row[f"orig_score{i}_description"] = f"Description for score {i}."
    prom = json.loads(data.PrometheusDatapointListBuilder().build_rubric_datapoint(row).to_json())

    generated = []
    for num_train, num_test, seed in [(5, 3, 42), (4, 0, 0), (0, 2, 7)]:
        with tempfile.TemporaryDirectory() as d, contextlib.redirect_stdout(io.StringIO()):
            tr, te = gen.generate_dataset(num_train=num_train, num_test=num_test, seed=seed, write_dir=d)
            train, test = open(tr).read(), open(te).read()
        generated.append({"num_train": num_train, "num_test": num_test, "seed": seed, "train": train, "test": test})
    # Upstream's seed at a size where the rejection sampling of randint is exercised: recorded as a digest.
    with tempfile.TemporaryDirectory() as d, contextlib.redirect_stdout(io.StringIO()):
        tr, te = gen.generate_dataset(num_train=2000, num_test=500, seed=42, write_dir=d)
        digests = {k: hashlib.sha256(open(p, "rb").read()).hexdigest() for k, p in [("train", tr), ("test", te)]}
    generated_digest = {"num_train": 2000, "num_test": 500, "seed": 42, **digests}

    with open(out, "w") as f:
        json.dump({"prompts": prompts, "scores": scores, "prometheus": {"row": row, "datapoint": prom}, "generated": generated, "generated_digest": generated_digest}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
