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
# # 06 · Diversity in adversarial ensembles: a first-order decomposition and AdvEOAP
#
# Jun-Qi Guo, Meng-Zhang Qian, Wei Gao, Zhi-Hua Zhou — *On the Diversity of Adversarial Ensemble
# Learning*, ICML 2025 · PMLR 267:20880–20902 · OpenReview `LAIwq7aWNv` · no arXiv version found ·
# official code: `GuoJQ42/AdvOAP` (PyTorch; the paper calls the method AdvEOAP, the code AdvOAP).
#
# An ensemble that averages its members is, for ordinary losses, better than its average member by
# exactly a "diversity" term (the ambiguity decomposition). Under attack the inputs move, and each
# member can be attacked in a different direction. The paper asks what diversity means then. It
# shows that the exact answer is NP-hard to compute, decomposes the adversarial loss to first order
# in the attack radius ε into the members' mean loss minus three diversities (prediction, gradient
# and a *cross* term that can be negative), does the same for cross-entropy, and proposes a training
# method that makes the members' adversarial predictions point to different wrong classes.
#
# ```{admonition} Claims we test
# **The paper's claims**
#
# - **5a · AdvEOAP is more robust.** Training with orthogonal adversarial predictions gives a
#   more robust ensemble than adversarial training of each member on its own (an independent
#   PGD-AT baseline present in the official code; the paper's baselines were not read), judged
#   on paired per-seed gains beyond their noise.
# - **5c · Its mechanism.** AdvEOAP raises both gradient diversity and cross diversity of the
#   ensemble against independent adversarial training, measured on the same test inputs (our
#   reading for ten classes: the decomposition of the true-class probability).
#
# **Quoted (not re-derived):** 1, computing the exact diversity of two networks under attack is
# NP-hard (we show on a network with a 2-D input how far the first order lies from the exact
# value); 6, the abstract's "experiments validate the effectiveness" of the method (the datasets,
# MNIST, F-MNIST and CIFAR-10, are the official README's).
#
# **Our own checks (outside the paper's tally)**
#
# - **4** · The first order tracks the true adversarial loss at small ε (within 5 %), and its
#   error grows with ε (the abstract says only that the decomposition is first order; the bound
#   and the growth test are ours).
# - **2b** · Cross diversity takes both signs and is not small beside gradient diversity, so
#   gradient diversity alone does not describe the ensemble (our bound; the sentence under it
#   says at how many points the sign flips).
# - **5b** · Adversarial examples transfer less between AdvEOAP's members than between
#   independently trained ones (a condition the paper does not state).
# - **5d** · The one-hot ten-class sum of the decomposition shows the same rise as 5c (our
#   earlier reading of 5c; the training objective favours it).
#
# **Sanity checks (identities of the linearised loss)**
#
# - **2** · For the squared loss, the ensemble's first-order adversarial loss equals the
#   members' mean minus prediction, gradient and cross diversity.
# - **3** · For binary cross-entropy, it equals the members' mean minus a KL (prediction) term
#   and a gradient term.
# ```
#
# The full text of the paper was not available to us offline; its abstract and the official code
# were. The formulas below follow the official code, and where the code leaves a choice open we
# say which reading each result uses. Each claim's source in the verdict table says what was
# read: every claim rests on the abstract, with formulas and settings from the official code;
# none rests on the paper's text.

# %% tags=["parameters"]
scale = "quick"  # "quick" (≤ 150 s on 2 CPU cores) or "full" (a GPU, MNIST-5k)
seed = 0

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import torch
from scipy import stats

from repbook.core import all_of, at_least, at_most, color_for, paired_gain, tol
from repbook.core import load_mnist5k, load_sklearn, reading_lines, setup
from repbook.papers import adv_ensemble

# %%
QUICK_METHODS = ["independent PGD-AT", "AdvEOAP (α=0.5)"]
FULL_METHODS = QUICK_METHODS + ["AdvEOAP (α=0.2)", "ADP-style (clean predictions)"]
QUICK = dict(data="digits", hidden=64, n_members=10, fit_epochs=60, m_max=8, repeats=5)
QUICK |= dict(eps=0.1, eps_grid=[0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3], fo_members=3)
QUICK |= dict(moons=300, points_2d=60, grid_2d=101, eps_2d=0.1, method_seeds=5)
QUICK |= dict(method_hidden=128, method_epochs=20, method_batch=128, method_lr=0.1)
QUICK |= dict(method_eps=0.1, train_steps=5, eval_steps=20, methods=QUICK_METHODS)
FULL_EPS = [0.005, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3]
FULL = dict(data="mnist5k", hidden=256, n_members=20, fit_epochs=60, m_max=12)
FULL |= dict(repeats=5, eps=0.1, eps_grid=FULL_EPS, fo_members=3, moons=1000)
FULL |= dict(points_2d=300, grid_2d=301, eps_2d=0.1)
FULL |= dict(method_seeds=5, method_hidden=256, method_epochs=60, method_batch=256)
FULL |= dict(method_lr=0.1, method_eps=0.2, train_steps=10, eval_steps=20)
SIZES = {"quick": QUICK, "full": FULL | dict(methods=FULL_METHODS)}

# %%
REGIME = "8x8 digits (scikit-learn), ensembles of 3 small MLPs, PGD at eps=0.1; CPU"
BASE, OURS = QUICK_METHODS
COLORS = {OURS: "ours", BASE: "baseline", "AdvEOAP (α=0.2)": "alt"}
COLORS |= {"ADP-style (clean predictions)": "alt2", "torchattacks": "peer"}
run = setup(scale=scale, seed=seed, sizes=SIZES, regime=REGIME, colors=COLORS)
ledger, dev = run.ledger, run.device
STREAMS = dict(rng_for=run.child_rng, generator_for=run.torch_generator)
TERMS = {"prediction": "alt", "gradient": "ours", "cross": "baseline"}

# %% [markdown]
# ## The method
#
# An ensemble averages $m$ members, $\bar f=\frac1m\sum_i f_i$. An $\ell_\infty$ attack of radius
# $\varepsilon$ may move every input coordinate by up to $\varepsilon$; to first order the largest
# squared error it can cause is
#
# $$\max_{\|\delta\|_\infty\le\varepsilon}\big(f(x+\delta)-y\big)^2\approx
#   \big(|f(x)-y|+\varepsilon\|\nabla_x f(x)\|_1\big)^2 ,$$
#
# with the $\ell_1$ norm because it is the dual of $\ell_\infty$. Write $g_i=\|\nabla f_i\|_1$,
# $\bar g=\|\nabla\bar f\|_1=\|\frac1m\sum_i\nabla f_i\|_1$ and $r_i=|f_i-y|$, $\bar r=|\bar f-y|$.
# Expanding the squares gives the paper's decomposition (as the official `show_diversity.py`
# computes it):
#
# $$(\bar r+\varepsilon\bar g)^2=\underbrace{\tfrac1m\textstyle\sum_i(r_i+\varepsilon g_i)^2}_{\text{members' mean}}
#  -\underbrace{\tfrac1m\textstyle\sum_i(f_i-\bar f)^2}_{\text{prediction}}
#  -\underbrace{\varepsilon^2\big[\tfrac1m\textstyle\sum_i g_i^2-\bar g^2\big]}_{\text{gradient}}
#  -\underbrace{2\varepsilon\big[\tfrac1m\textstyle\sum_i g_i r_i-\bar g\,\bar r\big]}_{\text{cross}} .$$
#
# Prediction diversity is a variance and gradient diversity is non-negative because
# $\bar g\le\frac1m\sum g_i\le(\frac1m\sum g_i^2)^{1/2}$. The cross term compares the members'
# mean of "slope × error" with the ensemble's, and has no sign. All gradients are taken of the
# model's *output* (not of a loss), in eval mode.
#
# By hand, for two members at one point: outputs $0$ and $2$, target $0$, one input with
# gradients $4$ and $0$, $\varepsilon=0.1$: the first member is exact but steep, the second wrong
# but flat.

