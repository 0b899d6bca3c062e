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
# # 10 · Few-shot models with synthetic data: discrepancy and robustness
#
# Lan-Cuong Nguyen, Quan Nguyen-Tri, Bang Tran Khanh, Dung D. Le, Long Tran-Thanh, Khoat Than —
# *Provably Improving Generalization of Few-Shot Models with Synthetic Data*, ICML 2025 · PMLR
# 267:46178–46195 · arXiv [2505.24190](https://arxiv.org/abs/2505.24190) · official code:
# `cuonglannguyen/ProtoAug_lightweight` (the "lightweight version", CC BY-NC-SA 4.0; read, not
# copied: no code or data of it is in this book).
#
# With a handful of labelled images per class, one can add images from a generator (Stable
# Diffusion in the paper). But generated images are not real ones, and training on them can
# *lower* the accuracy on real test images. The paper bounds the error on real data by the
# training losses plus two data-dependent terms, both measured *through the model* $h$ on a
# partition of the input space into regions: the **model-based discrepancy** (how far the model's
# outputs on real and synthetic images of the same region are apart) and the **local robustness**
# (how much the outputs on synthetic images of one region vary). Its algorithm adds both terms to
# the training loss, with the regions given by prototypes (online k-means centroids).
#
# ```{admonition} Claims we test
# 1. **Synthetic data can hurt.** With a large real–synthetic gap and 5 shots per class, training
#    on real + synthetic images naively is less accurate than training on the real shots alone.
# 2. **Synthetic quality matters.** The accuracy of a model trained on synthetic images only falls
#    at every step as the gap grows.
# 3. **The regularised objective helps.** Adding the discrepancy and robustness terms is at least
#    as accurate as naive real + synthetic training in every (gap, shots) cell, and better by more
#    than one accuracy point when the gap is at least half-way and there are 5 shots.
# 4. **The bound's ingredients track the test error.** After naive training, the measured
#    model-based discrepancy and the test error both rise with the gap, and are positively rank
#    correlated over gaps and seeds.
# 5. **Quoted:** (a) the generalisation bound itself; (b) the benchmark results.
# ```
#
# No CLIP or Stable Diffusion weights exist offline, so the paper's setting cannot run here. The
# chapter shows the mechanism on scikit-learn's 8 × 8 digits, with a generator whose real–synthetic
# gap we control. The paper's full text (and so its tables) was not available to us offline: the
# objective follows the official code, and what we could not confirm is listed at the end.

# %% tags=["parameters"]
scale = "quick"  # "quick" (≤ 90 s on 2 cores) or "full" (10 seeds, λ grid)
seed = 0

# %%
import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
import torch
from scipy import stats

from repbook.core import Ledger, setup, use_style, color_for, register_colors
from repbook.core import load_sklearn, all_of, at_least, monotone, paired_gain, tol
from repbook.papers import fewshot_synthetic as FS

COMMON = dict(gaps=[0.0, 0.5, 1.0], shots=[1, 5], pool=700, n_syn=100, K=20)
COMMON.update(lam_dis=1.0, lam_rob=1.0)
SIZES = {
    "quick": dict(COMMON, seeds=3, epochs=150, lam_grid=[], kmeans_column=False),
    "full": dict(
        COMMON, seeds=10, epochs=300, lam_grid=[0.0, 0.1, 1.0, 10.0], kmeans_column=True
    ),
}
run = setup(scale=scale, seed=seed, sizes=SIZES)
ledger = Ledger.for_run(
    run,
    regime=(
        "8x8 digits (scikit-learn) with a synthetic generator of controlled gap; "
        "linear-head models; CPU"
    ),
)
use_style()
METHODS = FS.methods(run["lam_dis"], run["lam_rob"])
FULL, NAIVE = "+ λ_dis + λ_rob", "real + synthetic"
register_colors(
    {
        FULL: "ours",
        NAIVE: "baseline",
        "real only": "muted",
        "synthetic only": "alt",
        "+ λ_dis": "alt2",
        FULL + " (k-means on S ∪ G)": "peer",
    }
)

# %% [markdown]
# ## The method
#
# Write $S$ for the real few-shot images, $G$ for the synthetic ones, $g=|G|$, $h(x)\in\mathbb
# R^C$ for the logits and $\mathrm{mse}(a,b)=\lVert a-b\rVert^2/C$. A partition into $K$ regions
# splits both sets into $S_k$ and $G_k$. The loss the released code minimises is
#
# $$
# \mathcal L = \mathrm{CE}(h(S)) + \mathrm{CE}(h(G))
#   + \lambda_{dis}\sum_k \sum_{i\in S_k}\sum_{j\in G_k}
#       \frac{\mathrm{mse}(h(s_i),h(g_j))}{g\,|S_k|}
#   + \lambda_{rob}\sum_k \sum_{i,j\in G_k} \frac{\mathrm{mse}(h(g_i),h(g_j))}{g\,|G_k|},
# $$
#
# where both sums run over the regions that hold at least one real image (the code computes the
# robustness inside the same `if` as the discrepancy). The regions come from $K$ prototypes
# drawn from $N(0,1)$ in the normalised input space; at every step each real and synthetic image
# joins its nearest prototype, then the prototypes move with the synthetic images only,
# $c_k\leftarrow(1-1/n_k)\,c_k+x/n_k$ with $n_k$ the running count (MacQueen's online k-means).
#
# The code evaluates the two sums with double Python loops. By hand, on a tiny example, that is:

