"""Synthetic scenes, views, the positional field, crops and masks."""

from __future__ import annotations

import math
from dataclasses import dataclass
import numpy as np
import torch


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
