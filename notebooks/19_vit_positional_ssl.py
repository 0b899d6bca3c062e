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
#    probe's $R^2$ of B+PE exceeds the crop-relative baseline's by more than 0.2, and the
#    learned part of that gain, $\Delta = g_\text{trained} - g_\text{step 0}$ with
#    $g = R^2_\text{B+PE}-R^2_\text{B}$, paired by seed, has mean $- t_{0.975,n-1}$ SE
#    $> 0$ (both bounds ours, from the research brief).
# 2. Position masking teaches the model where a patch lies when its encoding is hidden: on
#    every seed a linear probe on such patches of B+PE+PM recovers their position with
#    $R^2 > 0.5$, and its gain over the same probe on B+PE (trained without position
#    masking), paired by seed, has mean $- t_{0.975,n-1}$ SE $> 0.1$ (both bounds ours,
#    from the research brief).
# 3. The features are better for detection: the linear detection-lite head's AP@0.5 on
#    frozen features, B+PE+PM minus B, paired by pre-training seed, has mean
#    $- t_{0.975,n-1}$ SE $> 0$. A second head (random ReLU features of the same tokens)
#    is shown beside it and decides nothing.
# 4. The paper's COCO results (quoted, not reproducible on a CPU).
# ```
#
# **Where they are judged.** Claims 1–3 are judged on a recorded CPU run
# (`data/19_vit_positional_ssl/record_study.py`: B, B+PE and B+PE+PM × 3 seeds × 1,500
# steps, its numbers read from `study_record.json`); the quick scale pre-trains one seed
# for a few hundred steps, a small demonstration whose numbers are shown and decide
# nothing; the full scale (GPU) judges them on its own three seeds.
#
# **Gates** (ours, declared before the recorded run). A claim is judged only where the
# networks it reads were trained, a test separate from the claims' effects: for every
# variant the claim reads and on every seed, (a) the SSL loss at the end (mean of the
# last 50 steps) is at most half its step-0 value, and (b) an image-level probe the
# claims do not judge, the shape-count or the shape-type accuracy, rose over the same
# probe on the step-0 weights by at least 0.05. Claim 1 reads B and B+PE, claim 2 B+PE
# and B+PE+PM, claim 3 B and B+PE+PM; claim 3 adds that pre-training helps the baseline
# on the judged head at all (B's AP trained minus at step 0, paired by seed, mean $-$
# $t_{0.975,n-1}$ SE $> 0$), without which a variant's gain would read as losing less of
# what random weights give the head. Unmet, a claim is `not checked at this scale`. How
# far pre-training moved the probes the claims read (position $R^2$, masked-position
# $R^2$), the field's change and its smoothness are diagnostics; they gate nothing.
#
# **How each can fail.** Claim 1 fails if pre-training washes the field's position out of
# the tokens faster than it teaches the baseline (Δ ≤ 0) or if the baseline recovers
# position from content; claim 2 if the model does not learn to place a patch from its
# context in this budget ($R^2 \le 0.5$) or if B+PE places it as well; claim 3 if the
# paired AP gain is at or below 0 beyond noise (between, it is within the noise).
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
scale = "quick"  # "quick" (≤ 150 s on 2 CPU cores, a demonstration) or "full" (GPU)
seed = 0

# %%
import json
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import torch
import torch.nn.functional
from matplotlib.patches import Rectangle

from repbook.core import all_of, at_least, at_most, paired_gain, t_quantile
from repbook.core import color_for, data_file, full_run_lines, reading_lines
from repbook.core import reference_line, setup
from repbook.papers import vit_positional_ssl, vit_positional_ssl_records

# %%
ABLATIONS = [  # full scale: B+PE+PM re-trained with one choice changed at a time
    ("field 16×16", dict(field_size=16)), ("field lr ×10", dict(field_lr=10.0)),
    ("scale uniform", dict(field_scale="uniform")),
    ("scale constant", dict(field_scale="constant")),
    ("box position masks", dict(pos_mask_shape="box")),
    ("content:position 100:0", dict(pos_mask_share=0.0)),
    ("content:position 0:100", dict(pos_mask_share=1.0)),
]  # fmt: skip
ARCH = vit_positional_ssl.SMALL_ARCH
SIZES = {
    # quick: a demonstration (one seed, 250 steps of 16 images per variant, cut for
    # time so that the chapter fits the 150 s budget on 2 cores); claims 1-3 read the
    # recorded run
    "quick": dict(size=48, field=16, arch=ARCH, head_dim=64, field_init="sincos",
                  field_lr=1.0, pos_mask_share=0.5, n_ssl=2000, steps=250, batch=16,
                  train_seeds=1, n_pos=500, n_det=1000,
                  heads={},  # detection heads: in the recorded run (claim 3)
                  ablations=[]),
    "full": dict(size=96, field=50, arch=ARCH, head_dim=64, field_init="sincos",
                 field_lr=1.0, pos_mask_share=0.5, n_ssl=20000, steps=3000, batch=64,
                 train_seeds=3, n_pos=1000, n_det=1000,
                 heads=vit_positional_ssl.HEADS, ablations=ABLATIONS),
}  # fmt: skip

# %%
COLORS = {"B": "baseline", "B+PE": "alt", "B+PE+PM": "ours"}
run = setup(scale=scale, seed=seed, sizes=SIZES, colors=COLORS)
ledger = run.ledger
arch = dict(run["arch"])
ledger.regime = (
    f"synthetic {run['size']}×{run['size']} shape scenes; tiny ViT (dim {arch['dim']}, "
    f"depth {arch['depth']}; sin-cos field, field lr ×{run['field_lr']:g}) pre-trained "
    f"{run['steps']} steps × {run['batch']} images per variant; frozen probes; "
    f"{run.device}"
)  # the demonstration's regime; claims 1-3 name the run they read
SIZE, PATCH = run["size"], 6
GRID = SIZE // PATCH
VARIANTS = vit_positional_ssl.VARIANTS  # B, B+PE, B+PE+PM

