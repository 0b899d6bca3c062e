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
import copy

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import torch
from scipy import stats
from sklearn.datasets import make_moons

from repbook.core import (
    Ledger,
    setup,
    use_style,
    color_for,
    register_colors,
    load_sklearn,
    load_mnist5k,
    all_of,
    at_least,
    at_most,
    paired_gain,
    tol,
)
from repbook.core.ledger import unstable_sentence
from repbook.papers import adv_ensemble as A

SIZES = {
    "quick": dict(
        data="digits",
        hidden=64,
        n_members=10,
        fit_epochs=60,
        m_max=8,
        repeats=5,
        eps=0.1,
        eps_grid=[0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3],
        fo_members=3,
        moons=300,
        points_2d=60,
        grid_2d=101,
        eps_2d=0.1,
        method_seeds=5,
        method_hidden=128,
        method_epochs=20,
        method_batch=128,
        method_lr=0.1,
        method_eps=0.1,
        train_steps=5,
        eval_steps=20,
        methods=["independent PGD-AT", "AdvEOAP (α=0.5)"],
    ),
    "full": dict(
        data="mnist5k",
        hidden=256,
        n_members=20,
        fit_epochs=60,
        m_max=12,
        repeats=5,
        eps=0.1,
        eps_grid=[0.005, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3],
        fo_members=3,
        moons=1000,
        points_2d=300,
        grid_2d=301,
        eps_2d=0.1,
        method_seeds=5,
        method_hidden=256,
        method_epochs=60,
        method_batch=256,
        method_lr=0.1,
        method_eps=0.2,
        train_steps=10,
        eval_steps=20,
        methods=[
            "independent PGD-AT",
            "AdvEOAP (α=0.5)",
            "AdvEOAP (α=0.2)",
            "ADP-style (clean predictions)",
        ],
    ),
}
run = setup(scale=scale, seed=seed, sizes=SIZES)
ledger = Ledger.for_run(
    run,
    regime="8x8 digits (scikit-learn), ensembles of 3 small MLPs, PGD at eps=0.1; CPU",
)
use_style()
register_colors(
    {
        "AdvEOAP (α=0.5)": "ours",
        "independent PGD-AT": "baseline",
        "AdvEOAP (α=0.2)": "alt",
        "ADP-style (clean predictions)": "alt2",
        "torchattacks": "peer",
    }
)
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
lib_hand = A.regression_decomposition(
    f_hand[:, None], grad_hand[:, None, None], np.array([y_hand]), epsilon=eps_hand
).means()
print("by hand:", ", ".join(f"{k} {v:.4f}" for k, v in by_hand.items()))
print("lib:    ", ", ".join(f"{k} {v:.4f}" for k, v in lib_hand.items()))
rhs_hand = (
    by_hand["average"] - by_hand["prediction"] - by_hand["gradient"] - by_hand["cross"]
)
print(f"average − prediction − gradient − cross = {rhs_hand:.4f}")
gain_hand = by_hand["average"] - by_hand["ensemble"]
print(
    f"the ensemble's gain over its members {gain_hand:.4f}; prediction + gradient "
    f"diversity {by_hand['prediction'] + by_hand['gradient']:.4f}"
)

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
Xm, ym = make_moons(
    run["moons"], noise=0.15, random_state=int(run.child_rng(1).integers(2**31))
)
dev = run.device
Xm_t = torch.tensor(Xm, dtype=torch.float32, device=dev)
ym_t = torch.tensor(2.0 * ym - 1.0, dtype=torch.float32, device=dev)
init_2d = run.child_rng(2).integers(0, 2**31, size=2)
nets_2d = [A.mlp((2, 32, 32, 1), seed=int(s)).to(dev) for s in init_2d]
for k, net in enumerate(nets_2d):
    A.fit(
        net,
        Xm_t,
        ym_t,
        loss="mse",
        epochs=300,
        lr=1e-2,
        batch_size=len(ym_t),
        generator=run.torch_generator(20 + k),
    )

pick = run.child_rng(3).choice(len(ym_t), run["points_2d"], replace=False)
x2, y2 = Xm_t[pick], ym_t[pick].cpu().numpy()
eps2 = run["eps_2d"]
offsets = A.box_grid(eps2, run["grid_2d"])
out_grid = A.grid_outputs(nets_2d, x2, offsets)  # (members, points, grid)
exact_members = ((out_grid - y2[None, :, None]) ** 2).max(axis=2)
exact_ensemble = ((out_grid.mean(0) - y2[:, None]) ** 2).max(axis=1)
exact_div = exact_members.mean(0) - exact_ensemble
F2, G2 = A.members_outputs_and_gradients(nets_2d, x2)
dec2 = A.regression_decomposition(F2, G2, y2, epsilon=eps2)
first_div = dec2.prediction + dec2.gradient + dec2.cross
rel_ens_gap = np.abs(dec2.ensemble - exact_ensemble) / exact_ensemble
print(f"{len(y2)} points, ε = {eps2}, grid {run['grid_2d']}×{run['grid_2d']}:")
print(
    f"ensemble adversarial loss: exact (grid) mean {exact_ensemble.mean():.4f}, "
    f"first order mean {dec2.ensemble.mean():.4f}, "
    f"median relative gap {np.median(rel_ens_gap):.1%}"
)
print(
    f"diversity: exact mean {exact_div.mean():.4f}, "
    f"first order mean {first_div.mean():.4f}, "
    f"largest |gap| {np.abs(first_div - exact_div).max():.4f}, "
    f"correlation {np.corrcoef(exact_div, first_div)[0, 1]:.3f}"
)