# %%
gen = run.torch_generator(0)
h_s, h_g = torch.randn(4, 3, generator=gen), torch.randn(9, 3, generator=gen)
r_s, r_g = torch.tensor([0, 0, 1, 2]), torch.randint(0, 4, (9,), generator=gen)
g = len(h_g)
dis = rob = 0.0
for k in range(4):
    S_k, G_k = (r_s == k).nonzero().ravel(), (r_g == k).nonzero().ravel()
    if len(S_k) == 0:
        continue
    mse_sg = [((h_s[i] - h_g[j]) ** 2).mean() for i in S_k for j in G_k]
    mse_gg = [((h_g[i] - h_g[j]) ** 2).mean() for i in G_k for j in G_k]
    dis += sum(mse_sg) / (g * len(S_k))
    rob += sum(mse_gg) / (g * len(G_k))
lib_dis = FS.discrepancy_term(h_s, h_g, r_s, r_g, 4)
lib_rob = FS.robustness_term(h_g, r_g, 4, regions_real=r_s)
print(f"by hand (loops):  discrepancy {float(dis):.6f}, robustness {float(rob):.6f}")
print(
    f"lib (vectorised): discrepancy {float(lib_dis):.6f}, "
    f"robustness {float(lib_rob):.6f}"
)

# %% [markdown]
# The library version builds the same-region mask from one-hot region matrices,
# $A_S A_G^{\top}$, and takes squared distances from `torch.cdist`; the robustness uses
# $\sum_{i,j\in G_k}\lVert a_i-a_j\rVert^2 = 2|G_k|\sum_{i\in G_k}\lVert a_i-\bar a_k\rVert^2$,
# one pass instead of all pairs. The online prototype update, one point at a time as in the code,
# is the running mean of the points a prototype has received:

# %%
km = FS.OnlineKMeans.init(2, 3, run.torch_generator(1))
x, regions = torch.randn(6, 3, generator=gen), torch.tensor([0, 1, 0, 0, 1, 1])
c, n = km.centroids.clone(), [0, 0]
for xi, k in zip(x, regions.tolist()):
    n[k] += 1
    c[k] = (1 - 1 / n[k]) * c[k] + xi / n[k]
means = torch.stack([x[regions == k].mean(0) for k in (0, 1)])
lib_c = km.update(x, regions).centroids
print("by hand (point by point):", np.round(c.double().numpy(), 5).tolist())
print("lib (batch update):      ", np.round(lib_c.double().numpy(), 5).tolist())
print("running means:           ", np.round(means.double().numpy(), 5).tolist())

# %% [markdown]
# ## Data: real digits, a generator with a gap knob, and font digits
#
# For each seed we shuffle scikit-learn's 1,797 digits and set aside a **generator pool** of
# `pool` images, which stands in for what a pretrained generator knows; the few-shot images are
# never in it. From the remaining images we draw 5 shots per class (the 1-shot set is the first of
# each class's five), and test both shot counts on everything else (1,047 images). The
# **generator** is one `GaussianMixture(3, 'diag', reg_covar=0.5)` per class fitted on the pool;
# it draws `n_syn` images per class. The **gap knob** degrades those samples the way an imperfect
# generator might: at gap $\gamma$ an image is interpolated by $\gamma$ toward a copy shifted one
# pixel to the right, its contrast multiplied by $1-0.3\gamma$, and Gaussian noise of standard
# deviation $2\gamma$ (pixels run 0–16) added. A second, "bad" generator renders the digits from
# matplotlib's fonts with Pillow (symbol fonts skipped), reduced like the UCI digits (a 32 × 32
# bitmap counted in 4 × 4 blocks).
#
# The network is the MLP 64-128-10 trained with Adam (learning rate $10^{-3}$, weight decay
# $10^{-4}$), full batch, `epochs` steps, on inputs normalised by the pool's pixel mean and
# standard deviation (one channel, as CLIP normalises each colour channel in the code). The five
# variants share each seed's split, synthetic images and initialisation:
# real only; synthetic only; naive real + synthetic; + $\lambda_{dis}$; + $\lambda_{dis}$ +
# $\lambda_{rob}$ (the paper's objective), with $\lambda_{dis}=\lambda_{rob}=1$, $K=20$ regions and
# the code's **online prototype partition** for training. No package implements the method, so all
# five are ours.

# %%
X_all, y_all = load_sklearn("digits")
GENS = [f"gap {g}" for g in run["gaps"]] + ["fonts"]
data = []
for r in range(run["seeds"]):
    rng = run.child_rng(10 + r)
    split = FS.split_digits(y_all, pool_size=run["pool"], shots=run["shots"], rng=rng)
    generator = FS.fit_generator(X_all[split.pool], y_all[split.pool], rng=rng)
    X_base, y_syn = generator.sample(run["n_syn"], rng)
    synthetic = {f"gap {g}": (FS.apply_gap(X_base, g, rng), y_syn) for g in run["gaps"]}
    synthetic["fonts"] = FS.render_font_digits(run["n_syn"], rng)
    pool01 = X_all[split.pool] / FS.PIX_MAX
    mean, std = pool01.mean(), pool01.std()
    norm = lambda X, m=mean, s=std: torch.tensor(
        (X / FS.PIX_MAX - m) / s, dtype=torch.float32
    )
    data.append(
        dict(
            split=split,
            synthetic=synthetic,
            norm=norm,
            init=int(rng.integers(2**31 - 1)),
        )
    )