# %% [markdown]
# ## Data: shapes on a textured background
#
# Each image holds one to three non-overlapping squares, disks, triangles or crosses of
# random colour, position and size (a fifth to almost half of the image side) on a smooth
# random texture with pixel noise. The generator also returns instance and class masks and
# boxes, so the pre-training never sees labels but the probes can be scored. `n_ssl` images
# serve the self-supervised pre-training; separate images serve the probes.

# %%
ssl_scenes = vit_positional_ssl.make_scenes(run["n_ssl"], run.child_rng(1), size=SIZE)
probes = vit_positional_ssl.make_probe_set(
    run["n_pos"], run["n_det"], run.child_rng(2), size=SIZE, grid=GRID
)
n_pos, pos_boxes, pos_images = probes.n_pos, probes.pos_boxes, probes.pos_images
SHAPES = vit_positional_ssl.SHAPES  # the shape classes, for the figure's labels
print(f"{len(ssl_scenes)} pre-training images, {len(probes.det_train)} + "
      f"{len(probes.det_test)} probe images; objects per image: "
      f"{ssl_scenes.counts.mean():.2f} on average")  # fmt: skip

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 6, figsize=(11, 2.2))
for ax, i in zip(axes, range(6)):
    ax.imshow(ssl_scenes.images[i].transpose(1, 2, 0))
    for k in range(int(ssl_scenes.counts[i])):
        x0, y0, x1, y1 = ssl_scenes.boxes[i, k]
        ax.add_patch(Rectangle((x0 - 0.5, y0 - 0.5), x1 - x0, y1 - y0, fill=False,
                               lw=1.2, ec="w"))  # fmt: skip
        ax.text(x0, y0 - 1, SHAPES[ssl_scenes.labels[i, k] - 1], color="w", fontsize=7)
    ax.set_axis_off()
title = "Synthetic scenes with their ground-truth boxes (never seen in pre-training)"
fig.suptitle(title)
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
box = vit_positional_ssl.sample_view_boxes(1, rng)[0]
box[4] = 1.0  # a flipped view
t, l, h, w, _ = box
u = (np.arange(GRID) + 0.5) / GRID
xs, ys = l + w * (1 - u), t + h * u  # patch centres in the image, flipped columns
grid = np.stack(np.meshgrid(xs, ys), axis=-1)[None]  # (1, g, g, 2) as (x, y)
by_hand = torch.nn.functional.grid_sample(
    field[None], torch.as_tensor(2 * grid - 1, dtype=torch.float32),
    align_corners=False, padding_mode="border",
)  # fmt: skip
lib = vit_positional_ssl.crop_resize(field, box[None], (GRID, GRID))
print(f"view box (top, left, h, w, flip) = {np.round(box, 3)}")
print(f"by hand vs library: max |difference| = {(by_hand - lib).abs().max():.1e}")
identity = vit_positional_ssl.crop_resize(
    field, vit_positional_ssl.identity_boxes(1), (16, 16)
)[0]
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
# ViT position embedding would have) and learns like every other parameter, at the
# network's learning rate. What the variants share on a pre-training seed: the image pool,
# the number of steps and the batch size, and the initial weights and field (the same seed
# builds the student); the draws of views, field placements (B draws none) and masks
# differ between variants. Each run's untrained reference is its own student at step 0.
# The feature std (the spread over the batch of the normalised CLS token of the teacher's
# backbone, before the projection head and its BatchNorm; about 1 when spread, 0 at
# collapse) is logged to catch collapse. It starts low: at step 0 the CLS input is one
# vector for every image and the weights are small, so the CLS tokens start alike.
#
# At quick scale this section is a **demonstration**: one pre-training seed, a few hundred
# steps per variant; its numbers are shown and decide nothing (the claims read the
# recorded run below).


# %%
KEYS = (
    "steps",
    "batch",
    "arch",
    "head_dim",
    "field_init",
    "field_lr",
    "pos_mask_share",
)
BASE = dict(field_size=run["field"], **{k: run[k] for k in KEYS})
configs = {v: vit_positional_ssl.SSLConfig(variant=v, **BASE) for v in VARIANTS}
study = vit_positional_ssl.pretraining_study(
    ssl_scenes.images, probes, configs, range(run["train_seeds"]), patch=PATCH,
    heads=run["heads"], device=run.device, rng_of=lambda k: run.child_rng(1000 + k),
    keep=True,
)  # fmt: skip
models, traces, initial = study.models, study.traces, study.initial
std_end = {v: ", ".join(f"{r['feature std end']:.2f}" for r in study.runs
                        if r["label"] == v) for v in VARIANTS}  # fmt: skip
print("final feature std (mean of the last 50 steps): "
      + ", ".join(f"{v} {s}" for v, s in std_end.items()))  # fmt: skip

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.4))
steps = np.arange(1, run["steps"] + 1)
smooth = lambda a: pd.Series(a).rolling(10, min_periods=1).mean()  # noqa: E731
for (variant, k), tr in traces.items():
    lab, c = (variant if k == 0 else None), color_for(variant)
    axes[0].plot(steps, smooth(tr.loss), color=c, label=lab, lw=1)
    axes[1].plot(steps, smooth(tr.feature_std), color=c, label=lab, lw=1)
axes[0].set(xlabel="step", ylabel="loss (image + patch)", yscale="log",
            title=f"Pre-training loss (10-step mean; {run.scale} scale)")  # fmt: skip
