#!/usr/bin/env python3
"""Upstream's renderings of the upstream-parity conversations: runs the renderers of a Python tinker-cookbook checkout.

    node --conditions=@cookbook/source --import tsx scripts/upstream-parity-cases.ts CASES.json
    python3 scripts/upstream-renderer-parity.py CASES.json UPSTREAM_CHECKOUT OUT.json

CASES.json is written by `upstream-parity-cases.ts` (the rows of `src/__fixtures__/upstream-parity.ts`, their
conversations and the folder of each row's tokenizer files); UPSTREAM_CHECKOUT is a checkout of the Python
tinker-cookbook (the folder holding `tinker_cookbook/`), importable with its dependencies (the Tinker SDK, torch,
transformers, pillow); OUT.json is the fixture the TypeScript test reads (`src/__fixtures__/upstream-parity.json`).
CI never runs this script.

Nothing of upstream is copied here: for each row the script builds upstream's renderer of that name
(`tinker_cookbook.renderers.get_renderer`) on the row's tokenizer (its `tokenizer.json` loaded by transformers), and for
each conversation calls the renderer's own `create_conversation_prefix_with_tools` (or prepends the system message),
`build_generation_prompt` and `build_supervised_example`, exactly as the TypeScript side calls ours. It keeps, per
conversation, `<tokens>/<all>`: the first 16 hex digits of SHA-256 over the rendering's JSON without the weights, and
with them (the digests the test computes).

Generated with: Python 3.11.7, transformers 5.18.0, torch 2.13.0+cpu, the Tinker SDK at its checkout's HEAD; the
upstream tinker-cookbook commit is written into the output.
"""

import hashlib
import json
import subprocess
import sys


def main() -> None:
    if len(sys.argv) != 4:
        sys.exit("usage: upstream-renderer-parity.py CASES.json UPSTREAM_CHECKOUT OUT.json")
    cases_path, checkout, out_path = sys.argv[1:]
    sys.path.insert(0, checkout)

    import logging

    from transformers import PreTrainedTokenizerFast

    logging.disable(logging.WARNING)  # upstream warns on every ALL_ASSISTANT_MESSAGES example of some renderers

    from tinker_cookbook.renderers import get_renderer
    from tinker_cookbook.renderers.base import TrainOnWhat, ToolCall

    commit = subprocess.run(
        ["git", "-C", checkout, "rev-parse", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip() or "unknown"

    with open(cases_path, encoding="utf-8") as f:
        cases = json.load(f)

    tokenizers: dict = {}

    def tokenizer_for(folder: str, renames: dict):
        key = (folder, json.dumps(renames, sort_keys=True))
        if key not in tokenizers:
            if not renames:
                tokenizers[key] = PreTrainedTokenizerFast.from_pretrained(folder)
            else:  # the package's files with the added tokens the family renames, as the TypeScript side reads them
                import os
                import shutil
                import tempfile

                tmp = tempfile.mkdtemp()
                shutil.copy(os.path.join(folder, "tokenizer_config.json"), tmp)
                with open(os.path.join(folder, "tokenizer.json"), encoding="utf-8") as f:
                    tj = json.load(f)
                for t in tj.get("added_tokens", []):
                    if str(t["id"]) in renames:
                        t["content"] = renames[str(t["id"])]
                        t["special"] = False
                with open(os.path.join(tmp, "tokenizer.json"), "w", encoding="utf-8") as f:
                    json.dump(tj, f)
                tokenizers[key] = PreTrainedTokenizerFast.from_pretrained(tmp)
        return tokenizers[key]

    def to_upstream(message: dict) -> dict:
        out = dict(message)
        if isinstance(out.get("content"), list):
            parts = []
            for p in out["content"]:
                if p.get("type") == "image":
                    import base64
                    import io

                    from PIL import Image

                    parts.append({"type": "image", "image": Image.open(io.BytesIO(base64.b64decode(p["png_base64"])))})
                else:
                    parts.append(p)
            out["content"] = parts
        if "tool_calls" in out:
            out["tool_calls"] = [ToolCall.model_validate(tc) for tc in out["tool_calls"]]
        return out

    def flat(model_input) -> list:
        tokens: list = []
        for chunk in model_input.chunks:
            if hasattr(chunk, "tokens"):
                tokens.extend(int(t) for t in chunk.tokens)
            else:
                tokens.append(f"image:{chunk.expected_tokens}")
        return tokens

    def digest(rendering: dict) -> str:
        text = json.dumps(rendering, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    rows = []
    for row in cases["rows"]:
        renderer = get_renderer(row["name"], tokenizer_for(row["tokenizer_dir"], row.get("added_token_renames") or {}))
        if row.get("current_date") is not None:  # gpt-oss's system message: a fixed date on both sides
            renderer.current_date = row["current_date"]
        digests = []
        for c in row["conversations"]:
            messages = [to_upstream(m) for m in c["messages"]]
            try:
                if c["tools"] is not None:
                    prefix = renderer.create_conversation_prefix_with_tools(c["tools"], c["system_prompt"] or "")
                elif c["system_prompt"] is not None:
                    prefix = [{"role": "system", "content": c["system_prompt"]}]
                else:
                    prefix = []
                messages = prefix + messages
                if messages[-1]["role"] != "assistant":
                    rendering = {"prompt": flat(renderer.build_generation_prompt(messages))}
                else:
                    model_input, weights = renderer.build_supervised_example(
                        messages, TrainOnWhat(c["train_on_what"])
                    )
                    rendering = {
                        "prompt": flat(renderer.build_generation_prompt(messages[:-1])),
                        "supervised": {
                            "tokens": flat(model_input),
                            "weights": [1 if float(w) > 0 else 0 for w in weights.tolist()],
                        },
                    }
                tokens_only = {k: (v if k == "prompt" else {"tokens": v["tokens"]}) for k, v in rendering.items()}
                digests.append(f"{digest(tokens_only)}/{digest(rendering)}")
            except Exception as e:  # upstream refuses the conversation: the test expects ours to refuse it too
                digests.append(f"error: {type(e).__name__}: {e}"[:300])
        rows.append({"name": row["name"], "conversations": len(digests), "digests": digests})
        print(row["name"], sum(not d.startswith("error") for d in digests), "rendered", file=sys.stderr)

    with open(out_path, "w", encoding="utf-8") as f:
        json.dump({"upstream_commit": commit, "rows": rows}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
