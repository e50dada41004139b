"""Drive a running `cookbook serve` with the official Tinker Python SDK through every flow the service answers.

Manual check, not run by CI (CI has no Python SDK). See ../README.md ("Checking against the official SDK").
Usage: TINKER_BASE_URL=http://127.0.0.1:PORT TINKER_API_KEY=tml-... python official-sdk-flows.py [--via-load]
"""

import sys
import importlib.metadata

import tinker
from tinker import types

MODEL = "local/qwen3-tiny"


def datum(tokens):
    return types.Datum(
        model_input=types.ModelInput.from_ints(tokens[:-1]),
        loss_fn_inputs={"target_tokens": tokens[1:], "weights": [1.0] * (len(tokens) - 1)},
    )


def expect_error(what, fn, needle):
    try:
        r = fn()
        if hasattr(r, "result"):
            r.result()
    except Exception as e:  # noqa: BLE001 - any SDK error type is fine, the message is checked
        assert needle in str(e), f"{what}: {e}"
        print(f"  {what}: refused as expected ({type(e).__name__})")
        return
    raise AssertionError(f"{what}: expected an error")


def main():
    via_load = "--via-load" in sys.argv
    print("tinker SDK", importlib.metadata.version("tinker"))
    svc = tinker.ServiceClient()
    caps = svc.get_server_capabilities()
    assert any(m.model_name == MODEL for m in caps.supported_models)
    tc = svc.create_lora_training_client(base_model=MODEL, rank=4, user_metadata={"flow": "sdk"})
    batch = [datum([100 + i * 7 + j for j in range(10)]) for i in range(4)]
    fb = tc.forward_backward(batch, "cross_entropy")
    opt = tc.optim_step(types.AdamParams(learning_rate=1e-3))
    out = fb.result()
    opt.result()
    assert len(out.loss_fn_outputs) == 4 and "loss:sum" in out.metrics, out.metrics
    print("  forward_backward: loss:sum", round(out.metrics["loss:sum"], 4))
    fwd = tc.forward(batch[:2], "cross_entropy").result()
    assert len(fwd.loss_fn_outputs) == 2
    print("  forward (forward_only): logprobs shape", fwd.loss_fn_outputs[0]["logprobs"].shape)
    state = tc.save_state("s1").result()
    expect_error("save_state of an existing name", lambda: tc.save_state("s1").result(), "already exists")
    tc.save_state("s1", overwrite=True).result()
    named = tc.save_weights_for_sampler("w1").result()
    print("  saved", state.path, named.path)
    sc = tc.save_weights_and_get_sampling_client()
    prompt = types.ModelInput.from_ints([11, 12, 13, 14])
    res = sc.sample(prompt, 2, types.SamplingParams(max_tokens=4, seed=1)).result()
    assert len(res.sequences) == 2
    lps = sc.compute_logprobs(prompt).result()
    assert lps[0] is None and len(lps) == 4, lps
    topk = sc.sample(prompt, 1, types.SamplingParams(max_tokens=1), include_prompt_logprobs=True, topk_prompt_logprobs=2).result()
    print("  sample ok; compute_logprobs", [None if v is None else round(v, 3) for v in lps], "topk rows", len(topk.topk_prompt_logprobs or []))
    from_path = svc.create_sampling_client(model_path=named.path)
    from_path.sample(prompt, 1, types.SamplingParams(max_tokens=2)).result()
    resumed = svc.create_training_client_from_state_with_optimizer(state.path)
    resumed.forward_backward(batch[:1], "cross_entropy").result()
    resumed.optim_step(types.AdamParams()).result()
    print("  resumed from state (create via load_weights)" if via_load else "  resumed from state", resumed.model_id)
    rest = svc.create_rest_client()
    runs = rest.list_training_runs().result()
    assert any(r.training_run_id == tc.model_id for r in runs.training_runs)
    ckpts = rest.list_checkpoints(tc.model_id).result()
    print("  checkpoints", [c.checkpoint_id for c in ckpts.checkpoints])
    rest.list_user_checkpoints().result()
    rest.get_weights_info_by_tinker_path(state.path).result()
    rest.publish_checkpoint_from_tinker_path(named.path).result()
    rest.unpublish_checkpoint_from_tinker_path(named.path).result()
    rest.set_checkpoint_ttl_from_tinker_path(named.path, 600).result()
    url = rest.get_checkpoint_archive_url_from_tinker_path(named.path).result()
    print("  archive url", url.url[:60], "...")
    sess = rest.list_sessions().result()
    rest.get_session(sess.sessions[0]).result()
    rest.get_sampler(sc._sampling_session_id).result()
    expect_error("audit log", lambda: rest.get_audit_log(), "404")
    rest.delete_checkpoint_from_tinker_path(named.path).result()
    print("all flows passed")


if __name__ == "__main__":
    main()
