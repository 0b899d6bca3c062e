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
# # 19 · Crop-tied positional encodings and position masking for self-supervised ViTs
#
# Kang-Jun Liu, Masanori Suganuma, Takayuki Okatani — *Self-Supervised Learning of
# Intertwined Content and Positional Features for Object Detection*, ICML 2025 · PMLR 267:
# 39552–39567 · OpenReview `Ku2fvCEpwx` · no arXiv version and no official code found.
#
# ```{important}
# **A mechanism reproduction on synthetic images.** The paper pre-trains ViTs on ImageNet-1K
# and fine-tunes them for COCO detection; neither data set can be fetched here, and a CPU
# could not train those models anyway. This chapter builds the paper's two components into a
# tiny ViT, pre-trains it on generated 48×48 images of coloured shapes, and asks whether the
# *mechanisms* do what the paper says: make position decodable from the features, teach the
# model where a patch whose position was hidden lies, and help a small detector. Its
# numbers say nothing about COCO.
# ```
#
# Self-supervised ViTs such as DINO learn by comparing two random crops of one image. Their
# positional encoding belongs to the crop: the top-left patch of every crop gets the same
# vector, wherever the crop was cut. The paper ties the encoding to the crop instead. The
# encoding is a learnable *vector field* over the whole image; each view gets the field cut
# and resized with exactly the view's box, so two views of one image carry consistent,
# absolute positions. Second, as masked image modelling hides the *content* of some patches,
# the paper also hides the *positional encoding* of some patches and asks the model to
# predict them anyway, so that content and position become intertwined.
#
# ```{admonition} Claims we test
# 1. Crop-tied encodings make the original-image position of a patch decodable from its
#    feature, and pre-training keeps and builds on it: on every pre-training seed a linear
#    probe's $R^2$ of B+PE exceeds the crop-relative baseline's by more than 0.2, and this
#    gain exceeds the same gain on the step-0 weights,
#    $\Delta = g_\text{trained} - g_\text{step 0} > 0$ with $g = R^2_\text{B+PE}-R^2_\text{B}$
#    (both bounds ours, from the research brief).
# 2. Position masking teaches the model where a patch lies when its encoding is hidden: a
#    linear probe on such patches recovers their position with $R^2 > 0.5$, at least 0.1
#    above the same probe on the model trained without position masking (both bounds
#    ours, from the research brief).
# 3. The features are better for detection: a detection-lite AP@0.5 on frozen features is
#    higher with both components than with the baseline (paired by pre-training seed,
#    beyond the seeds' noise, over at least three seeds). At quick scale (one seed) it is
#    not checked; the numbers of a recorded CPU run on three seeds, in its own regime, are
#    shown and gated below.
# 4. The paper's COCO results (quoted, not reproducible on a CPU).
# ```
#
# Every claim is judged only where pre-training did what the claim needs (a gate, signed,
# about learning): for claim 1, pre-training *raised* B+PE's position probe above the
# same probe on its own step-0 weights by at least 0.05 on every seed; for claim 2, it
# raised B+PE+PM's masked-position probe above its step 0 by at least 0.05 (or the
# claim's own test already passes, so that the gate can never hide a pass); for claim 3,
# pre-training helped detection at all: the baseline's AP trained minus its AP at step 0,
# paired by seed, is above 0 beyond the seeds' noise. Unmet, a claim is not checked at
# this scale. How far the field moved and how smooth it stays are shown as diagnostics;
# they gate nothing.
#
# **Sources.** The paper's full text was not available offline. The abstract, the PMLR
# page (Proceedings of Machine Learning Research, volume 267), the OpenReview summary
# (`Ku2fvCEpwx`) and the authors' lab page name the two components and give no numbers;
# the details — the field's default resolution
# (50×50), the random scale $s\sim\mathrm{Beta}(2,5)$ and translation of the field, the
# 50:50 choice between content and position masking per image, the cross-shaped position
# masks, the DINOv2 base objective and the COCO numbers of claim 4 — come from secondary
# summaries and could not be checked against the paper. Everything beyond them is our
# choice and is listed under the deviations.

# %% tags=["parameters"]
scale = "quick"  # "quick" (≤ 150 s on 2 CPU cores) or "full" (GPU: 96×96, 3 seeds)
seed = 0

# %%
import json

import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from matplotlib.patches import Rectangle
from scipy import stats

from repbook.core import (
    Ledger,
    setup,
    use_style,
    color_for,
    data_file,
    register_colors,
    reference_line,
    all_of,
    any_of,
    at_least,
    paired_gain,
    tol,
)
from repbook.core.ledger import unstable_sentence
from repbook.papers import vit_positional_ssl as V

SIZES = {
    # quick: the small ViT and the field's learning rate of the two-point scan (field lr
    # ×1, ×10; see the deviations); 250 steps of 16 images per variant and one seed, cut
    # for time (from 600, then 400) so that the chapter fits the 150 s budget on 2 cores
    "quick": dict(
        size=48,
        field=16,
        arch=V.SMALL_ARCH,
        head_dim=64,
        field_init="sincos",
        field_lr=10.0,
        n_ssl=2000,
        steps=250,
        batch=16,
        train_seeds=1,
        n_pos=500,
        n_det=1000,
        detection=False,  # claim 3: the recorded CPU run (3 seeds) below
        ablations=[],
    ),
    "full": dict(
        size=96,
        field=50,
        arch=V.SMALL_ARCH,
        head_dim=64,
        field_init="sincos",
        field_lr=10.0,
        n_ssl=20000,
        steps=3000,
        batch=64,
        train_seeds=3,
        n_pos=1000,
        n_det=1000,
        detection=True,
        ablations=[
            ("field 16×16", dict(field_size=16)),
            ("scale uniform", dict(field_scale="uniform")),
            ("scale constant", dict(field_scale="constant")),
            ("box position masks", dict(pos_mask_shape="box")),
            ("content:position 100:0", dict(pos_mask_share=0.0)),
            ("content:position 0:100", dict(pos_mask_share=1.0)),
        ],
    ),
}
run = setup(scale=scale, seed=seed, sizes=SIZES)
ledger = Ledger.for_run(
    run,
    regime=(
        f"synthetic {run['size']}×{run['size']} shape scenes; tiny ViT (dim "
        f"{dict(run['arch'])['dim']}, depth "
        f"{dict(run['arch'])['depth']}; sin-cos field, "
        f"field lr ×{run['field_lr']:g}) pre-trained {run['steps']} steps × "
        f"{run['batch']} images per variant; frozen probes; {run.device}"
    ),
)
use_style()
register_colors({"B": "baseline", "B+PE": "alt", "B+PE+PM": "ours"})
SIZE, PATCH = run["size"], 6
GRID = SIZE // PATCH