# %% tags=["hide-input"]
worst = int(np.argmax(np.abs(first_div - exact_div)))
n_g = run["grid_2d"]
fig, axes = plt.subplots(1, 2, figsize=(10, 4))
ax = axes[0]
surface = ((out_grid.mean(0)[worst] - y2[worst]) ** 2).reshape(n_g, n_g)
im = ax.imshow(
    surface.T, origin="lower", extent=[-eps2, eps2, -eps2, eps2], cmap="viridis"
)
best = offsets[np.argmax(surface.ravel())]
lin_step = eps2 * np.sign(G2.mean(0)[worst]) * np.sign(F2.mean(0)[worst] - y2[worst])
ax.scatter(
    *lin_step,
    color=color_for("baseline"),
    marker="o",
    s=160,
    zorder=3,
    label="first-order maximiser ε·sign(∇f̄)",
    clip_on=False,
)
ax.scatter(
    *best,
    color="white",
    marker="*",
    s=120,
    zorder=4,
    edgecolor="black",
    label="grid maximum (exact)",
    clip_on=False,
)
ax.set(
    xlabel="δ₁",
    ylabel="δ₂",
    title=f"Ensemble loss over the ε-box: exact {exact_ensemble[worst]:.2f}, "
    f"first order {dec2.ensemble[worst]:.2f}",
)
ax.title.set_fontsize(10)
ax.grid(False)
fig.colorbar(im, ax=ax, label="(f̄(x+δ) − y)²")
ax.legend(loc="lower left", fontsize=8, frameon=True)
ax = axes[1]
lim = [min(exact_div.min(), first_div.min()), max(exact_div.max(), first_div.max())]
ax.plot(lim, lim, color=color_for("reference"), ls="--", lw=1.2, label="equal")
ax.scatter(exact_div, first_div, s=14, color=color_for("ours"), label="one test point")
ax.set(
    xlabel="exact diversity (grid)",
    ylabel="first-order diversity",
    title="First order vs exact diversity, 2-D ReLU nets",
)
ax.legend()
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
if run["data"] == "mnist5k":
    Xall, yall = load_mnist5k(seed)
else:
    Xall, yall = load_sklearn("digits")
    Xall = Xall / 16.0
Xall = Xall.astype(np.float32)
pair = np.flatnonzero((yall == 3) | (yall == 8))
order = run.child_rng(4).permutation(pair)
n_train = int(0.6 * len(order))
tr_idx, te_idx = order[:n_train], order[n_train:]
Xp_tr = torch.tensor(Xall[tr_idx], device=dev)
Xp_te = torch.tensor(Xall[te_idx], device=dev)
t_reg = {
    s: torch.tensor(np.where(yall[i] == 3, 1.0, -1.0), dtype=torch.float32, device=dev)
    for s, i in (("train", tr_idx), ("test", te_idx))
}
t_bin = {s: (t + 1) / 2 for s, t in t_reg.items()}
d_in, H, M = Xall.shape[1], run["hidden"], run["n_members"]
init = run.child_rng(5).integers(0, 2**31, size=(2, M))
fit_kw = dict(epochs=run["fit_epochs"], lr=3e-3, batch_size=64)
regressors = A.fit_members(
    (d_in, H, H, 1),
    init[0],
    Xp_tr,
    t_reg["train"],
    loss="mse",
    generators=[run.torch_generator(100 + k) for k in range(M)],
    **fit_kw,
)
classifiers = A.fit_members(
    (d_in, H, H, 1),
    init[1],
    Xp_tr,
    t_bin["train"],
    loss="bce",
    generators=[run.torch_generator(200 + k) for k in range(M)],
    **fit_kw,
)


def outputs_and_grads(models, x):
    """float32 as the networks run, and float64 from double copies of the weights."""
    f32 = A.members_outputs_and_gradients(models, x)
    doubles = [copy.deepcopy(m).double() for m in models]
    f64 = A.members_outputs_and_gradients(doubles, x.double())
    return f32, f64