axes[1].set(xlabel="step", ylabel="backbone CLS std × √dim", ylim=(0, 1.2),
            title="Feature std of the backbone (0 = collapse)")  # fmt: skip
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
# whose encodings were replaced by the position-mask vector. The image-level content
# probes (linear, on the CLS token and the mean patch token) read the number of shapes
# (accuracy over 1–3) and which shape types are present (accuracy per type); they are the
# trained gate's probe (b), and no claim judges them. Detection-lite (claim 3) is
# described with its claim. Two diagnostics, which decide nothing, help read the position
# results: how far the field moved, $\lVert P_T-P_0\rVert/\lVert P_0\rVert$, and its
# smoothness, the mean cosine similarity of neighbouring field cells (about 0 for a random
# field, near 1 for a smooth one such as the sine-cosine start).
#
# The table shows this run's numbers at step 0 and trained (means over its seeds).

# %%
demo = study.record()
print(f"this run ({run.scale} scale), means over {len(demo['seeds'])} seed(s):")
print(vit_positional_ssl_records.run_table(demo).round(3).to_string())

# %% [markdown]
# ## The run the claims are judged on
#
# At quick scale claims 1–3 read the recorded CPU run
# (`data/19_vit_positional_ssl/record_study.py`, output `study_record.json`): B, B+PE and
# B+PE+PM on pre-training seeds 0, 1 and 2, each probed at step 0 and trained, in the
# regime printed below, with its own data and seed streams (the same kind of
# pre-training as the chapter's, not the chapter's runs). At full scale they read this
# chapter's own three seeds. The gates and the criteria are those declared at the top.

# %%
if run.scale == "quick":  # the recorded run
    judged = json.loads(
        data_file("19_vit_positional_ssl", "study_record.json").read_text()
    )
    judged_regime = vit_positional_ssl_records.recorded_regime(judged)
    print(f"{judged_regime}; {vit_positional_ssl_records.seconds_line(judged)}")
else:  # this chapter's own seeds
    judged, judged_regime = study.record(), ledger.regime
vals = vit_positional_ssl.study_values(judged)
n_seeds = len(judged["seeds"])
judged_table = vit_positional_ssl_records.run_table(judged)
print(f"means over {n_seeds} seeds:")
print(judged_table.round(3).to_string())


# %%
def trained_gate(labels):
    """The networks `labels` trained (ours): on every seed the SSL loss at the end is at
    most half its step-0 value, and the count or type probe rose by at least 0.05."""
    return all_of(
        at_most([f"loss end / step 0 · {v}" for v in labels], 0.5),
        at_least([f"content probe rise · {v}" for v in labels], 0.05),
    )


def gate_values(labels, values=None):
    values = vals if values is None else values
    return {f"{k} · {v}": values[f"{k} · {v}"] for v in labels
            for k in ("loss end / step 0", "content probe rise")}  # fmt: skip


# %%
K = t_quantile(n_seeds)  # Student's 97.5 % quantile for the mean of n paired values
met = {v: trained_gate([v]).evaluate(gate_values([v])).passed for v in VARIANTS}
print(vit_positional_ssl_records.gate_table(vals, met).to_string(index=False))
print(vit_positional_ssl_records.gate_line(vals, VARIANTS))

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.3))
for j, v in enumerate(VARIANTS):
    for ax, key in zip(axes, ("loss end / step 0", "content probe rise")):
        ys = vals[f"{key} · {v}"]
        ax.scatter(j + np.linspace(-0.1, 0.1, len(ys)), ys, color=color_for(v), s=30,
                   zorder=3)  # fmt: skip
reference_line(axes[0], 0.5, "gate (ours): at most 0.5")
reference_line(axes[1], 0.05, "gate (ours): at least 0.05")
axes[0].set(xticks=range(3), xticklabels=VARIANTS, ylim=(0, 1.1),
            ylabel="loss at the end / at step 0",
            title="(a) SSL loss, end over step 0, per seed")  # fmt: skip
axes[1].set(xticks=range(3), xticklabels=VARIANTS, ylabel="accuracy rise over step 0",
            title="(b) larger rise of the count, type probes")  # fmt: skip
for ax in axes:
    ax.legend(fontsize=8, loc="best")
fig.suptitle("The trained gate on the judged run (dots: pre-training seeds)")
plt.show()

# %% [markdown]
# ## Claim 1 · Crop-tied encodings make original-image position decodable
#
# A crop-relative model knows where a patch lies *in its view*; where the view lies in the
# image, and whether it was flipped, it can only guess from content, which here carries no
# such cue. A crop-tied model receives the original-image position as input; the question
# is whether it survives pre-training into the output features (the random placement of the
# field gives the network every reason to stop trusting absolute field values).
#
# **Gate and criterion** (as declared at the top). Gate: B and B+PE trained (loss and
# count/type probe, on every seed). Criterion: on every seed $g = R^2_\text{pos}
# (\text{B+PE}) - R^2_\text{pos}(\text{B}) > 0.2$, and the learned part $\Delta =
# g_\text{trained} - g_\text{step 0}$, paired by seed, has mean $- t_{0.975,n-1}$ SE $> 0$
# (both bounds ours, from the research brief; the sine-cosine input alone gives B+PE a
# large $g$ at step 0, so $g$ alone would measure the input). B+PE's own rise over its
# step 0 is a diagnostic.
#
# The first figure is the quick demonstration's model (one seed): a view, the field and
# its crop. The second reads the judged run.

