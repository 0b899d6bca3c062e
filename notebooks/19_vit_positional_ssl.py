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
#    feature: a linear probe's $R^2$ rises by more than 0.2 over the crop-relative baseline.
# 2. Position masking teaches the model where a patch lies when its encoding is hidden: a
#    linear probe on such patches recovers their position with $R^2 > 0.5$, at least 0.1
#    above the same probe on the model trained without position masking.
# 3. The features are better for detection: a detection-lite AP@0.5 on frozen features is
#    higher with both components than with the baseline (paired by pre-training seed,
#    beyond the seeds' noise, over at least three seeds).
# 4. The paper's COCO results (quoted, not reproducible on a CPU).
# ```
#
# Claims 1 and 2 are about what pre-training teaches, so they are judged only where it
# taught something (a gate): the pre-trained model's position probe beats the same probe
# on its untrained weights by at least 0.05 in $R^2$ (for claim 2: that, or its masked
# probe already passes, so that the gate can never hide a pass). Unmet, they are not
# checked at this scale.
#
# **Sources.** The paper's full text was not available offline. The abstract and the PMLR
# page confirm the two components; the details — the field's default resolution
# (50×50), the random scale $s\sim\mathrm{Beta}(2,5)$ and translation of the field, the
# 50:50 choice between content and position masking per image, the cross-shaped position
# masks, the DINOv2 base objective and the COCO numbers of claim 4 — come from secondary
# summaries and could not be checked against the paper. Everything beyond them is our
# choice and is listed under the deviations.

# %% tags=["parameters"]
scale = "quick"  # "quick" (≤ 150 s on 2 CPU cores) or "full" (GPU: 96×96, 3 seeds)
seed = 0

# %%
import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from matplotlib.patches import Rectangle

from repbook.core import (
    Ledger,
    setup,
    use_style,
    color_for,
    register_colors,
    reference_line,
    all_of,
    any_of,
    at_least,
    paired_gain,
    tol,
)
from repbook.papers import vit_positional_ssl as V

