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
# OpenRLHF fork, Apache-2.0, without data, checkpoints or reward model); the arXiv v4 abstract also
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
# and the RM is a Bradley–Terry model learned from a few thousand noisy preference pairs.
#
# ```{admonition} Claims we test
# **The paper's claims** (3 and 4 behind a sanity floor on the RM, at least 65 % of
# same-prompt pairs ordered right, as are our checks; 3 and 4 also on training that moves the
# policy; 4 and 4a also on the paper's premise, claim 1, holding beyond noise)
#
# - **1** · The RM's reliability varies with its reward, and high rewards are the more
#   reliable: among responses in the top reward decile the RM orders pairs of the same prompt
#   more accurately than among those in the middle deciles.
# - **3** · Filters with a higher $R^2$ train to a higher actual score: across the filters,
#   $R^2$ and the final actual score are rank-correlated beyond what a random ordering gives.
# - **4** · PF-PPO (BR) and PF-PPO (BW) each end with a higher actual score than PPO-M, on
#   paired training runs; **4a**, and each higher than PF-PPO (BoN). Both presuppose claim 1:
#   the paper filters *because* high rewards are the reliable ones.
#
# **Quoted (not re-derived):** 5, PF-PPO's 7B pass@1 and gains on HumanEval, MBPP,
# LeetCode-Contest, Ape210K and CMATH.
#
# **Our own checks (outside the paper's tally)**
#
# - **2** · $R^2$ ranks the filters the way we read the paper: BR and BW above keeping every
#   response (PPO-M), BoN the lowest (the abstract says only that $R^2$ indicates promising
#   filters; the ranking is ours).
# - **4b** · The advantage of BR/BW over PPO-M is larger with the learned RM than with a
#   Gaussian-noise RM of the same Pearson correlation (matched on that only, not on pair
#   accuracy or on reliability per reward).
# - **4c** · BR and BW each beat "random 2", which keeps as many responses per prompt chosen at
#   random: choosing by reward vs at random, at equal keep count.
# - **4d** · BR and BW each gain more over BoN than "random 2" gains over "random 1": what 4a
#   measures beyond the 2:1 count of samples kept.
# ```
#
# What was read: the abstract, the official code (its README's pass@1 table, its training
# script, its filter trainer) and a secondary summary of the paper; the paper's full text was
# not available offline. Each claim's source in the verdict table says which.

# %% tags=["parameters"]
scale = "quick"  # "quick": tabular policy, ≤ 90 s on 2 CPUs; "full": transformer, GPU
seed = 0

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from repbook.core import all_of, at_least, at_most, color_for, full_run_lines
from repbook.core import gain_line, paired_gain, paired_summary, reading_lines
from repbook.core import reference_line, setup, tol
from repbook.papers import pf_ppo

# %%
COMMON = dict(rm_prompts=600, pairs=6000, label_noise=0.15, pool=(3, 21, 8), Ns=[4, 8])
COMMON |= dict(replicates=5, updates=60)
QUICK = dict(policy="tabular", prompts=200) | COMMON
QUICK |= dict(prompts_per_update=100, boot=1000, perms=10_000)
FULL = dict(policy="tokens", prompts=500) | COMMON
FULL |= dict(prompts_per_update=128, boot=2000, perms=10_000, sft_steps=3000)
FULL |= dict(sft_batch=256, sft_lr=1e-3, eval_every=10, eval_samples=8)
SIZES = {"quick": QUICK, "full": FULL}
REGIME = "a toy code-generation task with an exact verifier, a hashed n-gram reward "
REGIME += "model and a categorical policy; CPU"
LABEL = pf_ppo.LABELS
STRATS, BATCH, PER_PROMPT = pf_ppo.STRATEGIES, pf_ppo.BATCH_LEVEL, pf_ppo.PER_PROMPT
ROLES = dict(br="ours", bw="alt", all="baseline", bon="alt2", worst="muted")
ROLES |= dict(random2="alt3", random1="#F0E442") | {s: "peer" for s in BATCH}
COLORS = {LABEL[s]: role for s, role in ROLES.items()}

# %%
run = setup(scale=scale, seed=seed, sizes=SIZES, regime=REGIME, colors=COLORS)
ledger = run.ledger
Ns = run["Ns"]

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
# | worst only; random 2; random 1 (our controls) | $\{w\}$; two uniform draws; one uniform draw |
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

# %%
print("BW by lib: \n", pf_ppo.select(toy_r, "bw").astype(int))
r_kept, s_kept = toy_r[bw_by_hand], toy_s[bw_by_hand]
r2_hand = np.corrcoef(r_kept, s_kept)[0, 1] ** 2
r2_lib = pf_ppo.r_squared(r_kept, s_kept)
print(f"R² on the BW samples: by hand {r2_hand:.6f}, lib {r2_lib:.6f}")
ratio, adv, eps = np.exp(-0.9 + 1.2), 1.5, 0.2
by_hand = -min(ratio * adv, np.clip(ratio, 1 - eps, 1 + eps) * adv)
lib = pf_ppo.ppo_clip_loss(-0.9, -1.2, adv, clip=eps)
sample = f"PPO-clip loss of one sample (ρ = {ratio:.3f}, A = {adv})"
print(f"{sample}: by hand {by_hand:.6f}, lib {lib:.6f}")

# %% [markdown]
# ## A toy code-generation task with an exact verifier
#
# A program runs on a stack: `x` pushes the input, the digits 1 2 3 5 7 push themselves, `+ - *`
# combine the top two values mod 10, `dup`, `swap`, `drop` rearrange. The result is the top of
# the stack; a program that runs out of operands fails every test. Each prompt is a target
# $(a x + b) \bmod 10$ with $a\in1..9$, $b\in0..9$ and 8 of the 10 inputs as hidden tests.

# %%
task = pf_ppo.Task(a=3, b=7, tests=(0, 1, 2, 4, 5, 6, 8, 9))
programs = [("x", "3", "*", "7", "+"), ("7", "x", "3", "*", "+")]
programs += [("x", "3", "*", "5", "+"), ("x", "5", "*", "7", "+"), ("x", "+")]
for prog in programs:
    outs = [pf_ppo.run_program(prog, x) for x in task.tests]
    rate = pf_ppo.pass_rate(prog, task)
    print(f"{' '.join(prog):<14} outputs {outs}  pass rate {rate:.3f}")
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
# For claim 4b we also build an RM with *homoscedastic* noise: actual score plus Gaussian noise
# of one fixed variance, drawn once per (prompt, program), with the variance set so that its
# overall correlation with the actual score equals the learned RM's (matched on that only).
# Each replicate draws new prompts, pools, preference pairs and RM (`pf_ppo.make_world`), and is the unit over which the
# paired gains below are taken.

# %%
TOKENS = run["policy"] == "tokens"
WORLDS = dict(child_rng=run.child_rng, seed=seed, device=run.device)
WORLDS["torch_generator"] = run.torch_generator if TOKENS else None
worlds = pf_ppo.make_worlds(run.sizes, **WORLDS)

