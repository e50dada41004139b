#!/usr/bin/env python3
"""The sampling distribution as Hugging Face transformers' logits processors define it, for the engine's sampler.

Writes packages/engine/src/__fixtures__/logits-warpers.json: a few rows of logits and, for each (temperature, top_k,
top_p), the probability vector transformers samples from: the row through TemperatureLogitsWarper, then
TopKLogitsWarper, then TopPLogitsWarper (the order `generate` applies them), then softmax. The engine's sampler test
(`sampling-distribution.test.ts`) computes its own probability vector for the same inputs and compares.

Logits are drawn from a seeded generator and rounded to float32 (what the engine holds); the processors run in
float64 on those values. Continuous random logits have no ties, so top-k's treatment of ties (transformers keeps
every token tied with the k-th) does not arise here.

Run from the repository root (CPU is enough): `python3 packages/engine/scripts/logits-warpers-fixture.py` with
torch and transformers installed. Written with transformers 5.18.0, torch 2.13.0, numpy 2.4.6.
"""

import json
import os

import numpy as np
import torch
import transformers
from transformers.generation.logits_process import (
    LogitsProcessorList,
    TemperatureLogitsWarper,
    TopKLogitsWarper,
    TopPLogitsWarper,
)

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "src", "__fixtures__", "logits-warpers.json")

CONFIGS = [
    # (temperature, top_k (0 = off), top_p (1 = off))
    (0.5, 0, 1.0),
    (1.5, 0, 1.0),
    (0.5, 5, 1.0),
    (1.5, 5, 1.0),
    (0.5, 0, 0.7),
    (1.5, 0, 0.9),
    (0.5, 8, 0.6),
    (1.5, 10, 0.8),
    (1.0, 3, 0.5),
    (1.5, 20, 0.95),
]


def main() -> None:
    rng = np.random.default_rng(47)
    rows = [
        (rng.standard_normal(40) * 2.0).astype(np.float32),
        (rng.standard_normal(40) * 4.0).astype(np.float32),  # peaked
        (rng.standard_normal(64) * 0.7).astype(np.float32),  # flat
    ]
    cases = []
    for r, row in enumerate(rows):
        scores = torch.tensor(row.astype(np.float64)).unsqueeze(0)
        for temperature, top_k, top_p in CONFIGS:
            procs = LogitsProcessorList()
            procs.append(TemperatureLogitsWarper(temperature))
            if top_k > 0:
                procs.append(TopKLogitsWarper(top_k))
            if top_p < 1.0:
                procs.append(TopPLogitsWarper(top_p))
            processed = procs(torch.zeros((1, 1), dtype=torch.long), scores.clone())
            probs = torch.softmax(processed, dim=-1)[0]
            cases.append(
                {
                    "row": r,
                    "temperature": temperature,
                    "top_k": top_k,
                    "top_p": top_p,
                    "probs": [float(p) for p in probs],
                }
            )
    out = {
        "generator": "packages/engine/scripts/logits-warpers-fixture.py",
        "versions": {"transformers": transformers.__version__, "torch": torch.__version__, "numpy": np.__version__},
        "rows": [[float(x) for x in row] for row in rows],
        "cases": cases,
    }
    tmp = OUT + ".tmp"
    with open(tmp, "w") as f:
        json.dump(out, f, indent=None)
        f.write("\n")
    os.replace(tmp, OUT)
    print(f"wrote {len(cases)} cases to {os.path.relpath(OUT)}")


if __name__ == "__main__":
    main()
