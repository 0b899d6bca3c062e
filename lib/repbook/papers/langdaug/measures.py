"""Measurements along the chains and on the augmentations: the colour traversal, the disc's
contrast and the mask AUC."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from ._checks import _check_images, _check_masks
from .domains import style_distance


def ordered_pairs(domains: Sequence[str]) -> list[tuple[str, str]]:
    """Every ordered pair (i, j) of distinct `domains`, i-major: one pair EBM each."""
    domains = list(domains)
    if len(domains) < 2 or len(set(domains)) != len(domains):
        raise ValueError(
            f"domains must be at least two distinct names, got {domains!r}"
        )
    return [(i, j) for i in domains for j in domains if i != j]


def normalised_traversal(chains, target_means) -> np.ndarray:
    """How far the chains of each pair still are from their target's style, step by step.

    `chains` holds the saved iterates (n_saved, G, n, 3, H, W) of G pairs (step 0 first);
    `target_means` (G, 3) the mean colour of each pair's target domain. Returns (G, n_saved):
    the distance of the chains' mean colour (channel means averaged over the pair's n chains)
    to the target's, divided by the same distance at step 0 (1 at the start, 0 on arrival)."""
    if not isinstance(chains, torch.Tensor):
        chains = torch.as_tensor(np.asarray(chains), dtype=torch.float32)
    if chains.ndim != 6 or chains.shape[3] != 3:
        raise ValueError(
            f"chains must have shape (n_saved, G, n, 3, H, W), got {tuple(chains.shape)}"
        )
    t = np.asarray(target_means, dtype=float)
    if t.shape != (chains.shape[1], 3):
        raise ValueError(
            f"target_means must have shape ({chains.shape[1]}, 3), one mean colour per "
            f"pair, got {t.shape}"
        )
    out = np.empty((chains.shape[1], chains.shape[0]))
    for g in range(chains.shape[1]):
        d = [style_distance(chains[k, g], t[g]) for k in range(chains.shape[0])]
        if d[0] == 0:
            raise ValueError(f"pair {g} starts on its target's mean colour: distance 0")
        out[g] = np.asarray(d) / d[0]
    return out


def disc_contrast(images, masks) -> float:
    """Mean over images and channels of (mean pixel inside the mask − mean pixel outside)."""
    x = _check_images("images", images)
    m = _check_masks("masks", masks, (x.shape[0], *x.shape[2:]))
    if (m.sum((1, 2)) == 0).any() or (m.sum((1, 2)) == m[0].numel()).any():
        raise ValueError("every mask must have pixels both inside and outside")
    m = m[:, None]
    inside = (x * m).sum((2, 3)) / m.sum((2, 3))
    outside = (x * (1 - m)).sum((2, 3)) / (1 - m).sum((2, 3))
    return float((inside - outside).mean())


def mask_auc(images, masks) -> np.ndarray:
    """Per image, the probability that a pixel inside the mask is brighter (mean over channels)
    than a pixel outside it, ties counting one half (the Mann–Whitney AUC): 1 when the mask
    marks exactly the brightest region, about 0.5 when it marks nothing in particular. A
    model-free check that a label still sits on the disc."""
    from scipy.stats import rankdata

    x = _check_images("images", images)
    m = _check_masks("masks", masks, (x.shape[0], *x.shape[2:]))
    lum = x.mean(1).flatten(1).double().numpy()
    pos = m.flatten(1).numpy() > 0.5
    n1, n0 = pos.sum(1), (~pos).sum(1)
    if (n1 == 0).any() or (n0 == 0).any():
        raise ValueError("every mask must have pixels both inside and outside")
    ranks = rankdata(lum, axis=1)
    r1 = (ranks * pos).sum(1)
    return (r1 - n1 * (n1 + 1) / 2) / (n1 * n0)
