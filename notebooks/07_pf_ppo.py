# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 07 · Policy filtration for PPO when the reward model is unreliable
#
# Chuheng Zhang, Wei Shen, Li Zhao, Xuyun Zhang, Xiaolong Xu, Wanchun Dou, Jiang Bian — *Policy
# Filtration for RLHF to Mitigate Noise in Reward Models*, ICML 2025 · arXiv
# [2409.06957](https://arxiv.org/abs/2409.06957) · official code: `swtheing/PF-PPO-RLHF` (an
# OpenRLHF fork, Apache-2.0, without data, checkpoints or reward model); the arXiv v5 abstract also
# points to a verl branch, and verl ships the method as `compute_pf_ppo_reweight_data`.
#
# RLHF trains a policy against a *reward model* (RM) learned from preferences, and the RM is wrong
# often, most of all on tasks such as code where judging a response takes reasoning. The paper
# observes that how wrong the RM is depends on the reward it gives, and proposes PF-PPO: sample
# $N$ responses per prompt, score them with the RM, and let PPO learn only from a filtered subset
# whose rewards are more trustworthy: the best response (BoN), the best and one random other (BR),
# or the best and the worst (BW). To choose the filter without training every variant, it uses
# $R^2$ between the RM's rewards and the responses' *actual* scores (unit-test pass rates) on the
# filtered samples. With 7B models it reports state-of-the-art pass@1 on HumanEval, MBPP and a
# LeetCode-contest set of its own.
#
# No 7B policy, reward model or benchmark can run here, and the paper's pass@1 is **not**
# re-measured. This chapter rebuilds the *mechanism* on a toy code-generation task whose verifier
# is exact: prompts are functions $f(x) = (a\cdot x + b) \bmod 10$, responses are programs of at
# most 8 tokens in a small stack language, the actual score is the pass rate on 8 hidden tests,
# and the RM is a Bradley–Terry model learned from a few hundred noisy preference pairs.
#
# ```{admonition} Claims we test
# 1. The RM's reliability varies with its reward: among responses in the middle reward deciles
#    the actual score varies more than among those in the top decile.
# 2. $R^2$ (reward vs actual score on the filtered samples) ranks the filters: BR and BW have a
#    higher $R^2$ than keeping every response (PPO-M), and BoN the lowest (its samples span only
#    the top of the reward range).
# 3. Filters with a higher $R^2$ train better: across filters, $R^2$ and the final actual score are
#    positively rank-correlated.
# 4. The outcome: the better of PF-PPO (BR) and PF-PPO (BW) ends with a higher mean actual score
#    than PPO-M and than PF-PPO (BoN).
#
#    **4b** (ours): with an RM whose noise does not depend on the reward, that advantage shrinks.
# 5. (Quoted.) PF-PPO's 7B pass@1 and gains on HumanEval, MBPP, LeetCode-Contest, Ape210K, CMATH.
# ```
#
# Claims 1–4 are checked on the toy task; 4b is our own ablation of the paper's explanation;
# claim 5 is quoted from the official README and the abstract, not re-derived.

# %% tags=["parameters"]
scale = "quick"  # "quick": tabular policy, ≤ 90 s on 2 CPUs; "full": transformer, GPU
seed = 0

# %%
import itertools

import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
from scipy import stats

from repbook.core import (
    Ledger,
    setup,
    use_style,
    color_for,
    register_colors,
    reference_line,
    all_of,
    at_least,
    at_most,
)
from repbook.papers import pf_ppo as F

# fmt: off
SIZES = {
    "quick": dict(policy="tabular", prompts=200, rm_prompts=150, pairs=400,
                  label_noise=0.15, pool=(3, 21, 8), Ns=[4, 8], replicates=3,
                  updates=60, batch=400, boot=1000),
    "full": dict(policy="tokens", prompts=500, rm_prompts=150, pairs=400,
                 label_noise=0.15, pool=(3, 21, 8), Ns=[4, 8], replicates=3,
                 updates=60, batch=512, boot=2000, sft_steps=3000, sft_batch=256,
                 sft_lr=1e-3, eval_every=10, eval_samples=8),
}
# fmt: on
run = setup(scale=scale, seed=seed, sizes=SIZES)
ledger = Ledger.for_run(
    run,
    regime=(
        "a toy code-generation task with an exact verifier, a hashed n-gram reward "
        "model and a categorical policy; CPU"
    ),
)
use_style()
LABEL = {
    "all": "PPO-M",
    "bon": "PF-PPO (BoN)",
    "br": "PF-PPO (BR)",
    "bw": "PF-PPO (BW)",
    "worst": "worst only",
    "random2": "random 2",
    "verl-pow": "verl pow",
    "verl-max_min": "verl max_min",
    "verl-max_random": "verl max_random",
}
register_colors(
    {
        "PF-PPO (BR)": "ours",
        "PF-PPO (BW)": "alt",
        "PPO-M": "baseline",
        "PF-PPO (BoN)": "alt2",
        "worst only": "muted",
        "random 2": "alt3",
        "verl pow": "peer",
        "verl max_min": "peer",
        "verl max_random": "peer",
    }
)