# %%
img_i = n_pos  # a test image of the position probe
vbox = pos_boxes[img_i]
P = models["B+PE", 0].field.detach().cpu()  # the demonstration's trained field
field_rgb = vit_positional_ssl_records.field_colours(P)
view = vit_positional_ssl.crop_resize(
    torch.as_tensor(pos_images[img_i : img_i + 1]), vbox[None], (SIZE, SIZE)
)[0]
crop_rgb = field_rgb(vit_positional_ssl.crop_resize(P, vbox[None], (GRID, GRID))[0])

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 4, figsize=(12, 3.1))


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
axes[1].imshow(view.permute(1, 2, 0).numpy())
axes[1].set_title("the view" + (" (flipped)" if vbox[4] else ""))
axes[2].imshow(field_rgb(P))
draw_box(axes[2], vbox, P.shape[-1])
axes[2].set_title(f"trained field P (B+PE, {run.scale})")
axes[3].imshow(crop_rgb)
axes[3].set_title("its crop: the view's encodings")
for ax in axes:
    ax.set_axis_off()
fig.suptitle("A view and its crop-tied encodings are cut with the same box")
plt.show()

# %%
g1, g1_0 = vals["R² gain (B+PE − B)"], vals["R² gain at step 0"]
d1 = vals["learned part Δ (gain − gain at step 0)"]
gate1 = trained_gate(["B", "B+PE"]).evaluate(gate_values(["B", "B+PE"])).passed

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
for k in range(n_seeds):
    axes[0].plot([0, 1], [g1_0[k], g1[k]], color=color_for("B+PE"), marker="o", lw=1,
                 label="a pre-training seed" if k == 0 else None)  # fmt: skip
reference_line(axes[0], 0.2, "criterion (ours, brief): g > 0.2 trained")
axes[0].set(xticks=[0, 1], xticklabels=["step 0", "trained"], xlim=(-0.3, 1.3),
            ylabel="g = R²(B+PE) − R²(B)",
            title="Position-R² gain of B+PE over B, per seed")  # fmt: skip
m1, h1 = np.mean(d1), K * np.std(d1, ddof=1) / np.sqrt(n_seeds)
axes[1].scatter(np.zeros(n_seeds), d1, color=color_for("B+PE"), s=30, zorder=3)
axes[1].errorbar([0.2], [m1], yerr=[h1], fmt="s", color="k", capsize=4,
                 label=f"mean ± t·SE (t = {K:.2f})")  # fmt: skip
reference_line(axes[1], 0.0, "criterion: mean − t·SE > 0")
axes[1].set(xticks=[], xlim=(-0.5, 0.7), ylabel="Δ = g trained − g at step 0",
            title="Learned part of the gain, per seed")  # fmt: skip
for ax in axes:
    ax.legend(fontsize=8, loc="best")
fig.suptitle(
    f"Claim 1 on the judged run ({n_seeds} seeds; "
    + ("gate met)" if gate1 else "gate unmet: shown, not judged)")
)
plt.show()

# %%
rise1 = vals["B+PE: R² trained − step 0"]
print("per seed: gain of B+PE over B " + ", ".join(f"{g:.3f}" for g in g1)
      + " (step 0: " + ", ".join(f"{g:.3f}" for g in g1_0)
      + "), learned part Δ " + ", ".join(f"{g:+.3f}" for g in d1)
      + "; B+PE trained − step 0 (diagnostic) "
      + ", ".join(f"{g:+.3f}" for g in rise1))  # fmt: skip

# %%
GAIN1, DELTA1 = "R² gain (B+PE − B)", "learned part Δ (gain − gain at step 0)"
measured1 = {**gate_values(["B", "B+PE"]), GAIN1: g1, "R² gain at step 0": g1_0,
             DELTA1: d1, "B+PE: R² trained − step 0": rise1}  # fmt: skip
ledger.check(
    1, "crop-tied PE makes original-image position linearly decodable",
    paper="PE tied to the crop carries absolute position (mechanism); bounds ours "
    "(brief)",
    source="abstract", evidence="simulation", regime=judged_regime,
    measured=measured1, gate=trained_gate(["B", "B+PE"]),
    criterion=all_of(at_least(GAIN1, 0.2, strict=True),
                     paired_gain(DELTA1, 0.0, k="t")),
    show=[k for k in measured1 if "·" not in k and "loss" not in k and "rise" not in k],
)  # fmt: skip

# %% [markdown]
# **The field's random start.** A column with a randomly initialised field (closer to
# the paper's learnable field) at the same settings would take six more pre-trainings (B
# and B+PE on three seeds); at the recorded run's step time that is more than the
# recorded run's budget allows, so it was not run (see the deviations).

# %%
print("\n".join(vit_positional_ssl_records.field_lines(judged_table)))
if run.scale == "quick":
    extra = 6 * np.mean([r["seconds"] for r in judged["runs"]])
    print(
        f"a random-field column: 6 more pre-trainings, about {extra:.0f} s at the "
        f"recorded step time, beside the record's {judged['seconds']:.0f} s"
    )
enc0, enc1 = (vit_positional_ssl.encoding_r2(m["B+PE", 0].field, pos_boxes, GRID)
              for m in (initial, models))  # fmt: skip
print(f"{run.scale} run: linear R² from the crop-tied encodings alone (no network): "
      f"step-0 field {enc0:.3f}, trained B+PE field {enc1:.3f}")  # fmt: skip

# %% [markdown]
# ## Claim 2 · Position masking teaches where a masked patch lies
#
# When a patch's encoding is replaced by the position-mask vector, its own input says
# nothing about where it is; its token can only know it from its content and its
# neighbours. Pre-training with position masking asks exactly that (the teacher's token
# there does carry the position); the variant without position masking never practised it.
#
# **Gate and criterion** (as declared at the top). Gate: B+PE and B+PE+PM trained.
# Criterion: on every seed the masked-position probe on B+PE+PM reaches $R^2 > 0.5$, and
# its gain over the same probe on B+PE (whose position-mask vector, never trained, stays
# at its zero initialisation), paired by seed, has mean $- t_{0.975,n-1}$ SE $> 0.1$. Its
# rise over its own step 0 is a diagnostic. The figure shows the quick demonstration's
# models (one seed); the verdict reads the judged run.

