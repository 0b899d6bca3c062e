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
# # 18 · How to estimate a scaling law
#
# Leshem Choshen, Yang Zhang, Jacob Andreas — *A Hitchhiker's Guide to Scaling Law Estimation*,
# ICML 2025 (PMLR 267) · arXiv [2410.11840](https://arxiv.org/abs/2410.11840) · code and data:
# `IBM/ColPret` (MIT licence).
#
# A scaling law predicts the loss of a large *target* model from cheaper ones. The paper collects
# the training curves of 485 published models, fits more than a thousand laws of Chinchilla's form
# $L(N,D)=E+A/N^{\alpha}+B/D^{\beta}$ ($N$ parameters, $D$ training tokens) and distils practical
# advice about *how* to fit them. Its repository publishes those curves; this chapter ships the
# part of them its protocols need (`data/18_scaling_laws`; the counts are printed below) and
# decides the paper's claims **on those real curves**, with the official code's conventions.
#
# ```{admonition} Claims we test
# 1. All else equal, predictions are more accurate from models closer in size to the target.
# 2. Fitting intermediate checkpoints, not only final losses, makes predictions more accurate.
# 3. Early checkpoints (before 10¹⁰ tokens) mislead fits; dropping them helps.
# 4. Final losses vary from seed to seed by a few percent, which bounds the achievable error.
# 5. A single model of the target's architecture, with scaling parameters estimated
#    elsewhere, predicts the target.
# 6. Because seeds vary, several small models can be worth more than one larger model.
# ```
#
# A teacher–student family trained in the notebook stays as a **controlled demonstration** of
# the same protocols (its checks are ours, shown apart and never counted in the paper's tally):
# there the losses are exact and the seeds are ours, which the real curves lack (claims 4 and 6).

# %% tags=["parameters"]
scale = "quick"  # "quick" (≤ 90 s on 2 CPU cores) or "full" (every fraction, every k)
seed = 0

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from repbook.core import all_of, at_least, at_most, within, paired_gain, t_quantile, tol
from repbook.core import color_for, data_file, reference_line, setup
from repbook.core.ledger import full_run_lines, load_full_run, reading_lines
from repbook.papers import scaling_laws

# %%
P, N, M = scaling_laws.FRACTIONS, [8, 16, 32, 64, 128, 256, 512], [32, 64, 128, 256]
SIZES = {
    "quick": dict(window_fractions=(1.0,), cut_fractions=(0.5, 1.0), cut_counts="all",
                  one_model_fractions=(1.0,), huber_sensitivity=False, sizes=N, seeds=3,
                  seeds_other=3, steps=1500, batch=16, lr=0.5, checkpoints=30,
                  max_fitted=M, exponent_inits=(0.5,)),
    "full": dict(window_fractions=P, cut_fractions=P, cut_counts="each",
                 one_model_fractions=P, huber_sensitivity=True, sizes=N, seeds=8,
                 seeds_other=5, steps=6000, batch=16, lr=0.5, checkpoints=40,
                 max_fitted=M, exponent_inits=(0.3, 1.0)),
}  # fmt: skip
REGIME = "the paper's own training curves (IBM/ColPret); a teacher-student "
REGIME += "demonstration on the side"
COLORS = {"all checkpoints": "ours", "final only": "baseline", "after 10 %": "alt",
          "datablations (A, α)": "ours", "no size term": "baseline",
          "free fit": "muted"}  # fmt: skip

# %%
run = setup(scale=scale, seed=seed, sizes=SIZES, regime=REGIME, colors=COLORS)
ledger = run.ledger
JOBS = 2  # processes for the independent fits (results do not depend on it)

# %% [markdown]
# ## The method
#
# The official fit, used for every verdict below, is least squares on the raw loss over
# $(a,b,e,\alpha,\beta)$ with $A=e^a$, $B=e^b$, $E=e^e$: only $\alpha,\beta\ge0$ are bounded,
# and it starts from the official point $(a,b,e,\alpha,\beta)=(6.255, 7.305, 0.625, 0.3527,
# 0.3527)$ (`scaling_laws.fit_official`, SciPy's `curve_fit`). Our own fit — a Huber loss (threshold
# $10^{-3}$) on log-space residuals with $\alpha,\beta\in[0,3]$, $E$ below the smallest
# observed loss and $\ln A,\ln B\in[-30,40]$ — is shown as a sensitivity column and runs the
# synthetic demonstration. On a noiseless example both recover the law they were given:

# %%
truth = dict(E=1.7, A=400.0, alpha=0.34, B=410.0, beta=0.28)
N_grid, D_grid = np.meshgrid([1e6, 3e6, 1e7, 3e7, 1e8], np.geomspace(1e8, 1e10, 8))
L_grid = scaling_laws.chinchilla(N_grid, D_grid, **truth)
fit0 = scaling_laws.fit_official(N_grid, D_grid, L_grid)
fit0h = scaling_laws.fit_scaling_law(N_grid, D_grid, L_grid)
print("true:            " + ", ".join(f"{k}={v:g}" for k, v in truth.items()))
for name, fit in [("official fit:    ", fit0), ("our Huber fit:   ", fit0h)]:
    print(name + ", ".join(f"{k}={v:.4g}" for k, v in fit.params().items()))

# %% [markdown]
# **Paired gains.** Every "better" below is decided on paired differences — one per family,
# group, target or seed — by mean − k·SE > 0, with k the 97.5 % quantile of Student's t with
# n − 1 degrees of freedom for n pairs (printed below for the pair counts met here); it is
# within noise (≈) when the interval spans 0. With 3 to 6 pairs the interval is wide, so ≈
# means *under-powered*, not evidence of no effect. Each claim also prints its sign count (how
# many pairs are positive) as a diagnostic that no verdict reads.

# %%
print("k for n pairs:", ", ".join(f"n = {n}: {t_quantile(n):.2f}" for n in range(3, 9)))

# %% [markdown]
# ## The paper's curves
#
# `curves.csv` holds, per checkpoint, the family, the model, its parameters $N$, the tokens seen
# $D$ and the loss (the README beside it says which metric each family reports). A family is
# the paper's "scaled set"; its largest model is the target. As in the official code:
#
# - each family is fitted on the metric the official loader fits (`scaling_laws.as_official`: OPT's
#   perplexity, T5-Pile's log₂ perplexity, the others' loss as shipped);
# - a fit uses its models' checkpoints with **more than 10¹⁰ tokens**, and, at a training
#   fraction $p$, those with fewer than $p$ × the tokens of the longest fitted run;
# - **ARE** is the mean of $|L-\hat L|/L$ over the target's checkpoints **from 70 % of its
#   training onward** — not its final loss alone.
#
# By hand once, for GPT-3's four smallest models predicting the 175B model:

