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
# **The paper's claim**
#
# - **3 · The released objective beats naive mixing.** Training with the released objective
#   `clip_vit_caltech` (real and synthetic cross-entropies weighted 4:1, plus the discrepancy and
#   robustness terms) is more accurate than naive real + synthetic training (weights 1:1), on
#   average over the gap-knob cells: the $k=5$ cells at quick scale ($k=1$ and 5 at full scale;
#   the paper averages over data sets), where a real–synthetic gap costs accuracy. This tests the
#   objective as a whole: at quick scale it does not separate the terms from the 4:1 weights.
#
# **Quoted (not re-derived):** 5a, the generalisation bound; 5b, the benchmark results.
#
# **Our own checks (outside the paper's tally)**
#
# - **1** · Does our set-up reach the regime where synthetic data hurts? The test: with the gap
#   knob at 1 and 5 shots per class, is naive real + synthetic training less accurate than the
#   real shots alone, beyond the noise? (Its verdict is read under the check.)
# - **2** · Sanity check: the knob degrades the generator (synthetic-only accuracy falls with the
#   gap).
# - **3s** · Sensitivity: the objective with $\lambda_{dis}=\lambda_{rob}=1$ and equal
#   cross-entropy weights (this chapter's earlier setting) against naive training.
# - **4** · Our hypothesis: the discrepancy term, measured after naive training, tracks the test
#   error over the gap levels (the theorem is an upper bound and does not say this).
# ```
#
# No CLIP or Stable Diffusion weights exist offline, so the paper's setting cannot run here. The
# chapter shows the mechanism on scikit-learn's 8 × 8 digits, with a generator whose real–synthetic
# gap we control. The paper's full text (and so its tables) was not available to us offline: the
# objective and its weights follow the official code, and what we could not confirm is listed at
# the end.

# %% tags=["parameters"]
scale = "quick"  # "quick" (≤ 90 s on 2 cores) or "full" (10 seeds)
seed = 0

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import torch

from repbook.core import all_of, at_least, monotone, paired_gain, paired_summary, tol
from repbook.core import color_for, full_run_lines, load_sklearn, reading_lines, setup
from repbook.core import t_quantile
from repbook.papers import fewshot_synthetic

# %%
# The configuration we judge, fixed before any run of it (see "The experiment");
# λ = 1 with equal cross-entropy weights is the sensitivity column.
CONFIG = "clip_vit_caltech"
COMMON = dict(gaps=[0.0, 0.5, 1.0], pool=700, n_syn=100, K=20, config=CONFIG)
QUICK = dict(seeds=5, shots=[5], epochs=150, lam_grid=[], full_columns=False)
FULL = dict(seeds=10, shots=[1, 5], epochs=300, lam_grid=[0.0, 0.1, 1.0, 10.0])
SIZES = {"quick": COMMON | QUICK, "full": COMMON | FULL | {"full_columns": True}}
REGIME = "8x8 digits (scikit-learn) with a synthetic generator of controlled gap; "
REGIME += "MLP 64-128-10; CPU"
NAIVE, ORACLE = fewshot_synthetic.NAIVE, fewshot_synthetic.ORACLE
REAL_ONLY, SYN_ONLY = fewshot_synthetic.REAL_ONLY, fewshot_synthetic.SYN_ONLY
OFFICIAL, LAM1 = f"+ λ_dis + λ_rob ({CONFIG})", "+ λ_dis + λ_rob (λ = 1, CE 1:1)"
DIS_ONLY, KMEANS = "+ λ_dis (official weights)", f"{OFFICIAL} (k-means on S ∪ G)"
COLORS = {OFFICIAL: "ours", NAIVE: "baseline", REAL_ONLY: "muted", SYN_ONLY: "alt"}
COLORS |= {LAM1: "alt2", ORACLE: "reference", DIS_ONLY: "alt3", KMEANS: "peer"}

# %%
run = setup(scale=scale, seed=seed, sizes=SIZES, regime=REGIME, colors=COLORS)
ledger = run.ledger
cfg = fewshot_synthetic.CONFIGS[CONFIG]
weights = f"ce_real {cfg.ce_real:g}, ce_syn {cfg.ce_syn:g}, λ_dis {cfg.lam_dis:g}"
print(f"judged configuration {CONFIG}: {weights}, λ_rob {cfg.lam_rob:g}")

# %% [markdown]
# ## The method
#
# Write $S$ for the real few-shot images, $G$ for the synthetic ones, $g=|G|$, $h(x)\in\mathbb
# R^C$ for the logits and $\mathrm{mse}(a,b)=\lVert a-b\rVert^2/C$. A partition into $K$ regions
# splits both sets into $S_k$ and $G_k$. The loss the released code minimises is
#
# $$
# \mathcal L = w_{real}\,\mathrm{CE}(h(S)) + w_{syn}\,\mathrm{CE}(h(G))
#   + \lambda_{dis}\sum_k \sum_{i\in S_k}\sum_{j\in G_k}
#       \frac{\mathrm{mse}(h(s_i),h(g_j))}{g\,|S_k|}
#   + \lambda_{rob}\sum_k \sum_{i,j\in G_k} \frac{\mathrm{mse}(h(g_i),h(g_j))}{g\,|G_k|},
# $$
#
# where both sums run over the regions that hold at least one real image (the code computes the
# robustness inside the same `if` as the discrepancy). The weights are the configuration's
# `ce_real`, `ce_syn`, `lam_dis` and `lam_rob`. The regions come from $K$ prototypes
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

# %% [markdown]
# The library computes the same two sums:

# %%
lib_dis = fewshot_synthetic.discrepancy_term(h_s, h_g, r_s, r_g, 4)
lib_rob = fewshot_synthetic.robustness_term(h_g, r_g, 4, regions_real=r_s)
print(f"by hand (loops):  discrepancy {float(dis):.6f}, robustness {float(rob):.6f}")
print(f"lib (vectorised): discrepancy {lib_dis:.6f}, robustness {lib_rob:.6f}")