# %%
TOP_PICK, GATE_RM = pf_ppo.TOP_PICK, "RM pair accuracy, per replicate"
summary = pf_ppo.world_summary(worlds)
rm_accuracy = summary["pair accuracy, learned RM"].tolist()
print(summary.round(3).T.to_string())
print(pf_ppo.summary_reading(summary))

# %% [markdown]
# The table describes each replicate's initial policy and RM: the share of same-prompt pairs
# with different actual scores that the RM orders right, and its correlation with the actual
# score. At quick scale the last two rows are what a policy that fully trusted the RM would
# reach: the pass rate of its favourite candidate, for the learned and for the homoscedastic RM.
#
# **A sanity floor on the RM (ours; not a regime gate).** Claims 2–4 and our checks require the
# RM to order at least 65 % of same-prompt pairs right on every replicate. The bar was set
# knowing this recipe's accuracies (see Deviations), so it cannot fail at this recipe: it
# only guards against a broken RM (a coin orders 50 %). It does not say the RM is realistic:
# the paper's RM accuracy was not read, and how this RM compares with a 7B code RM is unknown.
# Claim 1 is not behind it: it measures the RM as it is.
#
# ## Claim 1 · Reliability varies with the reward
#
# The paper's observation is that the RM is more reliable for some rewards than for others, and
# a secondary summary of the paper says the high rewards are the reliable ones. A bin's variance
# of a 0/1-like score is $p(1-p)$ of its mean pass rate $p$, so it measures where the pass rate
# is, not whether the RM can tell responses apart there. We measure reliability directly: sort
# the initial policy's responses (32 per prompt: at quick scale the whole pool, at full scale
# SFT samples) into reward deciles, and in each decile take the pairs of responses *to the same
# prompt* that both lie in it and have different actual scores; the decile's reliability is the
# share of those pairs the RM orders right (`pf_ppo.pair_accuracy_by_bin`). A bin with any mean pass
# rate can have any accuracy between 0 and 1.
#
# **Criterion (fixed before the run).** Per replicate, the accuracy in the top decile minus the
# mean accuracy over the middle deciles (4–7 of 10); the paired gain over replicates,
# mean − $t$·SE, must be above 0 (within the noise if ± $t$·SE spans 0). It fails if the RM's
# favourites are no easier to order than its middling responses: for instance if it scores
# near-miss mutants as highly as the correct programs they came from, so that the top decile
# mixes them in an order it cannot see.

# %%
G1 = "pair accuracy, top decile − deciles 4–7, per replicate"
deciles = pf_ppo.decile_gaps(worlds, middle=slice(3, 7), top=9)
acc_df = deciles.table
gain1, gain1_homo = deciles.gaps["learned"], deciles.gaps["homoscedastic"]
print("\n".join(pf_ppo.decile_lines(deciles)))
contents = [pf_ppo.decile_contents(*w.initial["learned"]) for w in worlds]  # figure

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(11, 4))
for k, content in enumerate(contents):
    for (what, vals), role in zip(content.items(), ("ours", "peer", "baseline")):
        line = dict(ms=3, color=color_for(role), alpha=0.7)
        axes[0].plot(range(1, 11), vals, "o-", **line, label=what if k == 0 else None)
middle = dict(color=color_for("muted"), alpha=0.12, label="middle deciles (4–7)")
axes[0].axvspan(3.5, 7.5, **middle)
axes[0].set(xlabel="reward decile of the learned RM (1 = lowest)")
axes[0].set(ylabel="share / pass rate", xticks=range(1, 11), ylim=(0, 1))
axes[0].set(title="What each reward decile holds (lines: replicates)")
axes[0].legend(loc="center left", fontsize=8)
for name, role in [("learned", "ours"), ("homoscedastic", "baseline")]:
    d = acc_df[acc_df.rm == name].groupby("decile")["accuracy"]
    mean = d.mean()
    axes[1].plot(mean.index, mean, "o-", color=color_for(role), label=f"{name} RM")
    band = dict(color=color_for(role), alpha=0.15)
    axes[1].fill_between(mean.index, d.min(), d.max(), **band)
reference_line(axes[1], 0.5, "a coin")
axes[1].axvspan(3.5, 7.5, color=color_for("muted"), alpha=0.12)
axes[1].set(xlabel="reward decile (1 = lowest)")
axes[1].set(ylabel="pair accuracy within the decile")
axes[1].set(xticks=range(1, 11), ylim=(0, 1))
axes[1].set(title="How well the RM orders same-prompt pairs (band: replicates)")
axes[1].legend(fontsize=8, loc="lower right")
plt.show()

# %%
_ = ledger.check(
    1,
    "the RM orders same-prompt pairs more accurately in its top reward decile than in "
    "its middle deciles",
    paper="the abstract: the RM's reliability varies across responses with different "
    "rewards; a secondary summary: high rewards are the more reliable",
    source="secondary summary", measured={G1: gain1},
    criterion=paired_gain(G1, k="t"), tolerance=tol(abs=0.005), show=[G1],
)  # fmt: skip
print(ledger.claim("1").reading_line())
# the paper's premise, the gate of claims 4 and 4a: the same gap, RM and rule
PREMISE = "claim 1's gap, mean − t·SE over replicates"
s1 = paired_summary(gain1)
premise = s1.mean - s1.half
print(f"{PREMISE}: {premise:+.4f} (the premise holds beyond noise if > 0)")

# %% [markdown]
# The right panel is the reliability the claim is about; the left one says what each decile
# holds. The homoscedastic RM of claim 4b, whose noise does not depend on the actual score, is
# drawn beside the learned one at the same overall correlation. Its accuracy need not be flat
# across deciles: how far apart the actual scores inside a decile lie changes how often any
# noisy RM orders them right, so the learned RM's gap is read beside the homoscedastic one's
# (both printed above).
#
# ## Our check 2 · $R^2$ on the filtered samples ranks the filters
#
# The abstract says only that $R^2$ on the filtered samples indicates which filters are
# promising (tested in claim 3); that BR and BW rank above PPO-M and BoN lowest is our reading,
# so this check is ours. For each replicate and $N$, every prompt gets $N$ responses from the
# initial policy; each filter keeps its subset and we compute $R^2$ over the kept samples of all
# prompts. The bootstrap over prompts (the same prompts for every filter, averaged over
# replicates) is drawn in the figure only.
#
# **Criterion (ours).** For every $N$, the paired gains over replicates of
# $R^2(\text{BR})-R^2(\text{PPO-M})$ and $R^2(\text{BW})-R^2(\text{PPO-M})$, and of
# $\min\{R^2(\text{PPO-M}), R^2(\text{BR}), R^2(\text{BW})\}-R^2(\text{BoN})$, have
# mean − $t$·SE above 0. A filter that keeps the best response adds little if the RM's top picks
# are no more reliable than the rest; then BR and BW would not beat PPO-M. Behind the RM's
# sanity floor.