# %%
curves = pd.read_csv(data_file("18_scaling_laws", "curves.csv"))
cur = scaling_laws.as_official(scaling_laws.check_curves(curves))
fams = scaling_laws.families(cur)  # each family's models, smallest first
n_models, n_fams = curves.model.nunique(), curves.family.nunique()
print(f"{len(curves):,} checkpoints, {n_models} models, {n_fams} families")

# %%
gpt3 = fams.models["gpt3"]
train = cur[cur.model.isin(gpt3[:4])]
train = train[(train.tokens > 1e10) & (train.tokens < train.tokens.max())]
tgt = cur[cur.model == gpt3[-1]]
tgt = tgt[(tgt.tokens >= 0.7 * tgt.tokens.max()) & (tgt.tokens > 1e10)]
law = scaling_laws.fit_official(train.params, train.tokens, train.loss)
pred = law.predict(tgt.params.to_numpy(), tgt.tokens.to_numpy())
by_hand = float(np.mean(np.abs(tgt.loss - pred) / tgt.loss))
lib = scaling_laws.evaluate(cur, gpt3[:4], gpt3[-1]).are
print(f"ARE by hand {100 * by_hand:.3f} % over {len(tgt)} target checkpoints; "
      f"library {100 * lib:.3f} %")  # fmt: skip
assert abs(by_hand - lib) < 1e-12

# %% [markdown]
# The counts of models and families the chapter ships are printed above. Every protocol below
# is a list of independent fits, run in two processes.

# %% tags=["hide-input"]
show = ["gpt3", "OPT", "chinchilla", "GPT2-c4-1"]
fig, axes = plt.subplots(1, len(show), figsize=(13, 3.4))
for ax, fam in zip(axes, show):
    ms = fams.models[fam]
    for colour, m in zip(plt.cm.viridis(np.linspace(0, 0.9, len(ms))), ms):
        d, dots = curves[curves.model == m], fam == "chinchilla"  # dots: separate runs
        ax.plot(d.tokens, d.loss, color=colour, lw=1.2, marker="." if dots else None,
                ls="none" if dots else "-")  # fmt: skip
    ax.axvline(1e10, color=color_for("muted"), ls="--", lw=1)
    ax.set(xscale="log", yscale="log", xlabel="tokens seen D",
           title=f"{fam} ({len(ms)} sizes)")  # fmt: skip
axes[0].set_ylabel("shipped loss")
title = "Four of the paper's families (brighter = larger); dashed: the 10¹⁰-token cut"
fig.suptitle(title)
plt.show()

# %%
assert max(fams.lowest.values()) <= 10, "the official at_least_loss would drop one"
huber = run["huber_sensitivity"]  # our objective as a sensitivity column (full scale)
PLAN = ("window_fractions", "cut_fractions", "cut_counts", "one_model_fractions")
tasks = scaling_laws.plan_tasks(fams, **{k: run[k] for k in PLAN}, huber=huber)
results = scaling_laws.run_plan(cur, tasks, fams, n_jobs=JOBS)

# %% [markdown]
# ## Claim 1 · Closer in scale predicts better, all else equal
#
# As the official experiment does, each fit uses a **window of consecutive sizes** below the
# target, so the number of models stays fixed and only their distance to the target changes.
# The judged window has **four** sizes (fixed before the run); the official code also runs
# **three**, shown as a second setting. The families with at least two windows of four are
# printed below. Every window is fitted at each training fraction of the scale's grid (quick:
# 100 % only; full: 10 %–100 %).
#
# **Criterion (fixed before the run).** A family's gain is the mean, over its pairs of
# consecutive windows ($w$ and the window one size closer, $w+1$) and over training fractions,
# of ARE($w$) − ARE($w+1$). Consecutive pairs share models, so they are not independent: the
# unit is the family. Closer predicts better if the mean family gain minus k standard errors
# (k: the t quantile above) is above 0, within noise if the interval spans 0. It fails if
# moving the window closer does not lower the error — for instance if the largest fitted
# models' own noise dominates.

# %%
win = results.collect("window_errors", size=4, objective=None)
win3 = results.collect("window_errors", size=3)
gains1 = scaling_laws.consecutive_gains(win)
fam1 = scaling_laws.family_gains(gains1)
fam1w3 = scaling_laws.family_gains(scaling_laws.consecutive_gains(win3))
print(f"families judged (windows of 4): {', '.join(fams.windows4)}")
print("window pairs:",
      ", ".join(f"{f} {(gains1.family == f).sum()}" for f in fam1.index))  # fmt: skip
for n, g in [(4, fam1), (3, fam1w3)]:
    print(f"family gains, windows of {n} (points of ARE): {scaling_laws.gains_text(g)}")
signs1 = [scaling_laws.sign_count(g) for g in (fam1, fam1w3)]
print(f"sign count: windows of 4, {signs1[0]}; windows of 3, {signs1[1]}")

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True)
for ax, (d, size) in zip(axes, [(win, 4), (win3, 3)]):
    for i, (fam, dd) in enumerate(d.groupby("family", sort=False)):
        per = 100 * dd.groupby("window").are.mean()
        x = (per.index + 1) / len(per)
        ok = per.notna().to_numpy()  # a window whose fits all failed: no gap
        ax.plot(x[ok], per[ok], marker="o", ms=3, label=fam, color=plt.cm.tab10(i))
    xlabel = "window position (1 = the window next to the target)"
    ax.set(yscale="log", xlabel=xlabel, title=f"windows of {size} sizes")
    ax.legend(fontsize=8)
axes[0].set_ylabel("ARE on the target's last 30 % (%)")
fig.suptitle("ARE of each window, mean over the fractions fitted")
plt.show()

# %%
G1 = "ARE gain of the closer window (per family)"
ledger.check(
    1, "closer fitted sizes → better predictions (windows of 4 sizes)",
    paper="estimates are most accurate from models of similar sizes",
    source="abstract", evidence="real data",
    measured={G1: fam1.to_dict()},
    criterion=paired_gain(G1, 0.0, k="t"), tolerance={G1: tol(abs=0.02)},
    note="window pairs of one family overlap; one mean gain per family",
)  # fmt: skip

# %%
ledger.ours(
    "1b", "closer fitted sizes → better predictions (windows of 3 sizes)",
    why="the official code's second window size; shown beside the judged window of 4",
    evidence="real data", measured={G1: fam1w3.to_dict()},
    criterion=paired_gain(G1, 0.0, k="t"), tolerance={G1: tol(abs=0.007)},
)  # fmt: skip

