#!/usr/bin/env python3
"""Reference policy losses and advantages computed by TRL's GRPO trainer, for the engine's and rl's tests.

Written with TRL 1.13.0 and PyTorch 2.13.0 (CPU), float64 throughout. Writes:

    packages/engine/src/__fixtures__/trl-losses.json   the built-in losses (importance_sampling, ppo, cispo, dro)
    packages/rl/src/__fixtures__/trl-algorithms.json   per-algorithm losses (GRPO, Dr. GRPO, DAPO, GSPO ...) and
                                                      the advantage estimators

How the numbers come from TRL, not from formulas written here: every loss is `GRPOTrainer._compute_loss` itself,
called unbound on a stand-in `self` that carries only the attributes that method reads (loss_type, epsilons,
importance_sampling_level, ...), with `_get_per_token_logps_and_entropies` replaced by one that returns a leaf tensor
of policy logprobs (so no model is needed) and `old_per_token_logps` set to the sampler's logprobs. The loss is TRL's
return value; the gradient is `torch.autograd` on it with respect to the policy logprobs. The per-token loss of a
token-level loss is TRL's loss with a mask holding that one token (loss_type "dapo", `num_items_in_batch` 1, which
reduces to the token's own term). The stand-in runs in eval mode, so no gradient-accumulation factor enters.

Where TRL has no counterpart the fixture is the paper's or the hosted docs' formula written in PyTorch here:
- `dro`: the hosted docs' DRO page, `-(lp*A - 0.5*beta*(lp - q)**2)` summed.
- GRPO advantages: the lines of `GRPOTrainer._generate_and_score_completions` (TRL 1.13) that centre rewards on the
  group mean and divide by the group's standard deviation + 1e-4, using TRL's own `nanstd` (unbiased).
- RLOO advantages: Ahmadian et al. 2024 ("Back to Basics", arXiv 2402.14740) eq. for the leave-one-out baseline,
  r_i - mean_{j != i} r_j (TRL's RLOOTrainer computes the same baseline).
- REINFORCE++ advantages: Hu 2025 (arXiv 2501.03262): each token's return (gamma 1, the outcome reward on the
  response's last token, summed backwards) normalised over every response token of the batch, as the paper's own
  framework computes it (OpenRLHF's experience maker: masked mean and masked variance over the batch's action tokens,
  (A - mean) * rsqrt(max(var, 1e-8))). A trajectory's rollouts thus weigh by their token counts.
- REINFORCE++ w/ Baseline (the same paper's variant for group sampling; OpenRLHF's `reinforce_baseline`): the
  reward minus its group's mean, then the same whitening over the batch's response tokens.
- Overlong reward shaping: Yu et al. 2025 (DAPO, arXiv 2503.14476) eq. 13, the soft overlong punishment.

CI never runs this script: it only reads the committed JSON. To rerun (from the repository root):

    python3 -m venv .venv-trl && .venv-trl/bin/pip install torch==2.13.0 trl==1.13.0
    .venv-trl/bin/python packages/engine/scripts/trl-loss-fixtures.py

The batch is drawn from a seeded generator, so a rerun with the same versions writes the same files.
"""

import json
import os
import types
from collections import defaultdict

import torch
import trl
from trl.trainer.grpo_trainer import GRPOTrainer
from trl.trainer.utils import nanstd

torch.set_default_dtype(torch.float64)
HERE = os.path.dirname(os.path.abspath(__file__))
ENGINE_OUT = os.path.join(HERE, "..", "src", "__fixtures__", "trl-losses.json")
RL_OUT = os.path.join(HERE, "..", "..", "rl", "src", "__fixtures__", "trl-algorithms.json")

# Ragged completions in three groups of three; the middle group's rewards are constant (every advantage 0).
LENGTHS = [5, 3, 7, 1, 4, 6, 2, 8, 5]
ADVANTAGES = [1.2, -0.4, -0.8, 0.0, 0.0, 0.0, 0.5, -1.5, 1.0]
MAX_COMPLETION_LENGTH = 8  # Dr. GRPO's constant divisor
# REINFORCE++'s batch: the trained tokens of each rollout of the estimator fixture's groups (ragged).
RP_TOKENS = [[3, 5, 1, 7], [2, 2, 4, 6], [8, 1, 3, 5]]


