#!/usr/bin/env python3
"""Reference logits for the engine's forward pass, computed by Hugging Face transformers' own model classes.

Writes, for each case below, a tiny random checkpoint and the logits transformers computes for a few tokens:

    packages/engine/src/__fixtures__/reference-logits/<case>/config.json        (as a checkpoint folder has it)
    packages/engine/src/__fixtures__/reference-logits/<case>/model.safetensors  (float32, as save_pretrained writes it)
    packages/engine/src/__fixtures__/reference-logits/<case>/expected.json      (input ids, logits, versions)

`packages/engine/src/reference-logits.test.ts` loads each folder through the engine's checkpoint loader and
compares its logprobs with these logits. CI never runs this script: it only reads the committed files.

How to run (CPU is enough; from the repository root):

    python3 -m venv .venv-reference
    .venv-reference/bin/pip install torch transformers safetensors
    .venv-reference/bin/python packages/engine/scripts/reference-logits.py

The weights are drawn from a seeded generator, so a rerun with the same torch version writes the same files.
The expected logits come from the checkpoint as transformers reloads it from the written folder (so they are
what transformers makes of exactly the committed config.json and weights), run in float64 with eager attention.
"""

import json
import math
import os
import shutil
import sys

import torch
import transformers
from transformers import AutoModelForCausalLM, LlamaConfig, LlamaForCausalLM, Qwen3Config, Qwen3ForCausalLM

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "src", "__fixtures__", "reference-logits")
SEQ_LEN = 16
VOCAB = 128

# `layout`: "legacy" writes `rope_theta` + `rope_scaling` at the top level (the layout of the Llama 3.x and Qwen3
# config.json files on the Hub); "v5" keeps the `rope_parameters` object that transformers 5 writes.
CASES = [
    {
        # Llama 3.1-style: untied head, GQA (2 query heads per KV head), Llama 3 RoPE scaling whose three bands
        # (unscaled, smoothed, divided by `factor`) all occur among the 8 frequencies.
        "name": "llama3-untied-gqa",
        "cls": LlamaForCausalLM,
        "layout": "legacy",
        "config": LlamaConfig(
            vocab_size=VOCAB,
            hidden_size=64,
            intermediate_size=64,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            head_dim=16,
            rms_norm_eps=1e-5,
            rope_theta=500000.0,
            rope_scaling={
                "rope_type": "llama3",
                "factor": 8.0,
                "low_freq_factor": 1.0,
                "high_freq_factor": 4.0,
                "original_max_position_embeddings": 64,
            },
            max_position_embeddings=512,
            tie_word_embeddings=False,
            bos_token_id=0,
            eos_token_id=1,
        ),
    },
    {
        # Llama 3.2-style: tied embeddings, one KV head for four query heads, factor 32, transformers 5 layout.
        "name": "llama3-tied-mqa",
        "cls": LlamaForCausalLM,
        "layout": "v5",
        "config": LlamaConfig(
            vocab_size=VOCAB,
            hidden_size=64,
            intermediate_size=64,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=1,
            head_dim=16,
            rms_norm_eps=1e-5,
            rope_theta=500000.0,
            rope_scaling={
                "rope_type": "llama3",
                "factor": 32.0,
                "low_freq_factor": 1.0,
                "high_freq_factor": 4.0,
                "original_max_position_embeddings": 64,
            },
            max_position_embeddings=512,
            tie_word_embeddings=True,
            bos_token_id=0,
            eos_token_id=1,
        ),
    },
    {
        # Qwen3-0.6B-style: per-head q/k RMSNorm, tied embeddings, head_dim * heads (64) != hidden size (32).
        "name": "qwen3-tied-gqa",
        "cls": Qwen3ForCausalLM,
        "layout": "v5",
        "config": Qwen3Config(
            vocab_size=VOCAB,
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            head_dim=16,
            rms_norm_eps=1e-6,
            rope_theta=1000000.0,
            max_position_embeddings=512,
            tie_word_embeddings=True,
            bos_token_id=0,
            eos_token_id=1,
        ),
    },
    {
        # Qwen3-8B-style: q/k norms, untied head, 3 query heads per KV head, legacy layout.
        "name": "qwen3-untied-gqa",
        "cls": Qwen3ForCausalLM,
        "layout": "legacy",
        "config": Qwen3Config(
            vocab_size=VOCAB,
            hidden_size=48,
            intermediate_size=64,
            num_hidden_layers=2,
            num_attention_heads=6,
            num_key_value_heads=2,
            head_dim=16,
            rms_norm_eps=1e-6,
            rope_theta=1000000.0,
            max_position_embeddings=512,
            tie_word_embeddings=False,
            bos_token_id=0,
            eos_token_id=1,
        ),
    },
]