# %%
masked = {v: study.suites[v, 0]["trained"]["masked"] for v in ["B+PE", "B+PE+PM"]}
pick = run.child_rng(5).choice(len(masked["B+PE+PM"].true), 120, replace=False)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(9, 4.2), sharey=True)
for ax, (v, res) in zip(axes, masked.items()):
    tt, pp = res.true[pick], res.pred[pick]
    ax.plot(np.stack([tt[:, 0], pp[:, 0]]), np.stack([tt[:, 1], pp[:, 1]]),
            color=color_for("muted"), lw=0.6)  # fmt: skip
    ax.scatter(tt[:, 0], tt[:, 1], s=10, color="k", label="true position")
    ax.scatter(pp[:, 0], pp[:, 1], s=12, color=color_for(v), label="predicted")
    ax.set(xlim=(-0.1, 1.1), ylim=(1.1, -0.1), xlabel="x in the original image",
           title=f"{v}: R² = {res.r2:.2f}")  # fmt: skip
axes[0].set_ylabel("y in the original image")
axes[0].legend(fontsize=8, loc="lower left")
fig.suptitle(f"Position-masked patches, true and probed positions (120 shown; "
             f"{run.scale} run, seed 0)")  # fmt: skip
plt.show()

# %%
MASKED2, GAIN2 = "masked R² (B+PE+PM)", "masked R² gain over B+PE"
RISE2 = "B+PE+PM: masked R² trained − step 0"
print("judged run, masked-position R² per seed: B+PE+PM "
      + ", ".join(f"{r:.3f}" for r in vals[MASKED2]) + "; gain over B+PE "
      + ", ".join(f"{g:+.3f}" for g in vals[GAIN2])
      + "; B+PE+PM trained − step 0 (diagnostic) "
      + ", ".join(f"{g:+.3f}" for g in vals[RISE2]))  # fmt: skip

# %%
measured2 = {**gate_values(["B+PE", "B+PE+PM"]), MASKED2: vals[MASKED2],
             GAIN2: vals[GAIN2], RISE2: vals[RISE2]}  # fmt: skip
ledger.check(
    2, "position masking teaches where position-masked patches lie",
    paper="masking and prediction of positional embeddings (mechanism); bounds ours "
    "(brief)",
    source="abstract", evidence="simulation", regime=judged_regime,
    measured=measured2, gate=trained_gate(["B+PE", "B+PE+PM"]),
    criterion=all_of(at_least(MASKED2, 0.5, strict=True),
                     paired_gain(GAIN2, 0.1, k="t")),
    show=[k for k in measured2 if "·" not in k and "loss" not in k and "rise" not in k],
)  # fmt: skip

# %% [markdown]
# The segments join each masked patch's true position to the probe's guess. An $R^2$ near 0
# means the probe does no better than guessing the mean position for every masked patch:
# the token then carries no linearly readable trace of where the patch lies.
#
# ## Claim 3 · Better features for detection
#
# Detection-lite on frozen patch tokens. Each patch is described by the tokens of the 3×3
# patches around it, and three closed-form ridge heads read them: a 5-way patch classifier
# (background and four shapes) gives the class map on the patch grid (mIoU); a centre head
# scores each patch for holding an object's box centre; a box head regresses the box's
# offset and log size from patches that hold a centre. Decoding keeps 3×3 local maxima of
# the centre score and labels them with the best shape class; AP@0.5 is averaged over the
# four classes. Heads are fitted on `n_det` images and scored on `n_det` others. Two heads
# are declared: the **linear** head reads the 3×3 tokens themselves (the usual
# frozen-feature readout, the judged head); the **random-feature** head reads 1,024 fixed
# random ReLU features of them (the same map for every model; shown beside it, deciding
# nothing: it favours near-raw tokens, so untrained weights score well on it). The *chance
# AP* is the same heads scoring every test image with the next test image's tokens (a
# diagnostic).
#
# **Gate and criterion** (as declared at the top). Gate: B and B+PE+PM trained, and
# pre-training helps the baseline on the linear head: B's AP trained minus its AP on its
# step-0 weights, paired by seed, has mean $- t_{0.975,n-1}$ SE $> 0$. Criterion: the gain
# AP@0.5(B+PE+PM) − AP@0.5(B) on the linear head, paired by pre-training seed (on a seed
# both variants start from the same weights and field and draw from the same image pool;
# their view, placement and mask draws differ), has mean $- t_{0.975,n-1}$ SE > 0; it
# fails if the mean plus $t$ SE is ≤ 0, and in between it is within the noise.

# %%
HEAD, OTHER = "linear", "random-feature"
UP3, GAIN3 = (f"pre-training AP gain of B · {HEAD}", f"AP gain (B+PE+PM − B) · {HEAD}")
measured3 = {**gate_values(["B", "B+PE+PM"])}
for key in (
    UP3,
    GAIN3,
    f"AP gain (B+PE − B) · {HEAD}",
    f"pre-training AP gain of B · {OTHER}",
    f"AP gain (B+PE+PM − B) · {OTHER}",
):
    measured3[key] = vals[key]  # fmt: skip
ledger.check(
    3, "detection-lite AP on frozen features improves",
    paper="COCO AP^box gains over DINOv2† (ViT-S)",
    source="secondary summary", evidence="simulation", regime=judged_regime,
    measured=measured3,
    gate=all_of(trained_gate(["B", "B+PE+PM"]),
                paired_gain(UP3, 0.0, k="t", min_seeds=3)),
    criterion=paired_gain(GAIN3, 0.0, k="t"),
    show=[k for k in measured3 if "AP" in k],
)  # fmt: skip

