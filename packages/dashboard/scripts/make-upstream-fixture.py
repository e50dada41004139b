"""Writes src/__fixtures__/upstream-run and src/__fixtures__/upstream-evals: run and eval folders in the Python
cookbook's layout, for the dashboard's tests (they must open the same way as this project's folders).

The formats follow the Python cookbook at commit 9dfcc3a2cf44432d621a01005073dc6d76a1e87a (August 2026):
- metrics.jsonl: one `{"step": N, ...metrics}` object per line (TrainingRunStore.write_metrics);
- checkpoints.jsonl: `{"name", "batch", "final"?, "state_path", "sampler_path"}` (CheckpointRecord.to_dict);
- config.json: the run's config as nested JSON;
- iteration_NNNNNN/train_rollout_summaries.jsonl: one record per trajectory with schema_version, split, iteration,
  group_idx, traj_idx, tags, sampling_client_step, total_reward, final_reward, trajectory_metrics, steps
  [{step_idx, ob_len, ac_len, reward, episode_done, metrics, logs}], final_ob_len (serialize_rollout_summaries);
- iteration_NNNNNN/train_logtree.json: Trace.to_dict, `{"title", "started_at", "path", "root"}` with nodes
  `{"tag", "attrs", "children", "data"?}`; a conversation node carries `data = {"type": "conversation",
  "messages": [...]}` with messages as message_to_jsonable writes them (tool calls as
  `{"type": "function", "id", "function": {"name", "arguments"}}`);
- evals: `<dir>/<benchmark>/result.json` (name, score, num_examples, num_correct, num_errors, num_truncated,
  metrics, time_seconds, pass_at_k) and `<dir>/<benchmark>/trajectories.jsonl` (idx, benchmark, example_id, turns
  [{role, content, token_count, metadata}], reward, metrics, logs, error, time_seconds).

The logtree shape was checked against the JSON upstream's logtree module writes for a trace with one header and
one conversation formatter. Deterministic (seeded); standard library only. Run: python3 make-upstream-fixture.py (from this folder).
"""

import json
import random
import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIX = HERE.parent / "src" / "__fixtures__"
rng = random.Random(44)


def write_jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def run_folder() -> None:
    run = FIX / "upstream-run"
    shutil.rmtree(run, ignore_errors=True)
    run.mkdir(parents=True)
    config = {
        "model_name": "Qwen/Qwen3-4B-Instruct-2507",
        "learning_rate": 4e-5,
        "lora_rank": 32,
        "log_path": "/tmp/tinker-examples/math_rl/run-1",
        "max_tokens": 256,
        "dataset_builder": {"batch_size": 4, "group_size": 2, "env": "arithmetic"},
    }
    (run / "config.json").write_text(json.dumps(config, indent=2))
    steps = 12
    metrics = []
    for step in range(steps):
        reward = min(1.0, 0.1 + 0.07 * step + rng.uniform(-0.05, 0.05))
        metrics.append(
            {
                "step": step,
                "progress/batch": step,
                "optim/lr": 4e-5,
                "env/all/reward/total": round(reward, 4),
                "env/all/ac_tokens_per_turn": round(40 + rng.uniform(-5, 5), 2),
                "entropy": round(1.2 - 0.05 * step, 4),
                "time/total": round(3 + rng.uniform(0, 1), 3),
            }
        )
    write_jsonl(run / "metrics.jsonl", metrics)
    base = "tinker://5f2c7a1e-upstream-run:train:0"
    write_jsonl(
        run / "checkpoints.jsonl",
        [
            {"name": "000005", "batch": 5, "state_path": f"{base}/weights/000005", "sampler_path": f"{base}/sampler_weights/000005"},
            {"name": "final", "batch": steps, "final": True, "state_path": f"{base}/weights/final", "sampler_path": f"{base}/sampler_weights/final"},
        ],
    )
    for it in range(steps):
        records = []
        for g in range(4):
            tag = "arithmetic" if g < 3 else "tool_use"
            for t in range(2):
                reward = float(rng.random() < 0.1 + 0.07 * it)
                truncated = rng.random() < 0.1
                records.append(
                    {
                        "schema_version": 1,
                        "split": "train",
                        "iteration": it,
                        "group_idx": g,
                        "traj_idx": t,
                        "tags": [tag],
                        "sampling_client_step": it,
                        "total_reward": reward,
                        "final_reward": reward,
                        "trajectory_metrics": {"correct": reward},
                        "steps": [
                            {
                                "step_idx": 0,
                                "ob_len": 57,
                                "ac_len": 256 if truncated else 31,
                                "reward": reward,
                                "episode_done": True,
                                "metrics": {"format": 1.0},
                                "logs": {"stop_reason": "length" if truncated else "stop"},
                            }
                        ],
                        "final_ob_len": 88,
                    }
                )
        write_jsonl(run / f"iteration_{it:06d}" / "train_rollout_summaries.jsonl", records)
        if it in (0, steps - 1):
            (run / f"iteration_{it:06d}" / "train_logtree.json").write_text(json.dumps(logtree(it), indent=2))