# %% [markdown]
# ## Claim 2 · Intermediate checkpoints beat final losses alone
#
# The official comparison (`experiments/minimal_cut.py`): fit the $k$ smallest models below the
# target ($k=2,\dots$) on their checkpoints before 70 % of the longest fitted run, keeping as
# the earliest checkpoint either **10 %** of that window (most of the curve) or **99 %** (little
# more than its end), and score both on the target's last 30 %. As there, the datablations
# GPT-2 sets are averaged into two groups, GPT2-c4-all and GPT2-oscar-all.
#
# **Gate (fixed before looking, second audit).** The late cut keeps only the window's last
# 1 %, which can leave fewer checkpoints than the law's five parameters. A fit (a family's $k$
# smallest models) enters claim 2 only if its late-cut fit has **at least 5 checkpoints from at
# least 2 model sizes**; a group enters with those of its fits that do. The claim is judged
# when at least 3 groups enter, and is not checked at this scale otherwise.
#
# **Criterion.** Pairs = the groups that enter; a group's gain is the mean over its entering
# fits of ARE(from 99 %) − ARE(from 10 %). Mean gain − k SE > 0 (k: the t quantile above). It
# fails if the window's last checkpoints already carry what a law needs.
#
# As our own diagnostic (`2f`), the comparison the chapter used before: each model's final
# checkpoint only, fitted as $E+A/N^\alpha$ ($k\ge3$), against every checkpoint, both scored on
# the target's final checkpoint. Chinchilla is left out of `2f`: its points are separate
# IsoFLOP runs, not checkpoints of one run, so its "final checkpoint" is the longest run of a
# size, not the end of a training curve.

# %%
res2 = results.collect("minimal_cut_pair")
res2e = scaling_laws.enough_points(res2, min_points=5, min_sizes=2, side="baseline")
gain2 = scaling_laws.grouped_gains(res2e)
gain2f = scaling_laws.grouped_gains(results.final_only_pairs())
no_pair2, thin2 = scaling_laws.left_out_groups(res2, gain2, fams.names)
group2 = res2.family.map(scaling_laws.official_group)  # for the figure

# %%
print(scaling_laws.minimal_cut_table(res2).to_string())
print(scaling_laws.gain_lines("group gains over the fits that enter", gain2))
print("no pair (no checkpoint in the last 1 % of the window, or a fit failed): "
      + (", ".join(no_pair2) or "none"))  # fmt: skip
print("paired, but no late-cut fit with ≥ 5 points from ≥ 2 sizes: "
      + (", ".join(thin2) or "none"))  # fmt: skip
print("ours, final only vs every checkpoint, on the final loss: "
      + scaling_laws.gains_text(gain2f)
      + f" ({scaling_laws.sign_count(gain2f.to_numpy())})")  # fmt: skip

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(5.5, 4))
both = 100 * res2[["baseline", "method"]]
lim = [both.min().min() * 0.8, both.max().max() * 1.25]
ax.plot(lim, lim, color=color_for("reference"), ls="--", lw=1, label="equal error")
enters = res2.index.isin(res2e.index)
for i, g in enumerate(dict.fromkeys(group2)):
    c, label = plt.cm.tab10(i), g
    for ok in (True, False):
        d = res2[(group2 == g) & (enters == ok)]
        if len(d):
            ax.scatter(100 * d.baseline, 100 * d.method, s=18, label=label,
                       edgecolors=[c], facecolors=[c] if ok else "none")  # fmt: skip
            label = None
ax.set(xscale="log", yscale="log", xlim=lim, ylim=lim)
ax.set(xlabel="ARE, checkpoints from 99 % of the window (%)",
       ylabel="ARE, checkpoints from 10 % (%)",
       title="Each point: one family's k smallest models\n"
       "(hollow: late-cut fit under 5 points or 2 sizes, left out)")  # fmt: skip
ax.legend(fontsize=8)
plt.show()

# %%
ENTER2 = "groups whose late-cut fit has ≥ 5 points from ≥ 2 sizes"
G2 = "ARE gain of checkpoints from 10 %"
ledger.check(
    2, "intermediate checkpoints improve fits",
    paper="fitting intermediate checkpoints substantially improves accuracy",
    source="abstract", evidence="real data",
    measured={ENTER2: int(len(gain2)), G2: gain2.to_dict()},
    gate=at_least(ENTER2, 3),
    criterion=paired_gain(G2, 0.0, k="t"), tolerance={G2: tol(abs=0.012)},
    note="the official minimal_cut comparison (earliest kept checkpoint 10 % vs 99 %)",
)  # fmt: skip

# %%
G2F = "ARE gain of every checkpoint (final loss)"
ledger.ours(
    "2f", "every checkpoint beats final losses alone (E + A/N^α), on the final loss",
    why="our final-only baseline, which the official code does not run; scored on the "
    "target's final checkpoint, where a law without a D term is not handicapped",
    evidence="real data", measured={G2F: gain2f.to_dict()},
    criterion=paired_gain(G2F, 0.0, k="t"), tolerance={G2F: tol(abs=6e-07)},
)  # fmt: skip

# %% [markdown]
# *Reading guide (not a finding):* a point below the diagonal is a fit where the longer stretch
# of the curve predicted the target better; the verdict reads the paired group gains above.
#
# ## Claim 3 · Early checkpoints mislead
#
# The official default drops checkpoints with at most 10¹⁰ tokens (its `hist_no_cut` run fits
# without the cut). Each family's law from its models below the target is fitted with and
# without that cut, at the training fractions of the scale's grid (quick: 50 % and 100 % of the
# models below the target; full: every fraction and every model count); the datablations sets
# are averaged into their two official groups. Chinchilla is left out: its points are separate
# IsoFLOP runs, not checkpoints of one run, so the 10¹⁰-token cut removes its short *runs*,
# not early checkpoints, and says nothing about the claim.
#
# **Gate (fixed after the first audit).** The cut removes at least 5 % of the fitted points in
# at least three groups (where it removes nothing, both fits are one fit).
#
# **Criterion.** Pairs = the groups where the cut removes ≥ 5 %; a group's gain is the mean
# over its fits of ARE(no cut) − ARE(cut). Mean gain − k SE > 0 (k: the t quantile above). It
# fails if the early losses lie on the same law as the later ones.

# %%
res3 = results.cut_pairs()  # no cut against the 10¹⁰-token cut
share3, bites, gain3 = scaling_laws.cut_gains(res3, min_share=0.05)
print("share of fitted points the cut removes: "
      + ", ".join(f"{k} {100 * v:.1f} %" for k, v in share3.items()))  # fmt: skip