SIZES = {
    # quick: steps and batch fixed from a timing run (0.17 CPU-s per step at batch 16 on
    # one core) before any probe was computed; 3 variants must fit in the 150 s budget
    "quick": dict(
        size=48,
        field=16,
        n_ssl=2000,
        steps=250,
        batch=16,
        train_seeds=1,
        n_pos=500,
        n_det=1000,
        ablations=[],
    ),
    "full": dict(
        size=96,
        field=50,
        n_ssl=20000,
        steps=3000,
        batch=64,
        train_seeds=3,
        n_pos=1000,
        n_det=1000,
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
        f"synthetic {run['size']}×{run['size']} shape scenes; tiny ViT (dim 96, "
        "depth 4) "
        f"pre-trained {run['steps']} steps × {run['batch']} images per variant; "
        f"frozen linear probes; {run.device}"
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
probe_rng = run.child_rng(2)
det_train = V.make_scenes(run["n_det"], probe_rng, size=SIZE)
det_test = V.make_scenes(run["n_det"], probe_rng, size=SIZE)
n_pos = run["n_pos"]
pos_boxes = V.sample_view_boxes(2 * n_pos, probe_rng)
pos_masks = np.stack([V.cross_mask(GRID, 0.3, probe_rng) for _ in range(2 * n_pos)])
pos_images = np.concatenate([det_train.images[:n_pos], det_test.images[:n_pos]])
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
# model is a ViT with 6×6 patches (8×8 tokens at 48×48), width 96, depth 4,
# 3 heads, MLP ratio 2, and a CLS token. Each variant gets the same images, steps, batch
# size and seeds. The feature std (the spread of the teacher's normalised CLS projections
# over the batch, about 1 when spread, 0 at collapse) is logged to catch collapse.

# %% tags=["hide-input"]
models, traces = {}, {}
for k in range(run["train_seeds"]):
    for variant in V.VARIANTS:
        cfg = V.SSLConfig(
            variant=variant,
            steps=run["steps"],
            batch=run["batch"],
            field_size=run["field"],
        )
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
# whose encodings were replaced by the position-mask vector. Detection-lite and the
# image-level content probes read whole images. All heads are linear. One diagnostic, which
# decides nothing, helps read the position results: the field's smoothness, the mean cosine
# similarity of neighbouring field cells (about 0 for the random initial field, near 1 for a
# smooth one).


# %%
def evaluate(model):
    tr, te = slice(0, n_pos), slice(n_pos, 2 * n_pos)
    pos = V.position_probe(
        model, pos_images[tr], pos_boxes[tr], pos_images[te], pos_boxes[te]
    )
    masked = V.position_probe(
        model,
        pos_images[tr],
        pos_boxes[tr],
        pos_images[te],
        pos_boxes[te],
        train_masks=pos_masks[tr],
        test_masks=pos_masks[te],
    )
    cls_tr, pat_tr = V.encode(model, det_train.images)
    cls_te, pat_te = V.encode(model, det_test.images)
    det = V.detection_lite(pat_tr, det_train, pat_te, det_test, patch=PATCH)
    feats = lambda c, p: np.concatenate([c, p.mean(1)], 1)  # noqa: E731
    content = V.content_probe(
        feats(cls_tr, pat_tr), det_train, feats(cls_te, pat_te), det_test
    )
    return dict(pos=pos, masked=masked, det=det, **content)


# %% tags=["hide-input"]
results = {key: evaluate(m) for key, m in models.items()}
# the same probe on untrained weights: how much position the input alone carries
init, init_smooth, init_field = {}, {}, {}
for variant in V.VARIANTS:
    cfg = V.SSLConfig(variant=variant, steps=1, field_size=run["field"])
    m0 = V.build_model(cfg, SIZE, seed=int(run.child_rng(4).integers(2**31))).to(
        run.device
    )
    init[variant] = V.position_probe(
        m0.eval(),
        pos_images[:n_pos],
        pos_boxes[:n_pos],
        pos_images[n_pos:],
        pos_boxes[n_pos:],
    ).r2
    init_smooth[variant] = V.field_smoothness(m0.field)
    init_field[variant] = m0.field.detach().cpu()
seeds = range(run["train_seeds"])
table = pd.DataFrame(
    {
        v: {
            "position R²": np.mean([results[v, k]["pos"].r2 for k in seeds]),
            "position R² untrained": init[v],
            "field smoothness": np.mean(
                [V.field_smoothness(models[v, k].field) for k in seeds]
            ),
            "field smoothness untrained": init_smooth[v],
            "masked-position R²": np.mean([results[v, k]["masked"].r2 for k in seeds]),
            "patch mIoU": np.mean([results[v, k]["det"].miou for k in seeds]),
            "AP@0.5": np.mean([results[v, k]["det"].ap50 for k in seeds]),
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
# **Criterion (fixed before the run).** For every pre-training seed,
# $R^2_\text{pos}(\text{B+PE}) - R^2_\text{pos}(\text{B}) > 0.2$. It fails if the
# pre-training washes the field's position out of the tokens, or if the baseline recovers
# position from content as well.

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
        init[v],
        marker="_",
        s=500,
        color=color_for("muted"),
        zorder=3,
        label="untrained weights" if j == 0 else None,
    )
reference_line(ax, table.loc["position R²", "B"] + 0.2, "B + 0.2 (claim 1)")
ax.set(
    xticks=range(3),
    xticklabels=V.VARIANTS,
    ylim=(0, 1.05),
    ylabel="R² of original-image (x, y)",
    title="Linear position probe per variant",
)
ax.legend(loc="upper left", fontsize=8)
plt.show()

# %%
gain1 = [results["B+PE", k]["pos"].r2 - results["B", k]["pos"].r2 for k in seeds]
print(
    f"R²_pos: B {table.loc['position R²', 'B']:.3f}, B+PE "
    f"{table.loc['position R²', 'B+PE']:.3f}, B+PE+PM "
    f"{table.loc['position R²', 'B+PE+PM']:.3f}; gain of B+PE over B per seed: "
    + ", ".join(f"{g:.3f}" for g in gain1)
)


def trained(v):  # the gate's value: what pre-training added to the position probe
    return {f"{v}: R² trained − untrained": table.loc["position R²", v] - init[v]}


ledger.check(
    1,
    "crop-tied PE makes original-image position linearly decodable",
    paper="PE tied to the crop carries absolute position (mechanism)",
    source="abstract",
    evidence="simulation",
    measured={
        "R² gain (B+PE − B)": gain1,
        "R² B": table.loc["position R²", "B"],
        "R² B+PE": table.loc["position R²", "B+PE"],
        **trained("B+PE"),
    },
    gate=at_least("B+PE: R² trained − untrained", 0.05),
    criterion=at_least("R² gain (B+PE − B)", 0.2, strict=True),
    tolerance={
        "R² gain (B+PE − B)": tol(abs=0.0002),
        "R² B": tol(abs=0.0002),
        "R² B+PE": tol(abs=6e-05),
        "B+PE: R² trained − untrained": tol(abs=6e-05),
    },
)

# %% [markdown]
# How to read it: the grey marks are the same linear probe on untrained weights, and the
# lines below compare them with the trained ones, next to the field's smoothness from the
# table above. The dashed line is what B+PE needed: B's $R^2$ plus 0.2.

# %%
for v in V.VARIANTS:
    row = table[v]
    print(
        f"{v:8s} linear R² {row['position R²']:.3f} (untrained "
        f"{row['position R² untrained']:.3f}), field smoothness "
        f"{row['field smoothness']:.2f} "
        f"(untrained {row['field smoothness untrained']:.2f})"
    )


def encoding_r2(field):  # the same probe on the crop-tied encodings alone, no network
    pe = (
        V.crop_resize(field, pos_boxes, (GRID, GRID)).flatten(2).transpose(1, 2).numpy()
    )
    xy = V.patch_positions(pos_boxes, GRID)
    probe = V.ridge_probe(
        pe[:n_pos].reshape(-1, pe.shape[-1]), xy[:n_pos].reshape(-1, 2)
    )
    return V.r2_score(
        xy[n_pos:].reshape(-1, 2), probe.predict(pe[n_pos:].reshape(-1, pe.shape[-1]))
    )


print(
    "linear R² from the crop-tied encodings alone: untrained field "
    f"{encoding_r2(init_field['B+PE']):.3f}, trained B+PE field "
    f"{encoding_r2(models['B+PE', 0].field.detach().cpu()):.3f}"
)

# %% [markdown]
# A trained bar that sits on its grey mark means that pre-training at this budget has not
# changed what a linear probe can read. A field that is still close to its random
# initialisation (smoothness near 0) gives each place an arbitrary code, which a linear map
# reads only in part; the last line above gives the same probe on the encodings
# themselves, before any network, and set beside the bars it shows how much of what a
# linear probe can read in the input survives into the tokens. A smooth, position-like field
# would have to be learned, and the full scale (3,000 steps of 64 images) is where that can
# happen.
#
# ## Claim 2 · Position masking teaches where a masked patch lies
#
# When a patch's encoding is replaced by the position-mask vector, its own input says
# nothing about where it is; its token can only know it from its content and its
# neighbours. Pre-training with position masking asks exactly that (the teacher's token
# there does carry the position); the variant without position masking never practised it.
#
# **Criterion (fixed before the run).** For every pre-training seed, the masked-position
# probe on B+PE+PM reaches $R^2 > 0.5$, and exceeds the same probe on B+PE (its
# position-mask vector, never trained, stays at its zero initialisation) by at least 0.1.
# It fails if the tiny model, in this budget, does not learn to place a patch from context,
# or if context alone already places it without the training.

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
masked_pm = [results["B+PE+PM", k]["masked"].r2 for k in seeds]
gain2 = [masked_pm[k] - results["B+PE", k]["masked"].r2 for k in seeds]
print(
    "masked-position R² per seed: B+PE+PM "
    + ", ".join(f"{r:.3f}" for r in masked_pm)
    + "; gain over B+PE "
    + ", ".join(f"{g:.3f}" for g in gain2)
)
ledger.check(
    2,
    "position masking teaches where position-masked patches lie",
    paper="masking and prediction of positional embeddings (mechanism)",
    source="abstract",
    evidence="simulation",
    measured={
        "masked R² (B+PE+PM)": masked_pm,
        "gain over B+PE": gain2,
        **trained("B+PE+PM"),
    },
    gate=any_of(  # the model learned position at all, or the claim's own test passes
        at_least("B+PE+PM: R² trained − untrained", 0.05),
        at_least("masked R² (B+PE+PM)", 0.5, strict=True),
    ),
    criterion=all_of(
        at_least("masked R² (B+PE+PM)", 0.5, strict=True),
        at_least("gain over B+PE", 0.1),
    ),
    tolerance={
        "masked R² (B+PE+PM)": tol(abs=9e-06),
        "gain over B+PE": tol(abs=4e-05),
        "B+PE+PM: R² trained − untrained": tol(abs=0.0002),
    },
)

# %% [markdown]
# The segments join each masked patch's true position to the probe's guess. An $R^2$ near 0
# means the probe does no better than guessing the mean position for every masked patch:
# the token then carries no linearly readable trace of where the patch lies.
#
# ## Claim 3 · Better features for detection
#
# Detection-lite on frozen patch tokens: a linear 5-way patch classifier (background and
# four shapes) gives the class map on the patch grid (mIoU); a linear centre head scores
# each patch for holding an object's box centre; a linear box head regresses the box's
# offset and log size from patches that hold a centre. Decoding keeps 3×3 local maxima of
# the centre score and labels them with the best shape class; AP@0.5 is averaged over the
# four classes. Heads are fitted on `n_det` images and scored on `n_det` others.
#
# **Criterion (fixed before the run).** The gain AP@0.5(B+PE+PM) − AP@0.5(B), paired by
# pre-training seed (both variants see the same images and seeds): its mean minus two
# standard errors > 0. It fails if the mean plus two standard errors is ≤ 0; in between it
# is within the noise. It needs at least three seeds, so at quick scale (one seed) the claim
# is `not checked at this scale` and the single-seed numbers are shown only.

# %% tags=["hide-input"]
fig, axes = plt.subplots(2, 5, figsize=(12, 5.2))
for row, v in zip(axes, ["B", "B+PE+PM"]):
    det = results[v, 0]["det"]
    for ax, i in zip(row, range(5)):
        ax.imshow(det_test.images[i].transpose(1, 2, 0))
        for k in range(int(det_test.counts[i])):
            x0, y0, x1, y1 = det_test.boxes[i, k]
            ax.add_patch(
                Rectangle(
                    (x0 - 0.5, y0 - 0.5),
                    x1 - x0,
                    y1 - y0,
                    fill=False,
                    ec="w",
                    ls="--",
                    lw=1.2,
                )
            )
        bx, sc, lab = det.detections[i]
        for b, s_, c in zip(bx, sc, lab):
            if s_ > 0.3:
                ax.add_patch(
                    Rectangle(
                        (b[0] - 0.5, b[1] - 0.5),
                        b[2] - b[0],
                        b[3] - b[1],
                        fill=False,
                        ec=color_for(v),
                        lw=1.5,
                    )
                )
                ax.text(b[0], b[1] - 1, V.SHAPES[c - 1], color=color_for(v), fontsize=7)
        ax.set_axis_off()
    row[0].set_title(f"{v}: AP@0.5 = {det.ap50:.2f}", loc="left")
fig.suptitle("Detection-lite on frozen features (dashed: truth; solid: score > 0.3)")
plt.show()

# %%
ap = {v: [results[v, k]["det"].ap50 for k in seeds] for v in V.VARIANTS}
gain3 = float(np.mean(ap["B+PE+PM"]) - np.mean(ap["B"]))
print(
    "AP@0.5 per seed: "
    + "; ".join(f"{v} " + ", ".join(f"{a:.3f}" for a in ap[v]) for v in V.VARIANTS)
    + f"\nmean gain of B+PE+PM over B: {gain3:+.3f}"
)
crit3 = paired_gain("AP gain (B+PE+PM − B), per seed", 0)
measured3 = {
    "mean AP gain (B+PE+PM − B)": gain3,
    "AP B": float(np.mean(ap["B"])),
    "AP B+PE+PM": float(np.mean(ap["B+PE+PM"])),
}
if run["train_seeds"] >= 3:
    ledger.check(
        3,
        "detection-lite AP on frozen features improves",
        paper="COCO AP^box gains over DINOv2† (ViT-S)",
        source="secondary summary",
        evidence="simulation",
        measured={
            "AP gain (B+PE+PM − B), per seed": list(
                np.subtract(ap["B+PE+PM"], ap["B"])
            ),
            **measured3,
        },
        criterion=crit3,
        tolerance=tol(abs=0.0002),
    )
else:
    ledger.not_checked(
        3,
        "detection-lite AP on frozen features improves",
        paper="COCO AP^box gains over DINOv2† (ViT-S)",
        source="secondary summary",
        criterion=crit3,
        measured=measured3,
        note="needs ≥ 3 pre-training seeds per variant; run the full scale "
        "(3 seeds, GPU)",
        tolerance=tol(abs=0.0002),
    )

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
    cfg = V.SSLConfig(
        **{
            **dict(
                variant="B+PE+PM",
                steps=run["steps"],
                batch=run["batch"],
                field_size=run["field"],
            ),
            **override,
        }
    )
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
# record", and the claims whose verdict flips between seeds are named under the table with
# their range.

# %% tags=["nbval-check-output"]
ledger.show()

# %% tags=["nbval-ignore-output"]
import time

print(
    f"chapter run time: {run.elapsed():.1f} s at scale={run.scale!r} on {run.device} "
    f"(CPU time of this process: {time.process_time():.1f} s)"
)

# %% [markdown]
# ## Deviations from the paper
#
# - **Gates added after the results were known** (the book-wide rule that a claim is judged
#   only where its mechanism can show). Claims 1 and 2 were judged on a pre-trained model whose
#   position probe read what the same probe read on untrained weights (at commit 238c14c,
#   R² 0.395 against 0.396 for B+PE): not reproduced, about a model that had not learned. Both
#   are now gated on the trained-minus-untrained position $R^2$ of the variant they read
#   (≥ 0.05, a quarter of claim 1's own bar of 0.2); their criteria are unchanged.
# - **After a verdict audit of those gates.** Claim 2's gate read the *unmasked* probe, which
#   a model could leave flat while its masked probe passed: a gate that could hide a pass. It
#   is now "trained − untrained ≥ 0.05, or masked $R^2$ > 0.5" (the verdict at quick scale is
#   the same: neither holds). Claim 3 (full scale) was "mean AP gain over seeds > 0", a bare
#   mean; it is now the gain paired by pre-training seed, mean − 2 SE > 0, which needs three
#   seeds (the full scale has three). Two findings are left for the chapter's group issue
#   (17–19): the untrained weights of the gate are a fresh initialisation, not the student's
#   own step-0 weights, so the gate's 0.05 includes the difference between two random fields;
#   and a higher learning rate for the field may be the affordable regime in which the
#   position field becomes smooth at quick scale.
# - **Data and scale.** Generated 48×48 shape scenes instead of ImageNet-1K and COCO; a ViT
#   of width 96 and depth 4 with 6×6 patches instead of ViT-S/16 and ViT-B/16; 250
#   pre-training steps of 16 images per variant at quick scale instead of 100 ImageNet
#   epochs; frozen linear probes and a "detection-lite" decoder instead of fine-tuning a
#   ViTDet Mask R-CNN. The numbers are about the mechanisms, not about COCO.
# - **Budget.** The issue planned about 600 steps of 64 images per variant from an estimate
#   of 30–60 ms per step; a timing run gave 0.17 CPU-seconds per step at batch 16 (about
#   0.7 at batch 64) on one core, so the quick scale was fixed at 250 steps of 16 images before any
#   probe was computed. One pre-training seed fits at quick scale, so claim 3 is checked at
#   full scale only.
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
#   scale), initialised like a ViT's learnable position embedding (truncated normal, std
#   0.02), so it starts as a random code; zero-initialised mask vectors; the crop-relative baseline as the same field
#   sampled over the view. The ablations' "uniform" and "constant" scale laws are ours
#   (same mean as Beta(2, 5)).
# - **Claim 2's second part** (a gain of at least 0.1 over B+PE) is ours: the issue's
#   criterion was $R^2 > 0.5$ alone, which context could pass without any position masking.
#   It was added before the run.
# - **Added after the first quick run** (no criterion changed): the field-smoothness
#   diagnostic and the criterion line in claim 1's figure, which help read claim 1 and
#   decide nothing.
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
# claim 3), and the six ablations above.