# %%
f_hand, grad_hand = np.array([0.0, 2.0]), np.array([4.0, 0.0])
y_hand, eps_hand = 0.0, 0.1
g_hand, g_bar_hand = np.abs(grad_hand), abs(grad_hand.mean())
f_bar_hand = f_hand.mean()
r_hand, r_bar_hand = np.abs(f_hand - y_hand), abs(f_bar_hand - y_hand)
by_hand = {
    "ensemble": (r_bar_hand + eps_hand * g_bar_hand) ** 2,
    "average": np.mean((r_hand + eps_hand * g_hand) ** 2),
    "prediction": np.mean((f_hand - f_bar_hand) ** 2),
    "gradient": eps_hand**2 * (np.mean(g_hand**2) - g_bar_hand**2),
    "cross": 2 * eps_hand * (np.mean(g_hand * r_hand) - g_bar_hand * r_bar_hand),
}

# %%
lib_hand = adv_ensemble.regression_decomposition(
    f_hand[:, None], grad_hand[:, None, None], np.array([y_hand]), epsilon=eps_hand
).means()
print("by hand:", ", ".join(f"{k} {v:.4f}" for k, v in by_hand.items()))
print("lib:    ", ", ".join(f"{k} {v:.4f}" for k, v in lib_hand.items()))
h = by_hand
rhs_hand = h["average"] - h["prediction"] - h["gradient"] - h["cross"]
print(f"average − prediction − gradient − cross = {rhs_hand:.4f}")
gain_hand, both_hand = h["average"] - h["ensemble"], h["prediction"] + h["gradient"]
gain_text = f"the ensemble's gain over its members {gain_hand:.4f}; "
print(gain_text + f"prediction + gradient diversity {both_hand:.4f}")

# %% [markdown]
# Here the cross term is negative: each member's error meets a zero (the exact member's error or
# the flat member's slope), so $\frac1m\sum g_ir_i=0$, while the ensemble has both an error and
# a slope. Prediction and gradient diversity together overstate the ensemble's gain over its
# members (printed): the cross term takes part of it back.
#
# ## Claim 1 · The exact diversity is hard; the first order is an approximation
#
# The exact adversarial loss of a ReLU network is a maximum over the ε-box, which is NP-hard in
# general; the paper proves that computing the exact diversity of two networks is NP-hard too. We
# do not test a complexity result. We illustrate what the first order leaves out on a case where
# the exact value *can* be found: two ReLU regressors with a **2-D input** (trained on the moons
# data, targets ±1), where a dense grid over the box $[-\varepsilon,\varepsilon]^2$ gives the
# maximum. The exact diversity is the members' mean adversarial loss minus the ensemble's
# adversarial loss, each maximised on its own; the first-order diversity is the sum of the three
# terms above.

# %%
SIZES_2D = [run[k] for k in ("moons", "points_2d", "grid_2d", "eps_2d")]
study1 = adv_ensemble.exact_study_2d(*SIZES_2D, **STREAMS, device=dev)
first_div, exact_div = study1.first_diversity, study1.exact_diversity
print("\n".join(adv_ensemble.exact_lines(study1)))

# %% tags=["hide-input"]
worst, e2 = study1.worst, run["eps_2d"]
fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 4))
surface = study1.surface(worst)
im = ax.imshow(surface.T, origin="lower", extent=[-e2, e2, -e2, e2], cmap="viridis")
best = study1.offsets[np.argmax(surface.ravel())]
lin = dict(color=color_for("baseline"), marker="o", s=160, zorder=3, clip_on=False)
lin["label"] = "first-order maximiser ε·sign(∇f̄)"
ax.scatter(*study1.first_order_step(worst), **lin)
star = dict(color="white", marker="*", s=120, zorder=4, edgecolor="black")
ax.scatter(*best, **star, label="grid maximum (exact)", clip_on=False)
exact_w, first_w = study1.exact_ensemble[worst], study1.first_order.ensemble[worst]
title = f"Ensemble loss over the ε-box: exact {exact_w:.2f}, first order {first_w:.2f}"
ax.set(xlabel="δ₁", ylabel="δ₂", title=title)
ax.title.set_fontsize(10)
ax.grid(False)
fig.colorbar(im, ax=ax, label="(f̄(x+δ) − y)²")
ax.legend(loc="lower left", fontsize=8, frameon=True)
lim = [min(exact_div.min(), first_div.min()), max(exact_div.max(), first_div.max())]
bx.plot(lim, lim, color=color_for("reference"), ls="--", lw=1.2, label="equal")
bx.scatter(exact_div, first_div, s=14, color=color_for("ours"), label="one test point")
title = "First order vs exact diversity, 2-D ReLU nets"
bx.set(xlabel="exact diversity (grid)", ylabel="first-order diversity", title=title)
bx.legend()
plt.show()

# %%
ledger.quote(
    "1",
    "exact diversity of two networks is NP-hard to compute",
    paper="NP-hard (theorem)",
    source="abstract",
    note="illustrated, not tested: 2-D nets, grid maximum vs first order",
)

# %% [markdown]
# The first-order diversities do not lie on the exact ones (right panel; the correlation and the
# largest gap are printed above), and at the worst point (left panel, values in the title) the
# first order misses much of the loss: a ReLU network bends inside the box, and the first order
# sees only the slope at its centre. For high-dimensional inputs no grid can find the exact
# value, which is the practical face of the hardness result.
#
# ## Data and members for checks 2, 2b, 3 and 4
#
# Following the official protocol (two classes, independently trained regressors and binary
# classifiers, ensembles of several sizes drawn from them, repeated), with scikit-learn's 8×8
# digits in place of CIFAR-10 dog/frog: digits 3 and 8, pixels scaled to $[0,1]$, targets $+1$ (a
# 3) and $-1$ (an 8) for regression as in the code, labels 1/0 for classification. We train
# `n_members` MLP regressors (squared loss) and as many binary classifiers (cross-entropy on one
# logit), each from its own initialisation, on 60 % of the pairs; the remaining 40 % are the test
# points.

# %%
mnist = run["data"] == "mnist5k"
Xall, yall = load_mnist5k(seed) if mnist else load_sklearn("digits")
Xall = (Xall if mnist else Xall / 16.0).astype(np.float32)
PAIR = dict(hidden=run["hidden"], n_members=run["n_members"], epochs=run["fit_epochs"])
pair = adv_ensemble.pair_members(Xall, yall, **PAIR, **STREAMS, device=dev)
reg = adv_ensemble.member_terms(pair.regressors, pair.x_test)
clf = adv_ensemble.member_terms(pair.classifiers, pair.x_test)
print("\n".join(adv_ensemble.members_lines(pair, reg, clf)))