(FR, GR), (FR64, GR64) = outputs_and_grads(regressors, Xp_te)
(ZB, GB), (ZB64, GB64) = outputs_and_grads(classifiers, Xp_te)
yr_te, yb_te = t_reg["test"].cpu().numpy(), t_bin["test"].cpu().numpy()
print(f"{len(tr_idx)} training and {len(te_idx)} test points, input dimension {d_in}")
print(
    f"regressors: test MSE {np.mean((FR - yr_te) ** 2, axis=1).mean():.4f} "
    f"(mean over members), sign accuracy {np.mean(np.sign(FR) == yr_te):.3f}"
)
print(
    f"classifiers: test accuracy {np.mean((ZB > 0) == (yb_te == 1)):.3f}; "
    f"mean ‖∇f‖₁ of a regressor {np.abs(GR).sum(-1).mean():.2f}"
)

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
pick_rng = run.child_rng(6)
configs = [
    (m, np.sort(pick_rng.choice(M, m, replace=False)))
    for m in range(1, run["m_max"] + 1)
    for _ in range(run["repeats"])
]
eps = run["eps"]
rows, pooled = [], []
for m, idx in configs:
    d32 = A.regression_decomposition(FR[idx], GR[idx], yr_te, epsilon=eps)
    d64 = A.regression_decomposition(FR64[idx], GR64[idx], yr_te, epsilon=eps)
    rows.append(
        dict(
            m=m,
            **d64.means(),
            rel32=d32.relative_residual.max(),
            rel64=d64.relative_residual.max(),
        )
    )
    if m >= 2:
        pooled.append(d64)
reg_df = pd.DataFrame(rows)
cross_all = np.concatenate([d.cross for d in pooled])
grad_all = np.concatenate([d.gradient for d in pooled])
reg_summary = {
    "max relative residual (float32)": reg_df.rel32.max(),
    "max relative residual (float64)": reg_df.rel64.max(),
    "min prediction diversity": min(d.prediction.min() for d in pooled),
    "min gradient diversity": grad_all.min(),
    "share with cross < 0": np.mean(cross_all < 0),
    "mean |cross| / mean gradient": np.abs(cross_all).mean() / grad_all.mean(),
}
config_share = np.mean(reg_df[reg_df.m >= 2].cross < 0)
REG_TERMS = ["ensemble", "average", "prediction", "gradient", "cross"]
print(reg_df.groupby("m")[REG_TERMS].mean().round(4).to_string())
print("\n".join(f"{k}: {v:.3g}" for k, v in reg_summary.items()))
print(
    f"ensembles whose test-set mean cross diversity is negative: {config_share:.0%} "
    f"of {int((reg_df.m >= 2).sum())}"
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.9))
ax = axes[0]
for term, role in TERMS.items():
    ax.scatter(reg_df.m, reg_df[term], s=10, alpha=0.5, color=color_for(role))
    ax.plot(
        reg_df.groupby("m")[term].mean(),
        marker="o",
        color=color_for(role),
        label=f"{term} diversity",
    )
ax.axhline(0, color=color_for("muted"), lw=0.8)
ax.set(
    xlabel="ensemble size m",
    ylabel="term (mean over test points)",
    title=f"Regression decomposition at ε = {eps}",
)
ax.legend()
ax = axes[1]
sub = run.child_rng(7).choice(len(cross_all), min(4000, len(cross_all)), replace=False)
ax.scatter(grad_all[sub], cross_all[sub], s=5, alpha=0.4, color=color_for("baseline"))
ax.axhline(0, color=color_for("reference"), lw=1)
ax.set(
    xscale="log",
    xlabel="gradient diversity at a point",
    ylabel="cross diversity at the point",
    title="Cross diversity takes both signs (m ≥ 2)",
)
plt.show()