# %%
PAPER4 = ["all", "bon", "br", "bw"]
R2 = dict(child_rng=run.child_rng, boot=run["boot"], device=run.device)
r2_df, boot_r2 = pf_ppo.initial_r2(worlds, Ns, **R2)
r2_mean = r2_df.pivot_table(index="strategy", columns="N", values="r2").reindex(STRATS)
print("\n".join(pf_ppo.r2_lines(r2_mean, pf_ppo.bootstrap_contrasts(boot_r2))))


# %% tags=["hide-input"]
def per_n_figure(draw, title, labels, *, legend=None, fontsize=10):
    """One panel per N (shared y): draw(ax, n), `labels` (title formatted with n)."""
    fig, axes = plt.subplots(1, len(Ns), figsize=(5.5 * len(Ns), 4), sharey=True)
    for ax, n in zip(np.atleast_1d(axes), Ns):
        draw(ax, n)
        ax.set(**labels | dict(title=labels["title"].format(n=n)))
    if legend is not None:
        np.atleast_1d(axes)[legend[0]].legend(**legend[1])
    fig.suptitle(title, fontsize=fontsize)
    plt.show()


top_y = 1.5 * max(
    max(np.quantile(boot_r2[n], 0.975).max() for n in Ns),
    np.nanmax(r2_mean.drop("verl-max_min").to_numpy()),
)


def r2_bars(ax, n):
    for i, s in enumerate(STRATS):
        vals = r2_df[(r2_df.N == n) & (r2_df.strategy == s)].r2
        peer, col = s in BATCH, color_for(LABEL[s])
        look = dict(alpha=0.35 if peer else 0.8, hatch="//" if peer else None)
        ax.bar(i, vals.mean(), color=col, **look, edgecolor=col)
        if not peer:
            lo, hi = np.quantile(boot_r2[n][s], [0.025, 0.975])
            ax.plot([i, i], [lo, hi], color="black", lw=1.2)
        ax.scatter(np.full(len(vals), i), vals, s=10, color="black", zorder=3)
    labels = [LABEL[s] for s in STRATS]
    ax.set_xticks(range(len(STRATS)), labels, rotation=45, ha="right", fontsize=8)
    mm = r2_mean.loc["verl-max_min", n]
    text = "undefined" if np.isnan(mm) else f"{mm:.2f}\n(batch max, min)"
    ax.text(STRATS.index("verl-max_min"), 0.9 * top_y, text, ha="center", fontsize=7)


per_n_figure(
    r2_bars,
    "How much of the actual score the reward explains on each filter's samples "
    "(bars: mean; dots: replicates; lines: 95% bootstrap; hatched: verl, batch level)",
    dict(title="N = {n}: R² of reward vs actual score", ylabel="R² on the kept samples")
    | dict(ylim=(0, top_y)),
    fontsize=9,
)

# %%
m2 = pf_ppo.r2_gains(r2_df, Ns)
for name, g in m2.items():
    print(gain_line(name, g, unit="replicates"))
R2_VALUES = {f"R² {LABEL[s]} (N={n})": r2_mean.loc[s, n] for n in Ns for s in PAPER4}
T_R2 = [1e-06, 2e-06, 9e-07, 2e-06, 9e-07, 2e-06, 7e-07, 6e-07]  # `repbook numerics`
T_M2 = [3e-06, 4e-06, 6e-06, 4e-06, 7e-06, 2e-05]


def tols(names, values):
    """Per-value tolerances (from `repbook numerics`), with the gates' own."""
    return {k: tol(abs=v) for k, v in zip(names, values)} | GATE_TOL


GATE_TOL = {GATE_RM: tol(abs=0.0002)}

# %%
_ = ledger.ours(
    2,
    "R²(BR) > R²(PPO-M), R²(BW) > R²(PPO-M), R²(BoN) lowest",
    why="our reading of the abstract's 'R² indicates promising filters' as a "
    "ranking; the "
    "paper's R² values were not read",
    measured={**R2_VALUES, **m2, GATE_RM: rm_accuracy}, gate=at_least(GATE_RM, 0.65),
    criterion=all_of(*[paired_gain(name, k="t") for name in m2]),
    tolerance=tols(R2_VALUES, T_R2) | tols(m2, T_M2), show=list(m2),
)  # fmt: skip
print(ledger.claim("2").reading_line())

# %% [markdown]
# ## Training every filter
#
# PPO-clip ($\epsilon=0.2$) with a KL penalty $\beta=0.01$ on the standardised reward (the
# official script's initial KL coefficient), a critic trained on the kept samples, advantages
# normalised over the kept batch, and `updates` updates of `prompts_per_update` prompts each,
# **the same prompts per update for every filter**, as the official filter trainer keeps its
# rollout batch: each prompt gets $N$ responses, and a filter keeping $k$ of them trains on $k$
# per prompt. Every prompt is therefore updated as often under every filter; filtering spends
# gradient samples, not updates. The learner only sees RM rewards; the verifier's pass rates
# are used to *report* the policy's expected actual score. At quick scale the critic is a
# per-prompt running value and the expected score $\frac1P\sum_x\sum_y \pi(y\mid x)\,s(x,y)$ is
# exact over the pool; at full scale the critic is a second transformer with a value head,
# advantages come from GAE ($\gamma=1$, $\lambda=0.95$) with the KL penalty per token, and the
# score is estimated from `eval_samples` programs per prompt. verl's three batch-level
# reweightings run in the same loop (advantages whitened over the whole batch, then resampled
# with replacement, as verl does). "random 1" (one response at random, the sample-count control
# of BoN for our check 4d) trains beside them. The homoscedastic RM trains only PPO-M, BR and
# BW, which is all claim 4b needs. Each trace counts the samples the actor trained on (keep
# count × prompts × updates, checked in `pf_ppo.train_all`). `pf_ppo.train_filter` runs one filter on
# one replicate; `pf_ppo.train_all` runs every one.

# %%
HOMO = ["all", "br", "bw"]  # the homoscedastic RM only serves claim 4b
PPO = dict(n_updates=run["updates"], prompts=run["prompts_per_update"])
EVAL = {key: run[key] for key in ("eval_every", "eval_samples")} if TOKENS else {}
cfg = pf_ppo.TokenPPOConfig(**PPO, **EVAL) if TOKENS else pf_ppo.PPOConfig(**PPO)
TRAIN = dict(child_rng=run.child_rng, homoscedastic=HOMO, device=run.device)
TRAIN["torch_generator"] = run.torch_generator if TOKENS else None
traces = pf_ppo.train_all(worlds, Ns, cfg, **TRAIN)
final = pf_ppo.final_table(traces)