# %% [markdown]
# ## Sanity check 2 and our check 2b · The regression decomposition, and the sign of cross diversity
#
# For each ensemble size $m=1,\dots,m_{\max}$ we draw `repeats` ensembles of distinct members and
# compute the four terms at every test point, at $\varepsilon=0.1$. The terms are computed twice:
# in float32 (the precision the networks run in) and in float64 (from double copies of the same
# weights), so that rounding cannot pass for a sign.
#
# **Sanity check 2.** The decomposition is an algebraic identity of the linearised loss (expand
# the squares above): whatever the networks, at every point of every ensemble
# |ensemble − (mean − prediction − gradient − cross)| must be at most $10^{-5}$ of the members'
# mean loss in float32 and at most $10^{-10}$ in float64. Only a wrong factor or sign in our code
# can fail it, so it shows that the code is right, not that the paper is: it is not a verdict.
# The smallest prediction and gradient diversity are shown too, not tested: a variance and the
# triangle inequality cannot come out negative.
#
# **Our check 2b.** What the decomposition adds over gradient diversity alone is the cross term,
# and the abstract concludes that gradient diversity is not sufficient. How large and how often
# negative the cross term is on trained networks is not something the identity decides. Our test
# (the bound 0.1 is ours, and the abstract gives none): over all points of all ensembles with
# $m\ge2$ (float64), the share of (ensemble, point) pairs with cross $<0$ is above 0, and mean
# |cross| is at least 0.1 × mean gradient diversity. A cross term that is always positive, or
# tiny beside gradient diversity, fails it.

# %%
PICK = (run["n_members"], run["m_max"], run["repeats"], run.child_rng(6))
configs, eps = adv_ensemble.ensemble_configs(*PICK), run["eps"]
y_reg, y_bin = pair.y_reg["test"].cpu().numpy(), pair.y_bin["test"].cpu().numpy()
reg_study = adv_ensemble.regression_study(reg, y_reg, configs, epsilon=eps)
reg_df, reg_summary = reg_study.table, reg_study.summary
print("\n".join(adv_ensemble.regression_lines(reg_study)))

# %% tags=["hide-input"]
fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 3.9))
for term, role in TERMS.items():
    ax.scatter(reg_df.m, reg_df[term], s=10, alpha=0.5, color=color_for(role))
    mean_m = reg_df.groupby("m")[term].mean()
    ax.plot(mean_m, marker="o", color=color_for(role), label=f"{term} diversity")
ax.axhline(0, color=color_for("muted"), lw=0.8)
title = f"Regression decomposition at ε = {eps}"
ax.set(xlabel="ensemble size m", ylabel="term (mean over test points)", title=title)
ax.legend()
cross_all, grad_all = reg_study.cross, reg_study.gradient
sub = run.child_rng(7).choice(len(cross_all), min(4000, len(cross_all)), replace=False)
bx.scatter(grad_all[sub], cross_all[sub], s=5, alpha=0.4, color=color_for("baseline"))
bx.axhline(0, color=color_for("reference"), lw=1)
title = "Cross diversity takes both signs (m ≥ 2)"
bx.set(xscale="log", xlabel="gradient diversity at a point")
bx.set(ylabel="cross diversity at the point", title=title)
plt.show()

# %%
RESID = ["max relative residual (float32)", "max relative residual (float64)"]
SIGN = ["share with cross < 0", "mean |cross| / mean gradient"]
MINS = ["min prediction diversity", "min gradient diversity"]
ledger.sanity(
    "2",
    "regression: ensemble = mean − prediction − gradient − cross (first order)",
    why="an algebraic identity of the linearised squared loss (expand the squares); "
    "only a bug in our terms can fail it",
    measured={k: reg_summary[k] for k in RESID + MINS},
    criterion=all_of(at_most(RESID[0], 1e-5), at_most(RESID[1], 1e-10)),
    tolerance={  # data/numerics (with a run on an AVX-512 machine)
        "max relative residual (float32)": tol(abs=2e-07),
        "min prediction diversity": tol(abs=8e-12),
        "min gradient diversity": tol(abs=5e-09),
    },
)

# %%
ledger.ours(
    "2b",
    "cross diversity takes both signs and is not small beside gradient diversity",
    why="the abstract concludes gradient diversity alone is not sufficient; the size "
    "bound 0.1 and the point-wise sign test are ours",
    evidence="real data",
    measured={k: reg_summary[k] for k in SIGN},
    criterion=all_of(
        at_least(SIGN[0], 0, strict=True, scale=0.01), at_least(SIGN[1], 0.1)
    ),
    tolerance={"mean |cross| / mean gradient": tol(abs=2e-07)},
)
print("\n".join(adv_ensemble.cross_sign_reading(reg_study)))

# %% [markdown]
# The table and the left panel show the terms against ensemble size; the right panel shows the
# points where cross diversity falls below the zero line. The sentence printed under the two
# checks reads them: how often the cross term is negative point by point and per test set, its
# sign on average and its size beside gradient diversity. A cross term that flips sign point by
# point but rarely for a whole test set does not show in the official code's test-set means
# (which we also print per ensemble size); the line below counts them.
#
# ## Sanity check 3 · The cross-entropy decomposition
#
# For a binary logit $z$ with label $y\in\{0,1\}$ and $s=2y-1$, member $i$'s first-order
# adversarial logit is $a_i=z_i-s\varepsilon g_i$ and the ensemble's is
# $e=\bar z-s\varepsilon\bar g$. With $\mathrm{CE}(z)=\log(1+e^{-sz})$ and
# $\Delta=\frac1m\sum_i g_i-\bar g\ge0$, the official code's terms are, at each point,
#
# $$\mathrm{CE}(e)=\tfrac1m\textstyle\sum_i\mathrm{CE}(a_i)
#   -\tfrac1m\textstyle\sum_i\mathrm{KL}\big(\sigma(e)\,\|\,\sigma(a_i)\big)
#   -\varepsilon R\,\Delta,\qquad R=(y-\sigma(e))(2y-1)\ge0,$$
#
# which we verified to be an exact identity (it follows from $\log\sigma(a)=a-\log(1+e^a)$). The
# reference prediction $\sigma(e)$ is the code's choice; taking instead the normalised geometric
# mean of the members' predictions, $\sigma(\frac1m\sum a_i)$, gives another exact identity in
# which the gradient term is $\mathrm{CE}(\bar a)-\mathrm{CE}(e)\ge0$ (our alternative reading;
# we could not check which one the paper's text uses). The check uses the code's version; the
# other is printed beside it.
#
# **Sanity check 3.** Like 2, an identity of the linearised loss, so a check of our code, not a
# verdict: relative residual at most $10^{-5}$ (float32) and $10^{-10}$ (float64) of the members'
# mean loss at every point of every ensemble. A wrong reference prediction, a missing factor in
# $R$ or a different $\Delta$ breaks it. The smallest KL and gradient terms are shown, not tested:
# a KL divergence, $R$ and $\Delta$ cannot be negative. Our terms use stable forms ($1-\sigma(e)$
# as $\sigma(-e)$, log-sigmoids); the code's literal forms are run beside them.