print(
    f"{run['seeds']} seeds · pool {len(data[0]['split'].pool)} · shots "
    + ", ".join(f"k={k}: {len(v)}" for k, v in data[0]["split"].shots.items())
    + f" · test {len(data[0]['split'].test)} · synthetic {len(y_syn)} per "
    f"generator · {FS.n_usable_fonts()} fonts render the ten digits"
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(len(GENS) + 1, 10, figsize=(8, 0.85 * (len(GENS) + 1)))
d0, show_rng = data[0], np.random.default_rng(0)
panels = [("real (pool)", X_all[d0["split"].pool], y_all[d0["split"].pool])]
panels += [(name, *d0["synthetic"][name]) for name in GENS]
for row, (name, X, y) in enumerate(panels):
    for c in range(10):
        ax = axes[row, c]
        pick = show_rng.choice(np.flatnonzero(y == c))
        ax.imshow(X[pick].reshape(8, 8), cmap="gray_r", vmin=0, vmax=16)
        ax.set(xticks=[], yticks=[])
        if c == 0:
            ax.set_ylabel(name, rotation=0, ha="right", va="center", fontsize=9)
fig.suptitle(
    "Real digits, GMM samples at three gaps, and font digits (first split)",
    fontweight="bold",
)
plt.show()

# %% [markdown]
# ## The experiment
#
# For each seed, generator and shot count we train the variants from the same initialisation
# (real only does not depend on the generator, synthetic only not on the shot count, so they are
# trained once per seed and once per generator). Font digits get the naive and the full objective
# but not the $\lambda_{dis}$-only column. After each *naive* run we also measure the bound's two
# data-dependent terms on the trained model, with a fixed partition: scikit-learn k-means
# ($K=20$) fitted on the real shots ∪ the synthetic images (the second partition of this chapter;
# training uses the online one). The discrepancy is the first sum of the loss above; the
# robustness is the second sum over *every* region.
#
# All criteria below were written, and the size table fixed, before this grid was first run.


# %%
def tensors(d, k, name):
    idx = d["split"].shots[k]
    X_syn, y_syn = d["synthetic"][name]
    return (
        d["norm"](X_all[idx]),
        torch.as_tensor(y_all[idx]),
        d["norm"](X_syn),
        torch.as_tensor(y_syn),
    )


def fit(d, method, x_real, y_real, x_syn, y_syn, *, stream, partition="online", **kw):
    net = FS.mlp(seed=d["init"])
    return FS.train(
        net,
        method,
        x_real,
        y_real,
        x_syn,
        y_syn,
        epochs=run["epochs"],
        K=run["K"],
        generator=run.torch_generator(stream),
        partition=partition,
        kmeans_seed=d["init"],
        **kw,
    )


def record(net, method, **where):
    acc = FS.accuracy(net, x_test, y_test)
    rows.append(dict(where, method=method, acc=acc))
    return acc


# %% tags=["hide-input"]
rows, ingredients = [], []
for r, d in enumerate(data):
    x_test = d["norm"](X_all[d["split"].test])
    y_test = torch.as_tensor(y_all[d["split"].test])
    for name in GENS:  # synthetic only: one model per generator, tested once per k
        x_real, y_real, x_syn, y_syn = tensors(d, run["shots"][0], name)
        net = fit(d, METHODS["synthetic only"], x_real, y_real, x_syn, y_syn, stream=r)
        for k in run["shots"]:
            record(net, "synthetic only", seed=r, k=k, generator=name)
    for k in run["shots"]:
        x_real, y_real, x_syn, y_syn = tensors(d, k, GENS[0])
        net = fit(d, METHODS["real only"], x_real, y_real, x_syn, y_syn, stream=r)
        for name in GENS:  # real only: one model per k, listed under every generator
            record(net, "real only", seed=r, k=k, generator=name)
        for name in GENS:
            x_real, y_real, x_syn, y_syn = tensors(d, k, name)
            stream = 1000 * (r + 1) + 10 * k + GENS.index(name)  # prototypes per cell
            for method in [NAIVE, "+ λ_dis", FULL]:
                if name == "fonts" and method == "+ λ_dis":
                    continue
                net = fit(
                    d, METHODS[method], x_real, y_real, x_syn, y_syn, stream=stream
                )
                acc = record(net, method, seed=r, k=k, generator=name)
                if method == NAIVE:  # the bound's ingredients on the naive model
                    reg_r, reg_g = FS.kmeans_regions(
                        x_real.numpy(), x_syn.numpy(), run["K"], seed=d["init"]
                    )
                    ing = FS.bound_ingredients(
                        net, x_real, x_syn, reg_r, reg_g, run["K"]
                    )
                    ingredients.append(
                        dict(
                            seed=r,
                            k=k,
                            generator=name,
                            error=1 - acc,
                            discrepancy=ing.discrepancy,
                            robustness=ing.robustness,
                            shared=ing.regions_shared,
                            share=ing.synthetic_share,
                        )
                    )
            if run["kmeans_column"] and name != "fonts":
                net = fit(
                    d,
                    METHODS[FULL],
                    x_real,
                    y_real,
                    x_syn,
                    y_syn,
                    stream=stream,
                    partition="kmeans",
                )
                record(net, FULL + " (k-means on S ∪ G)", seed=r, k=k, generator=name)
res = pd.DataFrame(rows)
ing_df = pd.DataFrame(ingredients)
mean_acc = res.groupby(["generator", "k", "method"]).acc.mean()
table = res.groupby(["generator", "k", "method"], sort=False).acc.agg(["mean", "std"])
cols = ["real only", "synthetic only", NAIVE, "+ λ_dis", FULL]
cols += [c for c in res.method.unique() if c not in cols]
print(
    f"test accuracy, mean ± sd over {run['seeds']} seeds "
    "(partition for training: online)"
)
print(
    table.apply(lambda t: f"{t['mean']:.3f} ± {t['std']:.3f}", axis=1)
    .unstack("method")[cols]
    .fillna("—")
    .to_string()
)

# %% [markdown]
# ## Claim 1 · Synthetic data can hurt
#
# At gap 1 the generator's digits are shifted, faded and noisy. If the paper's motivation holds
# at this scale, adding them naively to 5 real shots per class pulls the model toward the wrong
# images.
#
# **Criterion.** At gap 1 with $k=5$, the loss real only − naive real + synthetic in test
# accuracy, paired by seed: its mean minus two standard errors > 0. It fails if the mean plus two
# standard errors is ≤ 0 (the synthetic images, however degraded, add at least as much as they
# mislead); in between the loss is within the noise of the seeds, neither ✓ nor ✗.

# %%
naive_gap1 = mean_acc[("gap 1.0", 5, NAIVE)]
real5 = mean_acc[("gap 1.0", 5, "real only")]
per_seed = res[(res.k == 5) & (res.generator == "gap 1.0")].pivot(
    index="seed", columns="method", values="acc"
)
below = int((per_seed[NAIVE] < per_seed["real only"]).sum())
print(
    f"k = 5, gap 1: real only {real5:.3f}, naive real + synthetic {naive_gap1:.3f} "
    f"(difference {naive_gap1 - real5:+.3f}); naive below real only on {below} of "
    f"{len(per_seed)} seeds"
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.9), sharey=True)
xpos = {name: i for i, name in enumerate(GENS)}
for ax, k in zip(axes, run["shots"]):
    sub = res[res.k == k]
    for j, method in enumerate(cols):
        pts = sub[sub.method == method]
        if pts.empty:
            continue
        off = (j - (len(cols) - 1) / 2) * 0.06
        xs = pts.generator.map(xpos) + off
        ax.scatter(xs, pts.acc, s=10, alpha=0.5, color=color_for(method))
        m = pts.groupby("generator").acc.mean().reindex(GENS).dropna()
        gaps_only = m[[name for name in m.index if name != "fonts"]]
        ax.plot(
            [xpos[n] + off for n in gaps_only.index],
            gaps_only.values,
            marker="o",
            ms=4,
            color=color_for(method),
            label=method,
        )
        if "fonts" in m.index:
            ax.plot(
                [xpos["fonts"] + off],
                [m["fonts"]],
                marker="D",
                ms=5,
                color=color_for(method),
            )
    ax.axvline(len(GENS) - 1.5, color=color_for("muted"), lw=0.8, ls=":")
    ax.set(
        xticks=range(len(GENS)),
        xticklabels=GENS,
        title=f"k = {k} real shots per class",
        xlabel="generator (gap knob, then font digits)",
    )