# %% [markdown]
# The library version takes one pass over the points instead of all pairs. With $\bar a_k$ the
# mean real logit and $\bar b_k$ the mean synthetic logit of region $k$,
# $\sum_{i\in S_k}\sum_{j\in G_k}\lVert a_i-b_j\rVert^2 = |S_k|\sum_{j\in G_k}\lVert b_j-\bar
# a_k\rVert^2+|G_k|\sum_{i\in S_k}\lVert a_i-\bar a_k\rVert^2$ and
# $\sum_{i,j\in G_k}\lVert b_i-b_j\rVert^2 = 2|G_k|\sum_{j\in G_k}\lVert b_j-\bar b_k\rVert^2$.
# The online prototype update, one point at a time as in the code,
# is the running mean of the points a prototype has received:

# %%
km = fewshot_synthetic.OnlineKMeans.init(2, 3, run.torch_generator(1))
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
# never in it. From the remaining images we draw 5 shots per class (the 1-shot set, used at full
# scale, is the first of each class's five), and test on everything else (the count is printed
# below). The **generator** is one `GaussianMixture(3, 'diag', reg_covar=0.5)` per class fitted
# on the pool; it draws `n_syn` images per class. The **gap knob** degrades those samples the
# way an imperfect generator might: at gap $\gamma$ an image is interpolated by $\gamma$ toward
# a copy shifted one pixel to the right, its contrast multiplied by $1-0.3\gamma$, and Gaussian
# noise of standard deviation $2\gamma$ (pixels run 0–16) added. Its levels were chosen in a
# prototype (the research brief), so what the knob does is our design, not a finding. A second,
# "bad" generator renders the digits from matplotlib's fonts with Pillow (symbol fonts skipped),
# reduced like the UCI digits (a 32 × 32 bitmap counted in 4 × 4 blocks); it was not tuned for
# anything in this chapter. The **oracle** replaces the synthetic images by the pool's own real
# images, what a generator that reproduced its training data would give.
#
# Inputs are normalised by the pool's pixel mean and standard deviation (one channel, as CLIP
# normalises each colour channel in the code). `fewshot_synthetic.prepare_seed` does
# all of this from one
# random stream per seed.

# %%
X_all, y_all = load_sklearn("digits")
SPLIT = {key: run[key] for key in ("pool", "shots", "n_syn", "gaps")}
data = [
    fewshot_synthetic.prepare_seed(X_all, y_all, **SPLIT, rng=run.child_rng(10 + r))
    for r in range(run["seeds"])
]
GENS = list(data[0].synthetic)
GAP_GENS = [fewshot_synthetic.gap_name(g) for g in run["gaps"]]