# %%
bin_study = adv_ensemble.binary_study(clf, y_bin, configs, epsilon=eps)
bin_df = bin_study.table
print("\n".join(adv_ensemble.binary_lines(bin_study)))

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.7), sharey=True)
READINGS = [("kl", "gradient", "code: p̄ = σ(e)")]
READINGS += [("geometric_kl", "geometric_gradient", "geometric mean: p̄ = σ(ā)")]
for ax, (kl_col, gr_col, title) in zip(axes, READINGS):
    parts = ((kl_col, "alt", "KL (prediction) term"), (gr_col, "ours", "gradient term"))
    for col, role, label in parts:
        ax.scatter(bin_df.m, bin_df[col], s=10, alpha=0.5, color=color_for(role))
        mean_m = bin_df.groupby("m")[col].mean()
        ax.plot(mean_m, marker="o", color=color_for(role), label=label)
    ax.set(xlabel="ensemble size m", title=f"Cross-entropy terms, {title}")
    ax.legend()
axes[0].set_ylabel("term (mean over test points)")
plt.show()

# %%
ledger.sanity(
    "3",
    "binary cross-entropy: ensemble = mean − KL − gradient term (first order)",
    why="an algebraic identity of the linearised cross-entropy (log σ(a) = a − log(1 + "
    "eᵃ)); only a bug in our terms can fail it",
    measured=bin_study.summary,
    criterion=all_of(at_most(RESID[0], 1e-5), at_most(RESID[1], 1e-10)),
    note="the code's terms (p̄ = σ(e)) in stable form",
    tolerance={RESID[0]: tol(abs=4e-07), "min gradient term": tol(abs=4e-14)},
)

# %% [markdown]
# The two readings split the same total between the KL and the gradient part differently, so
# the code's gradient term $\varepsilon R\Delta$ and the geometric one differ (left against
# right panel; the residuals and smallest terms of both are printed above). The code's literal
# formulas give the same test-set means (gap printed above), but pointwise in float32 they can
# lose the identity where the ensemble is confident, since $1-\sigma(e)$ rounds to 0 there (their
# largest residual is printed above).
#
# ## Our check 4 · The first order tracks the true adversarial loss
#
# For an ensemble of the first `fo_members` regressors we compare the first-order ensemble loss
# $(\bar r+\varepsilon\bar g)^2$ with the loss that PGD-20 finds (the best of a start at $x$ and
# a random start, step $2.5\varepsilon/20$), for ε from 0.01 to 0.3. The theory maximises over
# the whole ε-box, so the main comparison lets PGD leave the pixel range $[0,1]$. The official
# evaluation clamps to $[0,1]$; we show that protocol too, where the first order over the whole
# box overstates the attack's reach (a pixel at 0 cannot move down), together with a first order
# that respects the range (ours: each coordinate moves only within
# $[\max(-\varepsilon,-x_j),\min(\varepsilon,1-x_j)]$).
#
# **Criterion.** Without clamping: the Spearman correlation between ε and the mean relative error
# |first order − PGD| / PGD is above 0.8, and the mean relative error at the smallest ε is at
# most 5 % (our bound for "tracks"; the abstract states neither part, so this is our check, not
# a claim of the paper). An error that does not grow with ε, or a first order that is off
# already at tiny ε, fails.

# %%
eps_grid, fo_members = run["eps_grid"], pair.regressors[: run["fo_members"]]
SWEEP = dict(steps=run["eval_steps"], generator_for=run.torch_generator)
fo_rows = adv_ensemble.first_order_sweep(
    fo_members, pair.x_test, pair.y_reg["test"], eps_grid, **SWEEP
)
fo_df = pd.DataFrame(fo_rows)
rho = float(stats.spearmanr(fo_df.eps, fo_df.err_free).statistic)
print(fo_df.round(4).to_string(index=False))
print(f"Spearman(ε, relative error), no clamping: {rho:.3f}")

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(6.4, 4))
LINES = [("err_free", "o", "ours", "first order vs PGD, whole ε-box (theory)")]
LINES += [
    (
        "err_clamped",
        "s",
        "baseline",
        "first order vs PGD clamped to [0, 1] (code's protocol)",
    )
]
LINES += [("err_in_range", "^", "alt", "range-aware first order vs clamped PGD (ours)")]
for col, marker, role, label in LINES:
    ax.plot(fo_df.eps, fo_df[col], marker=marker, color=color_for(role), label=label)
ax.set(xscale="log", yscale="log", xlabel="attack radius ε (ℓ∞)")
ax.set(ylabel="mean |first order − PGD| / PGD", title="First-order error grows with ε")
ax.legend(fontsize=8)
plt.show()

# %%
RHO = "Spearman(ε, error)"
E_LO, E_HI = f"error at ε={eps_grid[0]}", f"error at ε={eps_grid[-1]}"
ledger.ours(
    "4",
    "first-order loss tracks the PGD loss; error grows with ε",
    why="the abstract says only that the decomposition is first order; the 5 % bound "
    "at the smallest ε and the growth test (Spearman > 0.8) are ours",
    evidence="real data",
    measured={RHO: rho, E_LO: fo_df.err_free.iloc[0], E_HI: fo_df.err_free.iloc[-1]},
    criterion=all_of(at_least(RHO, 0.8, strict=True), at_most(E_LO, 0.05)),
    # data/numerics (with a run on an AVX-512 machine)
    tolerance={E_LO: tol(abs=1e-06), E_HI: tol(abs=5e-05)},
)
print(adv_ensemble.sweep_reading(fo_rows))

# %% [markdown]
# The sentence above reads the table. Where PGD finds more loss than the first order, the
# network's curvature adds to the linear part. Under clamping the whole-box first order assumes
# every pixel can move both ways, which digit pixels at 0 or 1 cannot: that is the gap the
# range-aware first order closes, in so far as the printed errors show it.
#
# ## Claims 5a and 5b · Orthogonal adversarial predictions (AdvEOAP)
#
# Three members (an MLP with one hidden layer each) are trained on all ten digit classes, jointly,
# with the AdvEOAP loss of the official code: each member's own PGD-5 example (random start,
# ε = 0.1, step 2.5ε/5), the sum of the members' cross-entropies, minus α times the mean
# log-determinant of the Gram matrix of their L1-normalised non-true-class predictions, minus β
# times the entropy of those predictions' mean (α = 0.5, β = 10). The baseline is the same loss
# with α = β = 0: each member adversarially trained on its own example, as the official code's
# independent baseline (`adv_loss_naive_multi`) does. Both methods share, per seed, the
# train/test split (60/40), the initial weights and the batch order; SGD with momentum 0.9, weight
# decay 5·10⁻⁴ and a cosine learning rate, as the official trainer. The ensemble (mean logits) is
# evaluated with PGD-20 (random start, step 2.5ε/20); transfer is the share of member $j$'s
# correctly classified test points that member $i$'s own PGD-20 examples make it misclassify,
# averaged over $i\ne j$. The protocol is `adv_ensemble.compare_methods` (unit-tested); the cell below only
# calls it.
#
# **Criterion 5a (the paper's claim).** The abstract says the experiments validate the method;
# we could not read by how much, so the bar is 0. Per seed, AdvEOAP's robust accuracy minus the
# baseline's, in points (same split, initial weights and batches): the claim holds if
# mean − $t$·SE > 0 over the seeds ($t$: Student's 97.5 % quantile on seeds − 1 degrees of
# freedom), fails if mean + $t$·SE ≤ 0, and is within the noise otherwise. AdvEOAP no more robust
# than independent training on the paired seeds fails it.
#
# **Our check 5b.** That adversarial examples transfer less between AdvEOAP's members is our
# expectation from "orthogonal adversarial predictions", not a condition the paper states. Per
# seed, the baseline's mean off-diagonal transfer minus AdvEOAP's, by the same paired rule. Members
# fooled at least as often by each other's examples fail it.