axes[0].set_ylabel("test accuracy (1,047 real digits)")
axes[1].legend(fontsize=8, loc="lower left")
fig.suptitle(
    f"At gap 1 with 5 shots, naive mixing ends {naive_gap1 - real5:+.3f} from "
    "real only (lines: means, dots: seeds)",
    fontsize=11,
    fontweight="bold",
)
plt.show()

# %%
ledger.check(
    1,
    "large gap, 5 shots: naive real + synthetic below real only",
    paper="models trained on synthetic samples often face performance degradation "
    "due to the real–synthetic gap (abstract, its motivation)",
    source="abstract",
    evidence="real data",
    measured={
        "real only − naive, per seed (gap 1, k=5)": (
            per_seed["real only"] - per_seed[NAIVE]
        ).tolist(),
        "naive real + synthetic (gap 1, k=5)": naive_gap1,
        "real only (k=5)": real5,
    },
    criterion=paired_gain("real only − naive, per seed (gap 1, k=5)"),
)
# %%
wide = mean_acc.unstack("method")
for k in run["shots"]:
    diffs = {
        name: wide.loc[(name, k), NAIVE] - wide.loc[(name, k), "real only"]
        for name in GENS
    }
    print(
        f"k = {k}: naive real + synthetic − real only: "
        + ", ".join(f"{name} {v:+.3f}" for name, v in diffs.items())
    )

# %% [markdown]
# The verdict reads the gap-1, 5-shot cell only; the differences printed just above give the
# rest of the figure in numbers: where a generator's images add to the real shots (positive) and
# where they pull the model away from them (negative). The verdict weighs the mean loss against
# the spread of the paired per-seed losses, so a difference of a fraction of a point over three
# seeds can be within the noise; the seeds column of the verdict table gives its verdicts over
# chapter seeds 0–4 (or "stale record" where the claim changed since the record was made).