# %% [markdown]
# ## Data: shapes on a textured background
#
# Each image holds one to three non-overlapping squares, disks, triangles or crosses of
# random colour, position and size (a fifth to almost half of the image side) on a smooth
# random texture with pixel noise. The generator also returns instance and class masks and
# boxes, so the pre-training never sees labels but the probes can be scored. `n_ssl` images
# serve the self-supervised pre-training; separate images serve the probes.

# %%
ssl_scenes = V.make_scenes(run["n_ssl"], run.child_rng(1), size=SIZE)
probes = V.make_probe_set(
    run["n_pos"], run["n_det"], run.child_rng(2), size=SIZE, grid=GRID
)
det_train, det_test = probes.det_train, probes.det_test
n_pos, pos_boxes, pos_images = probes.n_pos, probes.pos_boxes, probes.pos_images
print(
    f"{len(ssl_scenes)} pre-training images, {len(det_train)} + {len(det_test)} probe "
    f"images; objects per image: {ssl_scenes.counts.mean():.2f} on average"
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 6, figsize=(11, 2.2))
for ax, i in zip(axes, range(6)):
    ax.imshow(ssl_scenes.images[i].transpose(1, 2, 0))
    for k in range(int(ssl_scenes.counts[i])):
        x0, y0, x1, y1 = ssl_scenes.boxes[i, k]
        ax.add_patch(
            Rectangle(
                (x0 - 0.5, y0 - 0.5), x1 - x0, y1 - y0, fill=False, lw=1.2, ec="w"
            )
        )
        ax.text(
            x0, y0 - 1, V.SHAPES[ssl_scenes.labels[i, k] - 1], color="w", fontsize=7
        )
    ax.set_axis_off()
fig.suptitle(
    "Synthetic scenes with their ground-truth boxes (never seen in pre-training)"
)
plt.show()

# %% [markdown]
# ## The method
#
# **Crop-tied encoding.** The encoding is a field $P\in\mathbb{R}^{d\times h_p\times w_p}$
# over the image, with image coordinates $(x, y)\in[0,1]^2$. A view is a box
# $(t, l, h, w)$ and a flip bit; the centre of its patch $(i, j)$ on a $g\times g$ grid lies
# at
#
# $$x_{ij} = l + w\,\tilde u_j,\quad y_{ij} = t + h\,\frac{i+\frac12}{g},\qquad
# \tilde u_j = \begin{cases}\frac{j+\frac12}{g} & \text{no flip}\\
# 1-\frac{j+\frac12}{g} & \text{flip}\end{cases}$$
#
# and its encoding is $P$ sampled bilinearly at $(x_{ij}, y_{ij})$: the field is cropped,
# flipped and resized exactly like the image. During pre-training each image is also placed
# at a random window of the field, $(x, y)\mapsto (t_x, t_y) + a\,(x, y)$ with $a = 1-s$,
# $s\sim\mathrm{Beta}(2, 5)$, $t\sim U(0, s)^2$ (the same for both views of one image), so
# that absolute field values cannot be memorised; probes use the identity placement. The
# crop-relative baseline samples the same kind of field over the view itself, so every
# crop gets the same encodings.
#
# **Position masking.** For each image, with probability ½ the content embeddings of 30 %
# of the patches are replaced by a learnable vector (as in iBOT); otherwise the *encodings*
# of a cross-shaped 30 % of the patches are replaced by another learnable vector. In both
# cases the student predicts the teacher's tokens of the same, unmasked view there.
#
# By hand, the crop of the field is one call of PyTorch's `grid_sample` at the patch centres;
# the library does the same sampling as two small matrix products (a form whose gradient is
# deterministic on every device).

# %%
rng = run.child_rng(3)
field = torch.randn(4, 16, 16)
box = V.sample_view_boxes(1, rng)[0]
box[4] = 1.0  # a flipped view
t, l, h, w, _ = box
u = (np.arange(GRID) + 0.5) / GRID
xs, ys = l + w * (1 - u), t + h * u  # patch centres in the image, flipped columns
grid = np.stack(np.meshgrid(xs, ys), axis=-1)[None]  # (1, g, g, 2) as (x, y)
by_hand = F.grid_sample(
    field[None],
    torch.as_tensor(2 * grid - 1, dtype=torch.float32),
    align_corners=False,
    padding_mode="border",
)
lib = V.crop_resize(field, box[None], (GRID, GRID))
print(f"view box (top, left, h, w, flip) = {np.round(box, 3)}")
print(f"by hand vs library: max |difference| = {(by_hand - lib).abs().max():.1e}")
identity = V.crop_resize(field, V.identity_boxes(1), (16, 16))[0]
gap = (identity - field).abs().max()
print(f"identity view returns the field: max |difference| = {gap:.1e}")

# %% [markdown]
# ## Pre-training three variants under one budget
#
# **B** is the baseline: an EMA teacher, a cosine loss between the student's predicted CLS
# projection of one view and the teacher's of the other, and a masked-patch loss (cosine
# regression of the student's masked patch tokens onto the teacher's), with crop-relative
# encodings and content masking on every image. **B+PE** swaps in the crop-tied field;
# **B+PE+PM** adds position masking (content or position masking, 50:50 per image). The
# model is a small ViT with 6×6 patches (8×8 tokens at 48×48), width 48, depth 2, 3 heads,
# MLP ratio 2, and a CLS token. The field starts as a 2D sine-cosine table (half the
# channels encode $x$, half $y$, at geometric frequencies; element std 0.02, as a random
# ViT position embedding would have) and learns at ten times the network's learning rate.
# What the variants share on a pre-training seed: the image pool, the number of steps and
# the batch size, and the initial weights and field (the same seed builds the student);
# the draws of views, field placements (B draws none) and masks differ between variants.
# Each run's untrained reference is its own student at step 0. The feature std (the
# spread of the teacher's normalised CLS projections over the batch, about 1 when spread,
# 0 at collapse) is logged to catch collapse.


# %% tags=["hide-input"]
def ssl_config(variant, **override):
    keys = ("steps", "batch", "arch", "head_dim", "field_init", "field_lr")
    base = dict(variant=variant, field_size=run["field"], **{k: run[k] for k in keys})
    return V.SSLConfig(**{**base, **override})