# %%
init_actual = np.mean([w.initial["learned"][1].mean() for w in worlds])
print("\n".join(pf_ppo.final_lines(final, init_actual, run["replicates"])))
GATE_TRAIN = "PPO-M's gain in actual score, mean over replicates and N"
learned_final = final[final.rm == "learned"]
ppo_m = learned_final[learned_final.strategy == "all"]
ppo_m_gain = float(ppo_m.actual.mean() - init_actual)
print(f"{GATE_TRAIN}: {ppo_m_gain:+.3f}")
GATE_TOL[GATE_TRAIN] = tol(abs=0.002)


# %% tags=["hide-input"]
def training_curves(ax, n):
    for s in STRATS:
        runs = [traces[(k, "learned", n, s)].actual for k in range(len(worlds))]
        curves, steps = np.array(runs), traces[(0, "learned", n, s)].steps
        x = np.arange(curves.shape[1]) if steps is None else steps
        style = dict(ls=":" if s in BATCH else "-", lw=1.2 if s in BATCH else 1.8)
        ax.plot(x, curves.mean(0), color=color_for(LABEL[s]), label=LABEL[s], **style)
        band = dict(color=color_for(LABEL[s]), alpha=0.12)
        ax.fill_between(x, curves.min(0), curves.max(0), **band)


per_n_figure(
    training_curves,
    "Training on the learned RM, equal prompts per update "
    "(line: mean; band: range over replicates)",
    dict(xlabel="PPO update", ylabel="expected actual score (pass rate)")
    | dict(title="N = {n}: actual score during training"),
    legend=(0, dict(fontsize=7, ncols=2, loc="upper left")),
)

# %% [markdown]
# **The gate of claims 3 and 4 (ours, fixed before the run)** adds to the RM's sanity floor:
# PPO-M must raise
# the expected actual score by at least 0.02 (mean over replicates and $N$) from the initial
# policy. If training does not move the policy, no filter can be told apart from another by
# where it ends.
#
# ## Claim 3 · Filters with a higher $R^2$ train better
#
# **Criterion.** In each replicate and for each $N$ (a block), Spearman's $\rho$ across the six
# per-prompt filters (PPO-M, BoN, BR, BW, worst only, random 2; random 1, added later as a
# control for claim 4a, is left out so the test is the one first fixed) between that
# replicate's $R^2$ and its final expected actual score; the statistic is the mean $\rho$ over
# the blocks. The unit of the claim is the filter, so under no relation the filters' labels are
# exchangeable: one permutation of the six filters is applied to every block, and the one-sided
# p-value is exact over the 720 orderings (`pf_ppo.filter_rank_test`). The claim holds if
# p < 0.05. It fails if $R^2$ says little about which filter trains well, e.g. if the filters
# with the narrowest reward range (BoN, worst only) trained as well as the others, or if the
# ordering changes from replicate to replicate.

# %%
CLAIM3 = ["all", "bon", "br", "bw", "worst", "random2"]
replicates = len(worlds)
xs3, ys3 = pf_ppo.rank_blocks(r2_df, traces, Ns, replicates, CLAIM3)
rho3, p3, rhos3 = pf_ppo.filter_rank_test(xs3, ys3)
print(
    f"mean Spearman ρ(R², final actual score) over {len(rhos3)} blocks "
    f"({len(worlds)} replicates × {len(Ns)} N) = {rho3:+.3f}, filter-level exact "
    f"one-sided permutation p = {p3:.4f} (720 orderings); ρ per block ranges over "
    f"[{rhos3.min():+.2f}, {rhos3.max():+.2f}], positive in {int((rhos3 > 0).sum())}"
)
# the keep count: ρ within groups of equal keep count (shown, not judged)
keep = pf_ppo.keep_count_effect(xs3, ys3, CLAIM3, n=4)  # 1, 2 or N per prompt
print("\n".join(pf_ppo.keep_count_lines(keep)))
fin_learned = learned_final.pivot_table(index="strategy", columns="N", values="actual")


# %% tags=["hide-input"]
def r2_against_final(ax, n):
    for s in STRATS:
        peer, col = s in BATCH, color_for(LABEL[s])
        fa = learned_final[(learned_final.N == n) & (learned_final.strategy == s)]
        fa = fa.actual
        err = [[fa.mean() - fa.min()], [fa.max() - fa.mean()]]
        look = dict(fmt="s" if peer else "o", mfc="white" if peer else col)
        look |= dict(color=col, capsize=2, label=LABEL[s])
        ax.errorbar(r2_mean.loc[s, n], fa.mean(), yerr=err, **look)


per_n_figure(
    r2_against_final,
    f"Mean ρ over replicates and N = {rho3:+.2f}, filter-level p = {p3:.3f} "
    "(bars: range over replicates; open squares: verl, not in the test)",
    dict(xlabel="R² on the filtered samples (initial policy, log scale)", xscale="log")
    | dict(ylabel="final expected actual score")
    | dict(title="N = {n}: R² against where each filter ends"),
    legend=(-1, dict(fontsize=7, ncols=2)),
)

# %%
RHO3, P3 = "mean Spearman ρ over replicates × N", "filter-level exact permutation p"
_ = ledger.check(
    3,
    "higher R² filters train to a higher actual score",
    paper="the abstract: R² on the filtered samples indicates which filters are "
    "promising, as it measures how well the filtered rewards indicate real performance",
    source="abstract",
    measured={RHO3: rho3, P3: p3, GATE_RM: rm_accuracy, GATE_TRAIN: ppo_m_gain},
    gate=all_of(at_least(GATE_RM, 0.65), at_least(GATE_TRAIN, 0.02)),
    criterion=at_most(P3, 0.05, strict=True), tolerance=dict(GATE_TOL), show=[RHO3, P3],
)  # fmt: skip
print(ledger.claim("3").reading_line())

# %% [markdown]
# ## Claim 4 · PF-PPO (BR) and (BW) end above PPO-M and above BoN
#
# The official README reports 7B pass@1 of BR and of BW above PPO-M on all three code
# benchmarks, and BoN barely above SFT. We compare each replicate's final expected actual score
# (mean over its prompts) of BR and of BW with PPO-M's and with BoN's, trained on the same
# replicate, so that each replicate gives one paired gain.
#
# **Criterion (fixed before the run).** For every $N$ and for each of BR and BW, the paired gain
# over replicates, mean − $t$·SE, is above 0 (claim 4 against PPO-M, 4a against BoN); one part
# whose ± $t$·SE spans 0 makes the claim within the noise, and a part whose mean + $t$·SE is at
# or below 0 fails it. It fails if filtering, with updates equalised, ends no higher than
# training on every response, e.g. when the RM's best response is as often a near miss as
# any other. Gated as claim 3, and on the paper's premise: the paper filters because the RM
# is more reliable at high rewards, so claims 4 and 4a are judged only where claim 1's gap
# (the same statistic on the same RM) is above 0 beyond noise, mean − $t$·SE > 0; otherwise
# they read `not checked at this scale`, with the premise's value.


# %%
def read_gains(gains):
    for name, g in gains.items():
        print(gain_line(name, g, unit="replicates"))


