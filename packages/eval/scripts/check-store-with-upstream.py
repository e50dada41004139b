#!/usr/bin/env python3
"""Reads an eval store written by `cookbook eval` with upstream's own `EvalStore` (a manual compatibility check).

    python3 packages/eval/scripts/check-store-with-upstream.py EVAL_STORE UPSTREAM_CHECKOUT

Imports `tinker_cookbook.stores.eval_store` from the checkout (modules it does not use are replaced by stand-ins),
lists the runs, and reads a run's results, trajectories and summary through upstream's classes; it fails if upstream
cannot parse what this project wrote. CI never runs it. Checked with Python 3.11.7.
"""
import sys, types, os
root = sys.argv[2]
def stub(name, **a):
    m = types.ModuleType(name); m.__dict__.update(a); sys.modules[name] = m; return m
def pkg(name, path): return stub(name, __path__=[path])
pkg("tinker_cookbook", f"{root}/tinker_cookbook")
pkg("tinker_cookbook.stores", f"{root}/tinker_cookbook/stores")
pkg("tinker_cookbook.eval", f"{root}/tinker_cookbook/eval")
pkg("tinker_cookbook.eval.benchmarks", f"{root}/tinker_cookbook/eval/benchmarks")
stub("tinker", SamplingClient=object)
stub("tinker_cookbook.renderers"); stub("tinker_cookbook.renderers.base", Renderer=object, Message=dict)
stub("tinker_cookbook.rl"); stub("tinker_cookbook.rl.types", Env=object)
from tinker_cookbook.stores.eval_store import EvalStore
s = EvalStore(sys.argv[1])
runs = s.list_runs()
assert runs, "no runs"
for run in runs:
    print(f"{run.run_id}: model {run.model_name}, checkpoint {run.checkpoint_name}, scores {run.scores}")
    for name in s.list_benchmarks(run.run_id):
        r = s.read_result(run.run_id, name)
        assert r is not None, f"upstream cannot parse {name}/result.json"
        t = s.read_trajectories(run.run_id, name)
        assert len(t) == r.num_examples, f"{name}: {len(t)} trajectories, num_examples {r.num_examples}"
        print(f"  {name}: score {r.score} of {r.num_examples}, {len(r.metrics)} metrics, {len(t)} trajectories")
    assert s.read_summary(run.run_id) is not None