models, traces, initial = {}, {}, {}
for k in range(run["train_seeds"]):
    for variant in V.VARIANTS:
        cfg = ssl_config(variant)
        initial[variant, k] = V.initial_student(cfg, SIZE, run.child_rng(1000 + k))
        models[variant, k], traces[variant, k] = V.pretrain(
            ssl_scenes.images, cfg, run.child_rng(1000 + k), device=run.device
        )
final_std = {
    v: float(
        np.mean(
            [traces[v, k].feature_std[-20:].mean() for k in range(run["train_seeds"])]
        )
    )
    for v in V.VARIANTS
}
print(
    "final feature std (mean of the last 20 steps): "
    + ", ".join(f"{v} {s:.2f}" for v, s in final_std.items())
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.4))
steps = np.arange(1, run["steps"] + 1)
smooth = lambda a: pd.Series(a).rolling(10, min_periods=1).mean()  # noqa: E731
for (variant, k), tr in traces.items():
    lab = variant if k == 0 else None
    axes[0].plot(steps, smooth(tr.loss), color=color_for(variant), label=lab, lw=1)
    axes[1].plot(
        steps, smooth(tr.feature_std), color=color_for(variant), label=lab, lw=1
    )
axes[0].set(
    xlabel="step",
    ylabel="loss (image + patch)",
    yscale="log",
    title="Pre-training loss (10-step mean)",
)
axes[1].set(
    xlabel="step",
    ylabel="feature std × √dim",
    ylim=(0, 1.2),
    title="Feature std over training (0 = collapse)",
)
axes[0].legend()
plt.show()

# %% [markdown]
# ## Frozen-feature probes
#
# Every probe reads frozen tokens of the student backbone. The position probe takes one
# random view per image (the pre-training crop law: area 32–100 %, aspect 3/4–4/3, flip with
# probability ½), and fits a ridge map from each patch token to the *original-image*
# $(x, y)$ of that patch's centre on `n_pos` images; $R^2$ is measured on `n_pos` others.
# The masked-position probe does the same on the tokens of a cross of 30 % of patches
# whose encodings were replaced by the position-mask vector. The image-level content probes
# read whole images; detection-lite (claim 3) runs at full scale and in the recorded run.
# The probes are linear. Two diagnostics, which decide nothing, help read the position
# results: how far the field moved, $\lVert P_T-P_0\rVert/\lVert P_0\rVert$, and its
# smoothness, the mean cosine similarity of neighbouring field cells (about 0 for a random
# field, near 1 for a smooth one such as the sine-cosine start).


# %%
def evaluate(model):
    return V.probe_suite(
        model, probes, patch=PATCH, context=1, features=1024,
        detection=run["detection"],
    )  # fmt: skip


# %% tags=["hide-input"]
results = {key: evaluate(m) for key, m in models.items()}
# the same probes on each run's own step-0 weights: what the input alone carries, and
# how far pre-training moved the probes and the field
init = {key: evaluate(m.to(run.device)) for key, m in initial.items()}
moved = {key: V.field_change(initial[key].field, models[key].field) for key in models}
init_field = {v: initial[v, 0].field.detach().cpu() for v in V.VARIANTS}
seeds = range(run["train_seeds"])
table = pd.DataFrame(
    {
        v: {
            "position R²": np.mean([results[v, k]["pos"].r2 for k in seeds]),
            "position R² untrained": np.mean([init[v, k]["pos"].r2 for k in seeds]),
            "masked-position R²": np.mean([results[v, k]["masked"].r2 for k in seeds]),
            "masked-position R² untrained": np.mean(
                [init[v, k]["masked"].r2 for k in seeds]
            ),
            "field change ‖P_T − P_0‖/‖P_0‖": np.mean([moved[v, k] for k in seeds]),
            "field smoothness": np.mean(
                [V.field_smoothness(models[v, k].field) for k in seeds]
            ),
            "field smoothness untrained": V.field_smoothness(init_field[v]),
            **(
                {
                    "patch mIoU": np.mean([results[v, k]["det"].miou for k in seeds]),
                    "AP@0.5": np.mean([results[v, k]["det"].ap50 for k in seeds]),
                }
                if run["detection"]
                else {}
            ),
            "count accuracy": np.mean([results[v, k]["count accuracy"] for k in seeds]),
            "type accuracy": np.mean([results[v, k]["type accuracy"] for k in seeds]),
            "final feature std": final_std[v],
        }
        for v in V.VARIANTS
    }
)
print(f"means over {run['train_seeds']} pre-training seed(s):")
print(table.round(3).to_string())

# %% [markdown]
# ## Claim 1 · Crop-tied encodings make original-image position decodable
#
# A crop-relative model knows where a patch lies *in its view*; where the view lies in the
# image, and whether it was flipped, it can only guess from content, which here carries no
# such cue. A crop-tied model receives the original-image position as input; the question
# is whether it survives pre-training into the output features (the random placement of the
# field gives the network every reason to stop trusting absolute field values).
#
# **Gate and criterion.** Gate: pre-training raised B+PE's position probe above the same
# probe on its own step-0 weights by at least 0.05, on every seed (signed: a fall does not
# count as training). Criterion, on every seed: $g = R^2_\text{pos}(\text{B+PE}) -
# R^2_\text{pos}(\text{B}) > 0.2$, and the learned part $\Delta = g_\text{trained} -
# g_\text{step 0} > 0$ (both bounds ours, from the research brief; the sine-cosine input
# alone gives B+PE a large $g$ at step 0, so $g$ alone would measure the input). It fails
# if pre-training washes the field's position out of the tokens faster than it teaches
# the baseline, or if the baseline recovers position from content as well. Both were
# changed after the auditor's numbers were seen (see the deviations).

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 4, figsize=(12, 3.1))
img_i = n_pos  # a test image of the position probe
vbox = pos_boxes[img_i]
m_pe = models["B+PE", 0]
P = m_pe.field.detach().cpu()
basis = torch.linalg.svd(
    P.flatten(1) - P.flatten(1).mean(1, keepdim=True), full_matrices=False
)[0][:, :3]


def field_rgb(f):  # the field's top three principal components as colours
    z = torch.einsum("dc,dhw->chw", basis, f - P.flatten(1).mean(1)[:, None, None])
    z = (z - z.amin((1, 2), keepdim=True)) / (
        z.amax((1, 2), keepdim=True) - z.amin((1, 2), keepdim=True)
    )
    return z.permute(1, 2, 0).numpy()