def ours_vs(cid, statement, why, gains, tolerances):
    """Our check on BR and BW's paired gains per replicate, gated like claim 3."""
    _ = ledger.ours(
        cid, statement, why=why, measured={**gains, **GATES}, gate=GATE34,
        criterion=all_of(*[paired_gain(name, k="t") for name in gains]),
        tolerance=tols(gains, tolerances), show=list(gains),
    )  # fmt: skip
    print(ledger.claim(cid).reading_line())


GATES = {GATE_RM: rm_accuracy, GATE_TRAIN: ppo_m_gain}
GATE34 = all_of(at_least(GATE_RM, 0.65), at_least(GATE_TRAIN, 0.02))
GATES_P = {**GATES, PREMISE: premise}
PREMISE_GATE = at_least(PREMISE, 0, strict=True)
GATE4 = all_of(at_least(GATE_RM, 0.65), at_least(GATE_TRAIN, 0.02), PREMISE_GATE)
m4 = pf_ppo.gains_against(traces, "all", Ns, replicates)
m4a = pf_ppo.gains_against(traces, "bon", Ns, replicates)
read_gains(m4 | m4a)

# %%
print("\n".join(pf_ppo.training_gain_lines(final, init_actual, Ns)))
# the final ranking against the number of samples each filter keeps per prompt
rankings = {n: pf_ppo.keep_ranking(final, n) for n in Ns}
print("\n".join(pf_ppo.keep_ranking_lines(rankings)))


# %% tags=["hide-input"]
def reward_against_actual(ax, n):
    for s in PER_PROMPT:
        d = learned_final[(learned_final.N == n) & (learned_final.strategy == s)]
        col = color_for(LABEL[s])
        ax.scatter(d.reward, d.actual, color=col, s=18, alpha=0.6)
        big = dict(s=70, edgecolor="black", label=LABEL[s], zorder=3)
        ax.scatter(d.reward.mean(), d.actual.mean(), color=col, **big)
    ax.scatter(0.0, init_actual, marker="*", s=160, color="black", label="initial")
    if not TOKENS:
        trust = "RM's top pick (full trust in the RM)"
        reference_line(ax, summary[TOP_PICK].mean(), trust)


per_n_figure(
    reward_against_actual,
    "Where each filter ends (small dots: replicates; large: mean)",
    dict(xlabel="final expected RM reward (standardised)")
    | dict(ylabel="final expected actual score")
    | dict(title="N = {n}: RM score vs actual score"),
    legend=(-1, dict(fontsize=7)),
)

# %% [markdown]
# **Diagnostic (shown, not judged): actual score at matched RM reward.** If filtering made the
# policy climb the RM in a more trustworthy direction, a filter would reach a higher actual
# score than PPO-M at the *same* RM reward. Along each training curve we read the expected
# actual score at the highest RM reward every one of PPO-M, BR, BW and random 2 reaches on every
# replicate (linear interpolation on the running maximum of the reward), and its gain from the
# initial policy per unit of RM reward at the end of training.

# %%
MATCH = ["all", "br", "bw", "random2", "bon"]
for n in Ns:
    r_star, at = pf_ppo.matched_reward(traces, worlds, n, MATCH, reach=MATCH[:4])
    print(pf_ppo.matched_line(n, r_star, at))


# %% tags=["hide-input"]
def climbs(ax, n):
    for s in MATCH:
        for k in range(len(worlds)):
            t = traces[(k, "learned", n, s)]
            look = dict(color=color_for(LABEL[s]), lw=1, alpha=0.7)
            ax.plot(t.reward, t.actual, **look, label=LABEL[s] if k == 0 else None)


per_n_figure(
    climbs,
    "Does filtering change the direction of the climb, or only its speed? "
    "(lines: replicates)",
    dict(xlabel="expected RM reward during training (standardised)")
    | dict(ylabel="expected actual score")
    | dict(title="N = {n}: actual score against RM reward"),
    legend=(0, dict(fontsize=7)),
)

# %%
PAPER_4 = "README: HumanEval 82.9 (BR), 82.4 (BW) vs 80.2 (PPO-M); MBPP 75.9, 76.2 vs "
PAPER_4 += "75.0; LeetCode-Contest 33.0, 30.4 vs 29.8"
PAPER_4A = "README: HumanEval 82.9 (BR), 82.4 (BW) vs 75.8 (BoN); MBPP 75.9, 76.2 vs "
PAPER_4A += "71.7; LeetCode-Contest 33.0, 30.4 vs 16.8"
ABOVE = "PF-PPO (BR) and PF-PPO (BW) each end above "
for cid, gains, against, paper, tolerances in [
    (4, m4, "PPO-M", PAPER_4, [0.002, 0.002, 0.02, 0.02]),
    ("4a", m4a, "PF-PPO (BoN)", PAPER_4A, [0.0002, 2e-05, 0.002, 0.0005]),
]:
    _ = ledger.check(
        cid, ABOVE + against, paper=paper, source="official code",
        measured={**gains, **GATES_P}, gate=GATE4,
        criterion=all_of(*[paired_gain(name, k="t") for name in gains]),
        tolerance=tols(gains, tolerances) | {PREMISE: tol(abs=0.003)},
        note="toy task; the paper's pass@1 is not re-measured", show=list(gains),
    )  # fmt: skip
for c in ledger.claims[-2:]:
    print(c.reading_line())

# %% [markdown]
# ### Our check 4c · Choosing by reward, or keeping fewer samples?
#
# BR, BW and "random 2" all keep two responses per prompt and train on the same number of
# samples; only random 2 ignores the reward. The check compares choosing by reward with
# choosing at random, at equal keep count.
#
# **Criterion (ours, fixed before the run).** For every $N$ and for each of BR and BW, the paired
# gain over replicates against random 2, mean − $t$·SE, is above 0. Gated as claim 3.

# %%
m4c = pf_ppo.gains_against(traces, "random2", Ns, replicates)
read_gains(m4c)
ours_vs(
    "4c",
    "PF-PPO (BR) and PF-PPO (BW) each end above random 2 (two kept at random)",
    "the fair control for how many samples are kept; the paper does not report it",
    m4c,
    [0.002, 0.002, 0.003, 0.002],
)

# %% [markdown]
# ### Our check 4d · BR and BW over BoN, beyond the 2:1 count of samples kept
#
# BR and BW keep two samples per prompt, BoN one, so under the official setting they also take
# twice the gradient steps. "random 1" keeps one sample at random: random 2 − random 1 is what
# the second sample is worth without choosing by reward, and 4a's gains are read against it.
#
# **Criterion (ours, fixed before random 1 was run).** For every $N$ and for each of BR and BW,
# the paired gain over replicates of (X − BoN) − (random 2 − random 1), mean − $t$·SE, is
# above 0. Gated as claim 3.

# %%
counts, m4d = pf_ppo.count_controlled(traces, Ns, replicates)
for n, count in counts.items():
    effect = f"N={n}: random 2 − random 1, per replicate"
    print(pf_ppo.per_replicate_line(effect, count))