print(scaling_laws.gain_lines("group gains", gain3))

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(7, 3.8))
order3 = gain3.sort_values().index
ax.barh(range(len(order3)), 100 * gain3[order3], color=color_for("alt"))
ax.axvline(0, color=color_for("reference"), lw=1)
reach = max(1.0, float(np.abs(100 * gain3).max()) if len(gain3) else 1.0)
decades = [10.0**e for e in range(-1, int(np.ceil(np.log10(reach))) + 1)]
ticks = [t for t in [-d for d in decades[::-1]] + [0.0] + decades
         if abs(t) <= 1.5 * reach]  # fmt: skip
ax.set_xscale("symlog", linthresh=0.1)
ax.set_xticks(ticks, [f"{t:g}" for t in ticks], fontsize=8)
ax.set_xlim(-1.5 * reach, 1.5 * reach)
ax.set(yticks=range(len(order3)), yticklabels=order3,
       xlabel="ARE without the cut − ARE with it (points of %; symmetric log axis)",
       title="Dropping checkpoints before 10¹⁰ tokens: > 0 helps")  # fmt: skip
plt.show()

# %%
BITES3, G3 = "groups where the cut removes ≥ 5 % of the points", "ARE gain of the cut"
ledger.check(
    3, "dropping checkpoints before 10¹⁰ tokens helps",
    paper="early checkpoints mislead (summary and brief); the official code drops "
    "those before 10¹⁰ tokens",
    source="secondary summary", evidence="real data",
    measured={BITES3: int(len(bites)), G3: gain3.to_dict()},
    gate=at_least(BITES3, 3),
    criterion=paired_gain(G3, 0.0, k="t"), tolerance={G3: tol(abs=0.002)},
    note="the 10¹⁰-token threshold is the official code's default (cut_beginning)",
)  # fmt: skip

# %% [markdown]
# ## Claim 4 · Seed variation bounds the achievable error
#
# The test needs the target's own seed spread: a family with seed variants. None of the curves
# that ship does (every ColPret family here has one run per size; `pythia.csv` and `Amber.csv`
# are in the `16f23bb` tree, but their content is missing from the copy this chapter was built
# from), so the paper's claim is not checked here. The criterion it would use is fixed below:
# a fixed, pre-chosen protocol (all models below the target, every checkpoint above 10¹⁰
# tokens) has an ARE at least half the target's seed CV — the factor ½ is ours, from the
# research brief.

# %%
ledger.not_checked(
    4, "seed variation is a few percent and bounds ARE",
    paper="seeds alone vary by ≈ 3.5 %", source="secondary summary",
    criterion=at_least("ARE of the fixed protocol", "seed CV at the target",
                       factor=0.5),
    evidence="real data",
    note="the factor 0.5 is ours (brief); no shipped family has seed variants; "
    "a family with several seeds per size (e.g. PolyPythia) would check it",
)  # fmt: skip

# %% [markdown]
# ## Claim 5 · One model plus scaling parameters from elsewhere
#
# The abstract: a target model's behaviour can be predicted from a single model with the same
# architecture, along with scaling parameter estimates derived from other model families. The
# official set-up (`hist_one_model_fit`) fixes $A=e^{6.255414}$ and $\alpha=0.3526596$ and
# fits $E$, $B$, $\beta$ on **one** model, at each training fraction. Those two numbers are
# the **datablations constants of Muennighoff et al. (2023), ColPret's starting values**: the
# official code lists them with the data-constrained law's $R^*_D$, $R^*_N$ and calls them the
# datablations guesses (they are not Chinchilla's fit, $A=406.4$, $\alpha=0.34$). They were
# fitted on the datablations GPT-2 runs, so the GPT-2 groups (GPT2-c4-all, GPT2-oscar-all)
# would borrow from their own family: they are left out of the pairs, as the abstract speaks
# of parameters "from other model families". The families judged are the rest of those the
# official run fits (its `at_least_loss = 10` filter keeps all of them here; printed below).
#
# **Comparator (fixed at the second audit, before its result was seen; ours, by design).**
# What the single model says about a larger one *without* borrowed parameters: its own law
# with no size term, $E+B/D^\beta$ ($A=0$), fitted on the same checkpoints with the same
# three free parameters. A free five-parameter fit of the same model (the brief's design (d))
# cannot tell $A$ from $\alpha$ with one size and only extrapolates in $N$ from its start: it
# is shown as a sensitivity column, not judged.
#
# **Precondition (bookkeeping, not a regime gate).** At least 3 targets have both fits.
#
# **Criterion.** Pairs = targets; a target's gain is the mean over its non-target models and
# fractions of ARE(no size term) − ARE(datablations $A,\alpha$). Mean gain − k SE > 0 (k: the
# t quantile above). It fails if the borrowed size term adds nothing to one model's own curve,
# or misleads it.

# %%
res5 = results.collect("one_model_errors")
gain5 = scaling_laws.target_gains(res5, "no_size")
tab5 = scaling_laws.one_model_means(res5)  # mean ARE per target and fit
lowest5 = ", ".join(f"{f} {fams.lowest[f]:.3g}" for f in fams.one_model)

# %%
print("official at_least_loss = 10: lowest official metric of each target: "
      + lowest5 + " (none above 10)")  # fmt: skip
print((100 * tab5).round(2).rename(columns=scaling_laws.ONE_MODEL_COLUMNS).to_string())
print(scaling_laws.gain_lines("target gains", gain5))

# %% [markdown]
# **Sensitivity (no criterion).** The same pairs read three other ways: against the free
# five-parameter fit (the comparator before the second audit); on losses in nats only (every
# family fitted on its shipped ln-loss, lambda out, since the constants were fitted in nats
# and OPT's perplexity or T5-Pile's log₂ units give a fixed $A$ another meaning); and as
# relative gains (the difference of mean AREs over the comparator's mean ARE), so that one
# family's large errors do not dominate. Each: mean, 95 % t interval and sign count.

# %%
NATS = dict(fractions=run["one_model_fractions"], n_jobs=JOBS)
res5n = scaling_laws.nats_errors(curves, res5, fams.nats, **NATS)  # refits OPT, T5-Pile
print("\n".join(scaling_laws.sensitivity_lines(res5, res5n)))

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(7, 0.5 * len(tab5) + 1.6))
rows5 = list(tab5.index)
for y, fam in enumerate(rows5):
    ax.plot(100 * tab5.loc[fam, ["no_size", "fixed"]], [y, y],
            color=color_for("muted"), lw=1.5, zorder=1)  # fmt: skip