# %%
for head in (HEAD, OTHER):
    print(vit_positional_ssl_records.ap_lines(judged, vals, VARIANTS, head))
COLS3 = [("B", "step 0"), ("B", "trained"), ("B+PE", "trained"), ("B+PE+PM", "trained")]
ap3 = {head: np.array([vit_positional_ssl_records.ap_per_seed(judged, v, st, head)
                       for v, st in COLS3]) for head in (HEAD, OTHER)}  # fmt: skip
gate3 = ledger.claim("3").gate.get("passed")

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
for ax, (head, ys) in zip(axes, ap3.items()):
    for k in range(n_seeds):
        ax.plot(range(4), ys[:, k], color=color_for("muted"), lw=0.8, zorder=1)
    for j, (v, st) in enumerate(COLS3):
        ax.scatter([j] * n_seeds, ys[j], s=30, zorder=3,
                   color="k" if st == "step 0" else color_for(v))  # fmt: skip
    ax.set(
        xticks=range(4),
        xticklabels=["B step 0", "B", "B+PE", "B+PE+PM"],
        ylabel="detection-lite AP@0.5",
        title=f"{head} head" + (" (judged)" if head == HEAD else " (shown)"),
    )
gate_text = "gate met)" if gate3 else "gate unmet: not judged)"
fig.suptitle(
    "Detection AP per pre-training seed on the judged run (lines join a "
    f"seed; {n_seeds} seeds; " + gate_text
)
plt.show()

# %% [markdown]
# The image-level probes (shape count and shape types, in the tables above) serve the
# trained gate; they carry no verdict of their own.

# %% [markdown]
# ## Quoted from the paper · The COCO results (claim 4)
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
# ## At full scale only · Ablations
#
# At full scale, B+PE+PM is re-trained (first seed) with one choice changed at a time: the
# field's resolution, its learning rate at ten times the network's (a sensitivity), the law
# of the field's scale, box instead of cross position masks, and content:position masking
# shares of 100:0 and 0:100. The table carries no verdict.

# %%
abl_rows = []
for name, override in run["ablations"]:
    cfg = vit_positional_ssl.SSLConfig(**{**BASE, "variant": "B+PE+PM", **override})
    m, _ = vit_positional_ssl.pretrain(ssl_scenes.images, cfg, run.child_rng(1000),
                                       device=run.device)  # fmt: skip
    suite = vit_positional_ssl.probe_suite(m, probes, patch=PATCH, heads=run["heads"])
    abl_rows.append({"ablation": name, **vit_positional_ssl.suite_numbers(suite)})
if abl_rows:
    base = next(x for x in study.runs if x["label"] == "B+PE+PM" and x["seed"] == 0)
    abl_rows.insert(0, {"ablation": "B+PE+PM (default)", **base["trained"]})
    keep = ["ablation", "position R²", "masked-position R²", "AP linear",
            "AP random-feature", "count accuracy", "type accuracy"]  # fmt: skip
    print(pd.DataFrame(abl_rows)[keep].round(3).to_string(index=False))
else:
    print("ablations run at full scale only")

# %% [markdown]
# ## Verdicts
#
# **Stability.** The stability run (`repbook stability 19 --seeds 5`, seeds 0–4 at quick
# scale) gives the *seeds* column; a claim changed since the record was made reads "stale
# record". At quick scale claims 1–3 read the recorded run, which does not depend on the
# chapter's seed, so their verdicts cannot move between those seeds. The lines below the
# table are generated from this run's ledger and the committed records (a claim changed
# since the stability record was made is named).

# %% tags=["nbval-check-output"]
ledger.show()

# %%
print("\n".join(reading_lines(ledger)))

# %% tags=["nbval-ignore-output"]
print(f"{run.time_line()} (CPU time of this process: {time.process_time():.1f} s)")

# %% [markdown]
# ## How the regime was found
#
# **The first scan** (kept as it was shipped). Before the second audit the field's learning
# rate was scanned at two points (×1 and ×10 the network's rate; 800 steps of 16 images,
# seed 1000, sine-cosine field, B+PE and B+PE+PM; `regime_scan.py`, output
# `regime_scan.jsonl`), and ×10 was chosen under a gate that a moving field met by itself.
# The table is read from that file; its detection columns are linear heads on one token
# (`c0`) and on the 3×3 neighbourhood (`c1`, the head claim 3 now judges). At ×10 Adam
# moves each field element by about the learning rate per step against an element std of
# 0.02: the field random-walks, and its smoothness falls from the sine-cosine start's.

# %%
scan_text = data_file("19_vit_positional_ssl", "regime_scan.jsonl").read_text()
print(vit_positional_ssl_records.scan_table(scan_text).to_string(index=False))
smooth0 = vit_positional_ssl.field_smoothness(vit_positional_ssl.sincos_field(48, 16))
print(f"smoothness of the sine-cosine start (16×16, width 48): {smooth0:.3f}")

# %% [markdown]
# **The pilot** (`pilot_share.py`, output `pilot_share.json`; one seed, 1000, apart from
# the recorded run's; declared with the gates above before it ran). B+PE and B+PE+PM at
# 1,500 steps of 16 images, the field at the network's rate, B+PE+PM at the paper's
# content:position share 50:50 and at its 0:100 ablation. Its rule, fixed before it ran:
# the recorded run uses 50:50 unless B+PE+PM at 50:50 fails the trained gate while 0:100
# meets it.

# %%
pilot = json.loads(data_file("19_vit_positional_ssl", "pilot_share.json").read_text())
pv = vit_positional_ssl.study_values(pilot)
met_pilot = {r["label"]: trained_gate([r["label"]]).evaluate(
    gate_values([r["label"]], pv)).passed for r in pilot["runs"]}  # fmt: skip
