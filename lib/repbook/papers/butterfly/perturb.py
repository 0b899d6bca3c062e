"""Perturbations: Gaussian of a size relative to the initialisation (``gaussian_perturbation``),
one weight moved by one float ulp (``nudge_one_ulp``, ``pick_weight``), and the typical draws a
repeated perturbation follows (``typical_draws``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import torch

from repbook.core import checks

from .models import Params, _check_same_keys


# ----------------------------------------------------------------------------------------------
# perturbations
def gaussian_perturbation(
    params: Params,
    stds: Mapping[str, float],
    *,
    sigma: float,
    generator: torch.Generator,
    n_weights: int | None = None,
    names: Sequence[str] | None = None,
) -> Params:
    """A Gaussian perturbation ε of relative size σ (σ = 1: as large as the initialisation).

    ε̂_i ~ N(0, s_i²) for every weight i in the tensors ``names`` (default: all tensors with a
    positive init std), restricted to ``n_weights`` of them chosen uniformly (default: all), then
    rescaled to ‖ε‖₂ = σ · sqrt(Σ_{i ∈ mask} s_i²). Returns a tensor per parameter (zeros outside
    the mask).
    """
    checks.torch_generator("generator", generator)
    checks.number("sigma", sigma, at_least=0)
    names = (
        [k for k in params if stds.get(k, 0.0) > 0] if names is None else list(names)
    )
    unknown = [k for k in names if k not in params or stds.get(k, 0.0) <= 0]
    if unknown or not names:
        raise ValueError(
            f"names must be parameters with a positive init std, got {unknown or names}"
        )
    sizes = [params[k].numel() for k in names]
    total = sum(sizes)
    n_weights = (
        total
        if n_weights is None
        else checks.integer("n_weights", n_weights, at_least=1)
    )
    if n_weights > total:
        raise ValueError(
            f"n_weights must be at most the {total} maskable weights, got {n_weights}"
        )
    flat_std = torch.cat(
        [
            torch.full((n,), float(stds[k]), dtype=torch.float64)
            for k, n in zip(names, sizes)
        ]
    )
    draw = torch.randn(total, generator=generator, dtype=torch.float64) * flat_std
    mask = torch.zeros(total, dtype=torch.bool)
    mask[torch.randperm(total, generator=generator)[:n_weights]] = True
    draw = torch.where(mask, draw, torch.zeros_like(draw))
    target = sigma * math.sqrt(float((flat_std[mask] ** 2).sum()))
    norm = float(draw.norm())
    flat = draw * (target / norm) if norm > 0 else draw
    noise = {k: torch.zeros_like(v) for k, v in params.items()}
    for k, chunk in zip(names, flat.split(sizes)):
        noise[k] = chunk.view(params[k].shape).to(params[k])
    return noise


def add(params: Params, noise: Params) -> Params:
    """θ + ε, tensor by tensor (new tensors)."""
    _check_same_keys(params, noise)
    return {k: params[k] + noise[k] for k in params}


def nudge_one_ulp(
    params: Params, *, name: str, index: int, direction: int = 1
) -> Params:
    """A copy of ``params`` with one entry moved to the next representable float (one ulp).

    ``index`` is the entry's position in the flattened tensor ``name``; ``direction`` +1 or −1.
    """
    if name not in params:
        raise ValueError(
            f"name must be one of the parameters {list(params)}, got {name!r}"
        )
    numel = params[name].numel()
    if (
        isinstance(index, bool)
        or not isinstance(index, (int, np.integer))
        or not 0 <= index < numel
    ):
        raise ValueError(
            f"index must be an int in [0, {numel}) for {name!r}, got {index!r}"
        )
    if direction not in (1, -1):
        raise ValueError(f"direction must be +1 or −1, got {direction!r}")
    out = {k: v.clone() for k, v in params.items()}
    flat = out[name].view(-1)
    target = torch.tensor(direction * math.inf, dtype=flat.dtype, device=flat.device)
    flat[index] = torch.nextafter(flat[index], target)
    return out


def pick_weight(
    params: Params, names: Sequence[str], *, generator: torch.Generator
) -> tuple[str, int]:
    """One weight drawn uniformly from the tensors ``names``: (tensor name, flat index)."""
    checks.torch_generator("generator", generator)
    missing = [k for k in names if k not in params]
    if missing or not names:
        raise ValueError(
            f"names must be a non-empty list of parameters, got {list(names)}"
        )
    sizes = np.array([params[k].numel() for k in names])
    i = int(torch.randint(int(sizes.sum()), (1,), generator=generator))
    which = int(np.searchsorted(np.cumsum(sizes), i, side="right"))
    return names[which], i - int(np.r_[0, np.cumsum(sizes)][which])


def typical_draws(values: Sequence[float], n: int) -> list[int]:
    """The indices of the ``n`` draws whose ``values`` rank closest to the median (the median
    draw first; ties in rank distance go to the lower index).

    Spawn-and-perturb repeats a few of its perturbations at later steps; with this rule the
    repeated draws are the typical ones, not whichever came first, which matters when single
    draws differ a lot (a one-ulp nudge of an inactive unit's weight never grows)."""
    vals = np.asarray(values, dtype=float)
    if vals.ndim != 1 or len(vals) == 0 or not np.all(np.isfinite(vals)):
        raise ValueError(
            f"values must be a non-empty 1-D sequence of finite numbers, got {values!r}"
        )
    n = checks.integer("n", n, at_least=1)
    if n > len(vals):
        raise ValueError(f"n must be at most the {len(vals)} draws, got {n}")
    ranks = np.argsort(np.argsort(vals, kind="stable"), kind="stable")
    mid = (len(vals) - 1) / 2
    return sorted(range(len(vals)), key=lambda r: (abs(ranks[r] - mid), r))[:n]