def draw_box(ax, b, n):
    ax.add_patch(
        Rectangle(
            (b[1] * n - 0.5, b[0] * n - 0.5),
            b[3] * n,
            b[2] * n,
            fill=False,
            ec="w",
            lw=1.5,
            ls="--" if b[4] else "-",
        )
    )


axes[0].imshow(pos_images[img_i].transpose(1, 2, 0))
draw_box(axes[0], vbox, SIZE)
axes[0].set_title("image and view box")
view = V.crop_resize(
    torch.as_tensor(pos_images[img_i : img_i + 1]), vbox[None], (SIZE, SIZE)
)[0]
axes[1].imshow(view.permute(1, 2, 0).numpy())
axes[1].set_title("the view" + (" (flipped)" if vbox[4] else ""))
axes[2].imshow(field_rgb(P))
draw_box(axes[2], vbox, P.shape[-1])
axes[2].set_title("trained field P (B+PE)")
axes[3].imshow(field_rgb(V.crop_resize(P, vbox[None], (GRID, GRID))[0]))
axes[3].set_title("its crop: the view's encodings")
for ax in axes:
    ax.set_axis_off()
fig.suptitle("A view and its crop-tied encodings are cut with the same box")
plt.show()

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(6, 3.6))
for j, v in enumerate(V.VARIANTS):
    r2s = [results[v, k]["pos"].r2 for k in seeds]
    ax.bar(j, np.mean(r2s), color=color_for(v), alpha=0.8, width=0.6)
    ax.scatter(
        [j] * len(r2s),
        r2s,
        color="k",
        s=14,
        zorder=3,
        label="pre-training seed" if j == 0 else None,
    )
    ax.scatter(
        j,
        table.loc["position R² untrained", v],
        marker="_",
        s=500,
        color=color_for("muted"),
        zorder=3,
        label="step-0 weights (untrained)" if j == 0 else None,
    )
reference_line(ax, table.loc["position R²", "B"] + 0.2, "B + 0.2 (claim 1)")
ax.set(
    xticks=range(3),
    xticklabels=V.VARIANTS,
    ylim=(0, 1.05),
    ylabel="R² of original-image (x, y)",
    title="Linear probe of original-image position, trained vs step-0 weights",
)
ax.legend(loc="upper left", fontsize=8)
plt.show()


# %%
def r2(v, probe, k, of=None):
    return (of or results)[v, k][probe].r2


gain1 = [r2("B+PE", "pos", k) - r2("B", "pos", k) for k in seeds]
gain1_0 = [r2("B+PE", "pos", k, init) - r2("B", "pos", k, init) for k in seeds]
learned1 = list(np.subtract(gain1, gain1_0))
rise1 = [r2("B+PE", "pos", k) - r2("B+PE", "pos", k, init) for k in seeds]
print(
    f"R²_pos: B {table.loc['position R²', 'B']:.3f}, B+PE "
    f"{table.loc['position R²', 'B+PE']:.3f}, B+PE+PM "
    f"{table.loc['position R²', 'B+PE+PM']:.3f}; per seed: gain of B+PE over B "
    + ", ".join(f"{g:.3f}" for g in gain1)
    + " (step 0: "
    + ", ".join(f"{g:.3f}" for g in gain1_0)
    + "), learned part Δ "
    + ", ".join(f"{g:+.3f}" for g in learned1)
    + "; B+PE trained − step 0 "
    + ", ".join(f"{g:+.3f}" for g in rise1)
)
ledger.check(
    1,
    "crop-tied PE makes original-image position linearly decodable",
    paper=(
        "PE tied to the crop carries absolute position (mechanism); bounds ours (brief)"
    ),
    source="abstract",
    evidence="simulation",
    measured={
        "R² gain (B+PE − B)": gain1,
        "R² gain at step 0": gain1_0,
        "learned part Δ (gain − gain at step 0)": learned1,
        "B+PE: R² trained − step 0": rise1,
        "R² B": table.loc["position R²", "B"],
        "R² B+PE": table.loc["position R²", "B+PE"],
    },
    gate=at_least("B+PE: R² trained − step 0", 0.05),  # pre-training raised the probe
    criterion=all_of(
        at_least("R² gain (B+PE − B)", 0.2, strict=True),
        at_least("learned part Δ (gain − gain at step 0)", 0.0, strict=True),
    ),
    tolerance={  # 3-6× the largest difference in data/numerics (repbook numerics 19)
        "R² gain (B+PE − B)": tol(abs=0.0004),
        "R² gain at step 0": tol(abs=3e-08),
        "learned part Δ (gain − gain at step 0)": tol(abs=0.0004),
        "B+PE: R² trained − step 0": tol(abs=0.0002),
        "R² B": tol(abs=0.0003),
        "R² B+PE": tol(abs=0.0002),
    },
)

# %% [markdown]
# How to read it: the grey marks are the same linear probe on each run's step-0 weights, and
# the lines below compare them with the trained ones, next to how far the field moved and
# its smoothness. The dashed line is what B+PE needed: B's $R^2$ plus 0.2.

# %%
for v in V.VARIANTS:
    row = table[v]
    print(
        f"{v:8s} linear R² {row['position R²']:.3f} (step 0 "
        f"{row['position R² untrained']:.3f}), field moved "
        f"{row['field change ‖P_T − P_0‖/‖P_0‖']:.2f} of its initial norm, smoothness "
        f"{row['field smoothness']:.2f} (step "
        f"0 {row['field smoothness untrained']:.2f})"
    )
enc0 = V.encoding_r2(init_field["B+PE"], pos_boxes, GRID)
enc1 = V.encoding_r2(models["B+PE", 0].field, pos_boxes, GRID)
print(
    "linear R² from the crop-tied encodings alone (no network): step-0 field "
    f"{enc0:.3f}, trained B+PE field {enc1:.3f}"
)

# %%
pe_t, pe_0 = (
    table.loc["position R²", "B+PE"],
    table.loc["position R² untrained", "B+PE"],
)
b_t, b_0 = table.loc["position R²", "B"], table.loc["position R² untrained", "B"]
print(
    "The sine-cosine field gives every "
    "patch a smooth code of where it lies: at step 0 "
    f"the probe reads R² {pe_0:.3f} from B+PE (B {b_0:.3f}), and after pre-training "
    f"{pe_t:.3f} (B {b_t:.3f}): pre-training "
    f"{'lowered' if pe_t < pe_0 else 'raised'} "
    "what B+PE's tokens carry of position, and "
    f"{'lowered' if b_t < b_0 else 'raised'} B's. The encodings alone give R² "
    f"{enc0:.3f} (step-0 field) and {enc1:.3f} (trained field)."
)