read_gains(m4d)

ours_vs(
    "4d",
    "PF-PPO (BR) and (BW) each gain more over BoN than random 2 over random 1",
    "separates 4a's gain from the 2:1 count of samples kept (and of steps)",
    m4d,
    [0.002, 0.002, 0.003, 0.002],
)

# %% [markdown]
# ### Our check 4b · The advantage of filtering, learned RM against a correlation-matched control
#
# The control RM adds Gaussian noise of one variance to the actual score, matched to the learned
# RM on Pearson correlation *only*. It is not a "less reliable at high rewards" control: its
# same-prompt pair accuracy and its top-decile gap (printed below) differ from the learned
# RM's. What 4b compares is therefore two RMs of equal correlation but
# different structure, not the paper's explanation; it stays ours.
#
# **Criterion (ours).** Per replicate, the advantage of filtering is the mean of BR − PPO-M and
# BW − PPO-M; for every $N$, the paired gain over replicates of (advantage with the learned RM)
# − (advantage with the homoscedastic RM), mean − $t$·SE, is above 0. Gated as claim 3.

# %%
advantage = {n: pf_ppo.filtering_advantage(traces, n, replicates) for n in Ns}
m4b = {
    f"N={n}: advantage, learned − homoscedastic RM, per replicate": [
        a - b for a, b in zip(adv["learned"], adv["homoscedastic"])
    ]
    for n, adv in advantage.items()
}
print("\n".join(pf_ppo.control_lines(summary, deciles, advantage)))

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(6, 3.6))
xs = np.arange(len(Ns))
for j, (rm, role) in enumerate([("learned", "ours"), ("homoscedastic", "baseline")]):
    vals = [np.array(advantage[n][rm]) for n in Ns]
    at, bar = xs + 0.38 * (j - 0.5), dict(color=color_for(role), label=f"{rm} RM")
    ax.bar(at, [v.mean() for v in vals], width=0.38, **bar)
    for x, v in zip(at, vals):
        ax.scatter(np.full(v.size, x), v, s=10, color="black")
ax.axhline(0, color="black", lw=0.8)
ax.set_xticks(xs, [f"N = {n}" for n in Ns])
ax.set(ylabel="mean of BR, BW − PPO-M\n(final actual score)")
ax.set(title="Advantage of filtering by RM noise structure (dots: replicates)")
ax.legend()
plt.show()

# %% [markdown]
# 4b compares two advantages, so it can hold while filtering ends below PPO-M under both RMs:
# the lines above say on how many replicates each advantage is positive.

