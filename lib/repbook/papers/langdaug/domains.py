"""Synthetic fundus-like domains: one anatomy (a vignetted, textured background, three vessels
and a bright elliptic disc, the segmentation target), rendered in an acquisition style per domain;
the style statistics the chains are tracked with."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from repbook.core import checks

from ._checks import _check_images


@dataclass(frozen=True)
class Style:
    """An acquisition style: pixel value of channel c is
    clip(tint_c · L^gamma_c + bias_c + noise·ε, 0, 1), with L the scene's luminance in [0, 1]."""

    tint: tuple[float, float, float]
    gamma: tuple[float, float, float]
    bias: tuple[float, float, float]
    noise: float

    def __post_init__(self):
        for field in ("tint", "gamma", "bias"):
            v = getattr(self, field)
            if len(v) != 3 or not all(math.isfinite(float(a)) for a in v):
                raise ValueError(f"Style.{field} must be 3 finite numbers, got {v!r}")
        if any(g <= 0 for g in self.gamma):
            raise ValueError(f"Style.gamma must be positive, got {self.gamma!r}")
        if not (math.isfinite(self.noise) and self.noise >= 0):
            raise ValueError(f"Style.noise must be ≥ 0, got {self.noise!r}")

    def vector(self) -> np.ndarray:
        """The 10 style parameters as one vector (tint, gamma, bias, noise)."""
        return np.array([*self.tint, *self.gamma, *self.bias, self.noise])

    @staticmethod
    def mix(styles: Sequence["Style"], weights: Sequence[float]) -> "Style":
        """The style whose parameters are the convex combination of `styles` with `weights`."""
        w = np.asarray(weights, dtype=float)
        if len(styles) == 0 or w.shape != (len(styles),):
            raise ValueError(
                f"weights must have one entry per style ({len(styles)}), got {weights!r}"
            )
        if (w < 0).any() or not np.isclose(w.sum(), 1.0):
            raise ValueError(f"weights must be ≥ 0 and sum to 1, got {weights!r}")
        v = sum(wi * s.vector() for wi, s in zip(w, styles))
        return Style(tuple(v[0:3]), tuple(v[3:6]), tuple(v[6:9]), float(v[9]))


_A = Style((0.95, 0.50, 0.30), (1.0, 1.1, 1.2), (0.02, 0.00, 0.04), 0.03)
_B = Style((0.60, 0.60, 0.25), (0.6, 0.7, 0.8), (0.25, 0.18, 0.08), 0.02)
_C = Style((0.55, 0.85, 0.80), (1.7, 1.5, 1.3), (0.00, 0.02, 0.12), 0.05)
_D = Style((0.80, 0.35, 0.75), (1.2, 0.9, 0.9), (0.10, 0.05, 0.15), 0.04)
STYLES: Mapping[str, Style] = {
    "A": _A,  # dark, red-orange
    "B": _B,  # bright, washed-out yellow, low contrast (gamma < 1)
    "C": _C,  # green-blue, high contrast (gamma > 1), noisy
    "D": _D,  # purple (a fourth source at full scale)
    # held out, between the sources: the centroid of A, B and C
    "M": Style.mix([_A, _B, _C], [1 / 3, 1 / 3, 1 / 3]),
    # held out, outside the sources' hull: A pushed away from B and C
    "X": Style((1.00, 0.30, 0.20), (1.9, 2.0, 2.1), (0.00, 0.00, 0.00), 0.06),
}
"""The named styles. Quick scale trains on A, B, C and tests on M (between them by construction);
full scale also holds out each of A–D in turn and tests on X, outside the sources' hull."""


def get_style(domain: str | Style) -> Style:
    """A Style, or the named one from STYLES (clear error for an unknown name)."""
    if isinstance(domain, Style):
        return domain
    if not isinstance(domain, str) or domain not in STYLES:
        raise ValueError(
            f"domain must be a Style or one of {', '.join(STYLES)}, got {domain!r}"
        )
    return STYLES[domain]


def hull_distance(point, vertices) -> float:
    """Euclidean distance from `point` (d,) to the convex hull of the rows of `vertices` (k, d):
    min ‖Σ wᵢ vᵢ − point‖ over weights w ≥ 0 with Σ wᵢ = 1 (0 inside the hull). Solved as a
    non-negative least-squares problem with the sum-to-one constraint as a heavily weighted row."""
    from scipy.optimize import nnls

    p = np.asarray(point, dtype=float).reshape(-1)
    v = np.asarray(vertices, dtype=float)
    if v.ndim != 2 or v.shape[1] != p.shape[0] or v.shape[0] == 0:
        raise ValueError(
            f"vertices must have shape (k, {p.shape[0]}) to match the point, got {v.shape}"
        )
    if not (np.isfinite(p).all() and np.isfinite(v).all()):
        raise ValueError("point and vertices must be finite")
    big = 1e4 * max(1.0, float(np.abs(v).max()), float(np.abs(p).max()))
    a = np.vstack([v.T, big * np.ones(v.shape[0])])
    b = np.concatenate([p, [big]])
    w, _ = nnls(a, b, maxiter=50 * v.shape[0])
    w = w / w.sum()
    return float(np.linalg.norm(w @ v - p))


@dataclass(frozen=True)
class Scenes:
    """Style-free scenes: luminance in [0, 1], the disc mask, and the disc's ellipse
    (centre row, centre column, semi-axes a (rows) and b (columns) in pixels, angle θ)."""

    luminance: np.ndarray  # (n, H, W) float32
    masks: np.ndarray  # (n, H, W) float32, 0/1
    discs: np.ndarray  # (n, 5): cy, cx, a, b, theta