# %% [markdown]
# ## Claim 2 · Position masking teaches where a masked patch lies
#
# When a patch's encoding is replaced by the position-mask vector, its own input says
# nothing about where it is; its token can only know it from its content and its
# neighbours. Pre-training with position masking asks exactly that (the teacher's token
# there does carry the position); the variant without position masking never practised it.
#
# **Gate and criterion.** Gate (changed after the auditor's numbers were seen; see the
# deviations): pre-training raised B+PE+PM's masked-position probe above the same probe
# on its step-0 weights by at least 0.05 on every seed, or the criterion's first part
# already holds (so that the gate can never hide a pass). Criterion (fixed before the
# first run; both bounds ours, from the research brief): on every pre-training seed the
# masked-position probe on B+PE+PM reaches $R^2 > 0.5$, and exceeds the same probe on
# B+PE (its position-mask vector, never trained, stays at its zero initialisation) by at
# least 0.1. It fails if the tiny model, in this budget, does not learn to place a patch
# from context, or if context alone already places it without the training.

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(9, 4.2), sharey=True)
pick = run.child_rng(5).choice(
    len(results["B+PE+PM", 0]["masked"].true), 120, replace=False
)
for ax, v in zip(axes, ["B+PE", "B+PE+PM"]):
    res = results[v, 0]["masked"]
    tt, pp = res.true[pick], res.pred[pick]
    ax.plot(
        np.stack([tt[:, 0], pp[:, 0]]),
        np.stack([tt[:, 1], pp[:, 1]]),
        color=color_for("muted"),
        lw=0.6,
    )
    ax.scatter(tt[:, 0], tt[:, 1], s=10, color="k", label="true position")
    ax.scatter(pp[:, 0], pp[:, 1], s=12, color=color_for(v), label="predicted")
    ax.set(
        xlim=(-0.1, 1.1),
        ylim=(1.1, -0.1),
        xlabel="x in the original image",
        title=f"{v}: R² = {res.r2:.2f}",
    )
axes[0].set_ylabel("y in the original image")
axes[0].legend(fontsize=8, loc="lower left")
fig.suptitle(
    "Patches whose encodings were masked: true and probed positions (120 shown)"
)
plt.show()

# %%
masked_pm = [r2("B+PE+PM", "masked", k) for k in seeds]
gain2 = [masked_pm[k] - r2("B+PE", "masked", k) for k in seeds]
rise2 = [masked_pm[k] - r2("B+PE+PM", "masked", k, init) for k in seeds]
print(
    "masked-position R² per seed: B+PE+PM "
    + ", ".join(f"{r:.3f}" for r in masked_pm)
    + "; gain over B+PE "
    + ", ".join(f"{g:.3f}" for g in gain2)
    + "; B+PE+PM trained − step 0 "
    + ", ".join(f"{g:+.3f}" for g in rise2)
)
ledger.check(
    2,
    "position masking teaches where position-masked patches lie",
    paper="masking and prediction of positional embeddings (mechanism); bounds ours "
    "(brief)",
    source="abstract",
    evidence="simulation",
    measured={
        "masked R² (B+PE+PM)": masked_pm,
        "gain over B+PE": gain2,
        "B+PE+PM: masked R² trained − step 0": rise2,
    },
    gate=any_of(  # pre-training raised the masked probe, or the claim's test passes
        at_least("B+PE+PM: masked R² trained − step 0", 0.05),
        at_least("masked R² (B+PE+PM)", 0.5, strict=True),
    ),
    criterion=all_of(
        at_least("masked R² (B+PE+PM)", 0.5, strict=True),
        at_least("gain over B+PE", 0.1),
    ),
    tolerance={  # 3-6× the largest difference in data/numerics (repbook numerics 19)
        "masked R² (B+PE+PM)": tol(abs=0.0002),
        "gain over B+PE": tol(abs=0.0001),
        "B+PE+PM: masked R² trained − step 0": tol(abs=0.0002),
    },
)

# %% [markdown]
# The segments join each masked patch's true position to the probe's guess. An $R^2$ near 0
# means the probe does no better than guessing the mean position for every masked patch:
# the token then carries no linearly readable trace of where the patch lies.

# %%
mpm0 = table.loc["masked-position R² untrained", "B+PE+PM"]
print(f"masked-position R² of B+PE+PM at step 0: {mpm0:.3f}")

# %% [markdown]
# ## Claim 3 · Better features for detection
#
# Detection-lite on frozen patch tokens. Each patch is described by the tokens of the 3×3
# patches around it, mapped through 1,024 fixed random ReLU features (the same map for
# every model), and three closed-form ridge heads read them: a 5-way patch classifier
# (background and four shapes) gives the class map on the patch grid (mIoU); a centre head
# scores each patch for holding an object's box centre; a box head regresses the box's
# offset and log size from patches that hold a centre. Decoding keeps 3×3 local maxima of
# the centre score and labels them with the best shape class; AP@0.5 is averaged over the
# four classes. Heads are fitted on `n_det` images and scored on `n_det` others. The
# *chance AP* is the same heads scoring every test image with the next test image's
# tokens (a diagnostic). (A head reading one token linearly, as in the first version of
# this chapter, gave AP ≈ 0.03, which could not tell one set of features from another.)
#
# **Gate and criterion** (changed after the auditor's numbers were seen; see the
# deviations). Gate: pre-training helps detection at all: the baseline's AP trained minus
# its AP on its own step-0 weights, paired by seed over at least three seeds, has mean
# minus $t_{0.975,n-1}$ standard errors above 0. Only then can a variant's gain be read as
# better features rather than as losing less of what random features give the head.
# Criterion: the gain AP@0.5(B+PE+PM) − AP@0.5(B), paired by pre-training seed (on a
# seed both variants start from the same weights and field and draw from the same image
# pool; their view, placement and mask draws differ), has mean minus
# $t_{0.975,n-1}$ standard errors > 0. It fails if the mean plus $t$ standard errors is
# ≤ 0; in between it is within the noise. At quick scale one seed is pre-trained per
# variant, so the claim is `not checked at this scale` there. A recorded CPU run
# (`data/19_vit_positional_ssl/record_detection.py`, in its own regime, printed below,
# with its own data and seed streams: the same kind of pre-training, not the chapter's
# runs) gives the numbers on three seeds; they are gated and judged the same way below.