def batch(seed):
    """Sampler logprobs q and policy logprobs lp that differ from them (ratios roughly 0.4 .. 2.5)."""
    g = torch.Generator().manual_seed(seed)
    B, T = len(LENGTHS), max(LENGTHS)
    mask = torch.zeros(B, T)
    for i, n in enumerate(LENGTHS):
        mask[i, :n] = 1
    q = -torch.rand(B, T, generator=g) * 3 - 0.05
    lp = q + torch.randn(B, T, generator=g) * 0.45
    return mask, q * mask, lp * mask


class _Accelerator:
    num_processes = 1
    sync_gradients = True

    def gather(self, x):
        return x

    def reduce(self, x, reduction="sum"):
        return x

    def gather_for_metrics(self, x):
        return x


def trl_loss(loss_type, mask, q, lp, adv, eps_low, eps_high, level="token", num_items=None):
    """TRL's `GRPOTrainer._compute_loss` on these tensors: (loss, d loss / d lp)."""
    lp = lp.clone().requires_grad_(True)
    B, T = mask.shape
    stub = types.SimpleNamespace(
        _get_per_token_logps_and_entropies=lambda *a, **k: (lp, torch.zeros(B, T), None),
        top_entropy_quantile=1.0,
        off_policy_mask_threshold=None,
        importance_sampling_level=level,
        beta=0.0,
        loss_type=loss_type,
        epsilon_low=eps_low,
        epsilon_high=eps_high,
        args=types.SimpleNamespace(delta=None, use_bias_correction_kl=False, steps_per_generation=1),
        use_vllm=False,
        vllm_importance_sampling_correction=False,
        model=types.SimpleNamespace(training=False),
        current_gradient_accumulation_steps=1,
        max_completion_length=MAX_COMPLETION_LENGTH,
        accelerator=_Accelerator(),
        _metrics={"train": defaultdict(list), "eval": defaultdict(list)},
        aux_loss_enabled=False,
        _entropy_bonus_enabled=False,
    )
    inputs = {
        "prompt_ids": torch.zeros(B, 1, dtype=torch.long),
        "prompt_mask": torch.ones(B, 1, dtype=torch.long),
        "completion_ids": torch.zeros(B, T, dtype=torch.long),
        "completion_mask": mask,
        "advantages": torch.tensor(adv),
        "old_per_token_logps": q,
        "num_items_in_batch": torch.tensor(float(mask.sum() if num_items is None else num_items)),
    }
    loss = GRPOTrainer._compute_loss(stub, None, inputs)
    (grad,) = torch.autograd.grad(loss, lp)
    return loss.item(), grad


def per_token_losses(loss_type, mask, q, lp, adv, eps_low, eps_high):
    """Each token's own term: TRL's loss with a mask holding only that token (`dapo`/`cispo` divide by 1 item)."""
    out = torch.zeros_like(mask)
    for i, n in enumerate(LENGTHS):
        for t in range(n):
            one = torch.zeros_like(mask)
            one[i, t] = 1
            out[i, t], _ = trl_loss(loss_type, one, q, lp, adv, eps_low, eps_high, num_items=1)
    return out


def ragged(x):
    return [[float(v) for v in x[i, :n]] for i, n in enumerate(LENGTHS)]


def token_weights(aggregation, mask):
    """The weight of each token that turns a summed loss into TRL's aggregation."""
    B = mask.shape[0]
    lengths = mask.sum(-1, keepdim=True)
    if aggregation == "sequence":  # grpo: mean over each sequence's tokens, then over sequences
        return mask / lengths.clamp(min=1) / B
    if aggregation == "token":  # bnpo / dapo: mean over every token of the batch
        return mask / mask.sum()
    if aggregation == "constant":  # dr_grpo: sum / (B * max_completion_length)
        return mask / (B * MAX_COMPLETION_LENGTH)
    raise ValueError(aggregation)


def coverage(q, lp, mask, adv, lo, hi):
    """Counts of clipped and unclipped tokens by the sign of the advantage, so the batch is known to exercise both."""
    r = torch.exp(lp - q)
    a = torch.tensor(adv).unsqueeze(1).expand_as(r)
    on = mask > 0
    return {
        "clipped_high_pos_adv": int(((r > hi) & (a > 0) & on).sum()),
        "clipped_low_neg_adv": int(((r < lo) & (a < 0) & on).sum()),
        "outside_unclipped": int((((r > hi) & (a < 0)) | ((r < lo) & (a > 0))).logical_and(on).sum()),
        "inside": int(((r >= lo) & (r <= hi) & on).sum()),
    }