def conversation(question: str, answer: str) -> dict:
    messages = [
        {"role": "user", "content": question},
        {
            "role": "assistant",
            "content": "Let me compute that.",
            "tool_calls": [
                {"type": "function", "id": "call_0", "function": {"name": "calculator", "arguments": json.dumps({"expression": question})}}
            ],
        },
        {"role": "tool", "content": answer, "tool_call_id": "call_0"},
        # Model output is untrusted text: markup and escapes must be shown, not interpreted.
        {"role": "assistant", "content": f"The answer is \\boxed{{{answer}}} <script>alert('x')</script> \u001b[31mred\u001b[0m"},
    ]
    return {"tag": "div", "attrs": {}, "children": [], "data": {"type": "conversation", "messages": messages}}


def logtree(it: int) -> dict:
    groups = []
    for g in range(2):
        a, b = 3 + g + it, 4 + 2 * g
        groups.append(
            {
                "tag": "section",
                "attrs": {"class": "lt-section"},
                "children": [
                    {"tag": "h2", "attrs": {"class": "lt-h2"}, "children": [f"Group {g}"]},
                    {
                        "tag": "div",
                        "attrs": {"class": "lt-section-body"},
                        "children": [
                            conversation(f"{a} * {b}", str(a * b)),
                            {"tag": "p", "attrs": {"class": "lt-p"}, "children": [f"reward: {1.0 if g == 0 else 0.0}"]},
                        ],
                    },
                ],
            }
        )
    return {
        "title": f"RL Iteration {it}",
        "started_at": f"2026-08-19T12:{it:02d}:00",
        "path": f"/tmp/tinker-examples/math_rl/run-1/iteration_{it:06d}/train.html",
        "root": {
            "tag": "body",
            "attrs": {"class": "lt-root"},
            "children": [{"tag": "h1", "attrs": {"class": "lt-title"}, "children": [f"RL Iteration {it}"]}, *groups],
        },
    }


def eval_folders() -> None:
    out = FIX / "upstream-evals"
    shutil.rmtree(out, ignore_errors=True)
    for name, p in (("base", 0.4), ("trained", 0.7)):
        local = random.Random(f"{name}-44")
        rows = []
        for i in range(20):
            correct = local.random() < p
            rows.append(
                {
                    "idx": i,
                    "benchmark": "gsm8k",
                    "example_id": f"gsm8k-{i:03d}",
                    "turns": [
                        {"role": "user", "content": f"Question {i}: what is {i} + {i}?", "token_count": 12, "metadata": {}},
                        {"role": "assistant", "content": f"\\boxed{{{2 * i if correct else 2 * i + 1}}}", "token_count": 9, "metadata": {}},
                    ],
                    "reward": 1.0 if correct else 0.0,
                    "metrics": {"correct": 1.0 if correct else 0.0},
                    "logs": {},
                    "error": None,
                    "time_seconds": 0.5,
                }
            )
        write_jsonl(out / name / "gsm8k" / "trajectories.jsonl", rows)
        n_correct = sum(1 for r in rows if r["reward"] > 0)
        result = {
            "name": "gsm8k",
            "score": n_correct / len(rows),
            "num_examples": len(rows),
            "num_correct": n_correct,
            "num_errors": 0,
            "num_truncated": 0,
            "metrics": {"accuracy": n_correct / len(rows)},
            "time_seconds": 10.0,
            "pass_at_k": {"1": n_correct / len(rows)},
        }
        (out / name / "gsm8k" / "result.json").write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    run_folder()
    eval_folders()