# %% [markdown]
# ## Claim 2 · Synthetic quality matters
#
# A model trained on synthetic images alone sees no real image, so its test accuracy measures how
# well the generator covers the real distribution.
#
# **Criterion.** The mean synthetic-only test accuracy decreases strictly from gap 0 to gap 0.5
# and from gap 0.5 to gap 1. It fails if a degraded generator trains as well as a cleaner one
# (the network could, for instance, learn to ignore the noise).

# %%
syn_only = {name: mean_acc[(name, run["shots"][0], "synthetic only")] for name in GENS}
print(
    "synthetic-only test accuracy (mean over seeds): "
    + ", ".join(f"{name} {v:.3f}" for name, v in syn_only.items())
)

# %%
ledger.check(
    2,
    "synthetic-only accuracy falls as the gap grows",
    paper="the real–synthetic distribution gap degrades performance",
    source="abstract",
    evidence="real data",
    measured={
        "synthetic-only accuracy by gap": {
            name: syn_only[name] for name in GENS if name != "fonts"
        }
    },
    criterion=monotone("synthetic-only accuracy by gap", "decreasing"),
)
# %% [markdown]
# The synthetic-only line in the figure above (identical in both panels, since it uses no real
# shot) shows the same means with the seeds around them. The font digits (diamonds) are printed
# for comparison and are not part of the criterion: they are typeset glyphs, not handwriting.
#
# ## Claim 3 · The discrepancy and robustness terms help
#
# The paper's objective adds the two terms of its bound to the two cross-entropies. We compare it
# with the naive mixture on the same data and initialisation, using the code's online prototype
# partition; the $\lambda_{dis}$-only column is shown but not judged.
#
# **Criterion.** For every gap in {0, 0.5, 1} and $k\in\{1,5\}$, the mean accuracy with both terms
# minus the mean naive accuracy is $\ge 0$; and at $k=5$ with gap 0.5 and gap 1 it is $> 0.01$
# (one accuracy point). It fails if the regularisers cost accuracy in any cell, or if their gain
# where the gap matters is within a point.

# %%
gap_names = [name for name in GENS if name != "fonts"]
gain = {
    f"{name}, k={k}": mean_acc[(name, k, FULL)] - mean_acc[(name, k, NAIVE)]
    for k in run["shots"]
    for name in gap_names
}
gain_k5 = {name: gain[f"{name}, k=5"] for name in gap_names if name != "gap 0.0"}
dis_gain = {
    f"{name}, k={k}": mean_acc[(name, k, "+ λ_dis")] - mean_acc[(name, k, NAIVE)]
    for k in run["shots"]
    for name in gap_names
}
paired = res.pivot_table(
    index=["seed", "k", "generator"], columns="method", values="acc"
)
paired = paired.assign(
    full=paired[FULL] - paired[NAIVE], dis=paired["+ λ_dis"] - paired[NAIVE]
).reset_index()
print(
    pd.DataFrame({"(+λ_dis +λ_rob) − naive": gain, "(+λ_dis) − naive": dis_gain})
    .map(lambda v: f"{v:+.4f}")
    .to_string()
)
wins = int((paired.full[paired.generator != "fonts"] > 0).sum())
font_gain = paired[paired.generator == "fonts"].groupby("k").full.mean()
print(
    f"seed-level: both terms beat naive in {wins} of "
    f"{int((paired.generator != 'fonts').sum())} (seed, gap, k) runs; fonts: "
    + ", ".join(f"k={k} {font_gain.loc[k]:+.4f}" for k in run["shots"])
)

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(8, 3.8))
cells = [(name, k) for k in run["shots"] for name in GENS]
for i, (name, k) in enumerate(cells):
    sub = paired[(paired.generator == name) & (paired.k == k)]
    ax.scatter(
        np.full(len(sub), i - 0.12),
        sub.full,
        s=14,
        color=color_for(FULL),
        label=FULL + " − naive" if i == 0 else None,
    )
    ax.plot([i - 0.3, i + 0.06], [sub.full.mean()] * 2, color=color_for(FULL), lw=2)
    if name != "fonts":
        ax.scatter(
            np.full(len(sub), i + 0.12),
            sub.dis,
            s=14,
            marker="s",
            color=color_for("+ λ_dis"),
            label="+ λ_dis − naive (not judged)" if i == 0 else None,
        )
        ax.plot(
            [i + 0.0, i + 0.3], [sub.dis.mean()] * 2, color=color_for("+ λ_dis"), lw=2
        )
ax.axhline(0, color=color_for("reference"), lw=1)
ax.axhline(
    0.01,
    color=color_for("reference"),
    lw=1,
    ls="--",
    label="+1 point (k = 5, gap ≥ 0.5)",
)
worst = min(gain.values())
ax.set(
    xticks=range(len(cells)),
    xticklabels=[f"{n}\nk={k}" for n, k in cells],
    ylabel="accuracy gain over naive",
    title=f"Gain of both terms over naive, by cell: worst mean {worst:+.3f} "
    "(dots: seeds, bars: means)",
)
ax.tick_params(axis="x", labelsize=8)
ax.legend(fontsize=8, loc="upper left")
plt.show()