# %%
RESID = ["max relative residual (float32)", "max relative residual (float64)"]
SIGN = ["share with cross < 0", "mean |cross| / mean gradient"]
ledger.sanity(
    "2",
    "regression: ensemble = mean − prediction − gradient − cross (first order)",
    why="an algebraic identity of the linearised squared loss (expand the squares); "
    "only a bug in our terms can fail it",
    measured={
        k: reg_summary[k]
        for k in RESID + ["min prediction diversity", "min gradient diversity"]
    },
    criterion=all_of(at_most(RESID[0], 1e-5), at_most(RESID[1], 1e-10)),
    tolerance={  # data/numerics (with a run on an AVX-512 machine)
        "max relative residual (float32)": tol(abs=2e-07),
        "min prediction diversity": tol(abs=8e-12),
        "min gradient diversity": tol(abs=5e-09),
    },
)
ledger.ours(
    "2b",
    "cross diversity takes both signs and is not small beside gradient diversity",
    why="the abstract concludes gradient diversity alone is not sufficient; the size "
    "bound 0.1 and the point-wise sign test are ours",
    evidence="real data",
    measured={k: reg_summary[k] for k in SIGN},
    criterion=all_of(
        at_least(SIGN[0], 0, strict=True, scale=0.01),
        at_least(SIGN[1], 0.1),
    ),
    tolerance={"mean |cross| / mean gradient": tol(abs=2e-07)},
)
cross_mean = float(cross_all.mean())
term_means = {t: float(reg_df[reg_df.m >= 2][t].mean()) for t in TERMS}
largest = max(term_means, key=term_means.get)
print(
    f"Averaged over the ensembles with m ≥ 2, the largest diversity is {largest} "
    f"diversity ({', '.join(f'{t} {v:.4f}' for t, v in term_means.items())})."
)
sign_word = "adding to" if cross_mean > 0 else "taking from"
print(
    f"Cross diversity is negative at {reg_summary[SIGN[0]]:.1%} of the "
    f"{len(cross_all):,} (ensemble, point) pairs with m ≥ 2 (float64); the "
    "test-set mean of an ensemble, as the official code reports it, is negative for "
    f"{config_share:.0%} of the {int((reg_df.m >= 2).sum())} ensembles. Its mean "
    f"over all pairs is {cross_mean:+.4f} ({sign_word} the ensemble's gain over its "
    f"members), and its mean size is {reg_summary[SIGN[1]]:.2f} × the mean gradient "
    "diversity."
)
n_cfg = int((reg_df.m >= 2).sum())
n_neg = int(round(config_share * n_cfg))
print(
    f"The test-set means show a negative cross diversity for {n_neg} of the {n_cfg} "
    f"ensembles ({config_share:.0%}), against {reg_summary[SIGN[0]]:.1%} of the "
    "points: "
    + (
        "averaging over a test set hides the sign."
        if config_share < reg_summary[SIGN[0]]
        else "the test-set means show the sign at least as often as the points."
    )
)

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
rows_b, pooled_b, geo_rel, geo_min, literal32 = [], [], 0.0, np.inf, 0.0
for m, idx in configs:
    b32 = A.binary_ce_decomposition(ZB[idx], GB[idx], yb_te, epsilon=eps)
    lit = A.binary_ce_decomposition(ZB[idx], GB[idx], yb_te, epsilon=eps, stable=False)
    literal32 = max(literal32, lit.relative_residual.max())
    b64 = A.binary_ce_decomposition(ZB64[idx], GB64[idx], yb_te, epsilon=eps)
    geo = A.binary_ce_decomposition(
        ZB64[idx], GB64[idx], yb_te, epsilon=eps, p_bar="geometric"
    )
    geo_rel = max(geo_rel, geo.relative_residual.max())
    code_kl, code_grad = A.code_binary_terms(ZB64[idx], GB64[idx], yb_te, epsilon=eps)
    rows_b.append(
        dict(
            m=m,
            **b64.means(),
            geometric_kl=geo.kl.mean(),
            geometric_gradient=geo.gradient.mean(),
            code_kl=code_kl,
            code_gradient=code_grad,
            rel32=b32.relative_residual.max(),
            rel64=b64.relative_residual.max(),
        )
    )
    if m >= 2:
        pooled_b.append(b64)
        geo_min = min(geo_min, geo.kl.min(), geo.gradient.min())
bin_df = pd.DataFrame(rows_b)
bin_summary = {
    "max relative residual (float32)": bin_df.rel32.max(),
    "max relative residual (float64)": bin_df.rel64.max(),
    "min KL term": min(b.kl.min() for b in pooled_b),
    "min gradient term": min(b.gradient.min() for b in pooled_b),
}
print(
    bin_df.groupby("m")[
        ["ensemble", "average", "kl", "gradient", "geometric_kl", "geometric_gradient"]
    ]
    .mean()
    .round(5)
    .to_string()
)
print("\n".join(f"{k}: {v:.3g}" for k, v in bin_summary.items()))
print(
    f"geometric-mean reading: max relative residual {geo_rel:.2g}, "
    f"smallest term {geo_min:.2g}"
)
print(
    f"the code's literal forms (1 − σ, (y − p̄)(2y − 1)) in float32: "
    f"max relative residual {literal32:.2g}"
)
code_gap = np.max(
    np.abs(
        bin_df[["kl", "gradient"]].to_numpy()
        - bin_df[["code_kl", "code_gradient"]].to_numpy()
    )
)
print(
    f"largest gap between our terms and the code's literal formulas "
    f"(test-set means): {code_gap:.1e}"
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.7), sharey=True)
for ax, (kl_col, gr_col, title) in zip(
    axes,
    [
        ("kl", "gradient", "code: p̄ = σ(e)"),
        ("geometric_kl", "geometric_gradient", "geometric mean: p̄ = σ(ā)"),
    ],
):
    for col, role, label in (
        (kl_col, "alt", "KL (prediction) term"),
        (gr_col, "ours", "gradient term"),
    ):
        ax.scatter(bin_df.m, bin_df[col], s=10, alpha=0.5, color=color_for(role))
        ax.plot(
            bin_df.groupby("m")[col].mean(),
            marker="o",
            color=color_for(role),
            label=label,
        )
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
    measured=bin_summary,
    criterion=all_of(
        at_most("max relative residual (float32)", 1e-5),
        at_most("max relative residual (float64)", 1e-10),
    ),
    note="the code's terms (p̄ = σ(e)) in stable form",
    tolerance={
        "max relative residual (float32)": tol(abs=4e-07),
        "min gradient term": tol(abs=4e-14),
    },
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
eps_grid = run["eps_grid"]
fo_rows = A.first_order_sweep(
    regressors[: run["fo_members"]],
    Xp_te,
    t_reg["test"],
    eps_grid,
    steps=run["eval_steps"],
    generator_for=run.torch_generator,
)
fo_df = pd.DataFrame(fo_rows)
rho = float(stats.spearmanr(fo_df.eps, fo_df.err_free).statistic)
print(fo_df.round(4).to_string(index=False))
print(f"Spearman(ε, relative error), no clamping: {rho:.3f}")

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(6.4, 4))
ax.plot(
    fo_df.eps,
    fo_df.err_free,
    marker="o",
    color=color_for("ours"),
    label="first order vs PGD, whole ε-box (theory)",
)
ax.plot(
    fo_df.eps,
    fo_df.err_clamped,
    marker="s",
    color=color_for("baseline"),
    label="first order vs PGD clamped to [0, 1] (code's protocol)",
)
ax.plot(
    fo_df.eps,
    fo_df.err_in_range,
    marker="^",
    color=color_for("alt"),
    label="range-aware first order vs clamped PGD (ours)",
)
ax.set(
    xscale="log",
    yscale="log",
    xlabel="attack radius ε (ℓ∞)",
    ylabel="mean |first order − PGD| / PGD",
    title="First-order error grows with ε",
)
ax.legend(fontsize=8)
plt.show()