for col, name, kw in [("no_size", "no size term", {}),
                      ("fixed", "datablations (A, α)", {}),
                      ("free", "free fit", dict(facecolors="none"))]:  # fmt: skip
    c = color_for(name)
    ax.scatter(100 * tab5[col], range(len(rows5)), s=36, zorder=2, edgecolors=[c],
               label=f"{name}{' (sensitivity)' if col == 'free' else ''}",
               **(kw or dict(facecolors=[c])))  # fmt: skip
title = "Claim 5: one model's mean ARE per target (line: the judged pair)"
ax.set(xscale="log", yticks=range(len(rows5)), yticklabels=rows5,
       ylim=(-0.6, len(rows5) - 0.4),
       xlabel="mean ARE on the target over its one-model fits (%)",
       title=title)  # fmt: skip
ax.legend(fontsize=8, loc="best")
plt.show()

# %%
BOTH5, G5 = "targets with both fits", "ARE gain of the datablations (A, α)"
ledger.check(
    5, "one model + borrowed (A, α) predicts the target better than that model's own "
    "law without a size term",
    paper="a target can be predicted from a single model of its architecture along "
    "with scaling parameter estimates from other families",
    source="abstract", evidence="real data",
    measured={BOTH5: int(len(gain5)), G5: gain5.to_dict()},
    gate=at_least(BOTH5, 3),
    criterion=paired_gain(G5, 0.0, k="t"), tolerance={G5: tol(abs=0.0014)},
    note="(A, α): the datablations constants (Muennighoff et al. 2023), ColPret's "
    "starting values; comparator ours: the same model's E + B/D^β; the precondition is "
    "bookkeeping",
)  # fmt: skip

# %% [markdown]
# **Sensitivity and context (no criterion).** Borrowing $(A,\alpha)$ from one *other*
# family's law (fitted on its models below its target; per family, on the shipped metric)
# instead of the datablations constants, with the largest non-target model of the target
# family (here the GPT-2 sets are families of their own, each borrowing from others); and, as
# context, the other family's law used as is and the target family's own law from all its
# models below the target.

# %%
fams5b = ["gpt3", "OPT", "chinchilla", "GPT2-c4-1", "GPT2-oscar-1"]
res5b = scaling_laws.borrowed_errors(curves, fams5b)
print(scaling_laws.borrowed_table(res5b).to_string())

# %% [markdown]
# **Our fit objective.** Claims 1 and 3 with our log-space Huber fit, a sensitivity column
# (the verdicts above use the official objective). Huber fits are slower on these curves, so
# the column is computed at full scale only.


# %%
if huber:
    fam1h = results.family_gains("huber")  # windows of 4
    gain3h = scaling_laws.grouped_gains(results.cut_pairs("huber"))
    gain3h = gain3h[gain3h.index.isin(bites)]
    for claim, a, b in [("1 (points of ARE, over families)", fam1, fam1h),
                        ("3 (over groups)", gain3, gain3h)]:  # fmt: skip
        a, b = scaling_laws.interval_text(a), scaling_laws.interval_text(b)
        print(f"claim {claim}, official objective: {a}; Huber: {b}")
else:
    print("Huber sensitivity column: computed at full scale only")

# %% [markdown]
# ## Claim 6 · Several small models or one larger, at equal compute
#
# The abstract gives seed variability as the reason several small models can be worth more than
# one large one: the test needs seed variants of the small models, which no shipped family has.
# Not checked on the paper's curves; the demonstration below shows the mechanism on our own
# seeds.

# %%
ledger.not_checked(
    6, "several small models can beat one larger at equal compute",
    paper="because seeds vary, training several small models is sometimes more useful "
    "than one large one",
    source="abstract", evidence="real data",
    criterion=at_most("ARE, several small (seeds)", "ARE, one larger"),
    note="no shipped family has seed variants of its small models",
)  # fmt: skip

# %% [markdown]
# ## A controlled demonstration: teacher–student families
#
# Features $x\sim\mathcal N(0,\mathrm{diag}(k^{-1.3}))$, $k\le1024$; the teacher is
# $y=x\cdot w^*+\varepsilon$ with $w^*_k=k^{-0.5}$ and noise s.d. 0.1. A model of size $N$
# regresses on the first $N$ features and is trained by one-pass SGD (batch 16, learning rate
# 0.5); $D$ = samples seen; the exact population loss is logged at log-spaced checkpoints.
# Family **B** has a steeper spectrum, $k^{-1.5}$. The target is the largest size, predicted on
# its final loss. These checks are ours: they show the protocols on a family whose losses and
# seeds we control, and they are never counted as the paper's. The quick scale trains a small
# version (its sizes, seeds and steps are printed below); the full scale more seeds and steps.

# %%
sizes, steps, batch = run["sizes"], run["steps"], run["batch"]
target, D_end = max(sizes), steps * batch
TRAIN = dict(steps=steps, batch=batch, lr=run["lr"], n_checkpoints=run["checkpoints"])
fam_A, fam_B = scaling_laws.demo_families(
    sizes, run["seeds"], run["seeds_other"], seed=seed, spectra=(1.3, 1.5), **TRAIN
)
FIT = dict(exponent_inits=run["exponent_inits"])  # starts of our Huber fit
DEMO = dict(target_N=target, D_target=D_end, fit_kwargs=FIT)

# %%
print(f"family A: sizes {sizes}, {run['seeds']} seeds; family B: {run['seeds_other']} "
      f"seeds; {steps} steps, {run['checkpoints']} checkpoints per run; fit starts "
      f"(α = β ∈) {run['exponent_inits']}")  # fmt: skip
res_A = scaling_laws.protocol_errors(
    fam_A, max_sizes=run["max_fitted"], seeds=range(run["seeds"]), n_jobs=JOBS, **DEMO
)
summary = scaling_laws.summarise_protocols(res_A)
med, ms, med_all = summary.median, summary.sizes, summary.median_all

# %%
print("median ARE, family A (rows: largest fitted size m):")
print(med.map(lambda v: f"{100 * v:.2f} %").to_string())
print(f"Spearman(m, median ARE) = {summary.rho:.2f}")
n2, wins2, p2 = summary.pairs, summary.wins, summary.sign_p
print(f"all checkpoints better than final only in {wins2}/{n2} fits (sign test p = "
      f"{p2:.3g}); dropping the first 10 % better in {summary.wins_after_10}/{n2} (no "
      "criterion: on family A early losses lie on the law by construction)"
)  # fmt: skip