# %% [markdown]
# ## The method
#
# For a prompt $x$, PF-PPO samples $y_1,\dots,y_N \sim \pi_\theta(\cdot\mid x)$, scores them with
# the RM, $r_i = r_\phi(x, y_i)$, and keeps a subset $\mathcal{F}(x)$ of them. PPO then maximises
# the clipped surrogate on the kept samples only,
#
# $$\max_\theta\ \mathbb{E}_{i\in\mathcal{F}}\Big[\min\big(\rho_i A_i,\
# \operatorname{clip}(\rho_i, 1-\epsilon, 1+\epsilon)A_i\big)\Big],\qquad
# \rho_i=\frac{\pi_\theta(y_i\mid x)}{\pi_{\text{old}}(y_i\mid x)},$$
#
# with advantages $A_i$ from the reward minus a KL penalty
# $\beta\log\frac{\pi_{\text{old}}(y_i\mid x)}{\pi_{\text{ref}}(y_i\mid x)}$ and a critic, and
# normalised over the kept batch (as OpenRLHF does). The filters, with $b$ the best and $w$ the
# worst of the $N$ rewards:
#
# | filter | kept $\mathcal{F}(x)$ |
# |---|---|
# | PPO-M (no filter) | all $N$ |
# | BoN | $\{b\}$ |
# | BR | $\{b, j\}$, $j$ uniform among the others |
# | BW | $\{b, w\}$ |
# | worst only, random 2 (our controls) | $\{w\}$; two uniform draws without replacement |
#
# The official filter version keeps the arg-max (first index on ties) and one random other
# response per prompt; its reweighting version gives weights 1 to the best and worst response of
# each prompt (or 0.4 to the best and 0.1 to the others) and resamples the batch with them. The
# selection metric is the coefficient of determination of the least-squares line of actual score
# $s$ on reward $r$ over the kept samples,
# $R^2 = 1-\sum_i (s_i-\hat s_i)^2/\sum_i(s_i-\bar s)^2$, which for one regressor is the squared
# Pearson correlation.
#
# Ties are broken as the official code does for the best (the first maximum); the worst is the
# last minimum, so best and worst differ even when all $N$ rewards tie. By hand, on three prompts
# with $N=4$ rewards each: the best is the arg-max, the worst the arg-min, and the loss of one
# sample follows the formula above. The library agrees.

# %%
toy_r = np.array([[0.3, 1.2, -0.5, 0.9], [2.0, 2.0, 0.1, -1.0], [0.0, 0.4, 0.4, -0.2]])
toy_s = np.array([[0.0, 1.0, 0.0, 0.25], [0.5, 1.0, 0.0, 0.0], [0.125, 0.0, 1.0, 0.0]])
best, worst = toy_r.argmax(1), toy_r.argmin(1)
bw_by_hand = np.zeros_like(toy_r, dtype=bool)
bw_by_hand[np.arange(3), best] = bw_by_hand[np.arange(3), worst] = True
print("BW by hand:\n", bw_by_hand.astype(int))
print("BW by lib: \n", F.select(toy_r, "bw").astype(int))
r_kept, s_kept = toy_r[bw_by_hand], toy_s[bw_by_hand]
print(
    f"R² on the BW samples: by hand {np.corrcoef(r_kept, s_kept)[0, 1] ** 2:.6f}, "
    f"lib {F.r_squared(r_kept, s_kept):.6f}"
)
ratio, adv, eps = np.exp(-0.9 + 1.2), 1.5, 0.2
by_hand = -min(ratio * adv, np.clip(ratio, 1 - eps, 1 + eps) * adv)
print(
    f"PPO-clip loss of one sample (ρ = {ratio:.3f}, A = {adv}): by hand {by_hand:.6f}, "
    f"lib {F.ppo_clip_loss(-0.9, -1.2, adv, clip=eps):.6f}"
)

# %% [markdown]
# ## A toy code-generation task with an exact verifier
#
# A program runs on a stack: `x` pushes the input, the digits 1 2 3 5 7 push themselves, `+ - *`
# combine the top two values mod 10, `dup`, `swap`, `drop` rearrange. The result is the top of
# the stack; a program that runs out of operands fails every test. Each prompt is a target
# $(a x + b) \bmod 10$ with $a\in1..9$, $b\in0..9$ and 8 of the 10 inputs as hidden tests.

# %%
task = F.Task(a=3, b=7, tests=(0, 1, 2, 4, 5, 6, 8, 9))
for prog in [
    ("x", "3", "*", "7", "+"),
    ("7", "x", "3", "*", "+"),
    ("x", "3", "*", "5", "+"),
    ("x", "5", "*", "7", "+"),
    ("x", "+"),
]:
    outs = [F.run_program(prog, x) for x in task.tests]
    print(
        f"{' '.join(prog):<14} outputs {outs}  pass rate {F.pass_rate(prog, task):.3f}"
    )
print("targets        ", [task.target(x) for x in task.tests])

# %% [markdown]
# Each prompt gets a fixed pool of $K=32$ distinct candidate programs: 3 correct ones (written
# from templates of the affine map), 21 mutants of correct programs (one or two random token
# edits — near misses, the typical bug) and 8 random programs. At quick scale the policy is a
# categorical distribution over the pool, initialised uniform: that is our "SFT policy", with a
# mediocre pass rate. At full scale it is a tiny causal transformer (2 layers, width 64) that is
# first fine-tuned on these pools (SFT) and then generates programs token by token.
#
# The RM is a Bradley–Terry logistic model on signed-hashed 1- to 3-gram features of the program,
# alone and conjoined with the prompt's tokens `a=…`, `b=…` (4,096 buckets). It is trained on
# `pairs` preference pairs drawn from the pools of `rm_prompts` *other* prompts, labelled by the
# verifier (higher pass rate wins) and flipped with probability `label_noise`. Rewards are
# standardised over the initial policy's responses, as OpenRLHF's reward normalisation does.
# Nothing about reliability is put in by hand: where the RM is right or wrong is whatever this
# model learns from these pairs.
#
# For the ablation of claim 4b we also build an RM with *homoscedastic* noise: actual score plus
# Gaussian noise of one fixed variance, drawn once per (prompt, program), with the variance set
# so that its overall correlation with the actual score equals the learned RM's. Each replicate
# draws new prompts, pools, preference pairs and RM.

# %%
n_correct, n_mutants, n_random = run["pool"]
TOKENS = run["policy"] == "tokens"
if TOKENS:
    import torch


def standardise(x, ref):
    return (x - ref.mean()) / ref.std()