# %%
d0 = data[0]
shot_sets = ", ".join(f"k={k}: {len(v)}" for k, v in d0.split.shots.items())
print(
    f"{run['seeds']} seeds · pool {len(d0.split.pool)} · shots {shot_sets} · test "
    f"{len(d0.split.test)} · synthetic {len(d0.synthetic[GENS[0]][1])} per generator · "
    f"oracle {len(d0.y_oracle)} pool images · {fewshot_synthetic.n_usable_fonts()} "
    "fonts render the ten digits"
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(len(GENS) + 1, 10, figsize=(8, 0.85 * (len(GENS) + 1)))
show_rng = np.random.default_rng(0)
panels = [("real (pool)", X_all[d0.split.pool], y_all[d0.split.pool])]
panels += [(name, *d0.raw[name]) for name in GENS]
for row, (name, X, y) in enumerate(panels):
    for c in range(10):
        ax = axes[row, c]
        pick = show_rng.choice(np.flatnonzero(y == c))
        ax.imshow(X[pick].reshape(8, 8), cmap="gray_r", vmin=0, vmax=16)
        ax.set(xticks=[], yticks=[])
        if c == 0:
            ax.set_ylabel(name, rotation=0, ha="right", va="center", fontsize=9)
title = "Real digits, GMM samples at three gaps, and font digits (first split)"
fig.suptitle(title, fontweight="bold")
plt.show()

# %% [markdown]
# ## The experiment
#
# The network is the MLP 64-128-10 trained with Adam (learning rate $10^{-3}$, weight decay
# $10^{-4}$), full batch, `epochs` steps. For each seed, generator and shot count we train, from
# the same initialisation:
#
# - **real only** and the **oracle** (naive objective with the pool's images as the synthetic
#   set), once per shot count, and **synthetic only**, once per generator;
# - **naive real + synthetic** (both cross-entropies, weights 1 and 1);
# - **the paper's objective in the released configuration `clip_vit_caltech`**:
#   `ce_real` 4, `ce_syn` 1, $\lambda_{dis}=0.1$, $\lambda_{rob}=1$, with $K=20$ regions and the
#   code's online prototype partition. Of the two released configurations (the other,
#   `clip_resnet`, has `ce_real` 1 and $\lambda_{dis}=0.05$), this is the one for the CLIP ViT,
#   the model of the paper's headline results; we chose it, and the criterion below, before any
#   run of it (see Deviations for a timing probe). Our model, an MLP trained from scratch,
#   resembles `clip_resnet` (a ResNet-50 trained from scratch) more than CLIP ViT fine-tuning;
#   `clip_resnet` as a sensitivity column is not run at quick scale (budget; see Deviations).
#   The released JSONs' own `name` strings disagree with their values (`clip_vit_caltech`:
#   "…dis1_rob10_ce1…", `clip_resnet`: "…dis1_rob5_ce1…"); we use the values;
# - **the sensitivity column** $\lambda_{dis}=\lambda_{rob}=1$ with equal cross-entropy weights,
#   the setting this chapter used before (ours, shown apart).
#
# Every regularised run of a cell sees the same prototype stream. After each *naive* run we also
# measure the bound's two data-dependent terms on the trained model, with a fixed partition:
# scikit-learn k-means ($K=20$) fitted on the real shots ∪ the synthetic images. The measured
# robustness sums over *every* region, whereas the training objective (as in the code) counts
# only the regions holding a real image; the discrepancy is the same sum in both. The protocol
# is `fewshot_synthetic.run_grid` (unit-tested); the cell below only calls it.

# %%
Method = fewshot_synthetic.Method
VARIANTS = {NAIVE: Method(1, 1, 0, 0), OFFICIAL: cfg, LAM1: Method(1, 1, 1.0, 1.0)}
if run["full_columns"]:
    VARIANTS[DIS_ONLY] = Method(cfg.ce_real, cfg.ce_syn, cfg.lam_dis, 0)
ONLY_ON = {LAM1: GAP_GENS} | ({} if run["full_columns"] else {OFFICIAL: GAP_GENS})
KMEANS_ON = [OFFICIAL] if run["full_columns"] else []
GRID = dict(epochs=run["epochs"], K=run["K"], rng_for=run.torch_generator)
rows, ingredients = fewshot_synthetic.run_grid(
    data, VARIANTS, **GRID, only_on=ONLY_ON, kmeans_variants=KMEANS_ON
)

# %% [markdown]
# The table of test accuracies, one column per method (short names):

# %%
SHORT = {OFFICIAL: CONFIG, LAM1: "λ = 1", ORACLE: "oracle", NAIVE: "naive"}
FIRST = [REAL_ONLY, SYN_ONLY, ORACLE, NAIVE, OFFICIAL, LAM1]
table = fewshot_synthetic.accuracy_table(rows, first=FIRST, names=SHORT)
seeds = f"{run['seeds']} seeds"
print(f"test accuracy, mean ± sd over {seeds} (partition for training: online)")
print(table.to_string())
print("naive = real + synthetic; " + CONFIG + " and λ = 1: + λ_dis + λ_rob")

# %% [markdown]
# ## The set-up: does synthetic data hurt? (our checks 1 and 2)
#
# These two checks test whether our benchmark has the property the paper starts from (the
# sentence under them reads check 1's verdict); they test our knob, not the paper. The knob's
# levels were chosen in a prototype that had already seen naive mixing fall below real only at
# gap 1, so check 1 is ours, and check 2 is a sanity check: the knob shifts, fades and adds
# noise to the images by design.
#
# **Check 1.** At gap 1 with $k=5$, the loss real only − naive real + synthetic, paired by seed:
# mean − $t$·SE > 0 ($t$ Student's 97.5 % quantile on seeds − 1 degrees of freedom); it fails if
# mean + $t$·SE ≤ 0, and is within the noise in between. The font digits, a generator not tuned
# for this, are printed beside it.
#
# **Check 2.** The mean synthetic-only accuracy falls strictly from gap 0 to 0.5 to 1.

# %%
K5 = max(run["shots"])
gains1 = fewshot_synthetic.paired_gains(rows, REAL_ONLY, NAIVE, [(n, K5) for n in GENS])
loss1 = {name: np.asarray(v) for (name, _), v in gains1.items()}
mean_acc = fewshot_synthetic.cell_means(rows)
syn_only = {name: mean_acc[(name, K5, SYN_ONLY)] for name in GENS}

# %%
for name, v in loss1.items():
    print(
        f"k = {K5}, {name}: real only − naive {v.mean():+.4f} "
        f"(seeds {v.min():+.4f} to {v.max():+.4f}; naive below real only on "
        f"{int((v > 0).sum())} of {len(v)})"
    )
print(
    "synthetic-only test accuracy (mean over seeds): "
    + ", ".join(f"{name} {v:.3f}" for name, v in syn_only.items())
)

# %% tags=["hide-input"]
res = pd.DataFrame(rows)
n_k = len(run["shots"])
fig, axes = plt.subplots(1, n_k, figsize=(5.5 * n_k, 4), squeeze=False)
xpos = {name: i for i, name in enumerate(GENS)}
xlabel = "generator (gap knob, then font digits)"
for ax, k in zip(axes[0], run["shots"]):
    sub = res[res.k == k]
    for j, method in enumerate(FIRST):
        pts, col = sub[sub.method == method], color_for(method)
        dx = (j - (len(FIRST) - 1) / 2) * 0.07
        ax.scatter(pts.generator.map(xpos) + dx, pts.acc, s=9, alpha=0.5, color=col)
        m = pts.groupby("generator").acc.mean().reindex(GENS).dropna()
        knob = m[[n for n in m.index if n != "fonts"]]
        x_knob = [xpos[n] + dx for n in knob.index]
        ax.plot(x_knob, knob.values, marker="o", ms=4, color=col, label=method)
        if "fonts" in m.index:
            ax.plot([xpos["fonts"] + dx], [m["fonts"]], "D", ms=5, color=col)
    ax.axvline(len(GENS) - 1.5, color=color_for("muted"), lw=0.8, ls=":")
    title = f"k = {k} real shots per class"
    ax.set(xticks=range(len(GENS)), xticklabels=GENS, title=title, xlabel=xlabel)
axes[0, 0].set_ylabel(f"test accuracy ({len(d0.split.test):,} real digits)")
axes[0, -1].legend(fontsize=7, loc="lower left")
gap1 = f"naive mixing ends {-loss1['gap 1.0'].mean():+.3f} from real only"
title = f"Our knob at gap 1, k = {K5}: {gap1} (lines: means, dots: seeds)"
fig.suptitle(title, fontsize=11, fontweight="bold")
plt.show()

# %%
L1 = "real only − naive, per seed (gap 1, k=5)"
FONTS1 = "real only − naive, per seed (fonts, k=5)"
_ = ledger.ours(
    1,
    "our knob at gap 1, 5 shots: naive real + synthetic below real only",
    why="shows that our benchmark reaches the regime the paper starts from "
    "(synthetic data can hurt); the knob's levels come from a prototype that had "
    "seen this",
    evidence="real data",
    measured={L1: loss1["gap 1.0"].tolist(), FONTS1: loss1["fonts"].tolist()},
    show=[L1],
    criterion=paired_gain(L1, k="t"),
    note="the font digits (not tuned for this) are shown, not judged",
    tolerance={L1: tol(abs=0.003)},
)
S2 = "synthetic-only accuracy by gap"
_ = ledger.sanity(
    2,
    "synthetic-only accuracy falls as our knob's gap grows",
    why="the knob shifts, fades and adds noise to the generator's images by our design",
    evidence="real data",
    measured={S2: {name: syn_only[name] for name in GAP_GENS}},
    criterion=monotone(S2, "decreasing"),
)
c1 = next(c for c in ledger.claims if c.id == "1")
REGIME1 = {
    "reproduced": "holds: naive mixing is below real only beyond the noise, so the "
    "benchmark reaches the regime where synthetic data hurts",
    "within noise": "is within the noise: naive mixing is not shown to be below real "
    "only, so the regime where synthetic data hurts is not reached at this scale",
    "not reproduced": "does not hold: naive mixing is at least as accurate as real "
    "only, so the regime where synthetic data hurts is not reached",
}
print(
    f"Check 1 (gap 1, k = {K5}, {run['seeds']} seeds) "
    f"{REGIME1.get(c1.verdict, c1.verdict_word())} (margin {c1.margin_text()}). "
    "Claim 3's gate asks instead whether the gap costs accuracy against the oracle."
)

# %% [markdown]
# ## Claim 3 · The released objective beats naive real + synthetic mixing
#
# The paper's objective adds the two terms of its bound to the two cross-entropies; the abstract
# says the resulting algorithm outperforms the state of the art, and a secondary summary puts
# the gain at 0.6 points on average over ten data sets, against the previous best method
# (which methods the paper's tables hold we could not read). We run none of them. **Naive
# mixing is our comparator, not the paper's**: the two cross-entropies with equal weights stand
# in for cross-entropy fine-tuning on real + synthetic images, our analogue, and the bar below
# is set against it. Our analogue of "the data sets" are the gap-knob cells (each gap at each
# shot count of the run); we compare the released configuration with naive mixing on the same
# data, initialisation and prototype stream.
#
# **What the comparison changes.** `clip_vit_caltech` differs from naive mixing in two ways at
# once: it adds the two terms, and it weights the real cross-entropy 4:1 against the synthetic
# one (naive: 1:1). Claim 3 therefore tests the released objective as a whole, not the terms:
# the quick scale does not separate them from the 4:1 reweighting. The control that would, CE
# 4:1 with $\lambda_{dis}=\lambda_{rob}=0$, is a cell of the full-scale λ grid only. The
# per-cell gains printed below are compatible with either reading: more weight on the real
# images helps most where the synthetic ones are worst, and so would terms that pull the
# synthetic logits toward the real ones.
#
# **Gate (the regime).** The mechanism can only show where the real–synthetic gap costs
# accuracy: the oracle (the pool's real images in place of the synthetic ones, naive objective)
# must beat naive mixing, on the per-seed mean over the cells, by more than its noise
# (mean − $t$·SE > 0). If not, there is no gap for the terms to close, and the claim is *not
# checked at this scale*.
#
# **Criterion.** Per seed, the accuracy of the released configuration minus that of naive mixing,
# averaged over the cells; the claim holds if mean − $t$·SE > 0 over the seeds, fails if
# mean + $t$·SE ≤ 0, and is within the noise otherwise. The bar is 0, not the summary's 0.6
# points: effect sizes on 8 × 8 digits are not comparable with CLIP on image benchmarks. Both
# the gate and the criterion were written before the configuration was first run. Whether this
# scale could resolve a gain of the summary's size is printed under the verdict, from the
# criterion's own $t$·SE half-width.

# %%
cells = [(name, k) for k in run["shots"] for name in GAP_GENS]
oracle = fewshot_synthetic.compare(rows, ORACLE, NAIVE, cells)
official = fewshot_synthetic.compare(rows, OFFICIAL, NAIVE, cells)
lam1 = fewshot_synthetic.compare(rows, LAM1, NAIVE, cells)
GATE3 = "oracle − naive, mean over cells, per seed"
C3 = f"{CONFIG} − naive, mean over cells, per seed"
C3S, C3S_CELLS = "λ = 1 − naive, mean over cells, per seed", "λ = 1 − naive, per cell"
measured3 = {
    GATE3: oracle.over_cells,
    C3: official.over_cells,
    f"{CONFIG} − naive, per cell": official.by_cell,
    "oracle − naive, per cell": oracle.by_cell,
}

# %%
gains = {"oracle − naive": oracle, f"{CONFIG} − naive": official}
gains["λ = 1 − naive (ours)"] = lam1
per_cell = pd.DataFrame({name: comp.by_cell for name, comp in gains.items()})
print("mean paired gain over seeds, by cell:")
print(per_cell.map(lambda v: f"{v:+.4f}").to_string())
if run["full_columns"]:
    on_fonts = [("fonts", k) for k in run["shots"]]
    fonts = fewshot_synthetic.paired_gains(rows, OFFICIAL, NAIVE, on_fonts)
    print(
        "font digits (context, not judged): "
        + ", ".join(f"k={k} {np.mean(v):+.4f}" for (_, k), v in fonts.items())
    )
else:
    print("font digits with the regularised objective: full scale only")

# %%
out3 = ledger.check(
    3,
    "the released objective clip_vit_caltech (CE 4:1 + discrepancy + robustness) "
    "beats naive real + synthetic (CE 1:1) on average over cells",
    paper="the theory-based algorithm outperforms state-of-the-art methods",
    source="abstract",
    evidence="real data",
    measured=measured3,
    show=[GATE3, C3],
    gate=paired_gain(GATE3, k="t"),
    criterion=paired_gain(C3, k="t"),
    tolerance={  # data/numerics (with a run on an AVX-512 machine)
        GATE3: tol(abs=0.009),
        C3: tol(abs=0.002),
        f"{CONFIG} − naive, per cell": tol(abs=0.002),
        "oracle − naive, per cell": tol(abs=0.002),
    },
    note=f"configuration {CONFIG} (ce_real {cfg.ce_real:g}, ce_syn {cfg.ce_syn:g}, "
    f"λ_dis {cfg.lam_dis:g}, λ_rob {cfg.lam_rob:g}); terms and CE weights not "
    "separated; comparator ours (naive mixing); a secondary summary: +0.6 points on "
    "average over ten data sets against earlier methods",
)
_ = ledger.ours(
    "3s",
    "sensitivity: λ_dis = λ_rob = 1, CE 1:1 beats naive on average over cells",
    why="this chapter's earlier setting (not the official one), shown as a sensitivity "
    "column; its per-cell means on three seeds were known before this check was "
    "written",
    evidence="real data",
    measured={GATE3: oracle.over_cells, C3S: lam1.over_cells, C3S_CELLS: lam1.by_cell},
    show=[C3S],
    gate=paired_gain(GATE3, k="t"),
    criterion=paired_gain(C3S, k="t"),
    tolerance={GATE3: tol(abs=0.009), C3S: tol(abs=0.003), C3S_CELLS: tol(abs=0.003)},
)
c3 = next(c for c in ledger.claims if c.id == "3")  # for the figure
for name, comp in [(GATE3, oracle), (C3, official), (C3S, lam1)]:
    s = paired_summary(comp.over_cells)
    print(f"{name}: {s.mean:+.4f} ± {s.half:.4f} (t·SE, {s.n} seeds)")
best = per_cell[f"{CONFIG} − naive"]
print(
    f"{CONFIG} − naive by cell: from {best.min():+.4f} ({best.idxmin()}) to "
    f"{best.max():+.4f} ({best.idxmax()})"
)
SUMMARY_GAIN = 0.006  # a secondary summary: +0.6 points on average over ten data sets
half3 = paired_summary(official.over_cells).half
print(
    f"claim 3's t·SE half-width {half3:.4f} against the summary's average gain "
    f"{SUMMARY_GAIN:.3f}: "
    + (
        f"scale={run.scale!r} cannot resolve a gain of that size (the half-width "
        "exceeds it)"
        if half3 > SUMMARY_GAIN
        else f"a gain of that size exceeds the half-width at scale={run.scale!r}"
    )
)
t_at = ", ".join(f"{n} seeds {t_quantile(n):.2f}" for n in sorted({3, run["seeds"]}))
print(f"Student's 97.5 % quantile t: {t_at}")
sens = VARIANTS[LAM1]
print(
    f"{CONFIG} against the sensitivity column (λ = 1, CE 1:1): real cross-entropy "
    f"weight × {cfg.ce_real / sens.ce_real:g}, discrepancy weight "
    f"× {cfg.lam_dis / sens.lam_dis:g}, robustness weight "
    f"× {cfg.lam_rob / sens.lam_rob:g}"
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(
    1, 2, figsize=(11, 4), sharey=True, gridspec_kw=dict(width_ratios=[2, 1])
)
labels = [f"{n}\nk={k}" for n, k in cells] + ["mean over\ncells"]


def strip(ax, comp, dx, color, marker, label):
    for i, c in enumerate(cells):
        x, gains, n = i + dx, comp.per_cell[c], len(comp.per_cell[c])
        ax.scatter(np.full(n, x), gains, s=12, color=color, marker=marker, alpha=0.6)
        ax.plot([x - 0.12, x + 0.12], [np.mean(gains)] * 2, color=color, lw=2)
    s, x = paired_summary(comp.over_cells), len(cells) + dx
    ax.errorbar(x, s.mean, yerr=s.half, fmt=marker, color=color, capsize=4, label=label)


strip(axes[0], oracle, -0.15, color_for(ORACLE), "^", "oracle − naive (gate)")
strip(axes[0], official, 0.15, color_for(OFFICIAL), "o", f"{CONFIG} − naive (claim 3)")
strip(axes[1], lam1, 0.0, color_for(LAM1), "s", "λ = 1 − naive (ours, 3s)")
for ax in axes:
    ax.axhline(0, color=color_for("reference"), lw=1)
    ax.set_xticks(range(len(labels)), labels, fontsize=8)
    ax.legend(fontsize=8, loc="upper left")
title = f"Claim 3: {c3.verdict} (margin {c3.margin_text()})"
axes[0].set(ylabel="accuracy gain over naive (per seed)", title=title)
axes[1].set_title("Sensitivity, λ = 1 (ours)", fontsize=10)
title = "dots are seeds, bars cell means, error bars mean ± t·SE over seeds"
fig.suptitle(f"Gains over naive mixing: {title}", fontsize=10)
plt.show()

# %% [markdown]
# The printed table gives the cell means the figure draws; the weight ratios of the released
# configuration to the sensitivity column are printed above. How much each change matters is
# not separated here (the full scale adds a $\lambda_{dis}$-only column with the released
# cross-entropy weights, and a $\lambda$ grid whose $\lambda=0$ cell is the CE 4:1 control).
#
# ## At full scale only · The partitions behind the terms
#
# A diagnostic that decides nothing, added after the λ = 1 result was known. The robustness
# term pulls together the logits of *all* synthetic images of a region, whatever their class,
# and the discrepancy term pulls real and synthetic images of a region together; both push in
# the direction of the cross-entropy only where a region's images share a class. At full scale
# we summarise the online partition the training saw at its last step beside k-means on real ∪
# synthetic: regions holding synthetic images, their class purity (share of synthetic images in
# their region's majority class) and the share of synthetic images that share a region with a
# real one.

# %%
if run["full_columns"]:
    parts = fewshot_synthetic.partition_summaries(
        data, GAP_GENS, K=run["K"], steps=run["epochs"], rng_for=run.torch_generator
    )
    print(fewshot_synthetic.partition_table(parts).round(3).to_string())
else:
    print("quick scale: the partition summary runs at full scale only")

# %% [markdown]
# ## Our check 4 · Does the discrepancy track the test error?
#
# Theorem 3.3 bounds the real-data error by the training losses plus the model-based discrepancy,
# the local robustness and a complexity term. An upper bound does not say that the terms move
# with the error; that they do is our hypothesis, tested here as our own check. After *naive*
# training (no term in the loss) we measure both terms on the trained model, with k-means
# regions fitted on real ∪ synthetic inputs, and set them against the test error. The
# robustness measured here sums over every region, while the training objective uses only the
# regions holding a real image (as the code does); it is shown, not judged.
#
# **Criterion (ours).** At 5 shots, the shot count both scales run: the mean measured
# discrepancy increases strictly with the gap (0 → 0.5 → 1), the mean test error increases
# strictly with the gap, and Spearman's $\rho$ between discrepancy and test error over the
# (gap, seed) runs is $> 0$. At full scale the 1-shot values are shown, not judged, so that the
# check is the same at both scales (changed after the first full-scale result; see the
# deviations).

# %%
ing = fewshot_synthetic.summarise_ingredients(ingredients)
by_gap, measured4 = ing.by_gap, {}
for k in run["shots"]:
    measured4[f"discrepancy by gap (k={k})"] = by_gap.loc[k].discrepancy.to_dict()
    measured4[f"test error by gap (k={k})"] = by_gap.loc[k].error.to_dict()
    measured4[f"Spearman ρ (k={k})"] = ing.rho[k]

# %%
shown4 = by_gap.rename(columns={"share": "synthetic share in real regions"})
print(shown4.round(4).to_string())
rho4 = ", ".join(f"k={k} {ing.rho[k]:.3f}" for k in run["shots"])
print(f"Spearman ρ(discrepancy, test error) over gap × seed: {rho4}")
shared = f"{ing.shared:.1f} of {run['K']}"
print(f"regions shared by real and synthetic points (mean): {shared}")

# %%
K4 = 5  # the shot count check 4 judges: run at both scales
if K4 not in run["shots"]:
    raise ValueError(f"check 4 judges {K4} shots; shots={run['shots']} leaves them out")
_ = ledger.ours(
    4,
    "after naive training, discrepancy and test error rise with the gap; ρ > 0",
    why="our hypothesis: Theorem 3.3 (secondary summary) is an upper bound on the "
    "error and implies no tracking",
    evidence="real data",
    measured=measured4,
    criterion=all_of(
        monotone(f"discrepancy by gap (k={K4})", "increasing"),
        monotone(f"test error by gap (k={K4})", "increasing"),
        at_least(f"Spearman ρ (k={K4})", 0, strict=True, scale=1),
    ),
    tolerance={
        **{f"discrepancy by gap (k={k})": tol(abs=0.0002) for k in run["shots"]},
        **{f"test error by gap (k={k})": tol(abs=0.0006) for k in run["shots"]},
    },
)

# %% tags=["hide-input"]
ing_df = pd.DataFrame(ingredients)
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True)
marks = {1: "o", 5: "s"}
# a light-to-dark blue per gap (a gap scale, not methods), orange for the font digits
shades = dict(zip(GENS, ["#9ecae1", "#4292c6", "#08306b", color_for("baseline")]))
for ax, term in zip(axes, ["discrepancy", "robustness"]):
    for (k, name), sub in ing_df.groupby(["k", "generator"], sort=False):
        style = dict(marker=marks[k], color=shades[name], s=28, label=f"{name}, k={k}")
        ax.scatter(sub[term], sub.error, **style)
    ax.set(xlabel=f"measured {term} (mse of logits)")
rhos = ", ".join(f"k={k}: {ing.rho[k]:.2f}" for k in run["shots"])
axes[0].set_title(f"Test error vs discrepancy (Spearman ρ {rhos})", fontsize=10)
axes[1].set_title("Test error vs robustness (not judged)", fontsize=10)
axes[0].set_ylabel("test error after naive training")
legend = dict(fontsize=8, ncols=4, loc="lower center", bbox_to_anchor=(0.5, -0.14))
fig.legend(*axes[0].get_legend_handles_labels(), **legend)
plt.show()

# %% [markdown]
# Each point is one seed; the font digits (orange) are shown against the same axes but are not
# part of the criterion. The discrepancy is measured on the real *training* shots, as in the
# bound. The code's weights $1/(g\,|S_k|)$ make the discrepancy a sum over regions weighted by
# the share of all synthetic images each holds: synthetic images in regions *without* a real
# image add nothing, so a generator that moves its images away from the real ones can lower the
# term by leaving the real images' regions. The table's last column measures that share
# (a diagnostic added after an earlier verdict of this check was known):

# %%
share = by_gap["share"]
for k in run["shots"]:
    print(
        f"k = {k}: share of synthetic images in a region with a real image: "
        + ", ".join(f"{name} {share.loc[(k, name)]:.2f}" for name in GAP_GENS)
    )

# %% [markdown]
# ## Quoted from the paper · The bound and the benchmark results (claim 5)
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
# ## At full scale only · A λ grid
#
# At full scale the chapter also sweeps $\lambda_{dis}\times\lambda_{rob}$ at gap 1, $k=5$, with
# the released configuration's cross-entropy weights and the online partition (not part of any
# verdict).

# %%
if run["lam_grid"]:
    CE = dict(ce_real=cfg.ce_real, ce_syn=cfg.ce_syn)
    grid = fewshot_synthetic.lambda_grid(
        data, run["lam_grid"], k=5, generator="gap 1.0", **CE, **GRID
    )
else:
    print("quick scale: the λ grid runs at full scale only")

# %% tags=["hide-input"]
if run["lam_grid"]:
    fig, ax = plt.subplots(figsize=(5.5, 4.5))
    im = ax.imshow(grid, cmap="viridis", origin="lower")
    ax.grid(False)
    for (a, b), v in np.ndenumerate(grid):
        ax.text(b, a, f"{v:.3f}", ha="center", va="center", color="w", fontsize=8)
    labels, at = [str(v) for v in run["lam_grid"]], range(len(run["lam_grid"]))
    best = np.unravel_index(np.nanargmax(grid), grid.shape)
    title = f"Gap 1, k = 5: best mean accuracy {grid[best]:.3f}\n"
    title += f"at λ_dis = {labels[best[0]]}, λ_rob = {labels[best[1]]}"
    ax.set(xticks=at, xticklabels=labels, yticks=at, yticklabels=labels)
    ax.set(xlabel="λ_rob", ylabel="λ_dis", title=title)
    fig.colorbar(im, ax=ax, label="mean test accuracy")
    plt.show()

# %% [markdown]
# ## Verdicts

# %% tags=["nbval-check-output"]
ledger.show()

# %% tags=["nbval-ignore-output"]
print(run.time_line())

# %% [markdown]
# **Reading the verdicts.** The sentences below are generated from this run's ledger and from the
# committed records (quick scale): the stability record (`data/stability/`; a claim changed since
# it was made is named) and the numerics record (verdicts that move under other kernels and
# thread counts).

# %%
print("\n".join(reading_lines(ledger)))

# %% [markdown]
# ## Deviations from the paper
#
# - **Tolerances widened for a second machine (2026-12-06).** A run on an Intel Xeon with
#   AVX-512 kernels moved claim 3's and 3s's gate (the oracle's gain, 0.0630 there and 0.0659 here on seed 0), claim 3's gains and both claims' per-cell gains beyond the tolerances measured on the AMD
#   machine that made the reference. The run is recorded in the numerics record
#   (`repbook observe --run`, full precision) and those tolerances are now about three
#   times the largest difference seen; no verdict moved beyond its boundary's tolerance,
#   and the reference was re-made on the Intel machine.
# - **Answered in this revision (an independent verdict audit)** — old → new, the reason, and
#   what was known when the change was made:
#   - *Claim 3, the paper's method.* Old: $\lambda_{dis}=\lambda_{rob}=1$ with equal
#     cross-entropy weights (our choice), judged on bare differences of cell means: ≥ 0 in every
#     (gap, shots) cell and > 1 point (the research brief's bar, not the paper's) at $k=5$,
#     gap ≥ 0.5; *not reproduced* (margin −0.027 at gap 0.5, $k=1$). New: the released
#     configuration `clip_vit_caltech` (`ce_real` 4, `ce_syn` 1, $\lambda_{dis}=0.1$,
#     $\lambda_{rob}=1$; chosen as the configuration of the CLIP ViT, the paper's headline model),
#     decided on the per-seed paired gain averaged over the gap-knob cells, mean − $t$·SE > 0,
#     and gated on the oracle beating naive mixing by more than its noise. The old setting is our
#     sensitivity check 3s, shown apart. Known when this was written: the old setting's cell
#     means on three seeds; not known: any result of the released configuration, except that a
#     timing probe, run after the configuration and this criterion were fixed, printed one
#     seed's accuracy for naive mixing and the configuration in one cell (gap 1, $k=5$).
#   - *Quick scale: 3 seeds at 1 and 5 shots → 5 seeds at 5 shots* (1 shot moves to full scale).
#     With $t$ on 3 seeds a gain must exceed more standard errors than on 5 seeds (both
#     quantiles are printed under claim 3). Both shot counts on 5 seeds would not fit the 90 s
#     budget (estimated from a timing probe of single fits). Fixed before the released
#     configuration was run; the 1-shot results of the old setting were known.
#   - *Check 1: a claim of the paper → our own check.* Old: the paired loss real only − naive at
#     gap 1, $k=5$, mean − 2 SE > 0 on 3 seeds; *within noise* (margin −0.007; unstable over
#     chapter seeds). New: the same loss with $t$·SE on 5 seeds, under our own heading: the
#     knob's levels came from a prototype that had seen this loss, so it shows our set-up, not
#     the paper. The font digits (a generator not tuned for it) are printed beside it; their
#     mean at 3 seeds had been printed before (about equal to real only).
#   - *Check 2: a claim of the paper → sanity check*; its test unchanged (it was *reproduced*,
#     margin +0.093). The knob degrades the images by our design.
#   - *Check 4: a claim of the paper → our own check*; its test unchanged (it was *not
#     reproduced*, margin −0.55). Theorem 3.3 is an upper bound; that its terms track the error
#     is our hypothesis. At quick scale it now reads $k=5$ only.
#   - *Check 4 at full scale, after the first full-scale result* (recorded 2026-12-04, 497 s):
#     old, at full scale the criterion also judged the 1-shot discrepancy, error and $\rho$, so
#     its text differed from the quick run's and the book could not pair the full record with
#     this chapter's claims (it read as stale); new, $k=5$ at both scales, the 1-shot values
#     shown. That run's check 4 failed on its 5-shot part, which both criteria judge: the
#     discrepancy 6.78 → 9.04 → 4.84 over the gaps (falling at 0.5 → 1; margin −4.19) and
#     $\rho$ = −0.26; its 1-shot part failed too (5.41 → 3.32 at 0.5 → 1). The record was
#     re-made under the new criterion (598 s) with the same values and verdicts; the first one
#     was not kept.
#   - *Protocols in the module.* The data preparation, the training grid, the paired gains, the
#     partition summary and the λ grid moved from the chapter into
#     `repbook.papers.fewshot_synthetic` (`prepare_seed`, `run_grid`, `paired_gains`,
#     `mean_over_cells`, `partition_summaries`, `lambda_grid`), unit-tested, with the earlier
#     random streams. The discrepancy term is now computed in one pass (equal to the code's
#     loops to 1e-12 in the tests), which may move last digits of earlier runs.
#   - *New columns:* the oracle (the gate of claim 3); the k-means partition column and the
#     partition summary run at full scale only; the λ grid uses the configuration's
#     cross-entropy weights (it used 1:1).
#   - *The "+ λ_dis" column is not new.* Old: $\lambda_{dis}=1$ (CE 1:1) at quick scale → new:
#     the official weights (`ce_real`, `ce_syn`, $\lambda_{dis}$ of `clip_vit_caltech`,
#     $\lambda_{rob}=0$), full scale only.
#   - *Regime string, a correction.* Old: "linear-head models" → new: "MLP 64-128-10"; the
#     chapter's model was the MLP before too, so the old string was wrong.
# - **Answered in a second audit of this revision** (no criterion, gate, seed, threshold or data
#   changed; nothing was re-run to choose the wording):
#   - *Claim 3's statement, a definition change.* Old: "the released configuration beats naive
#     real + synthetic on average over cells" (heading: "the discrepancy and robustness terms
#     help") → new: "the released objective clip_vit_caltech (CE 4:1 + discrepancy +
#     robustness) beats naive real + synthetic (CE 1:1) on average over cells". Why: the audit
#     found that the comparison changes the loss terms *and* the cross-entropy weights, so it
#     cannot credit the terms alone; the control (CE 4:1, $\lambda=0$) is in the full-scale λ
#     grid only. The paper's 0.6 points moved from the `paper` field to the note, labelled as a
#     secondary summary's.
#   - *The configuration judged.* Our MLP from scratch resembles `clip_resnet` (ResNet-50 from
#     scratch, `ce_real` 1, $\lambda_{dis}=0.05$) more than CLIP ViT fine-tuning; we keep
#     `clip_vit_caltech`, fixed before any run as the headline model's. `clip_resnet` as a
#     sensitivity column is not run at quick scale (the 90 s budget), nor yet at full scale.
#   - *The partition summary* (the online partition the training saw) runs at full scale only;
#     at quick scale the diagnostic shown is the k-means share of synthetic images in a region
#     with a real image, under check 4.
# - **Setting.** The paper fine-tunes CLIP (the code also has ResNets) on image benchmarks, with
#   images from a LoRA-tuned Stable Diffusion. None of those weights exist offline. Our real data
#   are the 8 × 8 digits, our generator a per-class Gaussian mixture on a disjoint pool with a
#   controlled gap, our model a 64-128-10 MLP trained from scratch. Effect sizes are not
#   comparable with the paper's; directions are.
# - **Objective.** We follow the released code (`trainers/example_trainer.py`): both terms use
#   `mse_loss` on logits, the $1/(g\,|S_k|)$ and $1/(g\,|G_k|)$ weights, sums over the regions
#   that hold a real point, and the loss weights of `configs/clip_vit_caltech.json`. That
#   configuration also uses AdamW with a cosine schedule (learning rate $10^{-4}$), label
#   smoothing 0.1, batches of 16 real images with 4 synthetic images per real one, CutMix/MixUp,
#   200 prototypes, and fine-tunes the generator (LoRA) with the same loss; we use Adam
#   ($10^{-3}$), no smoothing or mixing, full batches (all real shots with all `n_syn` synthetic
#   images per class; the counts are printed with the data), $K=20$ and a fixed generator.
# - **Partition.** Training uses the code's online prototypes (random normal start in the
#   normalised input space, assignment before the MacQueen update, synthetic points only), with
#   $K=20$ instead of the code's 100–200 for thousands of images. The code's `fast_kmeans` option
#   moves a centroid by $1/n_k$ times the *sum* of a batch's points, which is not the running mean;
#   we implement the default, per-point update. The terms of check 4 are measured on a second,
#   fixed partition: k-means on real ∪ synthetic inputs.
# - **Training and run time.** 150 full-batch steps at quick scale (300 at full): the size table
#   was fixed before any accuracy was seen. The networks run on one thread (`fewshot_synthetic.single_thread`):
#   at this size threads cost more than they save, and a single thread makes the sums
#   independent of the machine. Quick-scale run time, measured 2026-12-02 on 2 AMD EPYC cores:
#   82 s wall for `repbook run 10` under `/usr/bin/time` (a measurement, not computed here; the
#   chapter's own clock, printed under the verdicts, leaves out the kernel's start).
# - **Test set.** Every shot count is tested on the same images (everything outside the pool and
#   the 5-shot set; their count is printed with the data).
# - **What we could not confirm from the paper.** Its full text was not available offline: the
#   bound's form comes from a secondary summary (5a), the benchmark claim from the abstract
#   (5b); the 0.6-point average gain on 10 data sets is a secondary summary's, and claim 3 does
#   not use it as its bar. Claim 3 is the one claim of the paper we judge; checks 1, 2, 3s and 4
#   are ours.
# - **Other criteria changed after their results were known:** those listed above (checks 1, 2
#   and 4 by role; check 1 also by its $t$ quantile and seed count). **Added after results were
#   known** (diagnostics that decide nothing, said where they appear): the partition summary and
#   the synthetic share under check 4.
# - **Not built.** The full-scale CNN on synthetic coloured shapes with a class-conditional
#   generator trained in the notebook is not part of this chapter yet.
#
# ## Run it at full scale
#
# ```bash
# .venv/bin/python -m repbook full 10   # runs it and records it in data/full_runs/
# ```
# Full scale trains 10 seeds for 300 steps at 1 and 5 shots, and adds the $\lambda_{dis}$-only
# column, the k-means partition column, the partition summary and the
# $\lambda_{dis}\times\lambda_{rob}$ grid at gap 1, $k=5$ (CPU minutes; the networks are too
# small to gain from a GPU). The line below is generated from the committed record
# (`data/full_runs/10_fewshot_synthetic.json`): when and how long it ran, each check's verdict
# and margin there, and the checks whose verdict differs from this run's.

# %%
print("\n".join(full_run_lines(ledger)))