# %%
Xc, yc = torch.tensor(Xall, device=dev), torch.tensor(yall, device=dev)
names, eps_m, n_seeds5 = run["methods"], run["method_eps"], run["method_seeds"]
TRAIN = dict(hidden=run["method_hidden"], epochs=run["method_epochs"], n_members=3)
TRAIN |= dict(lr=run["method_lr"], batch_size=run["method_batch"], epsilon=eps_m)
TRAIN |= dict(train_steps=run["train_steps"], eval_steps=run["eval_steps"])
TRAIN |= dict(n_seeds=n_seeds5, num_classes=10)
methods = {name: adv_ensemble.METHODS[name] for name in names}
cmp = adv_ensemble.compare_methods(Xc, yc, methods, **TRAIN, **STREAMS)
meth_df = pd.DataFrame(cmp.rows)
print("\n".join(adv_ensemble.comparison_lines(cmp.rows, OURS, BASE)))

# %% tags=["hide-input"]
grid = dict(figsize=(4 + 3.2 * len(names), 3.8))
grid["gridspec_kw"] = {"width_ratios": [1.6] + [1] * len(names)}
fig, axes = plt.subplots(1, 1 + len(names), **grid)
ax = axes[0]
for j, name in enumerate(names):
    d, c = meth_df[meth_df.method == name], color_for(name)
    for col, marker, off in (("clean", "o", -0.15), ("robust", "s", 0.15)):
        ax.scatter(np.full(len(d), j + off), d[col], marker=marker, color=c, alpha=0.6)
        ax.hlines(d[col].mean(), j + off - 0.12, j + off + 0.12, color=c, lw=2.5)
title = f"Clean (○) and PGD-{run['eval_steps']} (□) accuracy, ε = {eps_m}"
ax.set(xticks=range(len(names)), xticklabels=[n.replace(" (", "\n(") for n in names])
ax.set(ylabel="ensemble accuracy (test)", title=title)
ax.tick_params(axis="x", labelsize=8)
vmax = max(np.mean(v, axis=0).max() for v in cmp.transfers.values())
for ax, name in zip(axes[1:], names):
    Tm = np.mean(cmp.transfers[name], axis=0)
    im = ax.imshow(Tm, vmin=0, vmax=vmax, cmap="magma")
    for (i, j), v in np.ndenumerate(Tm):
        ink = "white" if v < 0.6 * vmax else "black"
        ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=8, color=ink)
    ax.set(xticks=range(3), yticks=range(3), xlabel="target member j")
    ax.set(ylabel="source member i", title=f"{name}\ntransfer (mean over seeds)")
    ax.title.set_fontsize(9)
    ax.grid(False)
fig.colorbar(im, ax=axes[1:], shrink=0.8, label="share fooled")
plt.show()

# %%
G5A = "robust accuracy, AdvEOAP − PGD-AT, per seed (points)"
G5B = "transfer, PGD-AT − AdvEOAP, per seed"
robust_gain = adv_ensemble.paired_differences(cmp.rows, "robust", OURS, BASE)
transfer_rise = adv_ensemble.paired_differences(cmp.rows, "transfer", OURS, BASE)
gain5, transfer_drop = [100 * v for v in robust_gain], [-v for v in transfer_rise]
ledger.check(
    "5a",
    "AdvEOAP's ensemble is more robust (PGD-20) than independent PGD-AT's",
    paper="the experiments validate the method (no number read); the comparator is an "
    "independent PGD-AT baseline present in the official code (adv_loss_naive_multi, "
    "not called by its trainer); the paper's baselines were not read",
    source="abstract",
    evidence="real data",
    measured={G5A: gain5},
    criterion=paired_gain(G5A, k="t"),
    note=f"{run['data']}, 3 members, ε = {eps_m}, {n_seeds5} seeds",
    tolerance={G5A: tol(abs=3)},
)

# %%
ledger.ours(
    "5b",
    "adversarial examples transfer less between AdvEOAP's members than between "
    "independent PGD-AT's",
    why="our expectation from orthogonal adversarial predictions; the paper's abstract "
    "does not state it",
    evidence="real data",
    measured={G5B: transfer_drop},
    criterion=paired_gain(G5B, k="t"),
    note=f"mean off-diagonal transfer, {n_seeds5} seeds",
    tolerance={G5B: tol(abs=0.02)},
)

# %%
for cid, name, gains in (("5a", G5A, gain5), ("5b", G5B, transfer_drop)):
    print(f"{cid}: {adv_ensemble.gain_reading(name, gains, digits=3)}")
print(adv_ensemble.direction_reading(transfer_drop))

# %% [markdown]
# The figure shows each seed's clean and robust accuracy (bars: means) and the transfer matrices;
# the diagonal is how often a member falls to its own attack. The lines under the verdicts read
# 5a and 5b from their paired intervals. The table also attacks each member alone: when
# AdvEOAP's members are weaker on their own than the baseline's (the printed members-alone
# accuracies), a transfer rate measured on them can rise even if the ensemble as a whole is
# harder to fool, so 5b can disagree with 5a.
#
# ## Claim 5c · Does AdvEOAP raise gradient and cross diversity?
#
# The abstract says the method is built to raise gradient diversity and cross diversity at
# once; that is the mechanism behind 5a. The official code computes the decomposition only for
# independently trained regressors and binary classifiers (`show_diversity.py`), not for an
# AdvOAP ensemble; its `trainer.py` (`Adv_Ensemble_Trainer`) keeps `GradDiv` and `CrossDiv`
# counters, but no loss fills them, so the code gives no formula for a ten-class ensemble, and we
# could not read the paper's multi-class form. The code's binary cross-entropy form (sanity
# check 3) has a KL and a gradient term but no separate cross term, so "cross diversity" is a
# term of the squared-loss form.
#
# **The judged reading: the true-class probability.** Each member's output at a point is one
# scalar, its softmax probability of the true class $p_{i,y}(x)$, with the target 1, and the
# first-order squared-loss decomposition above (the one the official code applies to scalar
# outputs) is applied to it (`adv_ensemble.true_class_decomposition`). The AdvEOAP loss acts on the
# members' *wrong*-class probabilities (their log-determinant and entropy) and leaves the
# true-class term to the cross-entropy that both methods share, so the objective does not by
# itself decide how the true-class terms compare. The terms are taken at the attack's radius
# ε = 0.1 ($\ell_\infty$, so $\ell_1$ norms of the input gradients of $p_{i,y}$) on the clean
# test inputs of each seed, the same inputs for both methods, and averaged over them. The
# ensemble of the decomposition is the mean of the members' probabilities (the trained and
# attacked ensemble averages logits). The radius does not decide the verdict: for the same
# networks the gradient term is proportional to ε² and the cross term to ε, so every paired
# difference, its mean and its SE scale together and keep their signs.
#
# **Our diagnostic: the one-hot ten-class sum.** The decomposition applied to each of the ten
# class probabilities (target $1[y=j]$) and summed over classes (`adv_ensemble.multiclass_decomposition`)
# was this chapter's earlier reading of 5c. The training objective favours it: the
# log-determinant trains the members to put their wrong-class mass on *different* classes, which
# by itself raises the prediction, gradient and cross terms summed over the wrong classes. It is
# kept as our check, outside the paper's tally.
#
# **Gate (the members trained).** Every ensemble of both methods, on every seed, keeps a PGD-20
# robust accuracy of at least 0.2, twice chance on ten classes (our bound). It was written
# knowing that the robust accuracies of the chapter's earlier revision were about 0.75; it only
# rules out members that did not train.
#
# **Criterion 5c (written in this revision before the true-class terms of any trained ensemble
# were computed; the one-hot sums were known).** Per seed, AdvEOAP's true-class gradient
# diversity minus the baseline's, and the same for cross diversity. Both must rise beyond the
# noise: mean − $t$·SE > 0 over the seeds for each; the claim fails if either has
# mean + $t$·SE ≤ 0, and is within the noise otherwise. The bar is 0 (the abstract says
# "improve", no size). Plausible outcomes that fail it: the members' true-class probabilities
# move together under attack (their input gradients aligned), so gradient diversity does not
# rise; or AdvEOAP's members, weaker alone, are steep exactly where they err together, which
# lowers cross diversity.

