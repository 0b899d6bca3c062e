"""Crop-tied positional encodings and position masking for self-supervised ViTs, in miniature.

After Liu, Suganuma and Okatani, *Self-Supervised Learning of Intertwined Content and Positional
Features for Object Detection* (ICML 2025). No official code exists; the method follows the
paper's abstract and secondary summaries, and every detail beyond them is our choice.

Pieces:

- `make_scenes`: synthetic multi-object images (coloured squares, disks, triangles, crosses on a
  textured background) with instance and class masks and boxes.
- Views: a view is a box ``(top, left, height, width, flip)`` in image fractions. `crop_resize`
  samples any map (an image, or the positional field) at the centres of an output grid laid over
  that box, by separable bilinear interpolation (a matrix product, so its gradient is
  deterministic on every device).
- `TinyViT`: a small ViT whose positional encoding is a learnable *field* ``P`` of shape
  ``(dim, h_p, w_p)``. ``pe="crop-relative"`` samples ``P`` over the view itself (the usual
  encoding: every crop gets the same vectors); ``pe="crop-tied"`` samples ``P`` over the view's
  box in the original image, after a random scale ``a = 1 - s`` (``s ~ Beta(2, 5)``) and
  translation of the image inside the field.
- Position masking: the encodings of a cross-shaped set of patches are replaced by a learnable
  vector; the student then predicts the (unmasked) teacher's tokens there.
- `pretrain`: an EMA teacher, a cosine loss on the CLS token across two views (BYOL style), and a
  cosine regression of masked student patch tokens onto the teacher's.
- Frozen-feature probes: `ridge_probe` (position, image-level content), `detection_lite`
  (per-patch class and centre heads, box offsets, mIoU on the patch grid, AP at IoU 0.5).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

SHAPES = ("square", "disk", "triangle", "cross")
"""Shape classes; class k + 1 in the masks and labels (0 is background)."""

VARIANTS = ("B", "B+PE", "B+PE+PM")
"""B: crop-relative encoding; +PE: crop-tied field; +PM: position masking as well."""


# ---------------------------------------------------------------------------------------------
# Synthetic scenes
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Scenes:
    """A batch of synthetic images and their ground truth.

    images: (n, 3, H, W) float32 in [0, 1]; instances: (n, H, W) int8, 0 background and k for the
    k-th object; classes: (n, H, W) int8, 0 background and 1..4 for `SHAPES`; boxes: (n, m, 4)
    float32 pixel edges (x0, y0, x1, y1), NaN where an image has fewer than m objects; labels:
    (n, m) int8 class per box (0 = no object); counts: (n,) objects per image.
    """

    images: np.ndarray
    instances: np.ndarray
    classes: np.ndarray
    boxes: np.ndarray
    labels: np.ndarray
    counts: np.ndarray

    def __len__(self) -> int:
        return len(self.images)


def _shape_mask(kind: int, xx: np.ndarray, yy: np.ndarray, r: float) -> np.ndarray:
    ax, ay = np.abs(xx), np.abs(yy)
    if kind == 0:  # square
        return (ax <= r) & (ay <= r)
    if kind == 1:  # disk
        return xx**2 + yy**2 <= r**2
    if kind == 2:  # upright triangle: apex at the top, base at the bottom
        return (ay <= r) & (ax <= (yy + r) / 2)
    arm = r / 3  # cross
    return ((ax <= r) & (ay <= arm)) | ((ay <= r) & (ax <= arm))


def _background(size: int, rng: np.random.Generator, noise: float) -> np.ndarray:
    yy, xx = np.mgrid[0:size, 0:size] / size
    base = rng.uniform(0.25, 0.55, size=3)
    img = np.repeat(base[:, None, None], size, 1).repeat(size, 2)
    for _ in range(3):  # a few smooth random waves make a texture
        fx, fy = rng.uniform(-6, 6, size=2)
        phase = rng.uniform(0, 2 * np.pi)
        amp = rng.uniform(0.03, 0.08, size=3)
        img = img + amp[:, None, None] * np.sin(2 * np.pi * (fx * xx + fy * yy) + phase)
    return img + noise * rng.standard_normal((3, size, size))


def make_scenes(
    n: int,
    rng: np.random.Generator,
    *,
    size: int = 48,
    max_objects: int = 3,
    side: tuple[float, float] = (0.2, 0.45),
    noise: float = 0.04,
) -> Scenes:
    """`n` images of `size`×`size` pixels with 1..`max_objects` non-overlapping shapes.

    Each shape has a random class, a bright random colour and a side drawn uniformly from `side`
    (fractions of the image side); shapes keep a one-pixel gap, so every instance is whole and
    its box is the box of its pixels. The background is a smooth random texture plus pixel noise.
    """
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    if not isinstance(size, (int, np.integer)) or size < 8:
        raise ValueError(f"size must be an integer >= 8, got {size!r}")
    if not isinstance(max_objects, (int, np.integer)) or max_objects < 1:
        raise ValueError(f"max_objects must be a positive integer, got {max_objects!r}")
    lo, hi = side
    if not 0 < lo <= hi < 1:
        raise ValueError(f"side must satisfy 0 < lo <= hi < 1, got {side!r}")
    images = np.empty((n, 3, size, size), np.float32)
    instances = np.zeros((n, size, size), np.int8)
    classes = np.zeros((n, size, size), np.int8)
    boxes = np.full((n, max_objects, 4), np.nan, np.float32)
    labels = np.zeros((n, max_objects), np.int8)
    counts = np.zeros(n, np.int64)
    centres = np.arange(size) + 0.5
    for i in range(n):
        img = _background(size, rng, noise)
        want = int(rng.integers(1, max_objects + 1))
        placed: list[tuple[float, float, float, float]] = []
        for _ in range(60):  # rejection sampling of non-overlapping boxes
            if len(placed) == want:
                break
            kind = int(rng.integers(len(SHAPES)))
            r = rng.uniform(lo, hi) * size / 2
            cx, cy = rng.uniform(r + 1, size - r - 1, size=2)
            x0, y0, x1, y1 = cx - r, cy - r, cx + r, cy + r
            if any(
                x0 < b[2] + 1 and b[0] < x1 + 1 and y0 < b[3] + 1 and b[1] < y1 + 1
                for b in placed
            ):
                continue
            m = _shape_mask(kind, centres[None, :] - cx, centres[:, None] - cy, r)
            rows, cols = np.nonzero(m)
            k = len(placed)
            placed.append((x0, y0, x1, y1))
            hue = rng.uniform(0, 1)
            colour = 0.5 + 0.45 * np.cos(2 * np.pi * (hue + np.array([0, 1, 2]) / 3))
            img[:, m] = colour[:, None] + noise * rng.standard_normal((3, m.sum()))
            instances[i][m] = k + 1
            classes[i][m] = kind + 1
            boxes[i, k] = (cols.min(), rows.min(), cols.max() + 1, rows.max() + 1)
            labels[i, k] = kind + 1
        counts[i] = len(placed)
        images[i] = np.clip(img, 0, 1)
    return Scenes(images, instances, classes, boxes, labels, counts)


# ---------------------------------------------------------------------------------------------
# Views, the positional field and crops
# ---------------------------------------------------------------------------------------------
def check_boxes(boxes) -> np.ndarray:
    """Validate view boxes: an (n, 5) array of (top, left, height, width, flip) in image
    fractions, each box inside the unit square and flip 0 or 1."""
    b = np.asarray(boxes, dtype=np.float64)
    if b.ndim != 2 or b.shape[1] != 5:
        raise ValueError(
            f"boxes must have shape (n, 5) = (top, left, height, width, flip), got {b.shape}"
        )
    top, left, h, w, flip = b.T
    tol = 1e-9
    bad = (
        (h <= 0)
        | (w <= 0)
        | (top < -tol)
        | (left < -tol)
        | (top + h > 1 + tol)
        | (left + w > 1 + tol)
        | ~np.isin(flip, (0.0, 1.0))
    )
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(
            f"boxes[{i}] = {tuple(b[i])} is not a view inside the image: expected "
            "0 <= top, 0 <= left, height > 0, width > 0, top + height <= 1, "
            "left + width <= 1 and flip in {0, 1}"
        )
    return b


def identity_boxes(n: int) -> np.ndarray:
    """The whole image, unflipped, `n` times."""
    return np.tile(np.array([0.0, 0.0, 1.0, 1.0, 0.0]), (n, 1))


def sample_view_boxes(
    n: int,
    rng: np.random.Generator,
    *,
    scale: tuple[float, float] = (0.32, 1.0),
    ratio: tuple[float, float] = (3 / 4, 4 / 3),
    flip_p: float = 0.5,
) -> np.ndarray:
    """Random-resized-crop boxes: area fraction ~ U(scale), log aspect ratio ~ U(log ratio),
    uniform position inside the image, horizontal flip with probability `flip_p`."""
    if not 0 < scale[0] <= scale[1] <= 1:
        raise ValueError(f"scale must satisfy 0 < lo <= hi <= 1, got {scale!r}")
    if not 0 < ratio[0] <= ratio[1]:
        raise ValueError(f"ratio must satisfy 0 < lo <= hi, got {ratio!r}")
    if not 0 <= flip_p <= 1:
        raise ValueError(f"flip_p must lie in [0, 1], got {flip_p!r}")
    area = rng.uniform(*scale, size=n)
    aspect = np.exp(rng.uniform(np.log(ratio[0]), np.log(ratio[1]), size=n))
    w = np.minimum(np.sqrt(area * aspect), 1.0)
    h = np.minimum(np.sqrt(area / aspect), 1.0)
    top = rng.uniform(0, 1, size=n) * (1 - h)
    left = rng.uniform(0, 1, size=n) * (1 - w)
    flip = (rng.uniform(size=n) < flip_p).astype(float)
    return np.stack([top, left, h, w, flip], axis=1)


FIELD_SCALES = ("beta", "uniform", "constant", "none")
"""Laws of the field scale s: Beta(2, 5) (the paper's, per the summaries); U(0, 4/7) and the
constant 2/7 have the same mean (our stand-ins for the paper's uniform and constant ablations);
"none" is the identity placement."""


def sample_field_jitter(
    n: int, rng: np.random.Generator, *, law: str = "beta"
) -> np.ndarray:
    """Per-image placement of the image inside the positional field: rows (a, tx, ty) map image
    coordinates u to field coordinates t + a·u, with a = 1 - s, s drawn by `law` (see
    `FIELD_SCALES`) and t ~ U(0, s)², so the image covers a random window of the field."""
    if law not in FIELD_SCALES:
        raise ValueError(f"law must be one of {FIELD_SCALES}, got {law!r}")
    if law == "none":
        return np.tile(np.array([1.0, 0.0, 0.0]), (n, 1))
    if law == "beta":
        s = rng.beta(2.0, 5.0, size=n)
    elif law == "uniform":
        s = rng.uniform(0, 4 / 7, size=n)
    else:
        s = np.full(n, 2 / 7)
    t = rng.uniform(0, 1, size=(n, 2)) * s[:, None]
    return np.column_stack([1 - s, t])


def grid_coords(boxes, grid: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Original-image coordinates, in [0, 1], of the cell centres of a `grid` = (rows, cols)
    laid over each view: returns x (n, cols) and y (n, rows). A flipped view reads its
    columns right to left."""
    b = check_boxes(boxes)
    gh, gw = _grid(grid)
    top, left, h, w, flip = b.T
    u = (np.arange(gw) + 0.5) / gw
    v = (np.arange(gh) + 0.5) / gh
    u = np.where(flip[:, None] > 0, 1 - u[None, :], u[None, :])
    x = left[:, None] + u * w[:, None]
    y = top[:, None] + v[None, :] * h[:, None]
    return x, y


def _grid(grid) -> tuple[int, int]:
    if isinstance(grid, (int, np.integer)):
        grid = (grid, grid)
    gh, gw = (int(g) for g in grid)
    if gh < 1 or gw < 1:
        raise ValueError(f"grid must be positive, got {grid!r}")
    return gh, gw


def interp_weights(pos: torch.Tensor, size: int) -> torch.Tensor:
    """Bilinear weights (…, k, size) for sampling a length-`size` axis at positions `pos` (…, k)
    in [0, 1] (pixel i covers [i/size, (i+1)/size], its centre at (i + 0.5)/size; positions
    beyond the outer centres take the border value)."""
    p = (pos * size - 0.5).clamp(0, size - 1)
    i0 = p.floor().clamp(max=size - 2) if size > 1 else torch.zeros_like(p)
    frac = p - i0
    idx = torch.arange(size, dtype=pos.dtype)
    w0 = (idx == i0[..., None]).to(pos.dtype) * (1 - frac)[..., None]
    w1 = (idx == (i0 + 1)[..., None]).to(pos.dtype) * frac[..., None]
    return w0 + w1


def crop_resize(maps: torch.Tensor, boxes, out_hw, *, jitter=None) -> torch.Tensor:
    """Sample `maps` over each view box at the cell centres of an `out_hw` grid.

    `maps` is (n, c, H, W) (one map per view) or (c, H, W) (one map shared by all views, such as
    the positional field). With `jitter` rows (a, tx, ty), box coordinates u are first mapped to
    t + a·u. Returns (n, c, out_h, out_w). The same call crops an image and its field, so image
    and encoding move together (flip included).
    """
    x, y = grid_coords(boxes, out_hw)
    n = len(x)
    if jitter is not None:
        j = np.asarray(jitter, dtype=np.float64)
        if j.shape != (n, 3):
            raise ValueError(
                f"jitter must have shape ({n}, 3) = (a, tx, ty), got {j.shape}"
            )
        if (
            (j[:, 0] <= 0).any()
            or (j[:, 1:] < 0).any()
            or (j[:, 0] + j[:, 1:].T > 1 + 1e-9).any()
        ):
            raise ValueError(
                "jitter rows (a, tx, ty) must satisfy a > 0, t >= 0, t + a <= 1"
            )
        x = j[:, 1:2] + j[:, 0:1] * x
        y = j[:, 2:3] + j[:, 0:1] * y
    if maps.dim() == 3:
        shared = True
    elif maps.dim() == 4:
        shared = False
        if maps.shape[0] != n:
            raise ValueError(
                f"maps has {maps.shape[0]} images but boxes has {n} views: give one map per "
                "view (n, c, H, W) or one shared map (c, H, W)"
            )
    else:
        raise ValueError(
            f"maps must be (c, H, W) or (n, c, H, W), got shape {tuple(maps.shape)}"
        )
    H, W = maps.shape[-2:]
    dt = maps.dtype if maps.is_floating_point() else torch.float32
    wy = interp_weights(
        torch.as_tensor(y, dtype=dt, device=maps.device), H
    )  # (n, gh, H)
    wx = interp_weights(
        torch.as_tensor(x, dtype=dt, device=maps.device), W
    )  # (n, gw, W)
    if shared:
        return torch.einsum("nah,chw,nbw->ncab", wy, maps, wx)
    return torch.einsum("nah,nchw,nbw->ncab", wy, maps, wx)


# ---------------------------------------------------------------------------------------------
# Masks
# ---------------------------------------------------------------------------------------------
def _check_ratio(ratio: float) -> None:
    if not (isinstance(ratio, (int, float, np.floating)) and 0 <= ratio < 1):
        raise ValueError(f"mask_ratio must lie in [0, 1), got {ratio!r}")


def random_mask(grid: int, mask_ratio: float, rng: np.random.Generator) -> np.ndarray:
    """A (grid, grid) boolean mask with round(mask_ratio · grid²) patches drawn at random."""
    _check_ratio(mask_ratio)
    gh, gw = _grid(grid)
    k = int(round(mask_ratio * gh * gw))
    m = np.zeros(gh * gw, bool)
    m[rng.choice(gh * gw, size=k, replace=False)] = True
    return m.reshape(gh, gw)


def cross_mask(
    grid: int,
    mask_ratio: float,
    rng: np.random.Generator,
    *,
    thickness: int | None = None,
) -> np.ndarray:
    """A (grid, grid) boolean mask shaped like a cross: a horizontal and a vertical bar of
    `thickness` patches (default grid // 4, at least 1) that intersect, with arm lengths drawn
    so that the cross covers as close to mask_ratio · grid² patches as the shape allows."""
    _check_ratio(mask_ratio)
    g, gw = _grid(grid)
    if g != gw:
        raise ValueError(f"cross_mask needs a square grid, got {grid!r}")
    t = max(1, g // 4) if thickness is None else int(thickness)
    if not 1 <= t <= g:
        raise ValueError(f"thickness must lie in [1, {g}], got {thickness!r}")
    m = np.zeros((g, g), bool)
    k = mask_ratio * g * g
    if k < 0.5:
        return m
    # a horizontal bar t × a and a vertical bar b × t sharing a t × t square: t(a + b) - t² cells
    total = int(np.clip(round(k / t + t), 2 * t, 2 * g))  # a + b
    a = int(rng.integers(max(t, total - g), min(g, total - t) + 1))
    b = total - a
    r = int(rng.integers(0, g - t + 1))  # rows of the horizontal bar
    c = int(rng.integers(0, g - t + 1))  # columns of the vertical bar
    c0 = int(rng.integers(max(0, c + t - a), min(c, g - a) + 1))
    r0 = int(rng.integers(max(0, r + t - b), min(r, g - b) + 1))
    m[r : r + t, c0 : c0 + a] = True
    m[r0 : r0 + b, c : c + t] = True
    return m


def box_mask(grid: int, mask_ratio: float, rng: np.random.Generator) -> np.ndarray:
    """A (grid, grid) boolean mask shaped like one rectangle (log aspect ratio uniform in
    [log 1/2, log 2]) covering about mask_ratio · grid² patches, at a random place."""
    _check_ratio(mask_ratio)
    g, gw = _grid(grid)
    m = np.zeros((g, gw), bool)
    k = mask_ratio * g * gw
    if k < 0.5:
        return m
    aspect = math.exp(rng.uniform(math.log(0.5), math.log(2.0)))
    h = int(np.clip(round(math.sqrt(k / aspect)), 1, g))
    w = int(np.clip(round(k / h), 1, gw))
    r, c = int(rng.integers(0, g - h + 1)), int(rng.integers(0, gw - w + 1))
    m[r : r + h, c : c + w] = True
    return m


# ---------------------------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------------------------
FIELD_INITS = ("random", "sincos")
"""Initial positional fields: "random" (truncated normal, std 0.02, as a ViT's learnable
position embedding) or "sincos" (the 2D sine-cosine table of `sincos_field`)."""


def sincos_field(dim: int, size: int, *, std: float = 0.02) -> torch.Tensor:
    """A (dim, size, size) 2D sine-cosine field: the first half of the channels encodes x, the
    second half y; each half holds sin and cos of the cell index (0..size-1) at dim/4 geometric
    frequencies 1/10000^(k/(dim/4)), k = 0..dim/4-1. Scaled so that its element std is `std`."""
    if not isinstance(dim, (int, np.integer)) or dim < 4 or dim % 4:
        raise ValueError(f"dim must be a positive multiple of 4, got {dim!r}")
    if not isinstance(size, (int, np.integer)) or size < 2:
        raise ValueError(f"size must be an integer >= 2, got {size!r}")
    if not std > 0:
        raise ValueError(f"std must be positive, got {std!r}")
    q = dim // 4
    omega = 1.0 / 10000 ** (torch.arange(q, dtype=torch.float64) / q)
    ang = torch.arange(size, dtype=torch.float64)[:, None] * omega[None, :]  # (size, q)
    axis = torch.cat([ang.sin(), ang.cos()], dim=1).T  # (dim/2, size)
    fx = axis[:, None, :].expand(-1, size, -1)  # varies along columns
    fy = axis[:, :, None].expand(-1, -1, size)  # varies along rows
    f = torch.cat([fx, fy], dim=0)
    return (f / f.std() * std).to(torch.float32)


def attention(q, k, v, *, fused: bool = True) -> torch.Tensor:
    """Softmax attention. `fused=False` spells it out, for CUDA, where the backward passes of
    the fused kernels are not deterministic."""
    if fused:
        return F.scaled_dot_product_attention(q, k, v)
    w = (q @ k.transpose(-2, -1)) * (q.shape[-1] ** -0.5)
    return w.softmax(-1) @ v


class _Block(nn.Module):
    def __init__(self, dim: int, heads: int, mlp_ratio: float):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        hidden = int(dim * mlp_ratio)
        self.mlp = nn.Sequential(
            nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n, t, d = x.shape
        q, k, v = (
            self.qkv(self.norm1(x))
            .reshape(n, t, 3, self.heads, d // self.heads)
            .permute(2, 0, 3, 1, 4)
        )
        a = attention(q, k, v, fused=not x.is_cuda)
        x = x + self.proj(a.transpose(1, 2).reshape(n, t, d))
        return x + self.mlp(self.norm2(x))


class TinyViT(nn.Module):
    """A small ViT with a CLS token and a positional *field*.

    ``pe="crop-relative"``: the field is sampled over the view itself, so every crop of every
    image gets the same encodings (standard ViT practice). ``pe="crop-tied"``: the field is
    sampled over the view's box in the original image (after the image's placement `jitter`), so
    a patch's encoding says where it lies in the original image. `content_mask` replaces the patch
    embeddings of masked patches by a learnable vector (iBOT-style masking); `pos_mask` replaces
    their positional encodings by another learnable vector (position masking).
    """

    def __init__(
        self,
        *,
        image_size: int = 48,
        patch: int = 6,
        dim: int = 96,
        depth: int = 4,
        heads: int = 3,
        mlp_ratio: float = 2.0,
        field_size: int = 16,
        pe: str = "crop-tied",
        field_init: str = "random",
    ):
        super().__init__()
        if image_size % patch:
            raise ValueError(
                f"patch size {patch} must divide image_size {image_size} "
                f"({image_size} % {patch} = {image_size % patch})"
            )
        if dim % heads:
            raise ValueError(f"heads ({heads}) must divide dim ({dim})")
        if pe not in ("crop-tied", "crop-relative"):
            raise ValueError(f"pe must be 'crop-tied' or 'crop-relative', got {pe!r}")
        if field_size < 2:
            raise ValueError(f"field_size must be at least 2, got {field_size!r}")
        if field_init not in FIELD_INITS:
            raise ValueError(
                f"field_init must be one of {FIELD_INITS}, got {field_init!r}"
            )
        self.image_size, self.patch, self.dim, self.pe = image_size, patch, dim, pe
        self.grid = image_size // patch
        self.patch_embed = nn.Linear(3 * patch * patch, dim)
        self.cls = nn.Parameter(torch.zeros(1, 1, dim))
        self.cls_pos = nn.Parameter(torch.zeros(1, 1, dim))
        self.field = nn.Parameter(torch.zeros(dim, field_size, field_size))
        self.mask_token = nn.Parameter(torch.zeros(dim))
        self.pos_mask_token = nn.Parameter(torch.zeros(dim))
        self.blocks = nn.ModuleList(_Block(dim, heads, mlp_ratio) for _ in range(depth))
        self.norm = nn.LayerNorm(dim)
        nn.init.trunc_normal_(self.field, std=0.02)
        if field_init == "sincos":
            with torch.no_grad():
                self.field.copy_(sincos_field(dim, field_size, std=0.02))
        nn.init.trunc_normal_(self.cls, std=0.02)
        nn.init.trunc_normal_(self.cls_pos, std=0.02)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.trunc_normal_(m.weight, std=0.02)
                nn.init.zeros_(m.bias)

    def positional(self, boxes, jitter=None) -> torch.Tensor:
        """Encodings (n, grid², dim) of each view's patches."""
        if self.pe == "crop-relative":
            boxes, jitter = identity_boxes(len(np.asarray(boxes))), None
        pe = crop_resize(self.field, boxes, (self.grid, self.grid), jitter=jitter)
        return pe.flatten(2).transpose(1, 2)

    def patchify(self, images: torch.Tensor) -> torch.Tensor:
        n, c, h, w = images.shape
        if h != self.image_size or w != self.image_size:
            raise ValueError(
                f"images must be {self.image_size}×{self.image_size}, got {h}×{w}"
            )
        p, g = self.patch, self.grid
        x = images.reshape(n, c, g, p, g, p).permute(0, 2, 4, 1, 3, 5)
        return x.reshape(n, g * g, c * p * p)

    def forward(self, images, boxes, *, jitter=None, content_mask=None, pos_mask=None):
        """Tokens (n, 1 + grid², dim) after the final norm; token 0 is CLS."""
        x = self.patch_embed(self.patchify(images))
        if content_mask is not None:
            x = torch.where(content_mask[..., None], self.mask_token, x)
        pe = self.positional(boxes, jitter)
        if pos_mask is not None:
            pe = torch.where(pos_mask[..., None], self.pos_mask_token, pe)
        x = x + pe
        cls = (self.cls + self.cls_pos).expand(len(x), -1, -1)
        x = torch.cat([cls, x], dim=1)
        for blk in self.blocks:
            x = blk(x)
        return self.norm(x)


SMALL_ARCH = (("patch", 6), ("dim", 48), ("depth", 2), ("heads", 3), ("mlp_ratio", 2.0))
"""The quick scale's ViT: width 48, depth 2, 3 heads, MLP ratio 2, 6×6 patches."""


def _mlp(d_in: int, hidden: int, d_out: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Linear(d_in, hidden),
        nn.BatchNorm1d(hidden),
        nn.GELU(),
        nn.Linear(hidden, d_out),
    )


# ---------------------------------------------------------------------------------------------
# Self-supervised pre-training
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SSLConfig:
    """One pre-training run. `variant` is one of `VARIANTS`."""

    variant: str
    steps: int
    batch: int = 32
    lr: float = 1e-3
    weight_decay: float = 0.04
    warmup: int = 20
    ema: tuple[float, float] = (0.99, 0.999)
    mask_ratio: float = 0.3
    pos_mask_share: float = 0.5  # share of images given position (not content) masking
    field_size: int = 16
    field_init: str = "random"  # one of FIELD_INITS
    field_lr: float = 1.0  # the field's learning rate, as a multiple of `lr`
    field_scale: str = "beta"  # law of the field placement, one of FIELD_SCALES
    pos_mask_shape: str = "cross"  # "cross" or "box"
    crop_scale: tuple[float, float] = (0.32, 1.0)
    head_dim: int = 128
    arch: tuple = (
        ("patch", 6),
        ("dim", 96),
        ("depth", 4),
        ("heads", 3),
        ("mlp_ratio", 2.0),
    )

    def __post_init__(self):
        if self.variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}, got {self.variant!r}")
        if not isinstance(self.steps, int) or self.steps < 1:
            raise ValueError(f"steps must be a positive integer, got {self.steps!r}")
        if not isinstance(self.batch, int) or self.batch < 2:
            raise ValueError(f"batch must be an integer >= 2, got {self.batch!r}")
        _check_ratio(self.mask_ratio)
        if not 0 <= self.pos_mask_share <= 1:
            raise ValueError(
                f"pos_mask_share must lie in [0, 1], got {self.pos_mask_share!r}"
            )
        if self.field_init not in FIELD_INITS:
            raise ValueError(
                f"field_init must be one of {FIELD_INITS}, got {self.field_init!r}"
            )
        if not (isinstance(self.field_lr, (int, float)) and self.field_lr > 0):
            raise ValueError(
                f"field_lr must be a positive number, got {self.field_lr!r}"
            )
        if self.field_scale not in FIELD_SCALES:
            raise ValueError(
                f"field_scale must be one of {FIELD_SCALES}, got {self.field_scale!r}"
            )
        if self.pos_mask_shape not in ("cross", "box"):
            raise ValueError(
                f"pos_mask_shape must be 'cross' or 'box', got {self.pos_mask_shape!r}"
            )


@dataclass(frozen=True)
class SSLTrace:
    """Per-step records of a pre-training run: total, image (CLS) and patch losses, and the
    feature std: the std over the batch of the l2-normalised CLS token of the teacher's
    *backbone* (before the projection head and its BatchNorm), averaged over dimensions and
    times sqrt(dim) (about 1 for spread features, 0 at collapse)."""

    loss: np.ndarray
    image_loss: np.ndarray
    patch_loss: np.ndarray
    feature_std: np.ndarray

    def loss_ratio(self, window: int = 50) -> float:
        """The SSL loss at the end over its step-0 value: the mean loss of the last `window`
        steps (all steps if fewer) divided by the loss of step 0 (the step-0 network on the
        first batch, before any update)."""
        if not isinstance(window, (int, np.integer)) or window < 1:
            raise ValueError(f"window must be a positive integer, got {window!r}")
        return float(self.loss[-window:].mean() / self.loss[0])


def build_model(config: SSLConfig, image_size: int, seed: int) -> TinyViT:
    """The variant's ViT, initialised from `seed` without touching the global torch RNG."""
    pe = "crop-relative" if config.variant == "B" else "crop-tied"
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return TinyViT(
            image_size=image_size,
            field_size=config.field_size,
            pe=pe,
            field_init=config.field_init,
            **dict(config.arch),
        )


def initial_student(
    config: SSLConfig, image_size: int, rng: np.random.Generator
) -> TinyViT:
    """The student that `pretrain(images, config, rng)` starts from, for `rng` in the same state
    (its step-0 weights): the untrained reference of a pre-training run."""
    return build_model(config, image_size, int(rng.integers(2**31))).eval()


def field_change(initial: torch.Tensor, trained: torch.Tensor) -> float:
    """How far pre-training moved the positional field: ‖P_T − P_0‖ / ‖P_0‖ (Frobenius)."""
    p0 = torch.as_tensor(initial).detach().cpu().double()
    p1 = torch.as_tensor(trained).detach().cpu().double()
    if p0.shape != p1.shape:
        raise ValueError(
            f"fields differ in shape: {tuple(p0.shape)} vs {tuple(p1.shape)}"
        )
    norm = float(p0.norm())
    if norm == 0:
        raise ValueError("the initial field is zero; its relative change is undefined")
    return float((p1 - p0).norm()) / norm


def _augment(x: torch.Tensor, rng: np.random.Generator) -> torch.Tensor:
    """Photometric jitter per view: channel gains, brightness, a little noise."""
    n, kw = len(x), dict(dtype=x.dtype, device=x.device)
    gain = torch.as_tensor(rng.uniform(0.8, 1.2, size=(n, 3, 1, 1)), **kw)
    shift = torch.as_tensor(rng.uniform(-0.1, 0.1, size=(n, 1, 1, 1)), **kw)
    noise = torch.as_tensor(0.02 * rng.standard_normal(x.shape), **kw)
    return (x * gain + shift + noise).clamp(0, 1)


def _masks(config: SSLConfig, n: int, grid: int, rng: np.random.Generator):
    content = np.zeros((n, grid * grid), bool)
    pos = np.zeros((n, grid * grid), bool)
    share = config.pos_mask_share if config.variant == "B+PE+PM" else 0.0
    use_pos = rng.uniform(size=n) < share
    shape = cross_mask if config.pos_mask_shape == "cross" else box_mask
    for i in range(n):
        if use_pos[i]:
            pos[i] = shape(grid, config.mask_ratio, rng).ravel()
        else:
            content[i] = random_mask(grid, config.mask_ratio, rng).ravel()
    return torch.from_numpy(content), torch.from_numpy(pos)


def _cos_loss(p: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
    return 2 - 2 * F.cosine_similarity(p, z, dim=-1).mean()


def pretrain(
    images: np.ndarray | torch.Tensor,
    config: SSLConfig,
    rng: np.random.Generator,
    *,
    device: str = "cpu",
) -> tuple[TinyViT, SSLTrace]:
    """Pre-train `config.variant` on `images` (n, 3, H, W) for `config.steps` steps.

    Each step draws a batch, two random-resized views per image (the same field placement for
    both), a content or position mask per view, and updates the student on
    L = L_image + L_patch: L_image is the symmetric cosine loss between the student's predicted
    CLS projection of one view and the teacher's CLS projection of the other; L_patch is the
    cosine loss between the student's predicted projections of masked patches and the teacher's
    projections of the same patches in the same, unmasked view. The teacher is an EMA of the
    student. Runs on `device`; returns the student backbone (on `device`) and the trace.
    """
    x_all = torch.as_tensor(np.asarray(images), dtype=torch.float32).to(device)
    if x_all.dim() != 4 or x_all.shape[1] != 3:
        raise ValueError(f"images must be (n, 3, H, W), got {tuple(x_all.shape)}")
    n_img, size = len(x_all), x_all.shape[-1]
    student = build_model(config, size, int(rng.integers(2**31)))
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(int(rng.integers(2**31)))
        s_proj = _mlp(student.dim, 2 * config.head_dim, config.head_dim)
        s_pred = _mlp(config.head_dim, 2 * config.head_dim, config.head_dim)
    teacher = build_model(config, size, 0)
    teacher.load_state_dict(student.state_dict())
    t_proj = _mlp(student.dim, 2 * config.head_dim, config.head_dim)
    t_proj.load_state_dict(s_proj.state_dict())
    for mod in (student, s_proj, s_pred, teacher, t_proj):
        mod.to(device)
    for p in [*teacher.parameters(), *t_proj.parameters()]:
        p.requires_grad_(False)
    params = [*student.parameters(), *s_proj.parameters(), *s_pred.parameters()]
    decay = [p for p in params if p.dim() >= 2 and p is not student.field]
    other = [
        p for p in params if not (p.dim() >= 2 or p is student.field)
    ]  # biases, norms, tokens
    groups = [
        {"params": decay, "weight_decay": config.weight_decay, "scale": 1.0},
        {"params": other, "weight_decay": 0.0, "scale": 1.0},
        {"params": [student.field], "weight_decay": 0.0, "scale": config.field_lr},
    ]
    opt = torch.optim.AdamW(groups, lr=config.lr)
    grid, b = student.grid, config.batch
    tied = config.variant != "B"
    rec = {k: np.zeros(config.steps) for k in ("loss", "image", "patch", "std")}
    for step in range(config.steps):
        warm = min(1.0, (step + 1) / max(1, config.warmup))
        cos = 0.5 * (1 + math.cos(math.pi * step / config.steps))
        for g in opt.param_groups:
            g["lr"] = g["scale"] * config.lr * warm * (0.1 + 0.9 * cos)
        idx = rng.choice(n_img, size=b, replace=n_img < b)
        jit = sample_field_jitter(b, rng, law=config.field_scale) if tied else None
        jit2 = None if jit is None else np.concatenate([jit, jit])
        boxes = sample_view_boxes(2 * b, rng, scale=config.crop_scale)
        src = x_all[np.concatenate([idx, idx])]
        views = _augment(crop_resize(src, boxes, (size, size)), rng)
        content, pos = (mk.to(device) for mk in _masks(config, 2 * b, grid, rng))
        masked = (content | pos).reshape(-1)
        swap = torch.cat([torch.arange(b, 2 * b), torch.arange(b)]).to(device)
        with torch.no_grad():
            t_tok = teacher(views, boxes, jitter=jit2)
            t_cls = t_proj(t_tok[:, 0])
            t_pat = t_proj(t_tok[:, 1:].reshape(-1, t_tok.shape[-1])[masked])
        s_tok = student(views, boxes, jitter=jit2, content_mask=content, pos_mask=pos)
        s_cls = s_pred(s_proj(s_tok[:, 0]))
        s_pat = s_pred(s_proj(s_tok[:, 1:].reshape(-1, s_tok.shape[-1])[masked]))
        l_img = _cos_loss(s_cls, t_cls[swap])
        l_patch = _cos_loss(s_pat, t_pat)
        loss = l_img + l_patch
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        m = config.ema[1] - (config.ema[1] - config.ema[0]) * cos
        with torch.no_grad():
            for ps, pt in zip(
                [*student.parameters(), *s_proj.parameters()],
                [*teacher.parameters(), *t_proj.parameters()],
            ):
                pt.mul_(m).add_(ps.detach(), alpha=1 - m)
            zc = F.normalize(t_tok[:, 0], dim=-1)  # the backbone's CLS token
            rec["std"][step] = float(zc.std(0).mean() * math.sqrt(zc.shape[-1]))
        rec["loss"][step] = loss.item()
        rec["image"][step] = l_img.item()
        rec["patch"][step] = l_patch.item()
    student.eval()
    return student, SSLTrace(rec["loss"], rec["image"], rec["patch"], rec["std"])


# ---------------------------------------------------------------------------------------------
# Frozen features and probes
# ---------------------------------------------------------------------------------------------
@torch.no_grad()
def encode(
    model: TinyViT,
    images: np.ndarray | torch.Tensor,
    boxes=None,
    *,
    pos_mask: np.ndarray | None = None,
    batch: int = 250,
) -> tuple[np.ndarray, np.ndarray]:
    """Frozen tokens of the views `boxes` of `images` (whole images if None), with the field at
    its identity placement. Returns CLS (n, dim) and patch tokens (n, grid², dim)."""
    device = model.field.device
    x = torch.as_tensor(np.asarray(images), dtype=torch.float32).to(device)
    n, size = len(x), model.image_size
    boxes = identity_boxes(n) if boxes is None else check_boxes(boxes)
    if len(boxes) != n:
        raise ValueError(f"boxes has {len(boxes)} rows for {n} images")
    if pos_mask is not None:
        pos_mask = np.asarray(pos_mask, bool).reshape(n, -1)
    model.eval()
    cls, pat = [], []
    for s in range(0, n, batch):
        sl = slice(s, s + batch)
        v = crop_resize(x[sl], boxes[sl], (size, size))
        pm = None if pos_mask is None else torch.from_numpy(pos_mask[sl]).to(device)
        t = model(v, boxes[sl], pos_mask=pm).cpu()
        cls.append(t[:, 0].numpy())
        pat.append(t[:, 1:].numpy())
    return np.concatenate(cls), np.concatenate(pat)


def patch_positions(boxes, grid: int) -> np.ndarray:
    """Original-image (x, y) in [0, 1] of every patch centre of each view: (n, grid², 2)."""
    x, y = grid_coords(boxes, grid)
    xx = np.broadcast_to(x[:, None, :], (len(x), grid, grid))
    yy = np.broadcast_to(y[:, :, None], (len(x), grid, grid))
    return np.stack([xx, yy], axis=-1).reshape(len(x), grid * grid, 2)


@dataclass(frozen=True)
class RidgeProbe:
    """A linear map fitted by ridge regression on standardised features."""

    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray  # (d + 1, k): weights and intercept

    def predict(self, X: np.ndarray) -> np.ndarray:
        Z = (np.asarray(X, np.float64) - self.mean) / self.scale
        return Z @ self.coef[:-1] + self.coef[-1]


def ridge_probe(X: np.ndarray, Y: np.ndarray, *, alpha: float = 1.0) -> RidgeProbe:
    """Fit ``Y ≈ standardise(X) W + b`` with an L2 penalty `alpha` on W (closed form)."""
    X = np.asarray(X, np.float64)
    Y = np.asarray(Y, np.float64)
    if X.ndim != 2 or len(X) != len(Y):
        raise ValueError(
            f"X must be (n, d) with n = len(Y); got {X.shape} and {Y.shape}"
        )
    if alpha < 0:
        raise ValueError(f"alpha must be >= 0, got {alpha!r}")
    Y2 = Y.reshape(len(Y), -1)
    mean, scale = X.mean(0), X.std(0) + 1e-8
    Z = (X - mean) / scale
    ym = Y2.mean(0)
    A = Z.T @ Z + alpha * np.eye(Z.shape[1])
    W = np.linalg.solve(A, Z.T @ (Y2 - ym))
    coef = np.vstack([W, ym[None, :]])
    return RidgeProbe(mean, scale, coef)


def r2_score(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Coefficient of determination averaged over output columns (sklearn's 'uniform')."""
    yt = np.asarray(y_true, np.float64).reshape(len(y_true), -1)
    yp = np.asarray(y_pred, np.float64).reshape(len(y_pred), -1)
    ss_res = ((yt - yp) ** 2).sum(0)
    ss_tot = ((yt - yt.mean(0)) ** 2).sum(0)
    return float(np.mean(1 - ss_res / ss_tot))


# ---------------------------------------------------------------------------------------------
# Detection-lite
# ---------------------------------------------------------------------------------------------
def patch_targets(scenes: Scenes, patch: int) -> dict[str, np.ndarray]:
    """Ground truth on the patch grid: `label` (n, g²) the majority class of each patch's
    pixels (0 = background), `centre` (n, g²) 1 where a box centre falls, and `box` (n, g², 4)
    the offsets (dx, dy, log w, log h) of that box from the patch centre, in patch units."""
    n, H, W = scenes.classes.shape
    if H % patch or W % patch:
        raise ValueError(f"patch size {patch} must divide the image size {H}×{W}")
    g = H // patch
    cl = scenes.classes.reshape(n, g, patch, g, patch).transpose(0, 1, 3, 2, 4)
    cl = cl.reshape(n, g * g, patch * patch)
    counts = np.stack([(cl == k).sum(-1) for k in range(len(SHAPES) + 1)], axis=-1)
    label = counts.argmax(-1)
    centre = np.zeros((n, g * g))
    box = np.zeros((n, g * g, 4))
    for i in range(n):
        for k in range(int(scenes.counts[i])):
            x0, y0, x1, y1 = scenes.boxes[i, k]
            cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
            c, r = min(int(cx // patch), g - 1), min(int(cy // patch), g - 1)
            j = r * g + c
            centre[i, j] = 1
            box[i, j] = (
                cx / patch - (c + 0.5),
                cy / patch - (r + 0.5),
                np.log((x1 - x0) / patch),
                np.log((y1 - y0) / patch),
            )
    return {"label": label, "centre": centre, "box": box}


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU matrix between boxes a (k, 4) and b (m, 4), both (x0, y0, x1, y1)."""
    a, b = np.asarray(a, float).reshape(-1, 4), np.asarray(b, float).reshape(-1, 4)
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.clip(rb - lt, 0, None).prod(-1)
    area = lambda z: (z[:, 2] - z[:, 0]) * (z[:, 3] - z[:, 1])  # noqa: E731
    return inter / (area(a)[:, None] + area(b)[None, :] - inter)


def average_precision(
    detections: list[tuple[np.ndarray, np.ndarray]],
    truths: list[np.ndarray],
    *,
    iou: float = 0.5,
) -> float:
    """All-point interpolated average precision of one class over a set of images.

    `detections[i]` = (boxes (k, 4), scores (k,)) and `truths[i]` = boxes (m, 4) of image i.
    Detections are matched greedily in descending score order to the unmatched truth of highest
    IoU in their image, a match needing IoU >= `iou`. NaN if there is no truth.
    """
    if len(detections) != len(truths):
        raise ValueError(
            f"detections ({len(detections)}) and truths ({len(truths)}) must list the same images"
        )
    if not 0 < iou <= 1:
        raise ValueError(f"iou must lie in (0, 1], got {iou!r}")
    n_true = sum(len(t) for t in truths)
    if n_true == 0:
        return float("nan")
    rows = []
    for i, (bx, sc) in enumerate(detections):
        for j in range(len(sc)):
            rows.append((-float(sc[j]), i, j))
    rows.sort()
    used = [np.zeros(len(t), bool) for t in truths]
    tp = np.zeros(len(rows))
    for r, (_, i, j) in enumerate(rows):
        if len(truths[i]) == 0:
            continue
        ious = box_iou(detections[i][0][j], truths[i])[0]
        ious[used[i]] = -1
        best = int(np.argmax(ious))
        if ious[best] >= iou:
            used[i][best] = True
            tp[r] = 1
    if not len(rows):
        return 0.0
    ctp = np.cumsum(tp)
    recall = ctp / n_true
    precision = ctp / np.arange(1, len(rows) + 1)
    mrec = np.concatenate([[0.0], recall])
    mpre = np.concatenate([[1.0], precision])
    mpre = np.maximum.accumulate(mpre[::-1])[::-1]
    return float(np.sum((mrec[1:] - mrec[:-1]) * mpre[1:]))


def neighbourhood(tokens: np.ndarray, context: int) -> np.ndarray:
    """Tokens (n, g², d) of a g×g grid → (n, g², (2c + 1)² d): each patch's own token and those
    of the patches within `context` = c rows and columns of it, zero beyond the grid's edge."""
    t = np.asarray(tokens)
    if t.ndim != 3:
        raise ValueError(f"tokens must be (n, g², d), got shape {t.shape}")
    n, g2, d = t.shape
    g = int(round(math.sqrt(g2)))
    if g * g != g2:
        raise ValueError(f"tokens must lie on a square grid, got {g2} per image")
    if not isinstance(context, (int, np.integer)) or context < 0:
        raise ValueError(f"context must be a non-negative integer, got {context!r}")
    c = int(context)
    pad = np.pad(t.reshape(n, g, g, d), ((0, 0), (c, c), (c, c), (0, 0)))
    parts = [
        pad[:, c + dy : c + dy + g, c + dx : c + dx + g]
        for dy in range(-c, c + 1)
        for dx in range(-c, c + 1)
    ]
    return np.concatenate(parts, axis=-1).reshape(n, g2, -1)


def random_features(
    train: np.ndarray, test: np.ndarray, m: int, *, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """A fixed random ReLU map of tokens (…, d): standardise with the training tokens' mean and
    std, then relu(Z W + b) with W ~ N(0, 1/d) (d × m) and b ~ N(0, 1), the same W and b for
    train and test (drawn from `seed`). Returns both mapped to (…, m), float32."""
    if not isinstance(m, (int, np.integer)) or m < 1:
        raise ValueError(f"m must be a positive integer, got {m!r}")
    tr, te = np.asarray(train, np.float32), np.asarray(test, np.float32)
    d = tr.shape[-1]
    if te.shape[-1] != d:
        raise ValueError(
            f"train and test tokens differ in width: {d} vs {te.shape[-1]}"
        )
    flat = tr.reshape(-1, d)
    mean, std = flat.mean(0), flat.std(0) + 1e-6
    g = np.random.default_rng(seed)
    W = (g.standard_normal((d, m)) / math.sqrt(d)).astype(np.float32)
    b = g.standard_normal(m).astype(np.float32)

    def phi(x):
        return np.maximum(((x - mean) / std) @ W + b, 0)

    return phi(tr), phi(te)


@dataclass(frozen=True)
class DetectionResult:
    """Detection-lite on frozen tokens: mIoU of the patch-grid class map, AP at IoU 0.5 per
    class and their mean, the decoded detections of the test images, and the chance AP: the
    same heads' AP when every test image is scored with another test image's tokens (the next
    one), which keeps what the heads learned of where and how large objects tend to be and
    removes everything the features say about the image itself."""

    miou: float
    ap50: float
    ap_per_class: tuple[float, ...]
    detections: list  # per test image: (boxes (k, 4), scores (k,), labels (k,))
    chance_ap50: float = float("nan")


def detection_lite(
    train_tokens: np.ndarray,
    train: Scenes,
    test_tokens: np.ndarray,
    test: Scenes,
    *,
    patch: int,
    alpha: float = 10.0,
    min_score: float = 0.05,
    context: int = 0,
    features: int = 0,
    feature_seed: int = 0,
) -> DetectionResult:
    """Linear heads on frozen patch tokens (n, g², d): a 5-way patch class head (one-hot ridge)
    gives the class map (mIoU over background and the four shapes); a centre head scores each
    patch for holding a box centre; a box head regresses (dx, dy, log w, log h) from patches that
    hold a centre. Each head reads a patch's token, or with `context` = c the tokens of the
    (2c + 1)² patches around it (see `neighbourhood`). Decoding keeps patches whose centre score
    is a 3×3 local maximum above `min_score`, labelled by the class head's best shape, scored by
    the centre score. With `features` = m > 0 the heads read m fixed random ReLU features of
    those tokens instead (`random_features`, seeded by `feature_seed`): still closed-form ridge
    heads, but able to draw a nonlinear boundary."""
    if not isinstance(features, (int, np.integer)) or features < 0:
        raise ValueError(f"features must be a non-negative integer, got {features!r}")
    if not isinstance(context, (int, np.integer)) or context < 0:
        raise ValueError(f"context must be a non-negative integer, got {context!r}")
    g2 = train_tokens.shape[1]
    g = int(round(math.sqrt(g2)))
    t_tr, t_te = patch_targets(train, patch), patch_targets(test, patch)
    if context:
        train_tokens = neighbourhood(train_tokens, context)
        test_tokens = neighbourhood(test_tokens, context)
    if features:
        train_tokens, test_tokens = random_features(
            train_tokens, test_tokens, features, seed=feature_seed
        )
    d = train_tokens.shape[-1]
    Xtr, Xte = train_tokens.reshape(-1, d), test_tokens.reshape(-1, d)
    k = len(SHAPES) + 1
    # the class and centre heads share their inputs: one ridge fit with k + 1 outputs
    both = ridge_probe(
        Xtr,
        np.column_stack([np.eye(k)[t_tr["label"].ravel()], t_tr["centre"].ravel()]),
        alpha=alpha,
    )
    cls_head = RidgeProbe(both.mean, both.scale, both.coef[:, :k])
    cen_head = RidgeProbe(both.mean, both.scale, both.coef[:, k:])
    has = t_tr["centre"].ravel() > 0
    box_head = ridge_probe(Xtr[has], t_tr["box"].reshape(-1, 4)[has], alpha=alpha)
    n = len(test_tokens)

    def score(X):
        cls_score = cls_head.predict(X).reshape(n, g2, k)
        pred = cls_score.argmax(-1)
        truth = t_te["label"]
        ious = []
        for c in range(k):
            inter = ((pred == c) & (truth == c)).sum()
            union = ((pred == c) | (truth == c)).sum()
            ious.append(inter / union if union else np.nan)
        cen = cen_head.predict(X).reshape(n, g, g)
        off = box_head.predict(X).reshape(n, g, g, 4)
        pad = np.pad(cen, ((0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
        neigh = np.stack(
            [
                pad[:, 1 + dy : 1 + dy + g, 1 + dx : 1 + dx + g]
                for dy in (-1, 0, 1)
                for dx in (-1, 0, 1)
            ]
        )
        peak = (cen >= neigh.max(0)) & (cen > min_score)
        fg = cls_score.reshape(n, g, g, k)[..., 1:].argmax(-1) + 1
        dets = []
        for i in range(n):
            rr, cc = np.nonzero(peak[i])
            o = off[i, rr, cc]
            cx, cy = (cc + 0.5 + o[:, 0]) * patch, (rr + 0.5 + o[:, 1]) * patch
            w, h = (
                np.exp(np.clip(o[:, 2], -3, 3)) * patch,
                np.exp(np.clip(o[:, 3], -3, 3)) * patch,
            )
            bx = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1)
            dets.append((bx, cen[i, rr, cc], fg[i, rr, cc]))
        aps = []
        for c in range(1, k):
            det_c = [(bx[lab == c], sc[lab == c]) for bx, sc, lab in dets]
            tru_c = [
                test.boxes[i][: test.counts[i]][test.labels[i][: test.counts[i]] == c]
                for i in range(n)
            ]
            aps.append(average_precision(det_c, tru_c, iou=0.5))
        return float(np.nanmean(ious)), aps, dets

    miou, aps, dets = score(Xte)
    chance = float("nan")
    if n > 1:  # every test image scored with the next image's tokens
        chance = float(np.nanmean(score(np.roll(test_tokens, 1, 0).reshape(-1, d))[1]))
    return DetectionResult(
        miou=miou,
        ap50=float(np.nanmean(aps)),
        ap_per_class=tuple(float(a) for a in aps),
        detections=dets,
        chance_ap50=chance,
    )


# ---------------------------------------------------------------------------------------------
# The probe suite
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PositionResult:
    """A position probe: R² on the test tokens, and the true and predicted original-image (x, y)
    of each test token it used (k, 2)."""

    r2: float
    true: np.ndarray
    pred: np.ndarray


def position_probe(
    model: TinyViT,
    train_images: np.ndarray,
    train_boxes: np.ndarray,
    test_images: np.ndarray,
    test_boxes: np.ndarray,
    *,
    train_masks: np.ndarray | None = None,
    test_masks: np.ndarray | None = None,
    alpha: float = 1.0,
) -> PositionResult:
    """Fit a linear (ridge) map from frozen patch tokens of views to the original-image (x, y) of
    each patch centre on the training views; report R² on the test views. With masks
    (n, grid, grid), the positional encodings of the masked patches are replaced by the model's
    position-mask vector and only the masked patches' tokens are used."""
    if (train_masks is None) != (test_masks is None):
        raise ValueError("give both train_masks and test_masks, or neither")
    g = model.grid

    def tokens(images, boxes, masks):
        _, pat = encode(model, images, boxes, pos_mask=masks)
        pos = patch_positions(boxes, g)
        if masks is None:
            return pat.reshape(-1, pat.shape[-1]), pos.reshape(-1, 2)
        keep = np.asarray(masks, bool).reshape(len(images), -1)
        return pat[keep], pos[keep]

    Xtr, Ytr = tokens(train_images, train_boxes, train_masks)
    Xte, Yte = tokens(test_images, test_boxes, test_masks)
    pred = ridge_probe(Xtr, Ytr, alpha=alpha).predict(Xte)
    return PositionResult(r2_score(Yte, pred), Yte, pred)


def content_probe(
    train_features: np.ndarray,
    train: Scenes,
    test_features: np.ndarray,
    test: Scenes,
    *,
    alpha: float = 10.0,
) -> dict[str, float]:
    """Image-level linear probes on frozen features (n, d): the number of shapes (one-hot ridge,
    accuracy) and which shape types are present (one ridge score per type, threshold 1/2,
    accuracy averaged over types)."""
    k = int(max(train.counts.max(), test.counts.max()))
    head = ridge_probe(train_features, np.eye(k + 1)[train.counts], alpha=alpha)
    count_acc = float((head.predict(test_features).argmax(1) == test.counts).mean())

    def present(s: Scenes) -> np.ndarray:
        return np.stack([(s.labels == c + 1).any(1) for c in range(len(SHAPES))], 1)

    types = ridge_probe(train_features, present(train).astype(float), alpha=alpha)
    type_acc = float(((types.predict(test_features) > 0.5) == present(test)).mean())
    return {"count accuracy": count_acc, "type accuracy": type_acc}


def field_smoothness(field: torch.Tensor | np.ndarray) -> float:
    """Mean cosine similarity between horizontally and vertically adjacent cells of a field
    (d, h, w): about 0 for an untrained random field, near 1 for a smooth one."""
    f = torch.as_tensor(
        np.asarray(field.detach().cpu() if torch.is_tensor(field) else field)
    )
    if f.dim() != 3 or min(f.shape[1:]) < 2:
        raise ValueError(
            f"field must be (d, h, w) with h, w >= 2, got {tuple(f.shape)}"
        )
    h = F.cosine_similarity(f[:, :, 1:], f[:, :, :-1], dim=0)
    v = F.cosine_similarity(f[:, 1:, :], f[:, :-1, :], dim=0)
    return float(torch.cat([h.flatten(), v.flatten()]).mean())


# ---------------------------------------------------------------------------------------------
# Protocols of the chapter
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ProbeSet:
    """The held-out data every probe reads: `pos_images` (2n, 3, H, W) with one view box and one
    cross mask each (the first n fit the position probes, the last n score them), and the
    detection scenes `det_train`, `det_test`."""

    pos_images: np.ndarray
    pos_boxes: np.ndarray
    pos_masks: np.ndarray
    det_train: Scenes
    det_test: Scenes

    @property
    def n_pos(self) -> int:
        return len(self.pos_images) // 2


def make_probe_set(
    n_pos: int, n_det: int, rng: np.random.Generator, *, size: int, grid: int
) -> ProbeSet:
    """Draw the probes' data: `n_det` + `n_det` detection scenes, and for the position probes
    the first `n_pos` images of each with a random view box and a 30 % cross mask apiece."""
    if not isinstance(n_pos, (int, np.integer)) or not 1 <= n_pos <= n_det:
        raise ValueError(
            f"n_pos must be an integer in [1, n_det = {n_det}], got {n_pos!r}"
        )
    det_train = make_scenes(n_det, rng, size=size)
    det_test = make_scenes(n_det, rng, size=size)
    boxes = sample_view_boxes(2 * n_pos, rng)
    masks = np.stack([cross_mask(grid, 0.3, rng) for _ in range(2 * n_pos)])
    images = np.concatenate([det_train.images[:n_pos], det_test.images[:n_pos]])
    return ProbeSet(images, boxes, masks, det_train, det_test)


HEADS = {
    "linear": dict(context=1, features=0),
    "random-feature": dict(context=1, features=1024),
}
"""The two detection-lite heads, both on the 3×3 neighbourhood of tokens: "linear" reads the
tokens themselves (the usual frozen-feature readout, claim 3's judged head); "random-feature"
reads 1,024 fixed random ReLU features of them (shown beside it)."""


def probe_suite(model: TinyViT, data: ProbeSet, *, patch: int, heads=None) -> dict:
    """Every frozen-feature probe of one model: `pos` (position probe on all patches), `masked`
    (on position-masked patches), `det` ({head name: `detection_lite` result} for each entry
    of `heads`, {name: dict(context=..., features=...)}; empty without heads) and the
    image-level content probes (CLS and mean patch token)."""
    heads = dict(heads or {})
    for name, kw in heads.items():
        if set(kw) - {"context", "features"}:
            raise ValueError(
                f"head {name!r} takes context and features only, got {sorted(kw)}"
            )
    n = data.n_pos
    tr, te = slice(0, n), slice(n, 2 * n)
    im, bx, mk = data.pos_images, data.pos_boxes, data.pos_masks
    pos = position_probe(model, im[tr], bx[tr], im[te], bx[te])
    masked = position_probe(
        model, im[tr], bx[tr], im[te], bx[te], train_masks=mk[tr], test_masks=mk[te]
    )
    cls_tr, pat_tr = encode(model, data.det_train.images)
    cls_te, pat_te = encode(model, data.det_test.images)
    det = {
        name: detection_lite(
            pat_tr, data.det_train, pat_te, data.det_test, patch=patch, **kw
        )
        for name, kw in heads.items()
    }
    content = content_probe(
        np.concatenate([cls_tr, pat_tr.mean(1)], 1),
        data.det_train,
        np.concatenate([cls_te, pat_te.mean(1)], 1),
        data.det_test,
    )
    return dict(pos=pos, masked=masked, det=det, **content)


def suite_numbers(suite: dict) -> dict[str, float]:
    """The numbers of a `probe_suite` result, flat: position and masked-position R², count and
    type accuracy, and per head its AP@0.5, chance AP@0.5 and patch mIoU."""
    out = {
        "position R²": float(suite["pos"].r2),
        "masked-position R²": float(suite["masked"].r2),
        "count accuracy": float(suite["count accuracy"]),
        "type accuracy": float(suite["type accuracy"]),
    }
    for name, r in suite["det"].items():
        out[f"AP {name}"] = float(r.ap50)
        out[f"chance AP {name}"] = float(r.chance_ap50)
        out[f"mIoU {name}"] = float(r.miou)
    return out


def encoding_r2(field: torch.Tensor, boxes: np.ndarray, grid: int) -> float:
    """The position probe on the crop-tied encodings alone (no network): ridge from each patch's
    encoding, sampled from `field` over its view box, to its original-image (x, y); fitted on the
    first half of `boxes`, R² on the second half."""
    b = check_boxes(boxes)
    n = len(b) // 2
    if n < 1:
        raise ValueError(f"boxes must hold at least 2 views, got {len(b)}")
    f = torch.as_tensor(field).detach().cpu()
    pe = crop_resize(f, b, (grid, grid)).flatten(2).transpose(1, 2).numpy()
    xy = patch_positions(b, grid)
    d = pe.shape[-1]
    probe = ridge_probe(pe[:n].reshape(-1, d), xy[:n].reshape(-1, 2))
    return r2_score(
        xy[n : 2 * n].reshape(-1, 2), probe.predict(pe[n : 2 * n].reshape(-1, d))
    )


@dataclass(frozen=True)
class DetectionStudy:
    """Claim 3's protocol over pre-training seeds: per variant, one AP@0.5 per seed for the
    trained student (`ap`), for its step-0 weights (`untrained_ap`) and the chance AP of the
    trained features (`chance_ap`); `seconds` per variant and seed."""

    variants: tuple[str, ...]
    seeds: tuple[int, ...]
    ap: dict
    untrained_ap: dict
    chance_ap: dict
    seconds: dict

    def gains(self, variant: str, baseline: str = "B") -> list[float]:
        """Per-seed paired gains AP(variant) − AP(baseline)."""
        return [a - b for a, b in zip(self.ap[variant], self.ap[baseline])]


def detection_study(
    ssl_images: np.ndarray,
    data: ProbeSet,
    configs: dict,
    seeds,
    *,
    patch: int,
    context: int = 1,
    features: int = 1024,
    device: str = "cpu",
    clock=None,
    untrained_of=None,
) -> DetectionStudy:
    """Pre-train each variant of `configs` ({variant: SSLConfig}) once per seed (rng
    `numpy.random.default_rng(seed)`, the same for every variant, so gains pair by seed) and score
    the detection-lite head (`context`, `features`) on the trained student, on its step-0
    weights and by chance. `clock` (a no-argument timer such as time.perf_counter) times each
    pre-training; without it `seconds` is empty. `untrained_of` names the variants whose step-0
    weights are scored (default: all; the others get NaN)."""
    seeds = tuple(int(s) for s in seeds)
    if not seeds:
        raise ValueError("seeds must name at least one pre-training seed")
    size = data.det_train.images.shape[-1]
    ap, un, ch, secs = {}, {}, {}, {}
    for v, cfg in configs.items():
        if cfg.variant != v:
            raise ValueError(f"configs[{v!r}] is a config of variant {cfg.variant!r}")
        ap[v], un[v], ch[v] = [], [], []
        for s in seeds:
            m0 = initial_student(cfg, size, np.random.default_rng(s)).to(device)
            t0 = clock() if clock else 0.0
            m, _ = pretrain(ssl_images, cfg, np.random.default_rng(s), device=device)
            if clock:
                secs[v, s] = clock() - t0
            kw = dict(patch=patch, context=context, features=features)
            if untrained_of is not None and v not in untrained_of:
                un[v].append(float("nan"))
            pairs = [(m, ap[v])]
            if untrained_of is None or v in untrained_of:
                pairs.append((m0, un[v]))
            for model, out in pairs:
                _, p_tr = encode(model, data.det_train.images)
                _, p_te = encode(model, data.det_test.images)
                r = detection_lite(p_tr, data.det_train, p_te, data.det_test, **kw)
                out.append(r.ap50)
                if model is m:
                    ch[v].append(r.chance_ap50)
    return DetectionStudy(tuple(configs), seeds, ap, un, ch, secs)


# ---------------------------------------------------------------------------------------------
# The pre-training study: every variant on every seed, probed at step 0 and trained
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Study:
    """Pre-trainings probed at step 0 and after training. `runs` holds one JSON-able row per
    (label, seed): "label", "variant", "seed", the probe numbers at "step 0" and "trained"
    (`suite_numbers`), the SSL loss at step 0 and at the end and their ratio, the field's change
    and smoothness, the final feature std and the pre-training's seconds (None without a
    clock). With `keep`, `models`, `initial`, `traces` and `suites` ({"step 0", "trained"}
    `probe_suite` results) hold the objects, keyed by (label, seed)."""

    labels: tuple[str, ...]
    seeds: tuple[int, ...]
    runs: list
    models: dict
    initial: dict
    traces: dict
    suites: dict

    def record(self) -> dict:
        """The JSON-able part: labels, seeds and runs (what `study_values` reads)."""
        return {
            "labels": list(self.labels),
            "seeds": list(self.seeds),
            "runs": self.runs,
        }


def pretraining_study(
    ssl_images: np.ndarray,
    data: ProbeSet,
    configs: dict,
    seeds,
    *,
    patch: int,
    heads=None,
    device: str = "cpu",
    rng_of=None,
    clock=None,
    keep: bool = False,
    loss_window: int = 50,
) -> Study:
    """Pre-train each config of `configs` ({label: SSLConfig}; the label is the variant name
    where the claims read it) once per seed and run `probe_suite` (with `heads`) on the trained
    student and on its step-0 weights. `rng_of(seed)` returns a fresh generator for a seed
    (default `numpy.random.default_rng(seed)`); it is called once for the step-0 student and
    once for the pre-training, which therefore start from the same weights. Step-0 weights that
    two configs share (B+PE and B+PE+PM: the same architecture, field and seed) are probed once.
    `clock` (a no-argument timer) times each pre-training; `loss_window` steps make the loss
    at the end (`SSLTrace.loss_ratio`)."""
    seeds = tuple(int(s) for s in seeds)
    if not seeds:
        raise ValueError("seeds must name at least one pre-training seed")
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds repeat: {seeds}")
    if not configs:
        raise ValueError("configs must hold at least one {label: SSLConfig}")
    for label, cfg in configs.items():
        if not isinstance(cfg, SSLConfig):
            raise ValueError(f"configs[{label!r}] is not an SSLConfig")
    rng_of = rng_of or np.random.default_rng
    size = data.det_train.images.shape[-1]
    runs, models, initial, traces, suites, step0 = [], {}, {}, {}, {}, {}
    for s in seeds:
        for label, cfg in configs.items():
            m0 = initial_student(cfg, size, rng_of(s)).to(device)
            key = (cfg.variant == "B", cfg.field_size, cfg.field_init, cfg.arch, s)
            if key not in step0:
                step0[key] = probe_suite(m0, data, patch=patch, heads=heads)
            t0 = clock() if clock else None
            m, tr = pretrain(ssl_images, cfg, rng_of(s), device=device)
            secs = None if clock is None else round(clock() - t0, 1)
            suite = probe_suite(m, data, patch=patch, heads=heads)
            w = min(loss_window, cfg.steps)
            runs.append(
                {
                    "label": label,
                    "variant": cfg.variant,
                    "seed": s,
                    "pos_mask_share": cfg.pos_mask_share,
                    "step 0": suite_numbers(step0[key]),
                    "trained": suite_numbers(suite),
                    "loss step 0": float(tr.loss[0]),
                    "loss end": float(tr.loss[-w:].mean()),
                    "loss end / step 0": tr.loss_ratio(w),
                    "field change": field_change(m0.field, m.field),
                    "field smoothness step 0": field_smoothness(m0.field),
                    "field smoothness": field_smoothness(m.field),
                    "feature std end": float(tr.feature_std[-w:].mean()),
                    "seconds": secs,
                }
            )
            if keep:
                models[label, s], initial[label, s], traces[label, s] = m, m0, tr
                suites[label, s] = {"step 0": step0[key], "trained": suite}
    return Study(tuple(configs), seeds, runs, models, initial, traces, suites)


def study_values(record: dict) -> dict[str, list[float]]:
    """The per-seed values the chapter's gates and claims read, from a `Study.record()` (or
    its JSON), in seed order. For every label L: "loss end / step 0 · L" and "content probe
    rise · L" (the larger of the count and the type accuracy's rise over step 0). With B and
    B+PE (claim 1): the position-R² gain of B+PE over B trained and at step 0, its learned part
    and B+PE's own rise. With B+PE and B+PE+PM (claim 2): B+PE+PM's masked-position R², its
    gain over B+PE and its rise. For every head H with B (claim 3): B's pre-training AP gain,
    and the AP gains of B+PE+PM and B+PE over B."""
    seeds = [int(s) for s in record["seeds"]]
    runs = {(r["label"], int(r["seed"])): r for r in record["runs"]}
    labels = list(
        record.get("labels") or dict.fromkeys(r["label"] for r in record["runs"])
    )
    missing = [(lab, s) for lab in labels for s in seeds if (lab, s) not in runs]
    if missing:
        raise ValueError(f"the record lacks runs {missing}")

    def get(lab, stage, key):
        return np.array([runs[lab, s][stage][key] for s in seeds], float)

    def rise(lab, key):
        return get(lab, "trained", key) - get(lab, "step 0", key)

    out: dict[str, np.ndarray] = {}
    for lab in labels:
        out[f"loss end / step 0 · {lab}"] = np.array(
            [runs[lab, s]["loss end / step 0"] for s in seeds], float
        )
        out[f"content probe rise · {lab}"] = np.maximum(
            rise(lab, "count accuracy"), rise(lab, "type accuracy")
        )
    if {"B", "B+PE"} <= set(labels):
        key = "position R²"
        g = get("B+PE", "trained", key) - get("B", "trained", key)
        g0 = get("B+PE", "step 0", key) - get("B", "step 0", key)
        out["R² gain (B+PE − B)"] = g
        out["R² gain at step 0"] = g0
        out["learned part Δ (gain − gain at step 0)"] = g - g0
        out["B+PE: R² trained − step 0"] = rise("B+PE", key)
    if {"B+PE", "B+PE+PM"} <= set(labels):
        key = "masked-position R²"
        pm = get("B+PE+PM", "trained", key)
        out["masked R² (B+PE+PM)"] = pm
        out["masked R² gain over B+PE"] = pm - get("B+PE", "trained", key)
        out["B+PE+PM: masked R² trained − step 0"] = rise("B+PE+PM", key)
    if "B" in labels:
        heads = [k[3:] for k in runs[labels[0], seeds[0]]["trained"] if k[:3] == "AP "]
        for h in heads:
            ap_b = get("B", "trained", f"AP {h}")
            out[f"pre-training AP gain of B · {h}"] = rise("B", f"AP {h}")
            for lab in ("B+PE+PM", "B+PE"):
                if lab in labels:
                    ap = get(lab, "trained", f"AP {h}")
                    out[f"AP gain ({lab} − B) · {h}"] = ap - ap_b
    return {k: [float(x) for x in v] for k, v in out.items()}