worlds = []
for rep in range(run["replicates"]):
    rng = run.child_rng(100 + rep)
    bandit = F.make_bandit(
        run["prompts"], rng, n_correct=n_correct, n_mutants=n_mutants, n_random=n_random
    )
    rm_bandit = F.make_bandit(
        run["rm_prompts"],
        rng,
        n_correct=n_correct,
        n_mutants=n_mutants,
        n_random=n_random,
    )
    w, pairs = F.train_reward_model(
        rm_bandit, run["pairs"], noise=run["label_noise"], rng=rng
    )
    world = dict(bandit=bandit, flipped=pairs.flipped.mean(), w=w)
    if not TOKENS:
        # the initial policy is uniform over the pool: its responses are the pool
        raw, S = F.reward_model_scores(bandit, w), bandit.scores
        learned = standardise(raw, raw)
        corr = np.corrcoef(learned.ravel(), S.ravel())[0, 1]
        homo = F.homoscedastic_rewards(S, corr, rng)
        homo = standardise(homo, homo)
        world.update(
            rm={"learned": learned, "homoscedastic": homo},
            rel=(learned, S),
            rel_homo=(homo, S),
        )
    else:
        # SFT a tiny transformer on the pools; its samples are the initial policy
        tw = F.build_token_world(
            bandit,
            w,
            sft_steps=run["sft_steps"],
            sft_batch=run["sft_batch"],
            sft_lr=run["sft_lr"],
            rng=rng,
            generator=run.torch_generator(100 + rep),
            noise_seed=seed * 100 + rep,
            device=run.device,
        )
        corr = tw.corr
        world.update(
            sft=tw.sft,
            prompts_all=tw.prompts,
            rm={"learned": tw.learned, "homoscedastic": tw.homoscedastic},
            rel=(tw.rewards, tw.scores),
            rel_homo=(tw.homo_rewards, tw.scores),
        )
    world["corr"] = corr
    worlds.append(world)


def initial_samples(w, n, rng, rm="learned"):
    """Rewards and actual scores (P, n) of n initial-policy responses per prompt."""
    P = run["prompts"]
    if not TOKENS:
        draws = rng.integers(w["bandit"].shape[1], size=(P, n))
        rows = np.arange(P)[:, None]
        return w["rm"][rm][rows, draws], w["bandit"].scores[rows, draws]
    gen = torch.Generator().manual_seed(int(rng.integers(2**62)))
    idx, progs, _ = F.sample_policy(
        w["sft"], np.arange(P), w["prompts_all"], n, gen, device=run.device
    )
    S, R = w["rm"][rm](idx, progs)
    return R.reshape(P, n), S.reshape(P, n)


TOP_PICK = "pass rate of the RM's top pick"


def pair_accuracy(R, S):
    """Share of same-prompt pairs with different actual scores the RM orders right."""
    i, j = np.triu_indices(R.shape[1], 1)
    dr, ds = R[:, i] - R[:, j], S[:, i] - S[:, j]
    keep = ds != 0
    return float(np.mean(np.sign(dr[keep]) == np.sign(ds[keep])))


rows = []
for k, w in enumerate(worlds):
    R, S = w["rel"]
    row = {
        "initial pass rate": S.mean(),
        "correct among initial responses": (S == 1).mean(),
        "labels flipped": w["flipped"],
        "corr(RM, actual)": w["corr"],
        "pair accuracy, learned RM": pair_accuracy(R, S),
    }
    if not TOKENS:
        row[TOP_PICK] = S[np.arange(len(S)), R.argmax(1)].mean()
        row["same, homoscedastic RM"] = S[
            np.arange(len(S)), w["rm"]["homoscedastic"].argmax(1)
        ].mean()
    rows.append(dict(replicate=k, **row))
summary = pd.DataFrame(rows).set_index("replicate")
print(summary.round(3).T.to_string())

# %% [markdown]
# The table describes each replicate's initial policy and RM: the RM orders only part of the
# same-prompt pairs correctly, like a code RM that cannot run the code. At quick scale the last
# two rows are what a policy that fully trusted the RM would reach: the pass rate of its
# favourite candidate, for the learned and for the homoscedastic RM.
#
# ## Claim 1 · Reliability varies with the reward
#
# We sort the initial policy's responses (32 per prompt: at quick scale the uniform policy's
# whole pool, at full scale samples of the SFT model) into reward deciles and look at the spread
# of the actual score inside each decile.
#
# **Criterion (fixed before the run).** In every replicate, the mean within-decile variance of the
# actual score over the middle deciles (4–7 of 10) minus the variance in the top decile has a 95 %
# bootstrap interval (resampling prompts) whose lower end is above 0. It fails if the top decile
# is as mixed as the middle: for instance if the RM scores near-miss mutants as highly as the
# correct programs they came from.

# %%
MID, TOP = slice(3, 7), 9


def mid_minus_top(R, S):
    rel = F.reliability_by_bin(R, S, 10)
    return rel["var"][MID].mean() - rel["var"][TOP]


rel_rows, diff1, lo1 = [], [], []
for k, w in enumerate(worlds):
    R, S = w["rel"]
    for name, (Rn, Sn) in [("learned", w["rel"]), ("homoscedastic", w["rel_homo"])]:
        rel = F.reliability_by_bin(Rn, Sn, 10)
        for d in range(10):
            rel_rows.append(
                dict(
                    replicate=k,
                    rm=name,
                    decile=d + 1,
                    reward=rel["reward"][d],
                    mean=rel["mean"][d],
                    var=rel["var"][d],
                )
            )
    diff1.append(mid_minus_top(R, S))
    lo1.append(
        F.bootstrap_interval(
            np.arange(S.shape[0]),
            run.child_rng(200 + k),
            n_boot=run["boot"],
            stat=lambda i: mid_minus_top(R[i], S[i]),
        )[0]
    )