# %%
tc_rows = adv_ensemble.true_class_table(cmp, Xc, yc, epsilon=eps_m)
tc_by = pd.DataFrame(tc_rows).pivot(index="seed", columns="method")
G5C = "true-class gradient diversity, AdvEOAP − PGD-AT, per seed"
X5C = "true-class cross diversity, AdvEOAP − PGD-AT, per seed"
P5C = "true-class prediction diversity, AdvEOAP − PGD-AT, per seed"
GATE5C = "ensemble robust accuracy (PGD-20), both methods, every seed"
grad_gain = adv_ensemble.paired_differences(tc_rows, "gradient", OURS, BASE)
cross_gain = adv_ensemble.paired_differences(tc_rows, "cross", OURS, BASE)
pred_gain = adv_ensemble.paired_differences(tc_rows, "prediction", OURS, BASE)
robust_all = adv_ensemble.robust_by_run(cmp.rows, (BASE, OURS))

# %%
TABLE = ["prediction", "gradient", "cross"]
print("true-class decomposition (test-set means):")
print(tc_by[TABLE].swaplevel(axis=1)[[BASE, OURS]].round(5).to_string())

# %%
ledger.check(
    "5c",
    "AdvEOAP raises both gradient and cross diversity over independent PGD-AT",
    paper="the method simultaneously improves gradient diversity and cross diversity",
    source="abstract",
    evidence="real data",
    measured={G5C: grad_gain, X5C: cross_gain, GATE5C: robust_all, P5C: pred_gain},
    show=[G5C, X5C],
    gate=at_least(GATE5C, 0.2),
    criterion=all_of(paired_gain(G5C, k="t"), paired_gain(X5C, k="t")),
    note="our reading: the squared-loss decomposition of the true-class probability "
    "(target 1) at ε = 0.1 on the test inputs",
    tolerance={
        G5C: tol(abs=0.0006),
        X5C: tol(abs=0.0009),
        GATE5C: tol(abs=0.03),
        "true-class prediction diversity, AdvEOAP − PGD-AT, per seed": tol(abs=0.0006),
    },
)

# %%
c5c = ledger.claim("5c")
for name, term, gains in ((G5C, "gradient", grad_gain), (X5C, "cross", cross_gain)):
    baseline = (
        f", the baseline's mean {term} diversity {tc_by[(term, BASE)].mean():.5f}"
    )
    if c5c.checked:
        print(adv_ensemble.gain_reading(name, gains, digits=5, extra=baseline))
if not c5c.checked:
    print(f"claim 5c is not checked at this scale: {c5c.note}")

# %% [markdown]
# **Our check 5d · the one-hot ten-class sum.** The same paired rule on the decomposition summed
# over the ten class probabilities (its terms come from `adv_ensemble.compare_methods`).

# %%
G5D = "one-hot sum: gradient diversity, AdvEOAP − PGD-AT, per seed"
X5D = "one-hot sum: cross diversity, AdvEOAP − PGD-AT, per seed"
grad_gain_sum = adv_ensemble.paired_differences(cmp.rows, "gradient", OURS, BASE)
cross_gain_sum = adv_ensemble.paired_differences(cmp.rows, "cross", OURS, BASE)
terms_by = meth_df.pivot(index="seed", columns="method")
print("one-hot ten-class sum (test-set means):")
print(terms_by[TABLE].swaplevel(axis=1)[[BASE, OURS]].round(4).to_string())

# %%
ledger.ours(
    "5d",
    "AdvEOAP raises both gradient and cross diversity over independent PGD-AT, "
    "summed over the ten one-hot class outputs",
    why="our earlier reading of 5c, kept as a diagnostic: the training objective "
    "favours it (the log-determinant spreads the members' wrong-class mass over "
    "different classes, which by itself raises the terms summed over wrong classes)",
    evidence="real data",
    measured={G5D: grad_gain_sum, X5D: cross_gain_sum, GATE5C: robust_all},
    show=[G5D, X5D],
    gate=at_least(GATE5C, 0.2),
    criterion=all_of(paired_gain(G5D, k="t"), paired_gain(X5D, k="t")),
    note="squared-loss decomposition on the ten softmax outputs, summed, ε = 0.1",
    tolerance={G5D: tol(abs=0.0009), X5D: tol(abs=0.001), GATE5C: tol(abs=0.03)},
)
for name, gains in ((G5D, grad_gain_sum), (X5D, cross_gain_sum)):
    print(adv_ensemble.gain_reading(name, gains))

# %% [markdown]
# **Confidence and scale (not judged).** The decomposition's terms grow with how much the
# members' probabilities move under attack at all, so a method whose members are less confident
# can show larger diversities and a larger members' loss at once. The lines below set the terms
# against the members' own loss, and give a scale-free gradient diversity per method: the
# dispersion $1-\sum\bar g^2/\sum\frac1m\sum_i g_i^2$ of the true-class gradients (0 when the
# members' gradients agree, 1 when they cancel), and each diversity divided by the members'
# mean first-order loss (the average term).

# %%
print("\n".join(adv_ensemble.confidence_reading(cmp.rows, tc_rows, OURS, BASE)))

# %% [markdown]
# **The seed count.** Claims 5a–5d run on 5 seeds; the chapter's earlier revision used 3, and
# the count was raised after a timing probe had printed seed 0's results. The line below judges
# each claim by its own criterion on the first 3 seeds only, to show what the change did.

# %%
PARTS = {"5a": [(G5A, gain5)], "5b": [(G5B, transfer_drop)]}
PARTS |= {"5c": [(G5C, grad_gain), (X5C, cross_gain)]}
PARTS |= {"5d": [(G5D, grad_gain_sum), (X5D, cross_gain_sum)]}
first3 = []
for cid, parts in PARTS.items():
    words = [adv_ensemble.paired_verdict(name, gains[:3]) for name, gains in parts]
    w3 = "reproduced" if all(w == "reproduced" for w in words) else "within noise"
    w3 = "not reproduced" if "not reproduced" in words else w3
    first3.append(f"{cid} {w3} (5 seeds: {ledger.claim(cid).verdict})")