prow = vit_positional_ssl_records.pilot_table(pilot, pv, met_pilot)
print(prow.round(3).to_string())
rule_share, half, full_share = vit_positional_ssl_records.share_rule(prow)
used = judged["regime"]["pos_mask_share"] if run.scale == "quick" else rule_share
print(f"the rule picks the share {rule_share:g} (B+PE+PM at 50:50 "
      f"{'met' if half else 'did not meet'} the trained gate, at 0:100 "
      f"{'met' if full_share else 'did not meet'} it); the recorded run used {used:g}; "
      f"the pilot took {pilot['seconds']:.0f} s")  # fmt: skip

# %% [markdown]
# **What the second audit knew before the gates and criteria changed**, read from the
# shipped files (`regime_scan.jsonl` and the earlier claim-3 record
# `detection_record.json`: 600 steps, field lr ×10, the random-feature head, B and
# B+PE+PM on seeds 0–2, kept as it was shipped).

# %%
old = json.loads(
    data_file("19_vit_positional_ssl", "detection_record.json").read_text()
)
print(vit_positional_ssl_records.audit_lines(old, scan_text))

# %% [markdown]
# ## Deviations from the paper
#
# - **Second audit of the reworked chapter (issue 36), answered here.** The audit found
#   that the three "not checked" verdicts rested on gates that were the claims' own
#   effects (a probe the claim reads had to rise) and, for claim 3, on a random-feature
#   head on which near-raw step-0 tokens score well; that the first scan's linear heads
#   showed pre-training *raising* AP; that the loss fell (the networks trained); that the
#   field's ×10 learning rate random-walks the field; and that no 1,000+-step regime had
#   been tried. Its numbers, read from the shipped files, are printed above ("What the
#   second audit knew"). Old → new, with the reasons; all were written into the chapter
#   before the pilot and the recorded run ran, and the audit's numbers were known:
#   - *Gates of claims 1 and 2.* Old: claim 1, pre-training raised B+PE's position
#     probe by at least 0.05 on every seed; claim 2, it raised B+PE+PM's masked probe by
#     at least 0.05, or the masked $R^2$ already exceeded 0.5. Both are the claims'
#     effects, so an unmet gate hid a failure of the claim as "not checked". New (ours):
#     the networks the claim reads trained, on every seed: the SSL loss at the end (mean
#     of the last 50 steps) at most half its step-0 value, and the count or type probe
#     up by at least 0.05 over step 0. The probe rises are shown as diagnostics. Claim
#     2's "or the test passes" is dropped: the new gate is not the claim's effect, so it
#     cannot hide a pass that learning made. The brief allowed B's linear-head AP as
#     probe (b) instead; the count and type probes were chosen, before the pilot, since
#     B's AP is what claim 3's own gate reads (B's AP rise is printed beside the gate
#     table). Known before: the audit's observation that
#     the loss fell on one seed; the count and type probes' values at step 0 and trained
#     were not (they are read in the tables above, pilot and recorded run included).
#   - *Claim 3's gate and head.* Old: the random-feature head judged, gated on B's AP on
#     it rising over step 0 (paired, $t$ quantile); it failed beyond noise (printed
#     above). New: both heads declared; the judged head is the linear 3×3 head (the usual
#     frozen-feature readout; the random-feature head favours near-raw tokens); gate: B
#     and B+PE+PM trained, and pre-training helps B on the linear head (paired, $t$
#     quantile). Known before this choice: the first scan's linear-head AP rose with
#     pre-training on one seed and 800 steps (printed above); so this gate was expected
#     to be met more easily than the old one.
#   - *Criteria of claims 1 and 2.* Old: claim 1's learned part $\Delta > 0$ and claim
#     2's gain over B+PE ≥ 0.1, each on every seed. New: both paired by seed with the
#     $t_{0.975,n-1}$ quantile (mean $-$ $t$ SE above 0 and above 0.1), as every
#     comparison between variants in the book; the bounds 0.2, 0.5, 0 and 0.1 are
#     unchanged. Not known before for this regime (the recorded run is new).
#   - *Field learning rate.* Old: ×10 the network's rate, chosen from the first scan
#     under the old gate, which a moving field met by itself. New: ×1, the faithful
#     choice (the paper's field is an ordinary parameter). ×10 stays a shown sensitivity:
#     in the first scan's table and as a full-scale ablation.
#   - *Regime.* Old: 250 steps at quick scale, 600 steps in the claim-3 record. New: a
#     pilot (one seed, 1,500 steps, the shares 50:50 and 0:100, the rule declared before
#     it ran) and one recorded run (B, B+PE and B+PE+PM × 3 seeds × 1,500 steps at the
#     share the rule picked, printed above), which claims 1–3 are judged on; 1,500
#     steps is the "1,000+" within a 25-minute budget for this CPU, chosen
#     before any result of this regime. The
#     earlier claim-3 record `detection_record.json` is kept, as shipped, for the
#     history above; `study_record.json` replaces its role.
#   - *A random field.* The audit asked for a claim-1 column with the field's random
#     start at the same settings if it fits the record's budget: six more pre-trainings
#     did not fit (the estimate is printed under claim 1); not run.
#   - *Feature std.* Old: measured after the projection head, whose BatchNorm keeps it
#     near 1 whatever the backbone does. New: on the teacher backbone's CLS token.
#   - *Quick scale.* It stays a demonstration (one seed, 250 steps, ≤ 150 s) and says so;
#     its numbers decide nothing.
#   - *Texts.* Hand-typed numbers (run times, step times, gate readings of earlier cuts,
#     the chance AP, the full scale's step count) were removed or are computed from the
#     records and from `SIZES`; the figures draw the bar that decides, and the 0.05 and
#     0.5 bars are labelled ours.
# - **First audit of the reworked chapter (issue 36)**, for the record. The gates were
#   then made signed (a fall of a probe no longer counted as training; the field's change
#   no longer met a gate by itself); claim 1's criterion gained the learned part Δ, since
#   a sine-cosine field passes $g > 0.2$ at step 0; claim 3's noise bar became the $t$
#   quantile; the quick scale was cut from 600 to 250 steps for time alone, over the
#   150 s budget before; the first claim-3 record was re-made with the sha256 of its
#   script and module. All of it was changed after the auditor's numbers were known;
#   the second audit superseded the gates (above).
# - **Issue 36: a pre-training that trains** (old → new, with the reasons).
#   - *Regime.* Old: a ViT of width 96 and depth 4, 250 steps of 16 images per variant, a
#     random field learning at the network's rate; the issue reports that pre-training
#     did not change what the probes read. New: width 48, depth 2, the field initialised
#     as a 2D sine-cosine table (element std 0.02), and the runs above.
#   - *Initial field.* Old: truncated normal (std 0.02). New: sine-cosine, so that claim 2
#     (placing position-masked patches from their context) can be tested without first
#     learning a position code. The summaries do not say how the paper initialises its
#     field; this is our choice, and it means the step-0 probes already read position.
#   - *Claim 3.* Old: a linear head on one token, judged at full scale only. New: heads
#     on the 3×3 neighbourhood of tokens (above) and a recorded CPU run on three seeds.
#   - *Protocols* (probe suite, the pre-training study over seeds, the values the claims
#     read) moved from the chapter into `repbook.papers.vit_positional_ssl`, unit-tested.
# - **Tables and readings in a module of their own (issue 37; no value, verdict or figure
#   changed).** The chapter's tables and generated lines over the records (the run table,
#   the regime string, the trained gate's table, the detection lines, the first scan, the
#   pilot and its rule, what the second audit knew, the full-scale estimate) and the field's
#   colouring for the figure moved into `repbook.papers.vit_positional_ssl_records`,
#   unit-tested. The study module itself became a package of four files (scenes, model,
#   probes, study) by moving code unchanged (every top-level definition's syntax tree is
#   the same). The committed records (`study_record.json`, `pilot_share.json`,
#   `detection_record.json`) keep the sha256 of the one-file module that made them
#   (commits 1ee0107 and ed67848); the record scripts now store the package's
#   `source_sha256()`.
# - **Earlier gates** (commit ca8b37c, after a verdict audit): claim 2's gate became
#   "moved, or masked $R^2$ > 0.5" so that it could not hide a pass; claim 3 was "mean AP
#   gain over seeds > 0", a bare mean, and became the gain paired by pre-training seed.
# - **Data and scale.** Generated 48×48 shape scenes instead of ImageNet-1K and COCO; a ViT
#   of width 48 and depth 2 with 6×6 patches instead of ViT-S/16 and ViT-B/16; 1,500
#   pre-training steps of 16 images per variant in the judged run instead of 100 ImageNet
#   epochs; frozen probes and a "detection-lite" decoder instead of fine-tuning a ViTDet
#   Mask R-CNN. The numbers are about the mechanisms, not about COCO.
# - **Objective.** Our base is not DINOv2: the image loss is a BYOL-style cosine loss with a
#   predictor (an EMA teacher on the CLS token over two global crops), the masked-patch loss
#   is a cosine regression to the teacher's patch tokens instead of iBOT's prototype
#   cross-entropy, there is no KoLeo term and no local crops. With LayerNorm in the
#   projection heads a first pilot collapsed, so the heads use BatchNorm, as BYOL does;
#   the backbone's feature std is logged above.
# - **Our choices beyond the summaries.** The field placement $a = 1-s$, $t\sim U(0,s)^2$ (the
#   summaries give only "random scale $s\sim\mathrm{Beta}(2,5)$ and translation"); the same
#   placement for both views of an image; the identity placement for probes; the cross shape
#   (two bars, a quarter of the grid thick) and 30 % mask ratio; random-patch content masks;
#   a 16×16 field at quick scale and in the recorded run (the paper's default is said to be
#   50×50, used at full scale); zero-initialised mask vectors; the crop-relative baseline
#   as the same field sampled over the view; position-masked patches, like content-masked
#   ones, predict the teacher's token of the same patch (not their position directly). The
#   ablations' "uniform" and "constant" scale laws are ours (same mean as Beta(2, 5)).
# - **Claim 2's second part** (a gain of at least 0.1 over B+PE) is ours: the issue's
#   criterion was $R^2 > 0.5$ alone, which context could pass without any position masking.
#   It was added before the first run.
# - **Diagnostics** that decide nothing: the probe rises the claims read, the field's
#   smoothness and change, the probe on the encodings alone, the chance AP, the
#   random-feature head.
# - **Not checked.** COCO and ADE20K numbers (claim 4, quoted from summaries); the paper's
#   exact masking ratios and field resolution.
#
# ## Run it at full scale
#
# ```bash
# .venv/bin/python -m repbook full 19   # runs it and records it in data/full_runs/ (commit it)
# ```
# Full scale (one GPU): 96×96 images (16×16 tokens), a 50×50 field, 20,000 pre-training
# images, 3,000 steps of 64 images per variant, three pre-training seeds (which judge
# claims 1–3 in the run), and the ablations above. The estimate below scales the recorded
# run's measured step time (48×48, batch 16) by the batch and the number of tokens alone,
# a lower bound (attention grows faster than the token count). The lines after it are
# generated from the committed full-scale record, when there is one.

# %%
rec = json.loads(data_file("19_vit_positional_ssl", "study_record.json").read_text())
print(vit_positional_ssl_records.full_scale_line(rec, SIZES["full"], len(VARIANTS)))
print("\n".join(full_run_lines(ledger)))