# %%
ledger.ours(
    "4",
    "first-order loss tracks the PGD loss; error grows with ε",
    why="the abstract says only that the decomposition is first order; the 5 % bound "
    "at the smallest ε and the growth test (Spearman > 0.8) are ours",
    evidence="real data",
    measured={
        "Spearman(ε, error)": rho,
        f"error at ε={eps_grid[0]}": fo_df.err_free.iloc[0],
        f"error at ε={eps_grid[-1]}": fo_df.err_free.iloc[-1],
    },
    criterion=all_of(
        at_least("Spearman(ε, error)", 0.8, strict=True),
        at_most(f"error at ε={eps_grid[0]}", 0.05),
    ),
    tolerance={  # data/numerics (with a run on an AVX-512 machine)
        f"error at ε={eps_grid[0]}": tol(abs=1e-06),
        f"error at ε={eps_grid[-1]}": tol(abs=5e-05),
    },
)
lo, hi = fo_df.iloc[0], fo_df.iloc[-1]
print(
    "Without clamping the mean relative error is "
    f"{lo.err_free:.1%} at ε = {lo.eps} and "
    f"{hi.err_free:.1%} at ε = {hi.eps}; at ε = {hi.eps} PGD finds a mean loss of "
    f"{hi.pgd_free:.3f} against the first order's {hi.first:.3f} "
    f"({'more' if hi.pgd_free > hi.first else 'less'} than the linear part predicts). "
    "With the code's clamping the whole-box first order is off by "
    f"{lo.err_clamped:.1%} "
    f"already at ε = {lo.eps}; the range-aware first order is off by "
    f"{lo.err_in_range:.1%} there."
)

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
# averaged over $i\ne j$. The protocol is `A.compare_methods` (unit-tested); the cell below only
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

# %% tags=["hide-input"]
Xc = torch.tensor(Xall, device=dev)
yc = torch.tensor(yall, device=dev)
K = 10
METHOD_LOSS = {
    "independent PGD-AT": A.AdvMethod(alpha=0.0, beta=0.0),
    "AdvEOAP (α=0.5)": A.AdvMethod(alpha=0.5, beta=10.0),
    "AdvEOAP (α=0.2)": A.AdvMethod(alpha=0.2, beta=10.0),
    "ADP-style (clean predictions)": A.AdvMethod(0.5, 10.0, diversity_on="clean"),
}
eps_m, st_tr, st_ev = run["method_eps"], run["train_steps"], run["eval_steps"]
cmp = A.compare_methods(
    Xc,
    yc,
    {name: METHOD_LOSS[name] for name in run["methods"]},
    n_seeds=run["method_seeds"],
    rng_for=run.child_rng,
    generator_for=run.torch_generator,
    num_classes=K,
    hidden=run["method_hidden"],
    n_members=3,
    epochs=run["method_epochs"],
    batch_size=run["method_batch"],
    lr=run["method_lr"],
    epsilon=eps_m,
    train_steps=st_tr,
    eval_steps=st_ev,
)
meth_df = pd.DataFrame(cmp.rows)
summary = meth_df.groupby("method", sort=False)[
    ["clean", "robust", "member_robust", "transfer"]
].agg(["mean", "std"])
print(summary.round(3).to_string())
base, ours = "independent PGD-AT", "AdvEOAP (α=0.5)"
n_seeds5 = run["method_seeds"]
gain5 = [100 * v for v in A.paired_differences(cmp.rows, "robust", ours, base)]
transfer_drop = [-v for v in A.paired_differences(cmp.rows, "transfer", ours, base)]
print(
    "robust accuracy, AdvEOAP − PGD-AT (points), per seed: "
    + ", ".join(f"{v:+.2f}" for v in gain5)
)
print(
    "transfer, PGD-AT − AdvEOAP, per seed: "
    + ", ".join(f"{v:+.3f}" for v in transfer_drop)
)
mean_by = meth_df.groupby("method")[["robust", "member_robust"]].mean()
print(
    f"members attacked alone: {mean_by.member_robust[base]:.3f} (baseline) vs "
    f"{mean_by.member_robust[ours]:.3f} (AdvEOAP); the ensembles: "
    f"{mean_by.robust[base]:.3f} vs {mean_by.robust[ours]:.3f}"
)