# %% tags=["hide-input"]
fig, ax = plt.subplots()
for i, proto in enumerate(["all checkpoints", "final only", "after 10 %"]):
    d = res_A[res_A.protocol == proto]
    c = color_for(proto)
    ax.scatter(d.m * (1 + 0.06 * i), 100 * d.are, s=12, alpha=0.5, color=c)
    ax.plot(med.index, 100 * med[proto], marker="o", color=c, label=f"{proto} (median)")
ax.set(xscale="log", yscale="log", xlabel="largest fitted model m",
       ylabel="ARE on the target's final loss (%)",
       title=f"Family A (synthetic): error predicting N = {target}")  # fmt: skip
ax.minorticks_off()
ax.set_xticks(ms, [str(m) for m in ms])
ax.legend()
plt.show()

# %%
FIRST, LAST = f"median ARE, m={ms[0]}", f"median ARE, m={ms[-1]}"
RHO = "Spearman ρ(m, median ARE)"
ledger.ours(
    "1s",
    "synthetic family A: closer fitted sizes → better predictions",
    why="the protocol on a family whose losses are exact (cumulative sets of sizes)",
    measured={FIRST: med_all[0], LAST: med_all[-1], RHO: summary.rho},
    criterion=all_of(at_most(LAST, FIRST, strict=True), at_most(RHO, -0.8)),
    tolerance={"median ARE, m=32": tol(abs=7e-09), "median ARE, m=256": tol(abs=2e-10)},
    unpaired_because="a trend over the fitted sizes (a rank correlation)",
)

# %%
ALL2, FINAL2 = "median ARE, all checkpoints", "median ARE, final only"
ledger.ours(
    "2s", "synthetic family A: intermediate checkpoints improve fits",
    why="the protocol on a family whose losses are exact",
    measured={"pairs": n2, "wins": wins2, "half the pairs": n2 / 2,
              ALL2: summary.medians["all checkpoints"],
              FINAL2: summary.medians["final only"], "sign test p": p2},
    criterion=all_of(at_least("wins", "half the pairs", strict=True),
                     at_most(ALL2, FINAL2, strict=True),
                     at_most("sign test p", 0.1, strict=True)),
    tolerance={ALL2: tol(abs=2e-09)},
    unpaired_because="paired over the (size, seed) fits and decided by a one-sided "
    "sign test",
)  # fmt: skip

# %% [markdown]
# **Seeds (claim 4's mechanism).** A fixed protocol — all checkpoints of the models up to 256 —
# against the target's own seed spread: its median ARE over seeds is at least half the seed CV
# of the target's final loss, and that CV is "a few percent" (0.5–10 %).

# %%
cv = scaling_laws.seed_cv(fam_A)
cv_target = float(cv.loc[target])
fixed_are = float(med.loc[ms[-1], "all checkpoints"])
print("seed CV of the final loss by N: "
      + ", ".join(f"{n}: {100 * v:.2f} %" for n, v in cv.items()))  # fmt: skip
print(f"seed CV at the target {100 * cv_target:.2f} %; fixed protocol (m = {ms[-1]}, "
      f"all checkpoints) median ARE {100 * fixed_are:.2f} %")  # fmt: skip

# %% tags=["hide-input"]
fig, ax = plt.subplots()
cv_bars = dict(color=color_for("muted"), label="seed CV of final loss")
ax.bar([str(n) for n in cv.index], 100 * cv, **cv_bars)
reference_line(ax, 100 * fixed_are, f"fixed protocol's median ARE (m = {ms[-1]})")
title = "Synthetic family A: seed spread and a fixed protocol's error"
ax.set(xlabel="model size N", ylabel="%", title=title)
ax.legend()
plt.show()

# %%
CV4, FIXED4 = "seed CV at the target", "ARE of the fixed protocol"
ledger.ours(
    "4s", "synthetic family A: seed spread is a few percent and bounds a fixed "
    "protocol's ARE",
    why="the real curves have no seed variants; here the seeds are ours",
    measured={CV4: cv_target, FIXED4: fixed_are},
    criterion=all_of(within(CV4, 0.005, 0.10), at_least(FIXED4, CV4, factor=0.5)),
    tolerance={FIXED4: tol(abs=2e-10)},
)  # fmt: skip

# %% [markdown]
# **Several small models (claim 6's mechanism).** Compute $\propto\sum N\cdot D$: one seed of every
# size up to 256 costs $504\cdot D$, two seeds of every size up to 128 cost $496\cdot D$. The target
# is the mean final loss of the largest model over all seeds. Pairs: seed $s$ alone (up to 256)
# against seeds $s$ and $s+1$ (up to 128); the gain is the difference of ARE.

# %%
small = scaling_laws.several_small(fam_A, big=256, small=128, **DEMO)
print(f"compute ratio two small / one big = {small.cost_ratio:.3f}; median ARE: two "
      f"seeds ≤ 128 {100 * np.median(small.two_small):.2f} %, one seed ≤ 256 "
      f"{100 * np.median(small.one_big):.2f} %; sign count: "
      f"{scaling_laws.sign_count(small.gains)}")  # fmt: skip

# %%
G6 = "ARE gain of two small seeds"
ledger.ours(
    "6s",
    "synthetic family A: two seeds of smaller models beat one seed of larger ones",
    why="the real curves have no seed variants; here the seeds are ours",
    measured={G6: small.gains},
    criterion=paired_gain(G6, 0.0, k="t"), tolerance={G6: tol(abs=4e-09)},
)  # fmt: skip

# %% [markdown]
# **Borrowing (claim 5's mechanism).** The target is family B's largest model; one model of B
# (size $n\in\{64,128,256\}$) plus $(A,\alpha)$ from family A's law (models up to 256, same seed
# index), against A's law as is. Pairs = seeds; a seed's gain is the mean over $n$.

# %%
res_B = scaling_laws.borrowing_errors(fam_A, fam_B, sizes=(64, 128, 256), **DEMO)
gain5s = res_B.assign(g=res_B.as_is - res_B.borrowed).groupby("seed").g.mean()
print((100 * res_B.groupby("n")[["borrowed", "as_is"]].median()).round(2).to_string())
print(f"sign count of the per-seed gains: {scaling_laws.sign_count(gain5s.to_numpy())}")

# %%
G5S = "ARE gain of borrowing"
ledger.ours(
    "5s", "synthetic family B: one model + A's (A, α) beats A's law alone",
    why="the mechanism on two families whose laws differ by construction",
    measured={G5S: gain5s.to_numpy()},
    criterion=paired_gain(G5S, 0.0, k="t"), tolerance={G5S: tol(abs=8e-10)},
)  # fmt: skip

# %% [markdown]
# What the demonstration shows (generated from the numbers above):