def main():
    mask, q, lp = batch(42)
    common = {"lengths": LENGTHS, "advantages": ADVANTAGES, "sampler_logprobs": ragged(q), "logprobs": ragged(lp)}
    versions = {"trl": trl.__version__, "torch": torch.__version__}

    # --- the engine's built-in losses, each with the token weights of TRL's "dapo" (bnpo) aggregation ---
    w = token_weights("token", mask)
    engine_cases = []

    def engine_case(name, loss_fn, loss_fn_config, trl_type, eps_low, eps_high, note):
        loss, grad = trl_loss(trl_type, mask, q, lp, ADVANTAGES, eps_low, eps_high)
        per_tok = per_token_losses(trl_type, mask, q, lp, ADVANTAGES, eps_low, eps_high)
        engine_cases.append(
            {
                "name": name,
                "loss_fn": loss_fn,
                "loss_fn_config": loss_fn_config,
                "trl": {"loss_type": trl_type, "epsilon": eps_low, "epsilon_high": eps_high},
                "note": note,
                "weights": ragged(w),
                "loss": loss,
                "token_loss": ragged(per_tok * w),
                "grad": ragged(grad),
            }
        )

    engine_case(
        "importance_sampling",
        "importance_sampling",
        {},
        "dapo",
        1e9,
        1e9,
        "TRL's dapo loss with epsilon 1e9: the clip never binds, min(rA, clip(r)A) = rA",
    )
    engine_case("ppo", "ppo", {}, "dapo", 0.2, 0.2, "TRL's dapo loss with epsilon 0.2 = ppo's default 0.8 / 1.2")
    engine_case(
        "ppo_clip_higher",
        "ppo",
        {"clip_low_threshold": 0.8, "clip_high_threshold": 1.28},
        "dapo",
        0.2,
        0.28,
        "DAPO's clip-higher (epsilon_low 0.2, epsilon_high 0.28)",
    )
    engine_case(
        "cispo",
        "cispo",
        {},
        "cispo",
        0.0,
        4.0,
        "TRL's cispo clamps the detached ratio at epsilon_high (4.0 = the hosted default cap, lower bound 0)",
    )
    engine_case(
        "cispo_tight",
        "cispo",
        {"clip_low_threshold": 0.0, "clip_high_threshold": 1.1},
        "cispo",
        0.0,
        1.1,
        "a cap that binds on many tokens",
    )
    # The aggregations of TRL's other loss types: the engine's ppo with each one's token weights equals them.
    for name, trl_type, eps_high, aggregation in [
        ("grpo_sequence_mean", "grpo", 0.2, "sequence"),
        ("bnpo_token_mean", "bnpo", 0.2, "token"),
        ("dr_grpo_constant", "dr_grpo", 0.2, "constant"),
        ("dapo_clip_higher_token_mean", "dapo", 0.28, "token"),
    ]:
        aw = token_weights(aggregation, mask)
        loss, grad = trl_loss(trl_type, mask, q, lp, ADVANTAGES, 0.2, eps_high)
        # grpo / bnpo / dr_grpo / dapo share one per-token branch of _compute_loss; "dapo" isolates a token's term.
        per_tok = per_token_losses("dapo", mask, q, lp, ADVANTAGES, 0.2, eps_high)
        engine_cases.append(
            {
                "name": name,
                "loss_fn": "ppo",
                "loss_fn_config": {"clip_low_threshold": 0.8, "clip_high_threshold": 1 + eps_high},
                "trl": {"loss_type": trl_type, "epsilon": 0.2, "epsilon_high": eps_high},
                "note": f"TRL's {trl_type} aggregation as token weights ({aggregation})",
                "weights": ragged(aw),
                "loss": loss,
                "token_loss": ragged(per_tok * aw),
                "grad": ragged(grad),
            }
        )
    # dro: no TRL counterpart; the hosted docs' formula in PyTorch.
    beta = 0.3
    lpv = lp.clone().requires_grad_(True)
    a = torch.tensor(ADVANTAGES).unsqueeze(1)
    per = -(lpv * a - 0.5 * beta * (lpv - q) ** 2) * w
    (dgrad,) = torch.autograd.grad(per.sum(), lpv)
    engine_cases.append(
        {
            "name": "dro",
            "loss_fn": "dro",
            "loss_fn_config": {"beta": beta},
            "trl": None,
            "note": "no TRL counterpart: the hosted docs' DRO formula in PyTorch",
            "weights": ragged(w),
            "loss": per.sum().item(),
            "token_loss": ragged(per.detach()),
            "grad": ragged(dgrad),
        }
    )
    with open(ENGINE_OUT, "w") as f:
        json.dump(
            {"versions": versions, **common, "coverage": coverage(q, lp, mask, ADVANTAGES, 0.8, 1.2), "cases": engine_cases},
            f,
            indent=1,
        )
        f.write("\n")

    # --- the algorithms: TRL's loss types, with the aggregation weights and clip each maps to ---
    algo_cases = []
    for name, trl_type, eps_low, eps_high, level, aggregation in [
        ("grpo", "grpo", 0.2, 0.2, "token", "sequence"),
        ("bnpo", "bnpo", 0.2, 0.2, "token", "token"),
        ("dr_grpo", "dr_grpo", 0.2, 0.2, "token", "constant"),
        ("dapo", "dapo", 0.2, 0.28, "token", "token"),
        # GSPO's paper clips the sequence ratio at 3e-4 / 4e-4; 0.05 makes some sequences clipped, some not here.
        ("gspo", "grpo", 0.05, 0.05, "sequence", "sequence"),
        ("gspo_paper_eps", "grpo", 3e-4, 4e-4, "sequence", "sequence"),
    ]:
        loss, grad = trl_loss(trl_type, mask, q, lp, ADVANTAGES, eps_low, eps_high, level=level)
        algo_cases.append(
            {
                "name": name,
                "trl": {"loss_type": trl_type, "epsilon": eps_low, "epsilon_high": eps_high, "importance_sampling_level": level},
                "aggregation": aggregation,
                "max_completion_length": MAX_COMPLETION_LENGTH,
                "weights": ragged(token_weights(aggregation, mask)),
                "loss": loss,
                "grad": ragged(grad),
            }
        )

    # --- advantage estimators ---
    rewards = torch.tensor([[1.0, 0.0, 0.0, 1.0], [0.5, 0.5, 0.5, 0.5], [0.0, 0.25, 1.0, 0.1]])
    G = rewards.shape[1]
    mean_g = rewards.mean(1, keepdim=True)
    std_g = nanstd(rewards, dim=1).unsqueeze(1)  # TRL's own helper (unbiased)
    flat = rewards.reshape(-1)
    advantages = {
        "mean": (rewards - mean_g).tolist(),
        "grpo": ((rewards - mean_g) / (std_g + 1e-4)).tolist(),
        "rloo": (rewards - (rewards.sum(1, keepdim=True) - rewards) / (G - 1)).tolist(),
    }
    # REINFORCE++: per-token returns of ragged responses, whitened over every response token of the batch.
    rp_tokens = torch.tensor(RP_TOKENS)
    T = int(rp_tokens.max())
    resp_mask = (torch.arange(T).expand(flat.numel(), T) < rp_tokens.reshape(-1, 1)).double()

    def reinforce_pp(outcome):
        token_rewards = torch.zeros(outcome.numel(), T)
        token_rewards[torch.arange(outcome.numel()), rp_tokens.reshape(-1) - 1] = outcome.reshape(-1)
        returns = token_rewards.flip(-1).cumsum(-1).flip(-1) * resp_mask
        mu = (returns * resp_mask).sum() / resp_mask.sum()
        var = ((returns - mu).pow(2) * resp_mask).sum() / resp_mask.sum()
        whitened = (returns - mu) * var.clamp(min=1e-8).rsqrt()
        # Every token of a response carries the same value (gamma 1, one outcome reward): its first token's.
        return whitened[:, 0].reshape(rewards.shape).tolist()

    advantages["reinforce_pp"] = reinforce_pp(rewards)
    advantages["reinforce_pp_baseline"] = reinforce_pp(rewards - mean_g)

    # --- DAPO's overlong shaping (eq. 13): 0 up to L_max - L_cache, then linear down to -1 at L_max ---
    def overlong(length, max_tokens, cache):
        if length <= max_tokens - cache:
            return 0.0
        if length <= max_tokens:
            return float((max_tokens - cache - length) / cache)
        return -1.0

    shaping = [{"length": n, "max_tokens": 16, "cache": 4, "penalty": overlong(n, 16, 4)} for n in [1, 11, 12, 13, 15, 16, 17]]

    with open(RL_OUT, "w") as f:
        json.dump(
            {
                "versions": versions,
                **common,
                "cases": algo_cases,
                "rewards": rewards.tolist(),
                "reinforce_pp_tokens": RP_TOKENS,
                "estimators": advantages,
                "overlong": shaping,
            },
            f,
            indent=1,
        )
        f.write("\n")
    print(json.dumps(coverage(q, lp, mask, ADVANTAGES, 0.8, 1.2)))


if __name__ == "__main__":
    main()