def disc_mask(size: int, cy: float, cx: float, a: float, b: float, theta: float):
    """The binary mask of the ellipse ((v·cosθ + u·sinθ)/a)² + ((−v·sinθ + u·cosθ)/b)² ≤ 1,
    with v = row − cy and u = column − cx, sampled at pixel centres."""
    rows, cols = np.mgrid[0:size, 0:size].astype(np.float64)
    v, u = rows - cy, cols - cx
    p = v * np.cos(theta) + u * np.sin(theta)
    q = -v * np.sin(theta) + u * np.cos(theta)
    return ((p / a) ** 2 + (q / b) ** 2 <= 1.0).astype(np.float32)


def draw_scenes(n: int, rng: np.random.Generator, *, size: int = 32) -> Scenes:
    """`n` fundus-like scenes: a textured, vignetted background, three dark curved vessels and a
    bright elliptic disc (the segmentation target). The style is applied by `apply_style`."""
    n, size = (
        checks.integer("n", n, at_least=1),
        checks.integer("size", size, at_least=1),
    )
    if size < 8:
        raise ValueError(f"size must be at least 8 pixels, got {size}")
    checks.generator("rng", rng)
    s = size / 32.0
    rows, cols = np.mgrid[0:size, 0:size].astype(np.float64)
    lum = np.empty((n, size, size), np.float32)
    masks = np.empty((n, size, size), np.float32)
    discs = np.empty((n, 5))
    for k in range(n):
        # background: vignette plus a faint oriented texture
        r2 = ((rows - size / 2) ** 2 + (cols - size / 2) ** 2) / (size / 2) ** 2
        phi, freq, ang = (
            rng.uniform(0, 2 * np.pi),
            rng.uniform(0.3, 0.7) / s,
            rng.uniform(0, np.pi),
        )
        tex = np.sin(freq * (rows * np.cos(ang) + cols * np.sin(ang)) + phi)
        L = 0.42 - 0.12 * r2 + 0.05 * tex
        # three vessels: smooth curves, darker than the background
        for _ in range(3):
            horizontal = rng.random() < 0.5
            t, w = (cols, rows) if horizontal else (rows, cols)
            c0, amp = rng.uniform(0.2, 0.8) * size, rng.uniform(1.5, 4.0) * s
            fr, ph = rng.uniform(0.1, 0.25) / s, rng.uniform(0, 2 * np.pi)
            dist = np.abs(w - (c0 + amp * np.sin(fr * t + ph)))
            L -= 0.18 * np.exp(-((dist / (0.9 * s)) ** 2))
        # the disc
        cy, cx = rng.uniform(0.28, 0.72, size=2) * size
        a, b = rng.uniform(3.5, 6.5, size=2) * s
        theta = rng.uniform(0, np.pi)
        m = disc_mask(size, cy, cx, a, b, theta)
        L = np.where(m > 0, 0.80 + 0.05 * tex, L)
        lum[k] = np.clip(L, 0.02, 1.0)
        masks[k] = m
        discs[k] = (cy, cx, a, b, theta)
    return Scenes(lum, masks, discs)


def apply_style(
    luminance: np.ndarray, style: str | Style, rng: np.random.Generator
) -> np.ndarray:
    """Render scenes in a style: (n, H, W) luminance → (n, 3, H, W) float32 images in [0, 1]."""
    style = get_style(style)
    L = np.asarray(luminance, dtype=np.float64)
    if L.ndim != 3:
        raise ValueError(f"luminance must have shape (n, H, W), got {L.shape}")
    if not np.isfinite(L).all() or L.min() < 0 or L.max() > 1:
        raise ValueError("luminance must be finite and lie in [0, 1]")
    tint = np.asarray(style.tint)[None, :, None, None]
    gamma = np.asarray(style.gamma)[None, :, None, None]
    bias = np.asarray(style.bias)[None, :, None, None]
    x = tint * L[:, None] ** gamma + bias
    x = x + style.noise * rng.standard_normal(x.shape)
    return np.clip(x, 0.0, 1.0).astype(np.float32)


@dataclass(frozen=True)
class Domain:
    """Images (n, 3, H, W) in [0, 1] and disc masks (n, H, W) of one style."""

    name: str
    images: torch.Tensor
    masks: torch.Tensor


def make_domain(
    domain: str | Style, n: int, rng: np.random.Generator, *, size: int = 32
) -> Domain:
    """`n` images of a domain (a name in STYLES or a Style) with their disc masks."""
    style = get_style(domain)
    scenes = draw_scenes(n, rng, size=size)
    images = apply_style(scenes.luminance, style, rng)
    name = domain if isinstance(domain, str) else "custom"
    return Domain(name, torch.from_numpy(images), torch.from_numpy(scenes.masks))


def channel_means(images) -> torch.Tensor:
    """Per-image channel means, (n, 3): the style statistic the chains are tracked with."""
    x = _check_images("images", images)
    return x.mean(dim=(2, 3))


def style_distance(images, target_mean) -> float:
    """‖mean channel-mean of `images` − `target_mean`‖₂ (the batch's style centre to a domain's)."""
    m = channel_means(images).double().mean(0)
    t = torch.as_tensor(np.asarray(target_mean), dtype=torch.float64).reshape(-1)
    if t.shape != (3,):
        raise ValueError(
            f"target_mean must hold 3 channel means, got shape {tuple(t.shape)}"
        )
    return float(torch.linalg.norm(m - t))