print("On the first 3 seeds alone: " + "; ".join(first3) + ".")

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
for ax, term in zip(axes, ["gradient", "cross"]):
    for r in range(n_seeds5):
        vals = [tc_by.loc[r, (term, BASE)], tc_by.loc[r, (term, OURS)]]
        ax.plot([0, 1], vals, color=color_for("muted"), lw=0.8, zorder=1)
    for j, name in enumerate([BASE, OURS]):
        dots = dict(color=color_for(name), s=30, zorder=2)
        ax.scatter(np.full(n_seeds5, j), tc_by[(term, name)], **dots)
    ax.axhline(0, color=color_for("reference"), lw=0.8)
    ax.set(xticks=[0, 1], xticklabels=[BASE, OURS], xlim=(-0.4, 1.4))
    ylabel = f"{term} diversity (mean over test points)"
    ax.set(ylabel=ylabel, title=f"True-class {term} diversity, paired by seed (lines)")
title = f"Claim 5c: the decomposition of the true-class probability, ε = {eps_m}"
fig.suptitle(title, fontsize=11)
plt.show()

# %% [markdown]
# Each line in the figure joins one seed's two ensembles, trained from the same initial weights
# on the same batches; the verdict and the lines printed under it read them. The confidence
# lines above say what the diversities are set against: larger diversities lower the ensemble's
# first-order loss only if they outgrow the members' own loss.
#
# ### Peer side by side: torchattacks
#
# `torchattacks` (installed with `pip install --no-deps`, see Deviations) runs its own PGD on the
# trained ensembles of the last seed: ℓ∞, cross-entropy, no random start, 20 steps, the same step
# size. Ours should give the same adversarial inputs.

# %%
last = n_seeds5 - 1
X_te, y_te = Xc[cmp.test_index[last]], yc[cmp.test_index[last]]
PEER = dict(epsilon=eps_m, steps=run["eval_steps"])
for name in names:
    gap, acc_ours, acc_peer = adv_ensemble.peer_comparison(
        cmp.members[last, name], X_te, y_te, **PEER
    )
    print(
        f"{name}: largest |ours − torchattacks| over {X_te.numel():,} input values: "
        f"{gap:.1e}; accuracy under each: {acc_ours:.4f} / {acc_peer:.4f}"
    )

# %% [markdown]
# ## Quoted from the paper · The benchmarks (claim 6)
#
# The paper evaluates AdvEOAP on MNIST, F-MNIST and CIFAR-10 (the official README gives, e.g.,
# 3 members, ε = 0.2 on MNIST, 0.05 on F-MNIST, 8/255 on CIFAR-10). We could not read its tables
# offline, so no number of the paper is quoted here.

# %%
ledger.quote(
    "6",
    "experiments validate the effectiveness of the method",
    paper="abstract + official README: the abstract says the experiments validate the "
    "method; the README names MNIST, F-MNIST and CIFAR-10 (table values not read)",
    source="abstract",
    note="datasets and settings from the official README",
)

# %% [markdown]
# ## Verdicts

# %% tags=["nbval-check-output"]
ledger.show()

# %% tags=["nbval-ignore-output"]
print(run.time_line())

# %% [markdown]
# **Reading the verdicts.** The lines below are generated from this run's ledger and from the
# committed records (quick scale): the stability record
# (`data/stability/06_adv_ensemble_diversity.json`; a claim changed since it was made is named)
# and the numerics record (verdicts that move under other kernels and thread counts).

# %%
print("\n".join(reading_lines(ledger)))