# %%
print(f"1s: on family A the median ARE goes from {100 * med_all[0]:.2f} % (models up "
      f"to {ms[0]}) to {100 * med_all[-1]:.2f} % (up to {ms[-1]}), Spearman ρ = "
      f"{summary.rho:.2f}; these are cumulative sets, so more models and closer models "
      "come together.")  # fmt: skip
b_med, a_med = res_B.borrowed.median(), res_B.as_is.median()
print(f"5s: one model of B with A's (A, α) has median ARE {100 * b_med:.2f} %, A's law "
      f"as is {100 * a_med:.2f} %; " + ("A's law alone already predicts B's target "
      "better, so on these two synthetic families borrowing does not pay."
      if a_med < b_med else "borrowing beats A's law as is."))  # fmt: skip

# %% [markdown]
# ## Verdicts

# %% tags=["nbval-check-output"]
ledger.show()

# %% tags=["nbval-ignore-output"]
print(run.time_line())

# %% [markdown]
# **Reading the verdicts.** The sentences below are generated from this run's ledger and from the
# committed records (quick scale): the stability record (`data/stability/18_scaling_laws.json`;
# the *seeds* column above comes from it, and a claim changed since it was made is named) and the
# numerics record (verdicts that move under other kernels and thread counts). The paper's claims
# are decided on fixed data, so only the synthetic checks can move with the seed.

# %%
print("\n".join(reading_lines(ledger)))

# %% [markdown]
# **Full scale.** The lines below are generated from the committed full-scale record
# (`data/full_runs/18_scaling_laws.json`, written by `repbook full 18`): when and how long it
# ran, each check's verdict and margin there, the checks whose verdict differs from this run's,
# and the per-family gains of the paper's claims there.

# %%
print("\n".join(full_run_lines(ledger)))
full = load_full_run(ledger.chapter)  # (ledger, provenance), or None
paper = full[0].of_role("paper") if full else []
print("\n".join(scaling_laws.record_gain_lines(paper)))