def fill_weights(model, seed):
    """Seeded weights large enough that every part of the block moves the logits (the default init is tiny):
    matrices N(0, 1/fan_in), the embedding N(0, 0.25), every norm weight 1 + N(0, 0.04) so that swapping or
    misplacing a norm shows."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in sorted(model.named_parameters(), key=lambda kv: kv[0]):
            if p.ndim == 1:
                p.copy_(1 + 0.2 * torch.randn(p.shape, generator=g, dtype=torch.float64))
            elif name.endswith("embed_tokens.weight"):
                p.copy_(0.5 * torch.randn(p.shape, generator=g, dtype=torch.float64))
            else:
                p.copy_(torch.randn(p.shape, generator=g, dtype=torch.float64) / math.sqrt(p.shape[1]))


def to_legacy_layout(cfg):
    """Moves `rope_parameters` back to top-level `rope_theta` and `rope_scaling` (null for default RoPE)."""
    rp = cfg.pop("rope_parameters", None)
    if rp is None:
        return cfg
    rp = dict(rp)
    cfg["rope_theta"] = rp.pop("rope_theta")
    cfg["rope_scaling"] = None if rp.get("rope_type") == "default" else rp
    return cfg


def main():
    torch.manual_seed(0)
    for i, case in enumerate(CASES):
        d = os.path.join(OUT, case["name"])
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        model = case["cls"](case["config"]).to(torch.float32)
        fill_weights(model, 1000 + i)
        model.save_pretrained(d)
        os.remove(os.path.join(d, "generation_config.json"))
        cfg_file = os.path.join(d, "config.json")
        with open(cfg_file) as f:
            cfg = json.load(f)
        if case["layout"] == "legacy":
            cfg = to_legacy_layout(cfg)
        with open(cfg_file, "w") as f:
            json.dump(cfg, f, indent=2, sort_keys=True)
            f.write("\n")

        g = torch.Generator().manual_seed(2000 + i)
        ids = torch.randint(0, VOCAB, (1, SEQ_LEN), generator=g)
        ref = AutoModelForCausalLM.from_pretrained(d, dtype=torch.float64, attn_implementation="eager").eval()
        f32 = AutoModelForCausalLM.from_pretrained(d, dtype=torch.float32, attn_implementation="eager").eval()
        with torch.no_grad():
            logits = ref(ids).logits[0]
            logits32 = f32(ids).logits[0].to(torch.float64)
            written = model.eval()(ids).logits[0].to(torch.float64)
        # The folder as transformers reads it back (legacy layout included) is the model that was written.
        # (the in-memory model may use another attention kernel: equal up to float32 rounding)
        if not torch.allclose(written, logits32, rtol=0, atol=1e-5):
            diff = float((written - logits32).abs().max())
            raise SystemExit(f"{case['name']}: the reloaded checkpoint differs from the saved model by {diff}")
        expected = {
            "generator": "packages/engine/scripts/reference-logits.py",
            "model_class": case["cls"].__name__,
            "config_layout": case["layout"],
            "transformers_version": transformers.__version__,
            "torch_version": torch.__version__,
            "compute_dtype": "float64",
            "float32_max_abs_diff": float((logits - logits32).abs().max()),
            "input_ids": ids[0].tolist(),
            "logits": [[float(f"{v:.8g}") for v in row] for row in logits.tolist()],
        }
        with open(os.path.join(d, "expected.json"), "w") as f:
            json.dump(expected, f)
            f.write("\n")
        size = sum(os.path.getsize(os.path.join(d, n)) for n in os.listdir(d))
        print(f"{case['name']}: {size} bytes, |logits| max {float(logits.abs().max()):.3f}, "
              f"float32 vs float64 {expected['float32_max_abs_diff']:.2e}", file=sys.stderr)


if __name__ == "__main__":
    main()