# %%
ledger.check(
    3,
    "both terms ≥ naive in every cell; > 1 point at gap ≥ 0.5, k=5",
    paper="the theory-derived loss improves over naive real + synthetic training",
    source="abstract",
    evidence="real data",
    measured={
        "(+λ_dis +λ_rob) − naive": gain,
        "(+λ_dis +λ_rob) − naive, k=5, gap ≥ 0.5": gain_k5,
    },
    criterion=all_of(
        at_least("(+λ_dis +λ_rob) − naive", 0, scale=0.01),
        at_least("(+λ_dis +λ_rob) − naive, k=5, gap ≥ 0.5", 0.01, strict=True),
    ),
    tolerance={
        "(+λ_dis +λ_rob) − naive": tol(abs=0.001),
        "(+λ_dis +λ_rob) − naive, k=5, gap ≥ 0.5": tol(abs=0.001),
    },
)
# %% [markdown]
# The printed table of mean gains is what the verdict reads; the figure shows how the seeds
# spread around each mean. The font digits are outside the criterion (they are not on the gap
# knob) and are printed for context.
#
# ### The partitions behind claim 3 (added after its verdict was known)
#
# This diagnostic was added after the verdict above was known, to understand it; it decides
# nothing. The robustness term pulls together the logits of *all* synthetic images of a region,
# whatever their class, and the discrepancy term pulls real and synthetic images of a region
# together; both push in the direction of the cross-entropy only where a region's images share a
# class. We therefore summarise the online partition the training saw at its last step (same
# prototype stream as the training run) beside k-means on real ∪ synthetic, per gap and shot
# count, averaged over seeds: regions holding synthetic images, their class purity (share of
# synthetic images in their region's majority class) and the share of synthetic images that share
# a region with a real one.

# %%
parts = []
for r, d in enumerate(data):
    for k in run["shots"]:
        for name in gap_names:
            x_real, y_real, x_syn, y_syn = tensors(d, k, name)
            stream = 1000 * (r + 1) + 10 * k + GENS.index(name)
            online = FS.online_regions(
                x_real, x_syn, run["K"], run["epochs"], run.torch_generator(stream)
            )
            kmeans = FS.kmeans_regions(
                x_real.numpy(), x_syn.numpy(), run["K"], seed=d["init"]
            )
            for label, (a, b) in [
                ("online (training)", online),
                ("k-means on S ∪ G", kmeans),
            ]:
                summ = FS.summarise_partition(a, b, y_syn.numpy(), run["K"])
                parts.append(
                    dict(
                        k=k,
                        generator=name,
                        partition=label,
                        regions=summ.regions_used,
                        purity=summ.purity,
                        share=summ.synthetic_share,
                    )
                )
parts = pd.DataFrame(parts).groupby(["partition", "k", "generator"]).mean()
print(
    parts.rename(
        columns={"regions": "regions used", "share": "synthetic share in real regions"}
    )
    .round(3)
    .to_string()
)
purity_online = parts.loc["online (training)"].purity
print(
    f"online partition: class purity from {purity_online.min():.2f} to "
    f"{purity_online.max():.2f}; k-means on S ∪ G: from "
    f"{parts.loc['k-means on S ∪ G'].purity.min():.2f} to "
    f"{parts.loc['k-means on S ∪ G'].purity.max():.2f}"
)

# %% [markdown]
# Wherever a region mixes classes, both terms work against the cross-entropy on part of its
# images, and the printed purities say how often that happens under each partition. We did not
# retrain with the other partition at quick scale (the full scale does, as one more column): the
# verdict stands as measured with the code's partition, and $\lambda_{dis}=\lambda_{rob}=1$ was
# not tuned.
#
# ## Claim 4 · The bound's ingredients track the test error
#
# The bound says that, beyond the training losses, the real-data error is controlled by the
# model-based discrepancy and the local robustness. After *naive* training (no term in the loss)
# we measure both on the trained model, with k-means regions fitted on real ∪ synthetic inputs,
# and set them against the test error.
#
# **Criterion.** For each $k\in\{1,5\}$: the mean measured discrepancy increases strictly with the
# gap (0 → 0.5 → 1), the mean test error increases strictly with the gap, and Spearman's $\rho$
# between discrepancy and test error over the (gap, seed) runs is $> 0$. It fails if a worse
# generator does not show up as a larger discrepancy through the trained model, or if the
# discrepancy orders the runs unlike their errors.

# %%
on_knob = ing_df[ing_df.generator != "fonts"]
by_gap = on_knob.groupby(["k", "generator"])[
    ["discrepancy", "robustness", "error", "share"]
].mean()
measured4 = {}
for k in run["shots"]:
    sub = on_knob[on_knob.k == k]
    measured4[f"discrepancy by gap (k={k})"] = by_gap.loc[k].discrepancy.to_dict()
    measured4[f"test error by gap (k={k})"] = by_gap.loc[k].error.to_dict()
    rho = stats.spearmanr(sub.discrepancy, sub.error).statistic
    measured4[f"Spearman ρ (k={k})"] = rho