# %% tags=["hide-input"]
names = run["methods"]
fig, axes = plt.subplots(
    1,
    1 + len(names),
    figsize=(4 + 3.2 * len(names), 3.8),
    gridspec_kw={"width_ratios": [1.6] + [1] * len(names)},
)
ax = axes[0]
for j, name in enumerate(names):
    d = meth_df[meth_df.method == name]
    for col, marker, off in (("clean", "o", -0.15), ("robust", "s", 0.15)):
        ax.scatter(
            np.full(len(d), j + off),
            d[col],
            marker=marker,
            color=color_for(name),
            alpha=0.6,
        )
        ax.hlines(
            d[col].mean(), j + off - 0.12, j + off + 0.12, color=color_for(name), lw=2.5
        )
ax.set(
    xticks=range(len(names)),
    xticklabels=[n.replace(" (", "\n(") for n in names],
    ylabel="ensemble accuracy (test)",
    title=f"Clean (○) and PGD-{st_ev} (□) accuracy, ε = {eps_m}",
)
ax.tick_params(axis="x", labelsize=8)
vmax = max(np.mean(v, axis=0).max() for v in cmp.transfers.values())
for ax, name in zip(axes[1:], names):
    Tm = np.mean(cmp.transfers[name], axis=0)
    im = ax.imshow(Tm, vmin=0, vmax=vmax, cmap="magma")
    for (i, j), v in np.ndenumerate(Tm):
        ax.text(
            j,
            i,
            f"{v:.2f}",
            ha="center",
            va="center",
            fontsize=8,
            color="white" if v < 0.6 * vmax else "black",
        )
    ax.set(
        xticks=range(3),
        yticks=range(3),
        xlabel="target member j",
        ylabel="source member i",
        title=f"{name}\ntransfer (mean over seeds)",
    )
    ax.title.set_fontsize(9)
    ax.grid(False)
fig.colorbar(im, ax=axes[1:], shrink=0.8, label="share fooled")
plt.show()

# %%
G5A = "robust accuracy, AdvEOAP − PGD-AT, per seed (points)"
G5B = "transfer, PGD-AT − AdvEOAP, per seed"
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
READ = {
    "reproduced": "beyond the noise in favour of AdvEOAP",
    "within noise": "within the noise (neither ✓ nor ✗)",
    "not reproduced": "against AdvEOAP beyond the noise",
}
for cid, name, gains in (("5a", G5A, gain5), ("5b", G5B, transfer_drop)):
    c = next(c for c in ledger.claims if c.id == cid)
    m, _, half, n = paired_gain(name, k="t").interval({name: gains})
    pos = sum(v > 0 for v in gains)
    print(
        f"{cid}: {name} = {m:+.3f} ± {half:.3f} (t·SE, {n} seeds; positive on {pos} of "
        f"{n}): {READ[c.verdict]}"
    )
m5b, _, half5b, n5b = paired_gain(G5B, k="t").interval({G5B: transfer_drop})
rose5b, upper5b = sum(v < 0 for v in transfer_drop), m5b + half5b
near5b = abs(upper5b) < 0.05 * half5b
print(
    f"5b's direction: transfer rose under AdvEOAP on {rose5b} of {n5b} seeds; the "
    f"interval {m5b:+.4f} ± {half5b:.4f} ends at {upper5b:+.5f}, "
    f"{'above' if upper5b > 0 else 'at or below'} the ✗ boundary (mean + t·SE ≤ 0) by "
    f"{abs(upper5b):.1e}, {abs(upper5b) / half5b:.1%} of the half-width: the margin is "
    f"{'within rounding of' if near5b else 'clear of'} ✗."
)

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
# outputs) is applied to it (`A.true_class_decomposition`). The AdvEOAP loss acts on the
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
# class probabilities (target $1[y=j]$) and summed over classes (`A.multiclass_decomposition`)
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
TC_TERMS = ["ensemble", "average", "prediction", "gradient", "cross"]
tc_rows = []
for (r, name), members in sorted(cmp.members.items()):
    te = cmp.test_index[r]
    dec_tc, disp_tc = A.classifier_true_class_terms(
        members, Xc[te], yc[te], epsilon=eps_m
    )
    tc_rows.append(dict(seed=r, method=name, **dec_tc.means(), dispersion=disp_tc))
