"""Cheap augmentations for small grey images: a random affine warp, an erased square and pixel
noise, on the fly (`augment`) or as a precomputed set of views (`AugmentedViews`)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch.nn import functional

from repbook.core import checks


# --------------------------------------------------------------------------------------
# augmentations for small grey images
def augment(
    x: torch.Tensor,
    *,
    generator: torch.Generator,
    max_rotation: float = 15.0,
    scale: tuple[float, float] = (0.8, 1.15),
    max_shift: float = 0.12,
    noise: float = 0.1,
    erase: float = 0.35,
) -> torch.Tensor:
    """A random view of each image in `x` (n, H, W) or (n, H·W) with H = W, values in
    [0, 1].

    A random affine map (rotation ±max_rotation degrees, zoom in `scale`, shift up to
    max_shift of the width) applied with `grid_sample`, then a random erased square
    (side `erase` × width, with probability ½) and Gaussian pixel noise of s.d. `noise`;
    clipped to [0, 1]. Same shape as x.
    """
    checks.torch_generator("generator", generator)
    if not isinstance(x, torch.Tensor) or x.ndim not in (2, 3):
        raise ValueError(
            f"x must be a tensor of shape (n, H, W) or (n, H*W), got "
            f"{getattr(x, 'shape', type(x).__name__)}"
        )
    flat = x.ndim == 2
    n = x.shape[0]
    if flat:
        side = int(round(math.sqrt(x.shape[1])))
        if side * side != x.shape[1]:
            raise ValueError(
                f"x has {x.shape[1]} pixels per row, which is not a square image"
            )
        img = x.reshape(n, 1, side, side)
    else:
        if x.shape[1] != x.shape[2]:
            raise ValueError(f"images must be square, got {tuple(x.shape[1:])}")
        side = x.shape[1]
        img = x[:, None]
    if not (0 < scale[0] <= scale[1]):
        raise ValueError(
            f"scale must be (low, high) with 0 < low ≤ high, got {scale!r}"
        )
    u = torch.rand(n, 6, generator=generator).to(x.device)
    ang = (2 * u[:, 0] - 1) * math.radians(max_rotation)
    s = scale[0] + (scale[1] - scale[0]) * u[:, 1]
    tx, ty = (2 * u[:, 2] - 1) * 2 * max_shift, (2 * u[:, 3] - 1) * 2 * max_shift
    cos, sin = torch.cos(ang) / s, torch.sin(ang) / s
    theta = torch.stack(
        [torch.stack([cos, -sin, tx], 1), torch.stack([sin, cos, ty], 1)], 1
    )
    grid = functional.affine_grid(
        theta.to(img.dtype), list(img.shape), align_corners=False
    )
    out = functional.grid_sample(img, grid, align_corners=False, padding_mode="zeros")
    if erase > 0:
        w = max(1, int(round(erase * side)))
        r0 = (u[:, 4] * (side - w + 1)).long().clamp(max=side - w)
        c0 = (u[:, 5] * (side - w + 1)).long().clamp(max=side - w)
        idx = torch.arange(side, device=x.device)
        rows = (idx[None] >= r0[:, None]) & (idx[None] < r0[:, None] + w)
        cols = (idx[None] >= c0[:, None]) & (idx[None] < c0[:, None] + w)
        on = (torch.rand(n, generator=generator) < 0.5).to(x.device)
        mask = rows[:, :, None] & cols[:, None, :] & on[:, None, None]
        out = out.masked_fill(mask[:, None], 0.0)
    if noise > 0:
        eps = torch.randn(out.shape, generator=generator, dtype=out.dtype).to(x.device)
        out = out + noise * eps
    out = out.clamp(0.0, 1.0)
    return out.reshape(n, -1) if flat else out[:, 0]


@dataclass(frozen=True)
class AugmentedViews:
    """A fixed set of augmented views of n images: `views[v, i]` is view v of image i.

    Training draws two *different* views of each image at each step, so the per-step
    cost is a gather instead of two image warps. Build it with `make_views`.
    """

    views: torch.Tensor  # (n_views, n, ...)

    def __post_init__(self):
        if not isinstance(self.views, torch.Tensor) or self.views.ndim < 3:
            got = getattr(self.views, "shape", type(self.views).__name__)
            raise ValueError(
                f"views must be a tensor of shape (n_views, n, ...), got {got}"
            )
        if self.views.shape[0] < 2:
            raise ValueError(
                f"need at least 2 views per image to draw a positive "
                f"pair, got {self.views.shape[0]}"
            )

    def __len__(self) -> int:
        return self.views.shape[1]

    @property
    def n_views(self) -> int:
        return self.views.shape[0]

    def subset(self, index: torch.Tensor) -> "AugmentedViews":
        """The views of the images selected by `index` (a boolean mask or indices)."""
        return AugmentedViews(self.views[:, index])

    def pairs(
        self, index: torch.Tensor, *, generator: torch.Generator
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Two different views, drawn uniformly, of each image in `index`."""
        checks.torch_generator("generator", generator)
        m = len(index)
        v1 = torch.randint(0, self.n_views, (m,), generator=generator)
        shift = torch.randint(1, self.n_views, (m,), generator=generator)
        v2 = (v1 + shift) % self.n_views
        idx = index.cpu()
        return (
            self.views[v1.to(self.views.device), idx.to(self.views.device)],
            self.views[v2.to(self.views.device), idx.to(self.views.device)],
        )


def make_views(
    X: torch.Tensor,
    n_views: int,
    *,
    generator: torch.Generator,
    chunk: int = 1024,
    **aug,
) -> AugmentedViews:
    """`n_views` independent `augment` views of every image in X (keyword arguments go
    to `augment`), computed in chunks of `chunk` images."""
    n_views = checks.integer("n_views", n_views, at_least=1)
    chunk = checks.integer("chunk", chunk, at_least=1)
    out = torch.stack(
        [
            torch.cat(
                [
                    augment(X[i : i + chunk], generator=generator, **aug)
                    for i in range(0, len(X), chunk)
                ]
            )
            for _ in range(n_views)
        ]
    )
    return AugmentedViews(out)