# %%
def t_k(n):  # the two-sided 95 % t quantile for the mean of n paired differences
    return float(stats.t.ppf(0.975, n - 1))


def claim3_rules(n):
    gate = paired_gain(
        "pre-training AP gain (B − B at step 0), per seed", 0, k=t_k(n), min_seeds=3
    )
    return gate, paired_gain("AP gain (B+PE+PM − B), per seed", 0, k=t_k(n))


def claim3_values(ap, ap0):
    return {
        "AP gain (B+PE+PM − B), per seed": list(np.subtract(ap["B+PE+PM"], ap["B"])),
        "pre-training AP gain (B − B at step 0), per seed": list(
            np.subtract(ap["B"], ap0)
        ),
        "AP B": float(np.mean(ap["B"])),
        "AP B at step 0": float(np.mean(ap0)),
        "AP B+PE+PM": float(np.mean(ap["B+PE+PM"])),
    }


statement3 = "detection-lite AP on frozen features improves"
paper3 = "COCO AP^box gains over DINOv2† (ViT-S)"
if run["detection"]:
    ap = {v: [results[v, k]["det"].ap50 for k in seeds] for v in V.VARIANTS}
    chance = [results["B", k]["det"].chance_ap50 for k in seeds]
    untrained_ap = [init["B", k]["det"].ap50 for k in seeds]
    gate3, crit3 = claim3_rules(len(untrained_ap))
    ledger.check(
        3, statement3, paper=paper3, source="secondary summary",
        evidence="simulation", measured=claim3_values(ap, untrained_ap),
        gate=gate3, criterion=crit3,
    )  # fmt: skip
else:
    rec = json.loads(
        data_file("19_vit_positional_ssl", "detection_record.json").read_text()
    )
    ap, untrained_ap = rec["ap"], rec["untrained_ap"]["B"]
    chance = rec["chance_ap"]["B"]
    gate3, crit3 = claim3_rules(len(untrained_ap))
    values3 = claim3_values(ap, untrained_ap)
    g3, o3 = gate3.evaluate(values3), crit3.evaluate(values3)
    m3, _, h3, n3 = gate3.interval(values3)
    reading3 = (
        f"gate unmet (B trained − B at step 0: mean {m3:+.3f}, ± {h3:.3f} at "
        f"t = {t_k(n3):.2f}), so the criterion is not read"
        if not g3.passed
        else "gate met; criterion "
        + (
            "holds"
            if o3.passed
            else "within noise"
            if o3.undecided
            else "does not hold"
        )
    )
    reg3 = rec["regime"]
    print(
        f"recorded CPU run: seeds {rec['seeds']}, "
        f"its own regime ({reg3['steps']} steps "
        f"of {reg3['batch']} images, field lr ×{reg3['field_lr']:g}, "
        f"{rec['data']['n_ssl']} pre-training images), {rec['seconds']:.0f} s on 2 "
        f"cores: {reading3}"
    )
    ledger.not_checked(
        3, statement3, paper=paper3, source="secondary summary", criterion=crit3,
        measured={f"recorded run: {k}": v for k, v in values3.items()},
        note=f"one pre-training seed at quick scale; a recorded CPU run in its own "
        f"regime ({reg3['steps']} steps, seeds {rec['seeds']}; values shown): "
        f"{reading3}; the full scale (3 seeds, GPU) checks it in the run",
    )  # fmt: skip
print(
    "AP@0.5 per seed: "
    + "; ".join(f"{v} " + ", ".join(f"{a:.3f}" for a in ap[v]) for v in ap)
    + "\nchance AP (B's heads, tokens of another image): "
    + ", ".join(f"{a:.3f}" for a in chance)
    + "\nB at step 0 (untrained weights): "
    + ", ".join(f"{a:.3f}" for a in untrained_ap)
)
ap_b, ap_b0 = float(np.mean(ap["B"])), float(np.mean(untrained_ap))
print(
    f"pre-training {'lowered' if ap_b < ap_b0 else 'raised'} the baseline's AP against "
    f"its step-0 weights ({ap_b0:.3f} → {ap_b:.3f}, mean over seeds)"
    + (
        ": pre-training did not help detection at this scale, so no variant's gain can "
        "be read as better features"
        if ap_b < ap_b0
        else ""
    )
)

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(6.4, 3.8))
n3 = len(ap["B"])
for k in range(n3):
    ax.plot(
        [0, 1], [ap["B"][k], ap["B+PE+PM"][k]], color=color_for("muted"), lw=0.8,
        zorder=1,
    )  # fmt: skip
for j, v in enumerate(["B", "B+PE+PM"]):
    ax.scatter([j] * n3, ap[v], color=color_for(v), s=30, zorder=3, label=v)
ax.scatter(
    [-0.15] * n3, untrained_ap, marker="_", s=300, color="k",
    label="B at step 0 (untrained)",
)  # fmt: skip
ax.scatter(
    [-0.15] * n3, chance, marker="x", s=30, color=color_for("muted"),
    label="chance (another image's tokens)",
)  # fmt: skip
ax.set(
    xticks=[0, 1], xticklabels=["B", "B+PE+PM"], xlim=(-0.5, 1.5),
    ylabel="detection-lite AP@0.5",
    title="Detection AP per pre-training seed, lines pair a seed"
    + ("" if run["detection"] else " (recorded CPU run)"),
)  # fmt: skip
ax.legend(fontsize=8, loc="best")
plt.show()

# %% [markdown]
# The image-level probes (shape count and shape types, in the table above) are a control:
# they show whether content survives in the features of each variant; they carry no verdict.
#
# ## Claim 4 · The paper's COCO results (quoted)
#
# These numbers come from secondary summaries of the paper and could not be checked against
# its text; they are shown for context and not re-derived.

# %%
ledger.quote(
    4,
    "COCO gains with ViT-S over the authors' DINOv2 reproduction",
    paper="PE +1.9, position masking +2.4, both +3.5 AP^box",
    source="secondary summary",
    note="ViTDet Mask R-CNN, 12 epochs; also ahead of DINO, MAE, iBOT and dense SSL "
    "methods with fewer pre-training epochs; no clear gain on ADE20K",
)

# %% [markdown]
# ## Ablations (full scale only)
#
# At full scale, B+PE+PM is re-trained (first seed) with one choice changed at a time: the
# field's resolution, the law of the field's scale, box instead of cross position masks,
# and content:position masking shares of 100:0 and 0:100. The table carries no verdict.