tc_df = pd.DataFrame(tc_rows)
G5C = "true-class gradient diversity, AdvEOAP − PGD-AT, per seed"
X5C = "true-class cross diversity, AdvEOAP − PGD-AT, per seed"
GATE5C = "ensemble robust accuracy (PGD-20), both methods, every seed"
grad_gain = A.paired_differences(tc_rows, "gradient", ours, base)
cross_gain = A.paired_differences(tc_rows, "cross", ours, base)
robust_all = {
    f"{r['method']}, seed {r['seed']}": r["robust"]
    for r in cmp.rows
    if r["method"] in (base, ours)
}
tc_by = tc_df.pivot(index="seed", columns="method")
print("true-class decomposition (test-set means):")
print(
    tc_by[["prediction", "gradient", "cross"]]
    .swaplevel(axis=1)[[base, ours]]
    .round(5)
    .to_string()
)
ledger.check(
    "5c",
    "AdvEOAP raises both gradient and cross diversity over independent PGD-AT",
    paper="the method simultaneously improves gradient diversity and cross diversity",
    source="abstract",
    evidence="real data",
    measured={
        G5C: grad_gain,
        X5C: cross_gain,
        GATE5C: robust_all,
        "true-class prediction diversity, AdvEOAP − PGD-AT, per seed": (
            A.paired_differences(tc_rows, "prediction", ours, base)
        ),
    },
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


def read_paired(name, gains, crit=None):
    crit = crit or paired_gain(name, k="t")
    m, _, half, n = crit.interval({name: gains})
    o = crit.evaluate({name: gains})
    word = (
        "reproduced"
        if o.passed
        else "within noise"
        if o.undecided
        else "not reproduced"
    )
    return m, half, n, word


c5c = next(c for c in ledger.claims if c.id == "5c")
if c5c.checked:
    for name, term, gains in ((G5C, "gradient", grad_gain), (X5C, "cross", cross_gain)):
        m, half, n, word = read_paired(name, gains)
        pos = sum(v > 0 for v in gains)
        print(
            f"{name} = {m:+.5f} ± {half:.5f} (t·SE, {n} seeds; positive on {pos} of "
            f"{n}; "
            f"the baseline's mean {term} diversity {tc_by[(term, base)].mean():.5f}): "
            f"{READ[word]}"
        )
else:
    print(f"claim 5c is not checked at this scale: {c5c.note}")

# %% [markdown]
# **Our check 5d · the one-hot ten-class sum.** The same paired rule on the decomposition summed
# over the ten class probabilities (its terms come from `A.compare_methods`).

# %%
G5D = "one-hot sum: gradient diversity, AdvEOAP − PGD-AT, per seed"
X5D = "one-hot sum: cross diversity, AdvEOAP − PGD-AT, per seed"
grad_gain_sum = A.paired_differences(cmp.rows, "gradient", ours, base)
cross_gain_sum = A.paired_differences(cmp.rows, "cross", ours, base)
terms_by = meth_df.pivot(index="seed", columns="method")
print("one-hot ten-class sum (test-set means):")
print(
    terms_by[["prediction", "gradient", "cross"]]
    .swaplevel(axis=1)[[base, ours]]
    .round(4)
    .to_string()
)
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
    m, half, n, word = read_paired(name, gains)
    print(f"{name} = {m:+.4f} ± {half:.4f} (t·SE, {n} seeds): {READ[word]}")

# %% [markdown]
# **Confidence and scale (not judged).** The decomposition's terms grow with how much the
# members' probabilities move under attack at all, so a method whose members are less confident
# can show larger diversities and a larger members' loss at once. The lines below set the terms
# against the members' own loss, and give a scale-free gradient diversity per method: the
# dispersion $1-\sum\bar g^2/\sum\frac1m\sum_i g_i^2$ of the true-class gradients (0 when the
# members' gradients agree, 1 when they cancel), and each diversity divided by the members'
# mean first-order loss (the average term).

# %%
fo_mean = meth_df.groupby("method")[["average", "ensemble", "prediction"]].mean()
rb = meth_df.groupby("method")[["robust", "member_robust"]].mean()
tc_mean = tc_df.groupby("method")[TC_TERMS + ["dispersion"]].mean()


def cmp_word(a, b, more="higher", less="lower"):
    return more if a > b else less


member_word = cmp_word(
    rb.member_robust[ours], rb.member_robust[base], "stronger", "weaker"
)
print(
    "With the one-hot sum, AdvEOAP's members' mean first-order loss (average term) is "
    f"{fo_mean.average[ours]:.4f} against the baseline's {fo_mean.average[base]:.4f} "
    f"({cmp_word(fo_mean.average[ours], fo_mean.average[base])}) and their prediction "
    f"diversity {fo_mean.prediction[ours]:.4f} against {fo_mean.prediction[base]:.4f} "
    f"({cmp_word(fo_mean.prediction[ours], fo_mean.prediction[base])}); attacked "
    "alone, "
    f"its members keep {rb.member_robust[ours]:.3f} robust accuracy against "
    f"{rb.member_robust[base]:.3f} "
    f"({member_word})"
    ". "
    "The probability-averaged ensemble's first-order loss is "
    f"{fo_mean.ensemble[ours]:.4f} against {fo_mean.ensemble[base]:.4f} "
    f"({cmp_word(fo_mean.ensemble[ours], fo_mean.ensemble[base])}), while the "
    f"logit-averaged ensemble's PGD-20 robust accuracy is {rb.robust[ours]:.3f} "
    "against "
    f"{rb.robust[base]:.3f} ({cmp_word(rb.robust[ours], rb.robust[base])}): the "
    "diversity terms and the first-order loss read the members' confidence as well as "
    "their disagreement."
)
sum_mean = meth_df.groupby("method")[["average", "gradient", "cross"]].mean()
scale_free = pd.DataFrame(
    {
        "true-class dispersion 1 − ḡ²/mean gᵢ²": tc_mean.dispersion,
        "true-class gradient ÷ average": tc_mean.gradient / tc_mean.average,
        "true-class cross ÷ average": tc_mean.cross / tc_mean.average,
        "one-hot sum gradient ÷ average": sum_mean.gradient / sum_mean.average,
        "one-hot sum cross ÷ average": sum_mean.cross / sum_mean.average,
    }
).loc[[base, ours]]
print("scale-free diagnostics (means over seeds; not judged):")
print(scale_free.T.round(4).to_string())

# %% [markdown]
# **The seed count.** Claims 5a–5d run on 5 seeds; the chapter's earlier revision used 3, and
# the count was raised after a timing probe had printed seed 0's results. The line below judges
# each claim by its own criterion on the first 3 seeds only, to show what the change did.

# %%
first3 = []
for cid, parts in (
    ("5a", [(G5A, gain5)]),
    ("5b", [(G5B, transfer_drop)]),
    ("5c", [(G5C, grad_gain), (X5C, cross_gain)]),
    ("5d", [(G5D, grad_gain_sum), (X5D, cross_gain_sum)]),
):
    words = [read_paired(name, gains[:3])[3] for name, gains in parts]
    w3 = (
        "not reproduced"
        if "not reproduced" in words
        else "reproduced"
        if all(w == "reproduced" for w in words)
        else "within noise"
    )
    c = next(c for c in ledger.claims if c.id == cid)
    first3.append(f"{cid} {w3} (5 seeds: {c.verdict})")
print("On the first 3 seeds alone: " + "; ".join(first3) + ".")

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
for ax, term in zip(axes, ["gradient", "cross"]):
    for r in range(n_seeds5):
        vals = [tc_by.loc[r, (term, base)], tc_by.loc[r, (term, ours)]]
        ax.plot([0, 1], vals, color=color_for("muted"), lw=0.8, zorder=1)
    for j, name in enumerate([base, ours]):
        ax.scatter(
            np.full(n_seeds5, j),
            tc_by[(term, name)],
            color=color_for(name),
            s=30,
            zorder=2,
        )
    ax.axhline(0, color=color_for("reference"), lw=0.8)
    ax.set(
        xticks=[0, 1],
        xticklabels=[base, ours],
        xlim=(-0.4, 1.4),
        ylabel=f"{term} diversity (mean over test points)",
        title=f"True-class {term} diversity, paired by seed (lines)",
    )
fig.suptitle(
    f"Claim 5c: the decomposition of the true-class probability, ε = {eps_m}",
    fontsize=11,
)
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
for name in names:
    ens = A.Ensemble(cmp.members[last, name]).eval()
    kw = dict(epsilon=eps_m, steps=st_ev, step_size=2.5 * eps_m / st_ev)
    ours_adv = A.pgd_attack(ens, X_te, y_te, **kw)
    peer_adv = A.torchattacks_pgd(ens, X_te, y_te, **kw)
    gap = float((ours_adv - peer_adv).abs().max())
    acc_ours = A.accuracy(ens, ours_adv, y_te)
    acc_peer = A.accuracy(ens, peer_adv, y_te)
    print(
        f"{name}: largest |ours − torchattacks| over {X_te.numel():,} input values: "
        f"{gap:.1e}; accuracy under each: {acc_ours:.4f} / {acc_peer:.4f}"
    )

# %% [markdown]
# ## Claim 6 · The paper's benchmarks
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
print(f"chapter run time: {run.elapsed():.1f} s at scale={run.scale!r} on {run.device}")

# %% [markdown]
# **Reading the verdicts.** The lines below are generated from this run's ledger and from the
# committed stability record (quick scale, `data/stability/06_adv_ensemble_diversity.json`; a
# claim changed since reads "stale record" in the table).

# %%
for c in ledger.claims:
    if not c.checked and not c.gate:
        continue
    print(c.reading_line())
stab = ledger.stability()
print(
    unstable_sentence(ledger, stab)
    or "No claim the record still describes flips between its seeds."
)
stale = [
    c.id
    for c in ledger.claims
    if c.checked
    and (stab is None or stab.claim(c.id) is None or stab.current(c) is None)
]
if stale:
    print(
        f"The record does not describe claim {', '.join(stale)} as it is now (new or "
        "changed since it was made): its seeds column says so until the record is "
        "re-made."
    )

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
#     training and evaluation loop are now `A.fit_members`, `A.first_order_sweep` and
#     `A.compare_methods` (unit-tested), with the same random streams as before: the tables of
#     checks 2–4 are unchanged, and a probe of seed 0 gave the earlier loop's robust accuracies
#     (to the four digits compared).
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
# .venv/bin/python -m repbook run 06 --scale full
# ```
# Full scale uses MNIST-5k (784 inputs), 20 regressors and classifiers with ensembles of size
# 1–12 (5 repeats, the official protocol), 256-unit members, ε = 0.2 with PGD-10 training for the
# method comparison (the README's MNIST radius), 60 epochs, 5 seeds, and adds α = 0.2 and the
# ADP-style baseline. It is meant for a GPU and has no full-scale record: a probe of one method
# on one seed at full size (2 and 4 epochs, then the evaluation) took 13–18 s on this book's
# shared 2-core CPU (the machine's load made the longer run the faster one), so the 20
# method–seed runs of 60 epochs alone would take roughly 40 minutes to 2 hours, beyond the
# 30 minutes the book allows a CPU full run.