# %% [markdown]
# ## Deviations from the paper
#
# - **The paper's claims are decided on its own curves** (issue 36); the teacher–student checks
#   are ours (ids `1s`–`6s`), shown apart and not counted. Criteria changed after an earlier
#   result was known, old → new:
#   - *Claim 1.* First: cumulative sets of synthetic sizes (not reproduced). Then: windows of
#     four consecutive sizes of the real families (the official `num_train_models = 4`), paired
#     over consecutive windows as if independent (GPT-3 and OPT; ≈). **Now (audit of 18):**
#     the same window of four, but one mean gain per family, because consecutive windows share
#     models; Chinchilla's digitised family joins (below). The window of three, which the
#     official code also runs, is shown as `1b`, not judged.
#   - *Claim 2.* First: synthetic fits and a sign test. Then: final losses alone
#     ($E+A/N^\alpha$) against every checkpoint, over four families (≈). **Now:** the official
#     comparison of `experiments/minimal_cut.py` — the earliest kept checkpoint at 10 % or at
#     99 % of the window before 70 % of training — paired over the official groups; the
#     final-only baseline, our design, is our diagnostic `2f`.
#   - *Claim 3.* First: the first 10 % dropped on family A (cannot show there). Then: the
#     10¹⁰-token cut over 19 families, 16 of them datablations GPT-2 sets treated as
#     independent, gated on the cut changing ≥ 3 families (✗). **Now:** paired over the
#     official groups (the datablations sets averaged into GPT2-c4-all and GPT2-oscar-all, as
#     the official `minimal_cut` does), and the gate asks that the cut remove ≥ 5 % of the
#     fitted points in at least three groups. The auditor's regrouped numbers (mean gain
#     −0.21 ± 0.22 SE over five units, within noise) were known before this change.
#   - *Claim 4.* Unchanged (not checked); the factor ½ is now labelled ours (from the brief).
#   - *Claim 5.* Then: one model of $T$ with $(A,\alpha)$ from another family's law, against
#     that law as is, gated on the laws lying ≥ 4 % apart (≈; the auditor noted that the
#     comparator loses by construction and that all pairs but lambda's were positive).
#     **Then (first audit):** the official one-model set-up — $(A,\alpha)$ fixed to the
#     official constants for every family (then mislabelled "the Chinchilla values") —
#     against a free fit of the same model (the brief's design (d), our comparator), paired
#     per target; lambda dropped (its "loss" is capped at 0.999). **Now:** see the second
#     audit below. Per-family borrowing, the other law as is and the target's own law are
#     printed as sensitivity and context, without a criterion.
#   - *Claim 6.* Unchanged (not checked on the real curves; `6s` on our seeds).
#   - The lead fixed these criteria from the audit before the fixer's runs; the fixer's first
#     run of the new protocols printed their per-family gains before the chapter was rerun,
#     and no criterion was changed after it.
# - **Second audit** (the lead's decisions, each made after the audit's report of the
#   committed run; old → new, and whether the result was known before the change):
#   - *The fixed constants* $a=6.255414$, $\alpha=0.3526596$ are the datablations constants
#     of Muennighoff et al. (2023), ColPret's starting values (the official `fit.py` calls them
#     the datablations guesses and `util/fit_utils.py` lists them with $R^*_D$, $R^*_N$), not
#     Chinchilla's ($A=406.4$, $\alpha=0.34$): renamed everywhere. They were fitted on the
#     datablations GPT-2 runs, so GPT2-c4-all and GPT2-oscar-all, which then borrowed from
#     their own family, are left out of claim 5's pairs (old: in; their gains were known, both
#     small and positive).
#   - *Claim 5's comparator.* Old: a free five-parameter fit of the same model, which starts
#     from the borrowed $(A,\alpha)$ and cannot identify them with one size (≈ with k = 2; its
#     result was known). New: the same model's own law with no size term, $E+B/D^\beta$
#     ($A=0$, three free parameters like the fixed fit) — ours, by design, fixed before its
#     result was seen; the free fit stays as a sensitivity column, with nats-only and
#     relative-gain versions (shown, not judged). Family set: the official one (every family
#     the official `hist_one_model_fit` runs, less the GPT-2 groups): lambda, dropped at the
#     first audit after its result was known, is restored, again after results were known.
#     "≥ 3 targets with both fits" is a precondition (bookkeeping), not a regime gate.
#   - *Claim 2.* The 99 % cut can leave 1–4 points for a five-parameter fit. New gate, fixed
#     before looking: a fit enters only if its late-cut fit has ≥ 5 checkpoints from ≥ 2 model
#     sizes (a group enters with those of its fits that do; our reading of "a group's late-cut
#     fit", since GPT-3's and T5-Pile's fits differ with $k$), and the claim is judged over ≥ 3
#     such groups, else not checked at this scale. Old: every paired fit (≈ over five groups).
#   - *Claims 3 and `2f` without Chinchilla.* Its points are separate IsoFLOP runs, not
#     checkpoints: the 10¹⁰-token cut removes short runs there, not early checkpoints, and its
#     "final checkpoint" is a size's longest run. Old: in both (its gains were known).
#   - *Paired gains, k = 2 → the t quantile.* Every paired gain of the chapter, the paper's and
#     ours, is now judged by mean − k·SE with k the 97.5 % t quantile for n − 1 degrees of
#     freedom (as chapters 17 and 19), instead of k = 2. The audit's reading was that no
#     verdict at seed 0 changes; each claim prints its sign count as a diagnostic, and ≈ with
#     n = 3–6 pairs means under-powered. The stability record was re-made with the new k
#     (seeds 0–4): the real-curve verdicts do not move with the seed; `6s`, ✓ on 2 of 5
#     seeds with k = 2 (≈ on 3), is ≈ on all 5; `5s`, ✗ on all 5 with k = 2, is ✗ on 3 and ≈
#     on 2 (its generated line is above).
#   - *The official `at_least_loss = 10` filter* (a target whose lowest metric exceeds 10 is
#     skipped) excludes nothing here: the lowest is printed per target in claim 5 (OPT's
#     perplexity comes closest), and the chapter asserts it.
# - **Fit objective.** Verdicts use the official objective: least squares on the raw metric,
#   $E=e^e$ with $e$ unbounded, $\alpha,\beta\ge0$, from the official start; as in the official
#   code, a fit that stops at its evaluation budget is retried once by 'dogbox', a failed fit
#   scores nothing, and a fit is made whenever any checkpoint is selected (a window's end may
#   hold fewer checkpoints than the five parameters; the official code fits those too). Before,
#   the chapter's own log-space Huber fit (bounds as in *The method*) decided; it is now a
#   sensitivity column (full scale only: it is the slower fit on these curves).
# - **Metrics.** Each family is fitted on the metric the official loader fits: OPT on its
#   validation perplexity (before: its logarithm), T5-Pile on log₂ perplexity (before: ln, the
#   same relative errors for a free fit but not for a fit with $A$ fixed). lambda's values are
#   the published `Loss` column (0.85–0.999, capped at 0.999), not a next-token loss in nats.
# - **Training fractions** are taken of the longest run among the fitted models and keep
#   checkpoints with *fewer* tokens than that fraction, as the official `get_model_data` does
#   (at 100 % the longest run's final checkpoint is left out; before, it was kept).
# - **Tolerances.** Declared per measured value from the numerics record
#   (`data/numerics/18_scaling_laws.json`), about 3× the largest difference across the
#   numerical environments (before the second audit: one per claim, sized by its noisiest
#   value); values that never moved declare none. The official fit (finite-difference
#   Jacobian, $e$ unbounded, fits with fewer points than parameters) lands in different
#   minima on different instruction sets, so several real-curve gains move by far more than
#   rounding (those of claims 1, 1b, 2 and 3); the record lists each move and each
#   environment's verdict. The previous reference (made on an Intel Xeon; this one on an AMD
#   EPYC) is recorded in the numerics record as observed elsewhere: claim 2's gain moved by
#   0.0039 there and claim 5's (chinchilla's fit) by 0.00045, beyond the tolerances declared
#   from the environments alone (0.003 and 3·10⁻⁸), which are now about 3× those moves
#   (0.012 and 0.0014), so that the reference tests pass on either machine.
# - **ARE.** As the official code: the mean relative error over the target's checkpoints from
#   70 % of its training onward (above 10¹⁰ tokens). The synthetic demonstration still uses
#   the final loss (its runs end together).
# - **Claim 5's loop.** The official `hist_one_model_fit` also fits the target itself on the
#   early part of its own curve (a partial-training question); the chapter uses only the
#   models below the target.
# - **Data.** `data/18_scaling_laws/README.md` lists what ships: Chinchilla's points digitised
#   from a figure (Hoffmann et al. 2022) by the ColPret authors, sizes rounded to 10⁷ as the
#   official loader does (points of one rounded size form one "model", the IsoFLOP runs of
#   several budgets); `pythia.csv`, `Amber.csv` and `raw_data/overtrain/overtrain.csv` are in
#   the `16f23bb` tree but their content is missing from the copy the data was built from;
#   RedPajama (two sizes, one curve each) cannot form a window or a model count ≥ 2 below its
#   target; bimix (one 280M size, data mixtures) has no size axis; single-model sets (K2,
#   Mamba) and sets without a family label are left out, as the official scaling experiments
#   leave them.
# - **Scale.** Quick scale fits claim 1 at 100 % of training only and claim 5 at 100 % only,
#   claim 3 with all models below the target at 50 % and 100 %, and trains a small synthetic
#   family (3 seeds, 1,500 steps) whose Huber fits start once (α = β = 0.5); full scale fits
#   every fraction and every model count, trains 8 seeds for 6,000 steps and starts the
#   synthetic fits from a 2 × 2 grid.
# - **Protocols in the module (issue 37; no value, verdict or figure changed).** The plan of
#   fits on the real curves (which families enter which claim, the tasks of each scale, running
#   them heaviest first, selecting their results), claim 2's and claim 5's tables, claim 3's
#   cut reading, claim 5's sensitivity lines and the demonstration's readings (protocol
#   summary, seed CV, several small seeds, borrowing) moved from the chapter into
#   `repbook.papers.scaling_laws` (`plan` and `demonstration`), unit-tested; the printed
#   stability and full-scale lines now come from the book's core (`reading_lines`,
#   `full_run_lines`), with the full record's per-family gains printed under them.
# - **Sources.** Claims 1, 2, 5 and 6 quote the abstract ("abstract"); claim 3's statement
#   that early checkpoints mislead is the secondary summary's and the brief's, its 10¹⁰-token
#   threshold the official code's; "≈ 3.5 %" (claim 4) comes from a secondary summary.
#
# ## Run it at full scale
#
# ```bash
# .venv/bin/python -m repbook full 18   # runs it and records it in data/full_runs/ (commit it)
# ```
# Full scale fits every training fraction (10 %–100 %) and every model count on the real
# curves, adds the Huber sensitivity column, and trains 8 seeds of the synthetic sizes for
# 6,000 steps; it needs no GPU. Its run time is recorded in `data/full_runs/18_scaling_laws.json`.