# %% [markdown]
# ## Deviations from the paper
#
# - **Tolerances widened for a second machine (2026-12-06).** A run on an Intel Xeon with
#   AVX-512 kernels moved sanity check 2's residual and prediction-diversity values, our check 2b's ratio and our check 4's errors at the smallest and largest ε beyond the tolerances measured on the AMD
#   machine that made the reference. The run is recorded in the numerics record
#   (`repbook observe --run`, full precision) and those tolerances are now about three
#   times the largest difference seen; no verdict moved beyond its boundary's tolerance,
#   and the reference was re-made on the Intel machine.
# - **Paper text.** Only the abstract and the official code were available offline. The
#   decompositions follow `show_diversity.py`; the AdvEOAP loss follows `loss/adv_oap_loss.py`;
#   the independent baseline is an independent PGD-AT baseline present in the official code
#   (`adv_loss_naive_multi`, not called by its trainer); the paper's baselines were not read. We
#   could not check the paper's own notation, its proofs, or its tables (claim 6 quotes no
#   number). Every claim's source says what was read: the abstract (1, 5a, 5c, 6; for 6 also the
#   official README), with settings from the official code. For the
#   cross-entropy decomposition we implement both the code's reference prediction $\sigma(e)$
#   (used by sanity check 3) and the geometric-mean reading (shown beside it).
# - **Answered in this revision (an independent verdict audit)** — old → new, the reason, and what
#   was known when the change was made:
#   - *Claim 5 split into 5a (the paper's) and 5b (ours).* Old: one claim, "more robust **and**
#     less transfer", on bare means over 3 seeds: AdvEOAP's mean robust accuracy above the
#     baseline's and its mean off-diagonal transfer below it; *not reproduced*, entirely by the
#     transfer part (robust accuracy +0.83 points, positive on 3 of 3 seeds; transfer +0.016;
#     these numbers are from the reference ledger made on another machine, and the chapter's
#     numerics record explains the cross-machine spread).
#     The abstract states no transfer condition. New: 5a, the robust-accuracy gain per seed,
#     judged with the paired rule mean − $t$·SE > 0 (the book's rule for "better"); 5b, the
#     transfer drop per seed by the same rule, under our own heading. Known: the old per-seed
#     robust gains and mean transfers on seeds 0–2 (and, from the stability record, that the
#     transfer part failed on seeds 0–4). The transfer verdict went from ✗ (the old claim's
#     failing part) to ≈ (5b, within the noise); the direction did not change (the line under
#     5b counts the seeds on which transfer rose), and its margin is printed there.
#   - *5a's comparator named.* Old paper field: "the independent baseline as in the official
#     code". New: an independent PGD-AT baseline present in the official code
#     (`adv_loss_naive_multi`, not called by its trainer); the paper's baselines were not read.
#     The verdict does not change.
#   - *Claim 5c, new: the mechanism.* The abstract's reason for the method (it raises gradient
#     and cross diversity) was never measured. A first reading of the terms for a ten-class
#     ensemble (the decomposition on the softmax outputs, one-hot targets, summed over classes),
#     the gate and the criterion were written before the terms of any trained ensemble were
#     computed; a timing probe, run after they were fixed, then printed seed 0's terms.
#   - *Claim 5c's reading: one-hot ten-class sum → true-class probability (a second audit).*
#     Old: 5c judged on the one-hot sum, *reproduced* (gradient and cross gains far beyond the
#     noise). The training objective largely builds that result in: the log-determinant trains
#     the members to put wrong-class mass on different classes, which by itself raises the terms
#     summed over wrong classes. New: 5c is judged on the decomposition of the true-class
#     probability alone (a scalar output per point, target 1, the first-order form the official
#     code uses for scalar outputs), paired per seed, the same criterion form and gate; its
#     criterion was written before the true-class terms were computed, and its verdict is the
#     one in the table. The one-hot sum stays as our check 5d. The gate is renamed for what it
#     is (the members trained) and was written knowing the earlier robust accuracies (about
#     0.75). The official binary cross-entropy form has no separate cross term, so the
#     squared-loss form is the one with a cross term to judge.
#   - *Claim 4 → our check 4.* Old: a claim of the paper, *reproduced*. Its whole criterion
#     (error at the smallest ε ≤ 5 %, Spearman(ε, error) > 0.8) is ours; the abstract says only
#     that the decomposition is first order. New: `ledger.ours`, the criterion unchanged.
#     Known: all values.
#   - *Claim 6 reworded.* Old: "AdvEOAP beats earlier adversarial ensembles on MNIST, F-MNIST,
#     CIFAR-10", source "abstract". New: the abstract's "experiments validate the effectiveness
#     of the method", with the datasets from the official README (abstract + README read).
#   - *Claims 2 and 3 → sanity checks 2 and 3; the sign test → our check 2b.* Old: claims of the
#     paper, *reproduced*. They are algebraic identities of the linearised loss, which only a bug
#     can fail. The old criterion of claim 2 also held the sign and size of the cross term (share
#     negative > 0, mean |cross| ≥ 0.1 × gradient diversity); that part moves, unchanged, to our
#     check 2b, since the bound 0.1 is ours and the abstract states no size. Known: all values.
#   - *Sources.* Old: claims 2–5 were marked "paper" although only the abstract and the code were
#     read; now each is labelled by what was read.
#   - *Quick scale: claim 5 on 3 → 5 seeds* (as at full scale), so that the paired $t$ interval
#     (Student's quantile 4.30 on 2 degrees of freedom, 2.78 on 4) can resolve a gain. Fixed
#     before any of the new criteria was judged, but after the timing probe above had printed
#     seed 0's robust accuracies, transfer and terms for both methods. The line under claim 5c's
#     diagnostics gives each verdict of 5a–5d on the first 3 seeds alone.
#   - *Protocols moved into the module.* The member training, claim 4's ε sweep and claim 5's
#     training and evaluation loop are now `adv_ensemble.fit_members`,
#     `adv_ensemble.first_order_sweep` and `adv_ensemble.compare_methods` (unit-tested), with
#     the same random streams as before: the tables of checks 2–4 are unchanged, and a probe of
#     seed 0 gave the earlier loop's robust accuracies (to the four digits compared). Later
#     (a refactoring, no number changed) the module became the package `adv_ensemble`, which
#     also holds claim 1's 2-D study, the members and decompositions of checks 2–3, claim 5c's
#     terms and the printed diagnostics (`exact_study_2d`, `pair_members`, `regression_study`,
#     `binary_study`, `true_class_table`, `adv_ensemble.readings`), unit-tested.
# - **Criteria changed after their results were known (earlier revisions).**
#   - *Claims 2 and 3.* Before: the criteria also required the smallest prediction and gradient
#     diversity (claim 2) and the smallest KL and gradient terms (claim 3) to be $\ge0$. The first
#     run showed the binding margin of claim 2 to be $3\cdot10^{-9}$ on the prediction diversity,
#     a variance that cannot be negative: these parts could not fail (they follow from a
#     variance, the triangle inequality and Gibbs' inequality) and only tested rounding. Now: the
#     values are shown but not tested; the rest of both criteria is unchanged.
# - **A numerical fix after the first run.** Claim 3 first failed its float32 identity (relative
#   residual $8\cdot10^{-3}$) because our KL formed $1-\sigma(e)$, which rounds to 0 for confident
#   ensembles, although its docstring said it would not. We now use $\sigma(-e)$ and
#   log-sigmoids; the criterion is unchanged, and the code's literal form is printed beside it
#   (it shows the same loss of precision).
# - **Numerics.** The identities are judged relative to the members' mean loss, since the
#   ensemble's own loss can be close to 0.
# - **Data.** scikit-learn's 8×8 digits (3 vs 8 for checks 2–4, all ten classes for claim 5)
#   instead of CIFAR-10 dog/frog and MNIST/F-MNIST/CIFAR-10; MLPs instead of the code's CNN and
#   ResNet-20; `n_members` members instead of 20 at quick scale. The binary classifiers train
#   with the usual cross-entropy; the official two-class trainer uses a loss with prediction and
#   label swapped inside the logarithm, which we did not reproduce.
# - **Claim 5c's reading is ours.** The official code measures the decomposition only on
#   independently trained scalar-output models (`show_diversity.py`); `trainer.py`'s
#   `Adv_Ensemble_Trainer` keeps `GradDiv`/`CrossDiv` counters that no loss fills, so the code
#   gives no formula for an AdvOAP ensemble. For ten classes we judge the squared-loss
#   decomposition of the true-class probability (target 1), whose ensemble is the mean of the
#   members' probabilities, while the trained and attacked ensemble averages logits; the one-hot
#   sum over the ten outputs is our check 5d. The paper's own multi-class form may differ.
# - **Attack protocol.** Training uses PGD-5 and evaluation PGD-20 (the setting), both
#   with step 2.5ε/steps. The official README lists PGD-10 for training and PGD-20 for testing,
#   but `main.py` passes the *test* settings to the trainer and the *train* settings to the
#   tester, and its tester's default attack is a margin-scaled PGD with momentum; we use plain
#   PGD for both.
# - **Our check 4** adds an unclamped PGD (the theory's setting) and a range-aware first order (ours);
#   the 5 % bound at the smallest ε and the growth with ε (Spearman > 0.8) are ours: the abstract
#   says only that the decomposition is first order.
# - **Not at quick scale:** α = 0.2, the ADP-style baseline (the same loss on clean predictions),
#   MNIST-5k and the official 20-member protocol (sizes 1–12, 5 repeats) run only at full scale.
#   CIFAR-10 needs a download and is not run at either scale.
# - **Verdict stability.** `python -m repbook stability 06` runs the chapter on seeds 0–4 at
#   quick scale (`data/stability/06_adv_ensemble_diversity.json`, the verdict table's last
#   column); the lines under the verdict table read it.
# - **Peer.** `torchattacks` is installed on its own with `pip install --no-deps
#   'torchattacks>=3.5'`: its metadata pins `requests` 2.25 and asks for torchvision, which would
#   downgrade the book's environment; it imports and runs without them.
#
# ## Run it at full scale
#
# ```bash
# .venv/bin/python -m repbook full 06   # runs it and records it in data/full_runs/
# ```
# Full scale uses MNIST-5k (784 inputs), 20 regressors and classifiers with ensembles of size
# 1–12 (5 repeats, the official protocol), 256-unit members, ε = 0.2 with PGD-10 training for the
# method comparison (the README's MNIST radius), 60 epochs, 5 seeds, and adds α = 0.2 and the
# ADP-style baseline. It is meant for a GPU and has no full-scale record: a probe of one method
# on one seed at full size (2 and 4 epochs, then the evaluation) took 13–18 s on this book's
# shared 2-core CPU (the machine's load made the longer run the faster one), so the 20
# method–seed runs of 60 epochs alone would take roughly 40 minutes to 2 hours, beyond the
# 30 minutes the book allows a CPU full run.