# %% tags=["hide-input"]
abl_rows = []
for name, override in run["ablations"]:
    cfg = ssl_config("B+PE+PM", **override)
    m, _ = V.pretrain(ssl_scenes.images, cfg, run.child_rng(1000), device=run.device)
    r = evaluate(m)
    abl_rows.append(
        {
            "ablation": name,
            "position R²": r["pos"].r2,
            "masked-position R²": r["masked"].r2,
            "AP@0.5": r["det"].ap50,
        }
    )
if abl_rows:
    base = results["B+PE+PM", 0]
    abl_rows.insert(
        0,
        {
            "ablation": "B+PE+PM (default)",
            "position R²": base["pos"].r2,
            "masked-position R²": base["masked"].r2,
            "AP@0.5": base["det"].ap50,
        },
    )
    print(pd.DataFrame(abl_rows).round(3).to_string(index=False))
else:
    print("ablations run at full scale only")

# %% [markdown]
# ## Verdicts
#
# **Stability.** The stability run (`repbook stability 19 --seeds 5`, seeds 0–4 at quick
# scale) gives the *seeds* column; a claim changed since the record was made reads "stale
# record". The line below the table is generated from that record ("record stale" when
# the record predates the claims as they are now).

# %% tags=["nbval-check-output"]
ledger.show()

# %%
stability = ledger.stability()
if stability is None:
    print("No stability record yet.")
elif stability.is_stale(ledger):
    print(
        "record stale: the stability record (made at "
        f"{stability.provenance.get('commit', 'an earlier commit')}) describes claims "
        "that have changed since; it is to be re-made"
    )
else:
    print(
        unstable_sentence(ledger, stability)
        or "No claim flips between the record's seeds."
    )

# %% tags=["nbval-ignore-output"]
import time

print(
    f"chapter run time: {run.elapsed():.1f} s at scale={run.scale!r} on {run.device} "
    f"(CPU time of this process: {time.process_time():.1f} s)"
)

# %% [markdown]
# ## The regime scan
#
# Before the quick scale was fixed, the field's learning rate was scanned at two points
# (×1 and ×10 the network's rate; 800 steps of 16 images, seed 1000, sine-cosine field,
# B+PE and B+PE+PM; `data/19_vit_positional_ssl/regime_scan.py`, output
# `regime_scan.jsonl`). The table is read from that file. For each row, the gate of the
# claim that reads it (claim 1: B+PE's position probe; claim 2: B+PE+PM's masked-position
# probe) is evaluated both as it was when ×10 was chosen (two-sided: the probe moved by
# ≥ 0.05 either way, or the field by ≥ half its norm) and as it is now (signed: the probe
# rose by ≥ 0.05).

# %% tags=["hide-input"]
scan_text = data_file("19_vit_positional_ssl", "regime_scan.jsonl").read_text()
scan_rows = []
for r in (json.loads(line) for line in scan_text.splitlines() if line.strip()):
    probe = "pos" if r["v"] == "B+PE" else "masked"
    delta = r["trained"][probe] - r["untrained"][probe]
    scan_rows.append(
        {
            "field lr": f"×{r['lr']:g}",
            "variant": r["v"],
            "R² step 0": r["untrained"]["pos"],
            "R² trained": r["trained"]["pos"],
            "masked R² step 0": r["untrained"]["masked"],
            "masked R² trained": r["trained"]["masked"],
            "field change": r["field"],
            "smoothness": r["smooth"],
            "gated probe": "position" if probe == "pos" else "masked",
            "its trained − step 0": delta,
            "old gate": abs(delta) >= 0.05 or r["field"] >= 0.5,
            "new gate": delta >= 0.05,
        }
    )
scan_df = pd.DataFrame(scan_rows)
print(scan_df.round(3).to_string(index=False))
for lr, grp in scan_df.groupby("field lr", sort=False):
    print(
        f"field lr {lr}: old two-sided gate "
        + ", ".join(
            f"{v} {'met' if g else 'unmet'}"
            for v, g in zip(grp.variant, grp["old gate"])
        )
        + "; new signed gate "
        + ", ".join(
            f"{v} {'met' if g else 'unmet'}"
            for v, g in zip(grp.variant, grp["new gate"])
        )
    )