print(
    by_gap.rename(columns={"share": "synthetic share in real regions"})
    .round(4)
    .to_string()
)
print(
    "Spearman ρ(discrepancy, test error) over gap × seed: "
    + ", ".join(f"k={k} {measured4[f'Spearman ρ (k={k})']:.3f}" for k in run["shots"])
    + "\nregions shared by real and synthetic points (mean): "
    f"{on_knob.shared.mean():.1f} of {run['K']}"
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True)
marks = {1: "o", 5: "s"}
# a light-to-dark blue per gap (a gap scale, not methods), orange for the font digits
shades = dict(zip(GENS, ["#9ecae1", "#4292c6", "#08306b", color_for("baseline")]))
for ax, term in zip(axes, ["discrepancy", "robustness"]):
    for (k, name), sub in ing_df.groupby(["k", "generator"], sort=False):
        ax.scatter(
            sub[term],
            sub.error,
            marker=marks[k],
            color=shades[name],
            s=28,
            label=f"{name}, k={k}",
        )
    ax.set(xlabel=f"measured {term} (mse of logits)")
rhos = ", ".join(f"k={k}: {measured4[f'Spearman ρ (k={k})']:.2f}" for k in run["shots"])
axes[0].set_title(f"Test error vs discrepancy (Spearman ρ {rhos})", fontsize=10)
axes[1].set_title("Test error vs robustness (not judged)", fontsize=10)
axes[0].set_ylabel("test error after naive training")
fig.legend(
    *axes[0].get_legend_handles_labels(),
    fontsize=8,
    ncols=4,
    loc="lower center",
    bbox_to_anchor=(0.5, -0.14),
)
plt.show()

# %%
ledger.check(
    4,
    "after naive training, discrepancy and test error rise with the gap; ρ > 0",
    paper="real-data error ≤ training losses + model-based discrepancy "
    "+ local robustness + complexity (Theorem 3.3)",
    source="secondary summary",
    evidence="real data",
    measured=measured4,
    criterion=all_of(
        *[
            monotone(f"{what} by gap (k={k})", "increasing")
            for k in run["shots"]
            for what in ("discrepancy", "test error")
        ],
        at_least(
            [f"Spearman ρ (k={k})" for k in run["shots"]], 0, strict=True, scale=1
        ),
    ),
    tolerance=tol(rel=6e-05),
)
# %% [markdown]
# Each point is one seed. The printed table shows the means the verdict reads; the font digits
# (orange) are shown against the same axes but are not part of the criterion. The discrepancy is
# measured on the real *training* shots, as in the bound, so with one shot per class it rests on
# ten real images.
#
# *Added after the verdict was known (it decides nothing).* The code's weights $1/(g\,|S_k|)$
# make the discrepancy a sum over regions, each weighted by the share of all synthetic images it
# holds: synthetic images in regions *without* a real image add nothing. A generator that moves
# its images away from the real ones can therefore lower this term by leaving the real images'
# regions. The last column of the table above measures that share:

# %%
share = by_gap["share"]
for k in run["shots"]:
    print(
        f"k = {k}: share of synthetic images in a region with a real image: "
        + ", ".join(f"{name} {share.loc[(k, name)]:.2f}" for name in gap_names)
    )

# %% [markdown]
# ## Claim 5 · What we quote
#
# The bound's constants and the benchmark tables are in the paper's body, which we could not read
# offline. We record the bound's form as a secondary summary describes it and the benchmark claim
# as the abstract states it; neither is re-derived here.

# %%
ledger.quote(
    "5a",
    "generalisation bound with model-based discrepancy and local robustness",
    paper="error on real data ≤ empirical losses on S and G + discrepancy + robustness "
    "+ a term growing with K and shrinking with the sample size (Theorem 3.3)",
    source="secondary summary",
    note="constants and exact form not extracted; the terms we measure follow the code",
)
ledger.quote(
    "5b",
    "the algorithm beats state-of-the-art methods on several data sets",
    paper="outperforms state-of-the-art methods across multiple datasets",
    source="abstract",
    note="the per-dataset table (CLIP, Stable Diffusion) could not be read offline",
)

# %% [markdown]
# ## A λ grid (full scale)
#
# At full scale the chapter also sweeps $\lambda_{dis}\times\lambda_{rob}$ at gap 1, $k=5$, with
# the online partition (not part of any verdict).

# %%
grid = np.full((len(run["lam_grid"]),) * 2, np.nan)
for a, lam_dis in enumerate(run["lam_grid"]):
    for b, lam_rob in enumerate(run["lam_grid"]):
        accs = []
        for r, d in enumerate(data):
            x_real, y_real, x_syn, y_syn = tensors(d, 5, "gap 1.0")
            meth = FS.Method(1, 1, lam_dis, lam_rob)
            net = fit(
                d,
                meth,
                x_real,
                y_real,
                x_syn,
                y_syn,
                stream=1000 * (r + 1) + 50 + GENS.index("gap 1.0"),
            )
            accs.append(
                FS.accuracy(
                    net,
                    d["norm"](X_all[d["split"].test]),
                    torch.as_tensor(y_all[d["split"].test]),
                )
            )
        grid[a, b] = np.mean(accs)
if not run["lam_grid"]:
    print("quick scale: the λ grid runs at full scale only")