# %%
ours_vs(
    "4b",
    "filtering's advantage over PPO-M is larger with the learned RM than with a "
    "Gaussian-noise RM of equal Pearson correlation",
    "compares two RMs matched on correlation only (not on pair accuracy or on "
    "reliability per reward); a noise model of ours",
    m4b,
    [0.002, 0.02],
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
r2_cols = {"R² (N=%d)" % n: r2_mean[n] for n in Ns}
final_cols = {"final actual (N=%d)" % n: fin_learned[n] for n in Ns}
peer = pd.DataFrame(r2_cols | final_cols).reindex(pf_ppo.STRATEGIES)
print(peer.rename(index=LABEL).round(3).to_string())
uniq = pf_ppo.verl_distinct(worlds[0], Ns, child_rng=run.child_rng, device=run.device)
left = ", ".join(f"N={n}: {u} of {run['prompts'] * n}" for n, u in uniq.items())
print(f"distinct samples left in a verl max_min batch: {left}")

# %% [markdown]
# At batch level `max_min` keeps the one highest- and one lowest-scored response of the *whole
# batch* (printed above), so nearly every prompt drops out of the update; per prompt, BW keeps the
# best and worst of each prompt. `max_random` is close to no filtering (weights 0.4 vs 0.1), and
# `pow` favours both extremes of the standardised reward.
#
# ## Quoted from the paper · Its own numbers (claim 5)

# %%
ledger.quote(
    5, "7B pass@1 of PF-PPO on code benchmarks",
    paper="HumanEval 82.9 (BR), MBPP 76.2 (BW), LeetCode-Contest 33.0 (BR)",
    source="official code", note="table in the official README; not re-measured here",
)  # fmt: skip
ledger.quote(
    "5b", "gains of PF-PPO over the previous 7B state of the art",
    paper="+7.9% HumanEval, +0.7% MBPP, +10.0% LeetCode-Contest", source="abstract",
)  # fmt: skip
ledger.quote(
    "5c", "math reasoning",
    paper="performance increase on Ape210K and CMATH with different RMs",
    source="abstract",
    note="no numbers in the abstract; the paper's tables were not available",
)  # fmt: skip

# %% [markdown]
# ## Verdicts

# %% tags=["nbval-check-output"]
ledger.show()

# %% tags=["nbval-ignore-output"]
print(run.time_line())

# %% [markdown]
# **Reading the verdicts.** The lines below are generated from this run's ledger, from the
# committed stability record (quick scale, five seeds, `data/stability/07_pf_ppo.json`; the
# claims that flip between its seeds, and those it no longer describes, are named; each
# claim's seeds are in the table's column), and last from the claims whose verdict differs
# under other kernels and thread counts (`data/numerics/07_pf_ppo.json`).

# %%
print("\n".join(reading_lines(ledger)))

# %% [markdown]
# ## Deviations from the paper
#
# - **What was read.** The abstract; the official code (`swtheing/PF-PPO-RLHF`: its README's
#   pass@1 table, `examples/scripts/combine_train_ana.sh`, and the filter trainer
#   `openrlhf_filter/trainer/ppo_trainer.py`); a secondary summary of the paper (for "high
#   rewards are the more reliable"); verl's `compute_pf_ppo_reweight_data`. The paper's full
#   text was not available offline: its $R^2$ values, its reliability figure, how it binned
#   rewards and which $N$ it used were not checked. Each claim's source says what it rests on:
#   claim 1 the secondary summary (the abstract says only that reliability varies), 3 the
#   abstract, 4 and 4a the README's table; 2 is our reading of the abstract and is ours. The
#   verl branch is named in the arXiv v4 abstract (the version read).
# - **Answered in this revision (an independent verdict audit, issue 33)** — old → new, the
#   reason, and what was known when each change was made:
#   - *Claim 4's confound: equal gradient samples → equal prompts per update.* Old: a filter
#     keeping $k$ of $N$ responses rolled out `batch`/$k$ prompts per update (400 gradient
#     samples each), so with a per-prompt tabular policy BR, BW and BoN updated each prompt 2–4×
#     as often as PPO-M. New: every filter rolls out the same `prompts_per_update` prompts (100
#     at quick scale, so PPO-M at $N=4$ keeps its 400 samples) and trains on the samples it
#     keeps. This is what the official filter trainer does: its `fit` loop makes experience for
#     a fixed rollout batch, keeps the maximum-reward sample and one random other of each
#     micro-rollout batch (`select_max_random`), normalises the advantages over the kept buffer
#     and trains on it. What we could not confirm: whether each micro-rollout batch (4 in the
#     official script) holds the 4 samples of one prompt, since its prompt data is not
#     released; the paper describes the filter per prompt, and the official reweighting
#     version (`openrlhf/trainer/ppo_utils/replay_buffer.py`) groups its weights by prompt.
#     The official grouping is less certain than that (second audit): `examples/train_ppo.py`
#     builds the prompt loader with `shuffle=False` and a `DistributedSampler`, so with more
#     than one rank a micro-rollout batch of 4 holds prompts that many indices apart, and
#     `examples/scripts/dup.sh` copies each prompt 5 times while `micro_rollout_batch_size` is
#     4, so `select_max_random` may act across prompts (on copies of one prompt and its
#     neighbour) rather than on the $N$ responses of one prompt. We keep the paper's per-prompt
#     description. That PPO-M used the same rollout batch as the filters is likewise an
#     assumption: its configuration was not among the files read.
#     Known when changed: the old verdicts (claim 4 ✓ at seed 0 under the confound), not the
#     new ones.
#   - *Claim 4's test.* Old: the better of BR and BW (picked on the data it was then tested on)
#     against PPO-M and against BoN, a bootstrap over the prompts of one training run (lower end
#     > 0); ✓ at seed 0 and ✓ on 1 of 5 seeds in the old record. New: BR and BW each, against
#     PPO-M (claim 4) and against BoN (4a, split out), as paired gains over independent
#     replicates (mean − $t$·SE > 0), the book's rule for "better". Known: the old verdicts and
#     margins, not the new ones.
#   - *Claim 3: significance on the pooled data.* Old: Spearman $\rho > 0$ over the six filters'
#     mean $R^2$ and mean final score, for each $N$ (✓ at seed 0 with one-sided permutation
#     p = 0.40 and 0.15, which a random ordering passes often; ✓ on 3 of 5 seeds). New: the mean
#     $\rho$ over every replicate × $N$ block, with a within-block permutation test, p < 0.05.
#     Known: the old values. (Replaced after the second audit, below.)
#   - *Claim 1: a reliability measure not tied to the mean.* Old: within-decile variance of the
#     actual score, middle deciles minus top decile, bootstrap lower end > 0 (✗ on every seed).
#     A 0/1-like score's variance is $p(1-p)$ of the bin's pass rate, so a homoscedastic RM drew
#     the same curve: the test read where the pass rate was, not the RM's reliability. New:
#     pair accuracy within each decile (`pf_ppo.pair_accuracy_by_bin`), top minus middle, as a paired
#     gain over replicates. Known: the old values and the old RM's overall pair accuracy
#     (0.64–0.67 on seed 0's three replicates), not the per-decile accuracies.
#   - *An RM of realistic accuracy, and a gate for it.* The audit asked for a more accurate RM.
#     A probe of the RM alone, run once by hand during this revision (2026-12-04) and not by
#     this chapter (its overall pair accuracy and correlation, printing no claim's value), with
#     150–600 RM prompts and 400–6,000 pairs, gave pair accuracies of 0.65–0.69 and
#     correlations of 0.20–0.26 (a dated measurement, not recomputed here): the hashed
#     n-gram RM cannot run the code, and more data barely helps it. We took the most accurate recipe of the probe, 600 RM prompts and 6,000 pairs,
#     and gated claims 1–4 on a pair accuracy of at least 0.65 on every replicate (our bar; the
#     paper's RM accuracy was not read), both before any claim was judged but knowing the old
#     recipe's 0.64–0.67 on seed 0 and the probe's values, so the gate is a floor this recipe
#     was known to clear, not a test it could have failed at seed 0; it fails for a weaker RM
#     (the old recipe would leave claims 1–4 `not checked`). This RM is still at the weak end
#     of what RMs reach on code; whether it is near the paper's is unknown.
#   - *Claim 2.* Criterion unchanged; the RM gate added. (Changed after the second audit,
#     below.)
#   - *Claim 4b (ours).* Old: the better-of-BR/BW advantage over PPO-M, bare means, learned
#     RM above homoscedastic for every $N$ (✗ on every seed). New: the mean of BR − PPO-M and
#     BW − PPO-M per replicate, learned minus homoscedastic, a paired gain over replicates.
#   - *Our check 4c, new:* BR and BW against random 2, the control the audit named.
#   - *Gates of claims 3, 4, 4a, 4b, 4c:* the RM gate and PPO-M's gain in actual score
#     ≥ 0.02 (the model trained); ours, fixed before the run.
#   - *Replicates 3 → 5* at both scales, so that the paired $t$ interval can resolve a gain
#     (Student's quantile 2.78 on 4 degrees of freedom instead of 4.30 on 2); fixed before
#     any new criterion was judged.
#   - *A smoke run before the quick run.* To find errors in the new code, the chapter ran
#     once at reduced sizes (100 prompts, 3 replicates, 8 updates, a weaker RM) and printed
#     its values; every criterion, gate and size above was written before it, and none
#     changed after it.
#   - *Protocols moved into the module (first audit):* one replicate's world
#     (`pf_ppo.make_world`), its initial samples (`pf_ppo.initial_samples`), training one filter (`pf_ppo.train_filter`), the pair
#     accuracies (`pf_ppo.pair_accuracy`, `pf_ppo.pair_accuracy_by_bin`) and the pooled rank test
#     (`pf_ppo.block_rank_test`), unit-tested in `tests/lib/test_pf_ppo_protocol.py`; the worlds
#     use the same random streams as before. Since then (no value changed) the module is a
#     package (`task`, `reward`, `filters`, `policy`, `tokens`, `protocols`), and the study
#     (the replicates, R² with its bootstrap, training every filter, the paired comparisons)
#     and the sentences under the tables are tested functions there too (`study`,
#     `readings`, `tests/lib/test_pf_ppo_study.py`).
# - **Answered after a second, independent audit of this revision** — old → new, the reason,
#   and what was known (every verdict of the first revision, at seed 0 and over its five-seed
#   record: 1 ≈, 2 ✗, 3 ✓ (p 0.0001), 4 ✗, 4a ✓, 4b ✓ on 1 of 5 seeds, 4c ≈):
#   - *Claims 4 and 4a gated on the paper's premise.* Old: judged whenever the RM's sanity
#     floor and PPO-M's training gain were met. New: also gated on claim 1's gap (the same
#     statistic on the same RM) being above 0 beyond noise, mean − $t$·SE > 0. The paper
#     filters because high rewards are the reliable ones; where the RM is not more reliable at
#     the top (claim 1 ≈, mean gap negative), filtering by reward has nothing of the paper's to
#     exploit, and a ✗ would judge the method in a world without its premise. Known when
#     changed: claim 1's gap (−0.010, negative on 4 of 5 replicates) and the old ✗ of claim 4,
#     so the gate was chosen knowing it is unmet here; it is the paper's own premise, not a bar
#     of ours, and it would open at an RM whose top decile is the more reliable. Added a
#     diagnostic, shown and not judged: each filter's actual score at matched RM reward along
#     the training curves, and its gain per unit of RM reward.
#   - *The final ranking and the keep count.* A generated sentence now says how closely the
#     final ranking follows the number of samples kept (the official setting: fixed rollout
#     batch, fixed train batch size, so fewer kept means fewer steps). New control "random 1"
#     (one response at random) and our check 4d, (BR or BW − BoN) − (random 2 − random 1), so
#     that 4a's gain can be read apart from the 2:1 sample count; 4d's criterion was written
#     before random 1 was run. Claim 3 keeps its six filters (random 1 is not added to it).
#   - *Claim 3: within-block → filter-level permutation.* Old: independent permutations per
#     block (p = 0.0001 at seed 0), which tests whether the ordering is consistent across
#     replicates, not whether $R^2$ predicts training across filters: the unit is the filter
#     (6 of them), and the blocks are pseudo-replicates. New: one permutation of the six
#     filters applied to every block, exact over the 720 orderings (`pf_ppo.filter_rank_test`),
#     the same p < 0.05 bar. Known when changed: the auditor's value for this test (mean
#     $\rho$ 0.657, p ≈ 0.078), so the new test was known to be near its bar. The reading adds
#     $\rho$ within groups of equal keep count and against the keep count (shown, not judged).
#   - *Claim 2 → our check 2, on replicate-level pairs.* Old: counted in the paper's tally with
#     source "abstract", though the ranking (BR, BW above PPO-M; BoN lowest) is our reading of
#     the abstract's "R² indicates promising filters"; its intervals bootstrapped prompts only
#     (✗ on every seed). New: ours, judged on paired per-replicate differences, mean − $t$·SE
#     > 0 for each contrast (BoN as min(PPO-M, BR, BW) − BoN); the bootstrap over prompts stays
#     in the figure. Known: the old ✗ and its bootstrap intervals.
#   - *The RM gate → a sanity floor.* Old: "the gate of claims 1–4", a regime gate. The 0.65
#     bar was set knowing the recipe's accuracies, so it is renamed a sanity floor, dropped from
#     claim 1 (which measures the RM as it is) and kept behind claims 2–4 and our checks; a
#     generated line now says the RM's realism is unknown (its correlation and the pass rate
#     of its favourite candidate printed with it).
#   - *Our check 4b relabelled.* Old: "filtering gains less when the RM's noise is
#     homoscedastic", a test of the paper's explanation. The control is matched on Pearson
#     correlation only: its pair accuracy is lower than the learned RM's and its top-decile gap
#     larger (both printed), the reverse of that story. New: the same criterion, stated as what
#     it compares (learned RM against a Gaussian-noise RM of equal correlation); still ours.
#   - *Full scale's minibatches.* Old: 4 minibatches with a mean loss for every filter, so every
#     filter took the same number of steps (unlike the official trainer and quick scale). New:
#     a fixed minibatch size, ⌈prompts·N / 4⌉, with steps scaling with the samples kept
#     (`pf_ppo.minibatch_count`), as in the official trainer. Full scale is GPU only and was not run
#     before or after the change.
#   - *Also:* the trace counts the samples the actor trained on (checked against keep count ×
#     prompts × updates in the chapter and the tests); 4c's motivation reworded (choosing by
#     reward vs at random, at equal keep count); the arXiv version corrected to v4; the RM
#     probe labelled as a dated measurement; the full-scale estimate redone.
# - **Everything is a toy stand-in.** 7B code LLMs, the paper's RM, HumanEval/MBPP/LeetCode and
#   the math sets are replaced by a stack-language task with an exact verifier and a
#   Bradley–Terry RM on hashed n-grams trained on 6,000 noisy pairs. Claims are about the
#   mechanism; no pass@1 of the paper is re-measured.
# - **Quick scale: the policy is tabular.** Each prompt has its own logits over 32 candidates, so
#   what one prompt's update teaches does not spread to others, unlike an LLM; the critic is a
#   per-prompt running value; PPO takes one epoch in 4 minibatches with a summed per-sample loss
#   (a sample weighs the same under every filter, as with the official trainer's fixed
#   micro-batch). The token-level transformer with a critic network and GAE runs only at full
#   scale; there each minibatch's loss is a mean (Adam) over a fixed minibatch size, and the
#   number of steps scales with the samples kept, as in the official trainer.
# - **Settings chosen before the run, not tuned:** the KL coefficient (0.01) and clip (0.2) follow
#   the official script; the learning rates, 60 updates, 100 prompts per update, the pool mix
#   (3 correct, 21 mutants, 8 random), 15 % label noise, the 4,096 hash buckets and the
#   L2 penalty are ours. "Middle deciles 4–7" in claim 1 is our choice.
# - **Peers.** verl's function was re-implemented from its source (0.9.1), not run: installing
#   verl would change `packaging`, `transformers` and `tokenizers` in the book's environment, and
#   its `core_algos` module imports Ray through `verl.protocol`.
# - **Quick scale's run time**, measured with this revision on the book's shared 2-core CPU
#   (2026-12-04, after the second audit's changes, with random 1 added): 29–35 s per run with
#   the kernel's start (the quick run, the three numerics runs and the five stability runs),
#   about 28 s inside the chapter, under the 90 s bound; the run-time line under the verdict
#   table gives this run's (load-dependent, not compared).
#
# ## Run it at full scale
#
# ```bash
# .venv/bin/python -m repbook full 07   # runs it and records it in data/full_runs/
# ```
# Full scale replaces the tabular policy by a tiny causal transformer (2 layers, width 64): SFT
# for 3,000 steps on the candidate pools of 500 prompts, then token-level PPO with a critic
# network, GAE and a per-token KL penalty to the SFT model, 60 updates of 128 prompts,
# $N\in\{4,8\}$, 5 replicates, the same RM recipe. It is meant for a GPU and has **no
# full-scale record: GPU only.** A timing probe at full size on this book's shared 2-core CPU,
# run once by hand on 2026-12-04 before the second audit (a dated measurement, not made by this
# chapter; no claim computed), took 2.4 s for the pools and RM, 9.7 s for a world with 100 of
# the 3,000 SFT steps and its 16,000 initial samples, and 2.6–3.8 s per filter for 3 PPO updates
# and 2 evaluations (PPO-M and BR at $N=4$ and 8). Scaled to 60 updates and 7 evaluations that
# is about 60 s per filter run; the full run has 130 of them (10 filters × 2 $N$ × 5 replicates
# on the learned RM, 3 × 2 × 5 on the control) and 5 SFTs of 3,000 steps: about 2.5 hours on
# this CPU, beyond the 30 minutes the book allows a CPU full run.
# The line below is generated from the committed record (`data/full_runs/07_pf_ppo.json`),
# or says that none is committed.

# %%
print("\n".join(full_run_lines(ledger)))