# %% [markdown]
# ## Deviations from the paper
#
# - **Audit of the reworked chapter (issue 36), answered here.** The gates and criteria
#   below were changed after the auditor's numbers were known (claim 1 ✓ with a gain of
#   0.480 on one seed, claim 2 ✗, claim 3's recorded run read as "reproduced"; trained
#   B+PE position $R^2$ 0.821 against 0.899 at step 0); old → new, with the reasons:
#   - *Gates of claims 1 and 2.* Old: the probe the claim reads moved by at least 0.05
#     in either direction against the run's own step-0 student, or the field moved by at
#     least half its initial norm, $\lVert P_T-P_0\rVert \ge 0.5\lVert P_0\rVert$ (claim
#     2 also: or its masked probe passes). The field branch held by design (a field of
#     element std 0.02 learning at 10× the network's rate moves by several times its
#     norm in any run, B's included: drift, not learning) and the two-sided branch
#     counted a fall of the probe, pre-training destroying position, as training. New:
#     signed, about learning: pre-training raised the probe the claim reads above its
#     step-0 value by at least 0.05 (claim 2 keeps "or its test passes"). The field's
#     change, its smoothness and the encoding-only $R^2$ are shown as diagnostics.
#   - *Claim 1's criterion.* Old: $g = R^2_\text{pos}(\text{B+PE}) -
#     R^2_\text{pos}(\text{B}) > 0.2$; with a sine-cosine field the step-0 weights
#     already pass it, so it measured the input. New: $g > 0.2$ and its learned part
#     $\Delta = g_\text{trained} - g_\text{step 0} > 0$ on every seed. Both bounds are
#     ours, from the research brief (they were labelled "abstract" before); so are
#     claim 2's.
#   - *Claim 3's gate and noise bar.* Old gate: at least three seeds and the baseline's AP
#     at least 0.1 above, and twice, its chance AP (about 0.0003, so any working head
#     met it); old criterion: mean − 2 SE > 0. New gate: pre-training raised the
#     baseline's AP above its step-0 AP, paired by seed, mean − $t_{0.975,n-1}$ SE > 0;
#     new criterion: the same paired gain of B+PE+PM over B with the $t$ quantile
#     (4.30 for three seeds) instead of 2. The recorded run's note no longer says
#     "reproduced" for a run whose pre-training lowered detection.
#   - *The regime.* The field's ×10 learning rate was chosen from the two-point scan above
#     under the old two-sided gate; at ×1 B+PE's probe had already fallen by more than
#     0.05 (old gate met for claim 1), which the earlier text left out. Under the new
#     gate no scan point is met (the table above). No new regime search was started;
#     not tried: 1,000+ steps, a larger share of position-masked images, a longer
#     recorded CPU run. Claims 1–3 stay not checked until a regime where pre-training
#     raises the probes is found.
#   - *Quick scale.* Old: 600 steps per variant, measured 259 s on 2 cores (the budget is
#     150 s). New: 250 steps, one pre-training seed (two seeds did not fit); cut for time
#     alone. A first cut to 400 steps measured 176 s (about 0.12 s a step in the chapter's
#     kernel, against 0.076 s in the recorded script); its gates, seen before the second
#     cut, were unmet as well (B+PE's position probe −0.055 against step 0, B+PE+PM's
#     masked probe +0.006). With one seed "on every seed" means that one seed.
#   - *Recorded detection run.* It keeps its own regime (600 steps, seeds 0–2, its own
#     data and seed streams); it was re-recorded with null instead of NaN for scores not
#     computed and the sha256 of the module and the script it ran instead of a commit
#     name, and both scripts are in `SHA256SUMS`. A pilot's numbers quoted earlier (a
#     head on raw pixels), never shipped, were dropped.
# - **Issue 36: a pre-training that trains** (old → new, with the reasons).
#   - *Regime.* Old: a ViT of width 96 and depth 4, 250 steps of 16 images per variant, a
#     random field learning at the network's rate; pre-training did not change what the
#     probes read (at 238c14c position $R^2$ 0.395 trained against 0.396 untrained for
#     B+PE, the field still random, masked-position $R^2$ ≈ 0 for every variant). New:
#     width 48, depth 2, the field initialised as a 2D sine-cosine table (element std
#     0.02) and learning at 10× the network's rate (see the audit item above for the
#     steps and the scan).
#   - *Initial field.* Old: truncated normal (std 0.02). New: sine-cosine, so that claim 2
#     (placing position-masked patches from their context) can be tested without first
#     learning a position code. The summaries do not say how the paper initialises its
#     field; this is our choice, and it means the step-0 probes already read position.
#   - *Claim 3.* Old: a linear head on one token, AP ≈ 0.03, judged at full scale only.
#     New: a head on the 3×3 neighbourhood of tokens through fixed random ReLU features
#     and a recorded CPU run on three seeds that the quick chapter reads; the quick
#     verdict itself stays `not checked at this scale` (one seed).
#   - *Protocols* (probe suite, the encoding-only probe, the detection study over seeds)
#     moved from the chapter into `repbook.papers.vit_positional_ssl`, unit-tested.
# - **Earlier gates** (commit ca8b37c, after a verdict audit): claim 2's gate became
#   "moved, or masked $R^2$ > 0.5" so that it cannot hide a pass; claim 3 was "mean AP gain
#   over seeds > 0", a bare mean, and became the gain paired by pre-training seed, mean −
#   2 SE > 0, which needs three seeds (now with the $t$ quantile, above).
# - **Data and scale.** Generated 48×48 shape scenes instead of ImageNet-1K and COCO; a ViT
#   of width 48 and depth 2 with 6×6 patches instead of ViT-S/16 and ViT-B/16; 250
#   pre-training steps of 16 images per variant at quick scale instead of 100 ImageNet
#   epochs; frozen probes and a "detection-lite" decoder instead of fine-tuning a ViTDet
#   Mask R-CNN. The numbers are about the mechanisms, not about COCO.
# - **Objective.** Our base is not DINOv2: the image loss is a BYOL-style cosine loss with a
#   predictor (an EMA teacher on the CLS token over two global crops), the masked-patch loss
#   is a cosine regression to the teacher's patch tokens instead of iBOT's prototype
#   cross-entropy, there is no KoLeo term and no local crops. With LayerNorm in the
#   projection heads a first pilot collapsed (feature std → 0.02 within 300 steps), so the
#   heads use BatchNorm, as BYOL does; the feature std is logged above.
# - **Our choices beyond the summaries.** The field placement $a = 1-s$, $t\sim U(0,s)^2$ (the
#   summaries give only "random scale $s\sim\mathrm{Beta}(2,5)$ and translation"); the same
#   placement for both views of an image; the identity placement for probes; the cross shape
#   (two bars, a quarter of the grid thick) and 30 % mask ratio; random-patch content masks;
#   a 16×16 field at quick scale (the paper's default is said to be 50×50, used at full
#   scale); zero-initialised mask vectors; the crop-relative baseline as the same field
#   sampled over the view; position-masked patches, like content-masked ones, predict the
#   teacher's token of the same patch (not their position directly). The ablations'
#   "uniform" and "constant" scale laws are ours (same mean as Beta(2, 5)).
# - **Claim 2's second part** (a gain of at least 0.1 over B+PE) is ours: the issue's
#   criterion was $R^2 > 0.5$ alone, which context could pass without any position masking.
#   It was added before the first run.
# - **Diagnostics** that decide nothing: the field's smoothness and change, the probe on
#   the encodings alone, the chance AP of the detection head.
# - **Not checked.** COCO and ADE20K numbers (claim 4, quoted from summaries); the paper's
#   exact masking ratios and field resolution.
#
# ## Run it at full scale
#
# ```bash
# .venv/bin/python -m repbook run 19 --scale full
# ```
# Full scale (one GPU): 96×96 images (16×16 tokens), a 50×50 field, 20,000 pre-training
# images, 3,000 steps of 64 images per variant, three pre-training seeds (which checks
# claim 3 in the run), and the six ablations above: 15 pre-trainings, 45,000 steps. The
# estimate below scales the recorded run's measured step time (48×48, batch 16) by the
# batch and the number of tokens alone, a lower bound (attention grows faster than the
# token count).

# %%
rec = json.loads(
    data_file("19_vit_positional_ssl", "detection_record.json").read_text()
)
step_s = np.mean(list(rec["pretrain_seconds"].values())) / rec["regime"]["steps"]
factor = (64 / rec["regime"]["batch"]) * (96 / rec["data"]["size"]) ** 2
print(
    f"recorded run: {step_s:.3f} s per pre-training step at quick size; full scale at "
    f"least {factor:.0f}× that, so 45,000 steps take at least "
    f"{45_000 * step_s * factor / 3600:.1f} h on this CPU before any probe: the full "
    f"scale is for a GPU. The recorded run itself took {rec['seconds']:.0f} s."
)