rel_df = pd.DataFrame(rel_rows)
print(
    rel_df[rel_df.rm == "learned"]
    .pivot_table(index="decile", values=["reward", "mean", "var"])
    .round(3)
    .T.to_string()
)
top = np.concatenate(
    [
        S.ravel()[np.argsort(R.ravel(), kind="stable")[-S.size // 10 :]]
        for R, S in (w["rel"] for w in worlds)
    ]
)
v_mid = rel_df[(rel_df.rm == "learned") & rel_df.decile.between(4, 7)]["var"].mean()
v_top = rel_df[(rel_df.rm == "learned") & (rel_df.decile == 10)]["var"].mean()
vh = rel_df[rel_df.rm == "homoscedastic"].groupby("decile")["var"].mean()
print(
    f"Homoscedastic RM: top-decile variance {vh[10]:.3f}, "
    f"middle deciles {vh.loc[4:7].mean():.3f}."
)
print(
    f"Top decile: {np.mean(top == 1):.0%} of its responses pass every test and "
    f"{np.mean(top == 0):.0%} pass none; its variance ({v_top:.3f}) is "
    f"{'above' if v_top > v_mid else 'below'} the middle deciles' ({v_mid:.3f})."
)
print(
    "var(middle deciles) − var(top decile), per replicate: "
    + ", ".join(f"{d:+.4f} (95% lower end {l:+.4f})" for d, l in zip(diff1, lo1))
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(11, 4))
for k, w in enumerate(worlds):
    R, S = w["rel"]
    order = np.argsort(R.ravel(), kind="stable")
    bins = np.array_split(S.ravel()[order], 10)
    for what, vals, role in [
        ("mean pass rate", [b.mean() for b in bins], "ours"),
        ("share passing every test", [np.mean(b == 1) for b in bins], "peer"),
        ("share passing no test", [np.mean(b == 0) for b in bins], "baseline"),
    ]:
        axes[0].plot(
            range(1, 11),
            vals,
            "o-",
            ms=3,
            color=color_for(role),
            alpha=0.7,
            label=what if k == 0 else None,
        )
axes[0].axvspan(
    3.5, 7.5, color=color_for("muted"), alpha=0.12, label="middle deciles (4–7)"
)
axes[0].set(
    xlabel="reward decile of the learned RM (1 = lowest)",
    ylabel="share / pass rate",
    xticks=range(1, 11),
    ylim=(0, 1),
    title="What each reward decile holds (lines: replicates)",
)
axes[0].legend(loc="center left", fontsize=8)
for name, role in [("learned", "ours"), ("homoscedastic", "baseline")]:
    d = rel_df[rel_df.rm == name].groupby("decile")["var"]
    axes[1].plot(
        d.mean().index, d.mean(), "o-", color=color_for(role), label=f"{name} RM"
    )
    axes[1].fill_between(
        d.mean().index, d.min(), d.max(), color=color_for(role), alpha=0.15
    )
axes[1].axvspan(3.5, 7.5, color=color_for("muted"), alpha=0.12)
axes[1].set(
    xlabel="reward decile (1 = lowest)",
    ylabel="variance of the actual score",
    xticks=range(1, 11),
    title="Within-decile variance (band: replicates)",
)
axes[1].legend()
plt.show()

# %%
ledger.check(
    1,
    "actual score varies more in the middle reward deciles than in the top one",
    paper="RM reliability varies with the reward; high rewards are more reliable",
    source="abstract",
    measured={"var(mid) − var(top)": diff1, "95% lower end": lo1},
    criterion=at_least("95% lower end", 0, strict=True, scale=0.01),
)

# %% [markdown]
# The actual score is mostly 0 or 1, so a bin's variance is close to $p(1-p)$ for its mean pass
# rate $p$: it grows with $p$ up to one half. The top decile is the most reliable only if the RM's
# favourites are mostly correct, i.e. if its pass rate there is well above one half; the printed
# composition of the top decile says how far this RM is from that. The right panel adds the
# homoscedastic RM of claim 4b, whose noise does not depend on the actual score: compare its
# printed variances with the learned RM's.
#
# ## Claim 2 · $R^2$ on the filtered samples ranks the filters
#
# For each replicate and $N$, every prompt gets $N$ responses from the initial policy; each filter
# keeps its subset and we compute $R^2$ over the kept samples of all prompts. The bootstrap
# resamples prompts (the same prompts for every filter) and averages over replicates.
#
# **Criterion.** For every $N$, the 95 % bootstrap intervals of $R^2(\text{BR})-R^2(\text{PPO-M})$
# and $R^2(\text{BW})-R^2(\text{PPO-M})$ lie above 0, and that of
# $R^2(\text{BoN})-\min\{R^2(\text{PPO-M}), R^2(\text{BR}), R^2(\text{BW})\}$ lies below 0.
# A filter that keeps the best response adds little if the RM's top picks are no more reliable
# than the rest; then BR and BW would not beat PPO-M.

# %%
PAPER4 = ["all", "bon", "br", "bw"]


def r2_all(R, S, masks, rows):
    return {
        s: F.r_squared(R[rows][m[rows]], S[rows][m[rows]]) for s, m in masks.items()
    }


r2_rows, boot_r2 = [], {}
for n in run["Ns"]:
    per_rep = []
    for k, w in enumerate(worlds):
        rng = run.child_rng(300 + 10 * k + n)
        P = run["prompts"]
        R, S = initial_samples(w, n, rng)
        masks = {s: F.select(R, s, rng) for s in F.PER_PROMPT}
        r2 = r2_all(R, S, masks, np.arange(P))
        for s in F.BATCH_LEVEL:
            try:
                r2[s] = F.filtered_r_squared(R, S, s, rng)
            except ValueError:  # the resampled batch holds a single actual score
                r2[s] = np.nan
        r2_rows += [dict(N=n, replicate=k, strategy=s, r2=v) for s, v in r2.items()]
        boot = np.array(
            [
                list(r2_all(R, S, masks, rng.integers(P, size=P)).values())
                for _ in range(run["boot"])
            ]
        )
        per_rep.append(boot)
    boot_r2[n] = pd.DataFrame(np.mean(per_rep, axis=0), columns=list(F.PER_PROMPT))
r2_df = pd.DataFrame(r2_rows)
r2_mean = r2_df.pivot_table(index="strategy", columns="N", values="r2").reindex(
    F.STRATEGIES
)
print("R² on the filtered samples (mean over replicates):")
print(r2_mean.rename(index=LABEL).round(3).to_string())

ci2 = {}
for n, b in boot_r2.items():
    contrasts = {
        "BR − PPO-M": b["br"] - b["all"],
        "BW − PPO-M": b["bw"] - b["all"],
        "BoN − min(PPO-M, BR, BW)": b["bon"] - b[["all", "br", "bw"]].min(axis=1),
    }
    for name, v in contrasts.items():
        ci2[(n, name)] = np.quantile(v, [0.025, 0.975])
        print(
            f"N={n}: R²({name}) 95% interval [{ci2[(n, name)][0]:+.3f}, "
            f"{ci2[(n, name)][1]:+.3f}]"
        )
print(
    "Across the per-prompt filters and every N, R² is at most "
    f"{r2_mean.loc[list(F.PER_PROMPT)].max().max():.3f}: on their samples the reward "
    "explains little of the actual score's variance."
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(
    1, len(run["Ns"]), figsize=(5.5 * len(run["Ns"]), 4), sharey=True
)
top_y = 1.5 * max(
    max(np.quantile(boot_r2[n], 0.975).max() for n in run["Ns"]),
    np.nanmax(r2_mean.drop("verl-max_min").to_numpy()),
)
for ax, n in zip(np.atleast_1d(axes), run["Ns"]):
    b = boot_r2[n]
    for i, s in enumerate(F.STRATEGIES):
        vals = r2_df[(r2_df.N == n) & (r2_df.strategy == s)].r2
        peer = s in F.BATCH_LEVEL
        ax.bar(
            i,
            vals.mean(),
            color=color_for(LABEL[s]),
            alpha=0.35 if peer else 0.8,
            hatch="//" if peer else None,
            edgecolor=color_for(LABEL[s]),
        )
        if not peer:
            lo, hi = np.quantile(b[s], [0.025, 0.975])
            ax.plot([i, i], [lo, hi], color="black", lw=1.2)
        ax.scatter(np.full(len(vals), i), vals, s=10, color="black", zorder=3)
    ax.set_xticks(
        range(len(F.STRATEGIES)),
        [LABEL[s] for s in F.STRATEGIES],
        rotation=45,
        ha="right",
        fontsize=8,
    )
    mm = r2_mean.loc["verl-max_min", n]
    ax.text(
        F.STRATEGIES.index("verl-max_min"),
        0.9 * top_y,
        "undefined" if np.isnan(mm) else f"{mm:.2f}\n(batch max, min)",
        ha="center",
        fontsize=7,
    )
    ax.set(
        title=f"N = {n}: R² of reward vs actual score",
        ylabel="R² on the kept samples",
        ylim=(0, top_y),
    )
fig.suptitle(
    "How much of the actual score the reward explains on each filter's samples "
    "(bars: mean; dots: replicates; lines: 95% bootstrap; hatched: verl, batch level)",
    fontsize=9,
)
plt.show()

# %%
m2 = {
    f"N={n}: {name}, 95% {'lower' if 'BoN' not in name else 'upper'} end": ci2[
        (n, name)
    ][0 if "BoN" not in name else 1]
    for (n, name) in ci2
}
ledger.check(
    2,
    "R²(BR) > R²(PPO-M), R²(BW) > R²(PPO-M), R²(BoN) lowest",
    paper="BR and BW have high R², BoN low; R² picks the promising filters",
    source="abstract",
    measured={
        **{
            f"R² {LABEL[s]} (N={n})": r2_mean.loc[s, n]
            for n in run["Ns"]
            for s in PAPER4
        },
        **m2,
    },
    criterion=all_of(
        at_least([k for k in m2 if "BoN" not in k], 0, strict=True, scale=0.01),
        at_most([k for k in m2 if "BoN" in k], 0, strict=True, scale=0.01),
    ),
    show=list(m2),
)

# %% [markdown]
# ## Training every filter
#
# PPO-clip ($\epsilon=0.2$) with a KL penalty $\beta=0.01$ on the standardised reward (the
# official script's initial KL coefficient), a critic trained on the kept samples, advantages
# normalised over the kept batch, `updates` updates of `batch` gradient samples each, the same
# for every filter. A filter keeping $k$ of $N$ responses therefore rolls out `batch`/$k$ prompts
# per update: filtering spends rollouts, not gradient steps. The learner only sees RM rewards;
# the verifier's pass rates are used to *report* the policy's expected actual score. At quick
# scale the critic is a per-prompt running value and the expected score
# $\frac1P\sum_x\sum_y \pi(y\mid x)\,s(x,y)$ is exact over the pool; at full scale the critic is
# a second transformer with a value head, advantages come from GAE ($\gamma=1$, $\lambda=0.95$)
# with the KL penalty per token, and the score is estimated from `eval_samples` programs per
# prompt. verl's three batch-level reweightings run in the same loop (advantages whitened over
# the whole batch, then resampled with replacement, as verl does). The homoscedastic RM trains
# only PPO-M, BR and BW, which is all claim 4b needs.

# %% tags=["hide-input"]
HOMO = ["all", "br", "bw"]  # the homoscedastic RM only serves claim 4b
if not TOKENS:
    cfg = F.PPOConfig(n_updates=run["updates"], batch=run["batch"])
else:
    cfg = F.TokenPPOConfig(
        n_updates=run["updates"],
        batch=run["batch"],
        eval_every=run["eval_every"],
        eval_samples=run["eval_samples"],
    )


def train(w, rm, n, s, stream):
    rng = run.child_rng(stream)
    if not TOKENS:
        return F.train_bandit(w["rm"][rm], w["bandit"].scores, s, n, cfg, rng)
    return F.train_tokens(
        w["sft"],
        w["rm"][rm],
        s,
        n,
        cfg,
        rng,
        run.torch_generator(stream),
        device=run.device,
    )


traces = {}
for k, w in enumerate(worlds):
    for j, rm in enumerate(["learned", "homoscedastic"]):
        for n in run["Ns"]:
            for i, s in enumerate(F.STRATEGIES):
                if rm == "learned" or s in HOMO:
                    traces[(k, rm, n, s)] = train(
                        w, rm, n, s, 10_000 + 1000 * k + 100 * n + 10 * i + j
                    )
final = pd.DataFrame(
    [
        dict(
            replicate=k,
            rm=rm,
            N=n,
            strategy=s,
            actual=t.actual[-1],
            reward=t.reward[-1],
            kl=t.kl[-1],
            rollouts=t.rollouts,
        )
        for (k, rm, n, s), t in traces.items()
    ]
)
table = final[final.rm == "learned"].pivot_table(
    index="strategy", columns="N", values=["actual", "reward", "kl"]
)
print(
    f"final policy, learned RM, mean over {run['replicates']} replicates "
    f"(initial actual score {np.mean([w['rel'][1].mean() for w in worlds]):.3f}):"
)
print(table.reindex(F.STRATEGIES).rename(index=LABEL).round(3).to_string())

# %% tags=["hide-input"]
fig, axes = plt.subplots(
    1, len(run["Ns"]), figsize=(5.5 * len(run["Ns"]), 4), sharey=True
)
for ax, n in zip(np.atleast_1d(axes), run["Ns"]):
    for s in F.STRATEGIES:
        curves = np.array(
            [traces[(k, "learned", n, s)].actual for k in range(len(worlds))]
        )
        steps = traces[(0, "learned", n, s)].steps
        x = np.arange(curves.shape[1]) if steps is None else steps
        ls = ":" if s in F.BATCH_LEVEL else "-"
        ax.plot(
            x,
            curves.mean(0),
            ls=ls,
            color=color_for(LABEL[s]),
            label=LABEL[s],
            lw=1.2 if s in F.BATCH_LEVEL else 1.8,
        )
        ax.fill_between(
            x, curves.min(0), curves.max(0), color=color_for(LABEL[s]), alpha=0.12
        )
    ax.set(
        xlabel="PPO update",
        ylabel="expected actual score (pass rate)",
        title=f"N = {n}: actual score during training",
    )
np.atleast_1d(axes)[0].legend(fontsize=7, ncols=2, loc="upper left")
fig.suptitle(
    "Training on the learned RM (line: mean; band: range over replicates)", fontsize=10
)
plt.show()

# %% [markdown]
# ## Claim 3 · Filters with a higher $R^2$ train better
#
# **Criterion.** For every $N$, the Spearman rank correlation across the six per-prompt filters
# (PPO-M, BoN, BR, BW, worst only, random 2) between $R^2$ (mean over replicates) and the final
# expected actual score (mean over replicates) is above 0. It fails if $R^2$ carries no
# information about which filter trains well, e.g. if the filters with the narrowest reward range
# (BoN, worst only) trained as well as the others.

# %%
fin_learned = final[final.rm == "learned"].pivot_table(
    index="strategy", columns="N", values="actual"
)
rho3 = {
    n: stats.spearmanr(
        r2_mean.loc[list(F.PER_PROMPT), n], fin_learned.loc[list(F.PER_PROMPT), n]
    ).statistic
    for n in run["Ns"]
}
perm3 = {}
for n in run["Ns"]:  # exact one-sided permutation p-value over the 720 orderings
    x = r2_mean.loc[list(F.PER_PROMPT), n].to_numpy()
    y = fin_learned.loc[list(F.PER_PROMPT), n].to_numpy()
    null = [
        stats.spearmanr(x, y[list(p)]).statistic
        for p in itertools.permutations(range(len(y)))
    ]
    perm3[n] = np.mean(np.array(null) >= rho3[n] - 1e-12)
    print(
        f"N={n}: Spearman ρ(R², final actual score) over the six filters = "
        f"{rho3[n]:+.3f} "
        f"(one-sided permutation p = {perm3[n]:.2f})"
    )

# %% tags=["hide-input"]
fig, axes = plt.subplots(
    1, len(run["Ns"]), figsize=(5.5 * len(run["Ns"]), 4), sharey=True
)
for ax, n in zip(np.atleast_1d(axes), run["Ns"]):
    for s in F.STRATEGIES:
        peer = s in F.BATCH_LEVEL
        fa = final[
            (final.rm == "learned") & (final.N == n) & (final.strategy == s)
        ].actual
        ax.errorbar(
            r2_mean.loc[s, n],
            fa.mean(),
            yerr=[[fa.mean() - fa.min()], [fa.max() - fa.mean()]],
            fmt="s" if peer else "o",
            mfc="white" if peer else color_for(LABEL[s]),
            color=color_for(LABEL[s]),
            capsize=2,
            label=LABEL[s],
        )
    ax.set(
        xlabel="R² on the filtered samples (initial policy, log scale)",
        xscale="log",
        ylabel="final expected actual score",
        title=f"N = {n}: Spearman ρ = {rho3[n]:+.2f} (per-prompt filters)",
    )
np.atleast_1d(axes)[-1].legend(fontsize=7, ncols=2)
fig.suptitle(
    "R² against the final score (bars: range over replicates; open squares: verl)",
    fontsize=10,
)
plt.show()

# %% [markdown]
# Six filters give a weak test: the criterion asks only for a positive rank correlation, which
# is all the claim states; the permutation p-value printed above says how easily a random
# ordering of the six final scores would reach the same $\rho$.

# %%
ledger.check(
    3,
    "higher R² filters train to a higher actual score",
    paper="R² indicates which filters train well",
    source="abstract",
    measured={
        **{f"Spearman ρ (N={n})": rho3[n] for n in run["Ns"]},
        **{f"permutation p (N={n})": perm3[n] for n in run["Ns"]},
    },
    criterion=at_least(
        [f"Spearman ρ (N={n})" for n in run["Ns"]], 0, strict=True, scale=0.5
    ),
)

# %% [markdown]
# ## Claim 4 · PF-PPO (BR/BW) ends above PPO-M and BoN
#
# The paper reports 7B pass@1 gains of BR and BW over PPO-M, and BoN barely above SFT. We compare
# the final expected actual score of the better of BR and BW (chosen per $N$ by its mean) with
# PPO-M and with BoN, prompt by prompt; the bootstrap resamples the (replicate, prompt) pairs.
#
# **Criterion.** For every $N$, the 95 % bootstrap interval of the mean difference
# (better of BR/BW) − PPO-M lies above 0, and so does that of (better of BR/BW) − BoN. A tie with
# PPO-M is *not* reproduced, since the paper claims a gain. The RM score of each final policy is
# shown beside it: a policy can climb the RM while its actual score stalls (reward hacking).


# %%
def final_per_prompt(rm, n, s):
    return np.concatenate(
        [traces[(k, rm, n, s)].final_actual for k in range(len(worlds))]
    )


def advantage(rm, n, against):
    fin = final[(final.rm == rm) & (final.N == n)].groupby("strategy").actual.mean()
    pick = "br" if fin["br"] >= fin["bw"] else "bw"
    d = final_per_prompt(rm, n, pick) - final_per_prompt(rm, n, against)
    return pick, d


m4, picks = {}, {}
for n in run["Ns"]:
    for against in ["all", "bon"]:
        pick, d = advantage("learned", n, against)
        lo, hi = F.bootstrap_interval(d, run.child_rng(400 + n), n_boot=run["boot"])
        picks[n] = pick
        m4[f"N={n}: {LABEL[pick]} − {LABEL[against]}"] = d.mean()
        m4[f"N={n}: vs {LABEL[against]}, 95% lower end"] = lo
        print(
            f"N={n}: {LABEL[pick]} − {LABEL[against]} = {d.mean():+.4f} "
            f"(95% interval [{lo:+.4f}, {hi:+.4f}])"
        )
init_actual = np.mean([w["rel"][1].mean() for w in worlds])
for n in run["Ns"]:
    f = (
        final[(final.rm == "learned") & (final.N == n)]
        .groupby("strategy")[["actual", "reward"]]
        .mean()
    )
    print(
        f"N={n}: from the initial policy "
        f"(actual score {init_actual:.3f}, RM reward 0), "
        + "; ".join(
            f"{LABEL[s]} gains {f.reward[s]:+.2f} RM reward and "
            f"{f.actual[s] - init_actual:+.3f} actual score"
            for s in ["all", "bon", picks[n]]
        )
    )

# %% tags=["hide-input"]
fig, axes = plt.subplots(
    1, len(run["Ns"]), figsize=(5.5 * len(run["Ns"]), 4), sharey=True
)
init_reward = 0.0  # rewards are standardised over the initial policy
for ax, n in zip(np.atleast_1d(axes), run["Ns"]):
    for s in F.PER_PROMPT:
        d = final[(final.rm == "learned") & (final.N == n) & (final.strategy == s)]
        ax.scatter(d.reward, d.actual, color=color_for(LABEL[s]), s=18, alpha=0.6)
        ax.scatter(
            d.reward.mean(),
            d.actual.mean(),
            color=color_for(LABEL[s]),
            s=70,
            edgecolor="black",
            label=LABEL[s],
            zorder=3,
        )
    init = np.mean([w["rel"][1].mean() for w in worlds])
    ax.scatter(
        init_reward, init, marker="*", s=160, color="black", label="initial policy"
    )
    if not TOKENS:
        top = summary[TOP_PICK].mean()
        reference_line(ax, top, "RM's top pick (full trust in the RM)")
    ax.set(
        xlabel="final expected RM reward (standardised)",
        ylabel="final expected actual score",
        title=f"N = {n}: RM score vs actual score",
    )
np.atleast_1d(axes)[-1].legend(fontsize=7)
fig.suptitle(
    "Where each filter ends (small dots: replicates; large: mean)", fontsize=10
)
plt.show()

# %%
lows4 = [k for k in m4 if "lower end" in k]
ledger.check(
    4,
    "better of BR/BW ends above PPO-M and above BoN",
    paper="HumanEval 82.9 (BR) vs 80.2 (PPO-M) vs 75.8 (BoN); "
    "MBPP 76.2 (BW) vs 75.0 vs 71.7",
    source="official code",
    measured=m4,
    criterion=at_least(lows4, 0, strict=True, scale=0.01),
    note="toy task; the paper's pass@1 is not re-measured",
    unpaired_because="paired per prompt: the 95 % bootstrap lower end of each gain "
    "must clear 0",
)

# %% [markdown]
# ### Claim 4b · With homoscedastic RM noise the advantage of filtering shrinks
#
# If filtering helps *because* the RM is more reliable at some rewards than at others, an RM with
# the same overall correlation but noise that does not depend on the reward should leave less to
# gain. This is our formulation of the paper's explanation, not a number it reports.
#
# **Criterion.** For every $N$, the mean advantage of the better of BR/BW over PPO-M is smaller
# with the homoscedastic RM than with the learned RM.

# %%
m4b = {}
for n in run["Ns"]:
    for rm in ["learned", "homoscedastic"]:
        pick, d = advantage(rm, n, "all")
        m4b[f"N={n}: advantage, {rm} RM"] = d.mean()
        print(f"N={n}, {rm} RM: {LABEL[pick]} − PPO-M = {d.mean():+.4f}")
if not TOKENS:
    print(
        f"A policy that fully trusted the RM would reach a pass rate of "
        f"{summary[TOP_PICK].mean():.3f} with the "
        f"learned RM and {summary['same, homoscedastic RM'].mean():.3f} with the "
        f"homoscedastic one (mean over replicates)."
    )

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(6, 3.6))
xs = np.arange(len(run["Ns"]))
for j, (rm, role) in enumerate([("learned", "ours"), ("homoscedastic", "baseline")]):
    ax.bar(
        xs + 0.38 * (j - 0.5),
        [m4b[f"N={n}: advantage, {rm} RM"] for n in run["Ns"]],
        width=0.38,
        color=color_for(role),
        label=f"{rm} RM",
    )
ax.axhline(0, color="black", lw=0.8)
ax.set_xticks(xs, [f"N = {n}" for n in run["Ns"]])
ax.set(
    ylabel="better of BR/BW − PPO-M\n(final actual score)",
    title="Advantage of filtering by RM noise structure",
)
ax.legend()
plt.show()

# %%
ledger.ours(
    "4b",
    "filtering gains less when the RM's noise is homoscedastic",
    why="tests the paper's explanation (RM reliability varies with the reward) with a "
    "noise model of ours",
    measured=m4b,
    criterion=all_of(
        *[
            at_most(
                f"N={n}: advantage, homoscedastic RM",
                f"N={n}: advantage, learned RM",
                strict=True,
            )
            for n in run["Ns"]
        ]
    ),
)

# %% [markdown]
# ## Peers side by side: verl's batch-level reweighting
#
# verl implements PF-PPO as `compute_pf_ppo_reweight_data`: weights over the *whole batch*
# (`pow`: $|s|^2$; `max_min`: 1 for the batch's maximum and minimum score, 0 otherwise;
# `max_random`: 0.4 for the maximum, 0.1 for the rest), then resampling the batch with
# replacement. The paper (and the official OpenRLHF fork) filters per prompt. verl itself could not
# be installed beside the book's environment: `pip install verl` (0.9.1) would downgrade
# `packaging` and upgrade `transformers` and `tokenizers`, and importing its `core_algos` pulls in
# Ray. The three weightings are therefore re-implemented from its source and run on the same
# batches and RMs as the per-prompt filters (hatched bars and open squares above).

# %%
peer = pd.DataFrame(
    {"R² (N=%d)" % n: r2_mean[n] for n in run["Ns"]}
    | {"final actual (N=%d)" % n: fin_learned[n] for n in run["Ns"]}
).reindex(F.STRATEGIES)
print(peer.rename(index=LABEL).round(3).to_string())
uniq = {}
for n in run["Ns"]:
    rng = run.child_rng(500 + n)
    r = initial_samples(worlds[0], n, rng)[0].ravel()
    uniq[n] = len(np.unique(F.verl_resample(r, "max_min", rng)))
print(
    "distinct samples left in a verl max_min batch: "
    + ", ".join(f"N={n}: {u} of {run['prompts'] * n}" for n, u in uniq.items())
)

# %% [markdown]
# At batch level `max_min` keeps the one highest- and one lowest-scored response of the *whole
# batch* (printed above), so nearly every prompt drops out of the update; per prompt, BW keeps the
# best and worst of each prompt. `max_random` is close to no filtering (weights 0.4 vs 0.1), and
# `pow` favours both extremes of the standardised reward.
#
# ## Claim 5 · The paper's own numbers (quoted)

# %%
ledger.quote(
    5,
    "7B pass@1 of PF-PPO on code benchmarks",
    paper="HumanEval 82.9 (BR), MBPP 76.2 (BW), LeetCode-Contest 33.0 (BR)",
    source="official code",
    note="table in the official README; not re-measured here",
)
ledger.quote(
    "5b",
    "gains of PF-PPO over the previous 7B state of the art",
    paper="+7.9% HumanEval, +0.7% MBPP, +10.0% LeetCode-Contest",
    source="abstract",
)
ledger.quote(
    "5c",
    "math reasoning",
    paper="performance increase on Ape210K and CMATH with different RMs",
    source="abstract",
    note="no numbers in the abstract; the paper's tables were not available",
)

# %% [markdown]
# ## Verdicts

# %% tags=["nbval-check-output"]
ledger.show()

# %% tags=["nbval-ignore-output"]
print(f"chapter run time: {run.elapsed():.1f} s at scale={run.scale!r} on {run.device}")

# %% [markdown]
# The seeds column and the line under the table come from the committed stability record
# (`data/stability/07_pf_ppo.json`, quick scale, seeds 0–4). In it, **claims 3 and 4 are
# unstable**: their verdicts flip between seeds. Claim 4 in particular is a stochastic RL outcome
# whose bootstrap interval sits close to 0 on most seeds, so a ✓ or ✗ for it on one seed says
# little; claims 1, 2 and 4b keep their verdicts on every recorded seed.
#
# ## Deviations from the paper
#
# - **What a verdict audit of issue 38 found, left for the chapter's group issue (01–07).**
#   Claim 4's bootstrap pairs prompts within one training run, so it misses the noise
#   between runs: the verdict flips between seeds (the table names it), and a paired gain
#   over training runs (3 replicates × seeds, each run's per-prompt mean) is the test of
#   "better". "Better of BR/BW" is picked on the data it is then tested on; testing each
#   against PPO-M (the paper reports both above it) removes that bias. Claim 3's ρ > 0 over
#   six filters is a coin flip under no relation; its permutation p-values (printed) are
#   the honest reading.
# - **Our checks apart.** Claim 4b, our ablation of the paper's explanation, was counted in
#   the paper's tally; it is now shown under our own checks. Its test is unchanged.
# - **Everything is a toy stand-in.** 7B code LLMs, the paper's RM, HumanEval/MBPP/LeetCode and
#   the math sets are replaced by a stack-language task with an exact verifier and a
#   Bradley–Terry RM on hashed n-grams trained on a few hundred noisy pairs. Claims are about the
#   mechanism; no pass@1 of the paper is re-measured, and the RM is far weaker than the paper's.
# - **Quick scale: the policy is tabular.** Each prompt has its own logits over 32 candidates, so
#   what one prompt's update teaches does not spread to others, unlike an LLM; the critic is a
#   per-prompt running value; PPO takes one epoch in 4 minibatches. The token-level transformer
#   with a critic network and GAE runs only at full scale.
# - **Equal gradient samples.** Every filter gets the same number of gradient samples per update;
#   a filter keeping $k$ of $N$ responses rolls out `batch`/$k$ prompts. The official filter code
#   instead keeps the rollout batch fixed and trains on fewer samples.
# - **Settings chosen before the run, not tuned:** the KL coefficient (0.01) and clip (0.2) follow
#   the official script; the learning rates, 60 updates, the pool mix (3 correct, 21 mutants,
#   8 random), 400 pairs, 15 % label noise, the 4,096 hash buckets and the L2 penalty are ours.
# - **What we could not confirm from the paper.** Its full text was not available offline. The
#   filters follow the official code (arg-max with the first index on ties, one random other; the
#   reweighting variant's per-prompt max/min and 0.4/0.1 weights); $R^2$ is taken as the
#   coefficient of determination of a least-squares line fitted to all kept samples, pooled over
#   prompts; which $N$ the paper used, how it binned rewards for its reliability figure and its
#   $R^2$ values were not checked. "Middle deciles 4–7" in claim 1 is our choice.
# - **Claim 4b** is our own ablation, not a result of the paper.
# - **Criteria changed after their results were known: none.** After the first run we added, as
#   context only, the permutation p-value of claim 3 and the printed readings (composition of the
#   top decile, RM gains, the RMs' top picks); no criterion, threshold, size or seed changed.
# - **Peers.** verl's function was re-implemented from its source (0.9.1), not run: installing
#   verl would change `packaging`, `transformers` and `tokenizers` in the book's environment, and
#   its `core_algos` module imports Ray through `verl.protocol`.
#
# ## Run it at full scale
#
# ```bash
# .venv/bin/python -m repbook run 07 --scale full
# ```
# Full scale replaces the tabular policy by a tiny causal transformer (2 layers, width 64): SFT
# for 3,000 steps on the candidate pools of 500 prompts, then token-level PPO with a critic
# network, GAE and a per-token KL penalty to the SFT model, 60 updates of 512 gradient samples,
# $N\in\{4,8\}$, 3 replicates, the same RM recipe. It is meant for a GPU (an estimated 5–10
# minutes there; not yet timed), and runs on a CPU, slowly.