# %% tags=["hide-input"]
if run["lam_grid"]:
    fig, ax = plt.subplots(figsize=(5.5, 4.5))
    im = ax.imshow(grid, cmap="viridis", origin="lower")
    ax.grid(False)
    for (a, b), v in np.ndenumerate(grid):
        ax.text(b, a, f"{v:.3f}", ha="center", va="center", color="w", fontsize=8)
    labels = [str(v) for v in run["lam_grid"]]
    best = np.unravel_index(np.nanargmax(grid), grid.shape)
    ax.set(
        xticks=range(len(labels)),
        xticklabels=labels,
        yticks=range(len(labels)),
        yticklabels=labels,
        xlabel="λ_rob",
        ylabel="λ_dis",
        title=f"Gap 1, k = 5: best mean accuracy {grid[best]:.3f}\n"
        f"at λ_dis = {labels[best[0]]}, λ_rob = {labels[best[1]]}",
    )
    fig.colorbar(im, ax=ax, label="mean test accuracy")
    plt.show()

# %% [markdown]
# ## Verdicts

# %% tags=["nbval-check-output"]
ledger.show()

# %% tags=["nbval-ignore-output"]
print(f"chapter run time: {run.elapsed():.1f} s at scale={run.scale!r} on {run.device}")

# %% [markdown]
# ## Deviations from the paper
#
# - **A criterion changed after its result was known** (the book-wide rule that "better" and
#   "worse" are decided on paired per-seed differences beyond their noise). Claim 1 was "mean
#   naive real + synthetic accuracy < mean real-only accuracy" (at commit 238c14c reproduced by
#   0.006, and unstable over chapter seeds); it is now the paired loss real only − naive with mean
#   − 2 SE > 0.
# - **What a verdict audit found in claim 3, left for the chapter's group issue (08–13).** It is
#   decided on bare differences of means, its 1-point bar is the research brief's, not the
#   paper's, and it runs at $\lambda_{dis}=1$ with equal cross-entropy weights rather than the
#   official configurations (below); the paired gain at the official setting, with λ = 1 as a
#   sensitivity column, is the test that judges the paper.
# - **Setting.** The paper fine-tunes CLIP (the code also has ResNets) on image benchmarks, with
#   images from a LoRA-tuned Stable Diffusion. None of those weights exist offline. Our real data are the 8 × 8
#   digits, our generator a per-class Gaussian mixture on a disjoint pool with a controlled gap,
#   our model a 64-128-10 MLP. Effect sizes are not comparable with the paper's; directions are.
# - **Objective.** We follow the released code (`trainers/example_trainer.py`): both terms use
#   `mse_loss` on logits, the $1/(g\,|S_k|)$ and $1/(g\,|G_k|)$ weights, and sums over the regions
#   that hold a real point. Our $\lambda_{dis}=\lambda_{rob}=1$ and equal cross-entropy weights are
#   our choice (the code's configs use, e.g., $\lambda_{dis}=0.1$, $\lambda_{rob}=1$, real
#   cross-entropy weighted 4); the code also mixes CutMix/MixUp and fine-tunes the generator (LoRA)
#   with the same loss, which we do not.
# - **Partition.** Training uses the code's online prototypes (random normal start in the
#   normalised input space, assignment before the MacQueen update, synthetic points only), with
#   $K=20$ instead of the code's 100–200 for thousands of images. The code's `fast_kmeans` option
#   moves a centroid by $1/n_k$ times the *sum* of a batch's points, which is not the running mean;
#   we implement the default, per-point update. The bound's ingredients (claim 4) are measured on
#   a second, fixed partition: k-means on real ∪ synthetic inputs. At full scale a column trains
#   the full objective with that partition too.
# - **Training.** Full batch (all shots and all 1,000 synthetic images per step) instead of the
#   code's mini-batches; 150 steps at quick scale (300 at full): the size table was fixed before
#   any accuracy was seen. The networks run on one thread (`FS.single_thread`): at this size
#   threads cost more than they save, and a single thread makes the sums independent of the
#   machine.
# - **Test sets.** Both shot counts are tested on the same 1,047 images (everything outside the
#   pool and the 5-shot set), so the 1-shot test set leaves out four images per class it could
#   have used.
# - **What we could not confirm from the paper.** Its full text was not available offline: the
#   bound's form comes from a secondary summary (claim 5a), the benchmark claim from the abstract
#   (5b), and claim 1's motivation from the abstract's sentence on the gap. A secondary summary reports
#   state of the art on 10 data sets with a 0.6-point average gain; we did not verify it and do not
#   use it. Claims 2–4 are our tests of what the framework implies, not numbers from the paper.
# - **Other criteria changed after their results were known:** none besides claim 1's (above).
#   **Added after the verdicts were known** (diagnostics that decide nothing, said where they appear): the partition summary under
#   claim 3 and the synthetic share under claim 4.
# - **Not built.** The full-scale CNN on synthetic coloured shapes with a class-conditional
#   generator trained in the notebook is not part of this chapter yet.
#
# ## Run it at full scale
#
# ```bash
# .venv/bin/python -m repbook run 10 --scale full
# ```
# Full scale trains 10 seeds for 300 steps, adds the full objective with the k-means partition as
# a column and the $\lambda_{dis}\times\lambda_{rob}$ grid at gap 1, $k=5$ (CPU minutes; the
# networks are too small to gain from a GPU).
