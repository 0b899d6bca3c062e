"""Checks of the paper's own objects (images, masks, batches of them) and the seed a network is
built from; generic argument checks are the house's (`repbook.core.checks`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from repbook.core import checks


def _check_images(name: str, x, *, channels: int | None = 3) -> torch.Tensor:
    if not isinstance(x, torch.Tensor):
        x = torch.as_tensor(np.asarray(x), dtype=torch.float32)
    if x.ndim != 4 or (channels is not None and x.shape[1] != channels):
        want = f"(n, {channels}, H, W)" if channels else "(n, C, H, W)"
        raise ValueError(f"{name} must have shape {want}, got {tuple(x.shape)}")
    if x.shape[0] == 0:
        raise ValueError(
            f"{name} must hold at least one image, got shape {tuple(x.shape)}"
        )
    if not torch.isfinite(x).all():
        raise ValueError(f"{name} must be finite; it holds NaN or inf values")
    return x if x.is_floating_point() else x.float()


def _check_masks(name: str, m, shape: Sequence[int] | None = None) -> torch.Tensor:
    if not isinstance(m, torch.Tensor):
        m = torch.as_tensor(np.asarray(m))
    if m.ndim != 3:
        raise ValueError(f"{name} must have shape (n, H, W), got {tuple(m.shape)}")
    if shape is not None and tuple(m.shape) != tuple(shape):
        raise ValueError(
            f"{name} must have shape {tuple(shape)} to match the images, got "
            f"{tuple(m.shape)}"
        )
    mf = m if m.is_floating_point() else m.float()
    if not torch.isfinite(mf).all() or not ((mf == 0) | (mf == 1)).all():
        bad = mf[~((mf == 0) | (mf == 1))]
        raise ValueError(
            f"{name} must be binary (0/1), got a value {bad.flatten()[0].item()!r}"
        )
    return mf


def _check_batch(name: str, x) -> torch.Tensor:
    """(n, 3, H, W) images, or (G, n, 3, H, W) for a grouped model."""
    if not isinstance(x, torch.Tensor):
        x = torch.as_tensor(np.asarray(x), dtype=torch.float32)
    if x.ndim == 5:
        _check_images(name, x.flatten(0, 1))
        return x.float()
    return _check_images(name, x)


def _image_list(name: str, xs) -> list[torch.Tensor]:
    if isinstance(xs, torch.Tensor) or not isinstance(xs, Sequence) or not xs:
        raise ValueError(f"{name} must be a non-empty list of image tensors")
    return [_check_images(f"{name}[{i}]", x, channels=None) for i, x in enumerate(xs)]


def _check_even(x: torch.Tensor) -> None:
    if x.shape[-1] % 2 or x.shape[-2] % 2:
        raise ValueError(
            "the UNet halves the image once: H and W must be even, got "
            f"{tuple(x.shape[-2:])}"
        )


def _draw_seed(generator: torch.Generator) -> int:
    """A seed for torch's global generator, drawn from `generator` (a network is built inside
    `nets.seeded(seed)`, so no global random state is touched)."""
    checks.torch_generator("generator", generator)
    return int(torch.randint(0, 2**31 - 1, (1,), generator=generator))
