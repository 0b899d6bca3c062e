"""The objective's two data-dependent terms and the training objective (see the package's
docstring for the notation). The code's double loops are quadratic Python; here both terms take
one pass over the points, no pairs: the discrepancy uses
Σ_{i∈S_k, j∈G_k} ‖a_i − b_j‖² = |S_k| Σ_{j∈G_k} ‖b_j − ā_k‖² + |G_k| Σ_{i∈S_k} ‖a_i − ā_k‖²
(ā_k the mean real logit of region k), and the robustness
Σ_{i,j∈G_k} ‖a_i − a_j‖² = 2|G_k| Σ_{i∈G_k} ‖a_i − b̄_k‖² (b̄_k the mean synthetic logit)."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch.nn import functional

from repbook.core import checks


def _check_terms(h_real, h_syn, regions_real, regions_syn, K):
    K = checks.integer("K", K, at_least=1)
    for name, h in (("h_real", h_real), ("h_syn", h_syn)):
        if not isinstance(h, torch.Tensor) or h.ndim != 2:
            raise ValueError(
                f"{name} must be a 2-D tensor of logits (n, C), got "
                f"{getattr(h, 'shape', type(h).__name__)}"
            )
    if h_real.shape[1] != h_syn.shape[1]:
        raise ValueError(
            f"h_real and h_syn must have the same number of classes, got "
            f"{h_real.shape[1]} and {h_syn.shape[1]}"
        )
    if h_syn.shape[0] == 0:
        raise ValueError("h_syn is empty: the terms need at least one synthetic point")
    for name, r, h in (
        ("regions_real", regions_real, h_real),
        ("regions_syn", regions_syn, h_syn),
    ):
        if (
            not isinstance(r, torch.Tensor)
            or r.shape != (h.shape[0],)
            or r.dtype != torch.int64
        ):
            raise ValueError(
                f"{name} must be an int64 tensor of shape ({h.shape[0]},), got "
                f"{getattr(r, 'shape', type(r).__name__)}"
            )
        if len(r) and (int(r.min()) < 0 or int(r.max()) >= K):
            raise ValueError(
                f"{name} must lie in 0..K-1 = 0..{K - 1}, got "
                f"{int(r.min())}..{int(r.max())}"
            )
    return K


def discrepancy_term(
    h_real: torch.Tensor,
    h_syn: torch.Tensor,
    regions_real: torch.Tensor,
    regions_syn: torch.Tensor,
    K: int,
) -> torch.Tensor:
    """Σ_k Σ_{i∈S_k, j∈G_k} mse(h(s_i), h(g_j)) / (g·|S_k|), in one pass: for each region,
    Σ_{i∈S_k} Σ_{j∈G_k} ‖a_i − b_j‖² / |S_k| = Σ_{j∈G_k} ‖b_j − ā_k‖² + (|G_k|/|S_k|)·Σ_{i∈S_k}
    ‖a_i − ā_k‖², with ā_k the mean real logit of region k (the pairs split into the distance of
    each synthetic logit to the real mean and the spread of the real logits around it)."""
    K = _check_terms(h_real, h_syn, regions_real, regions_syn, K)
    g, C = h_syn.shape
    if h_real.shape[0] == 0:
        return h_syn.sum() * 0.0
    A_real = functional.one_hot(regions_real, K).to(h_real.dtype)  # (n_S, K)
    size_real = A_real.sum(0)  # |S_k|
    size_syn = torch.bincount(regions_syn, minlength=K).to(h_real.dtype)  # |G_k|
    mean_real = (A_real.T @ h_real) / size_real.clamp(min=1)[:, None]  # ā_k, (K, C)
    has_real = (size_real > 0)[regions_syn].to(h_syn.dtype)
    to_mean = ((h_syn - mean_real[regions_syn]).pow(2).sum(1) * has_real).sum()
    spread = (h_real - mean_real[regions_real]).pow(2).sum(1)  # ‖a_i − ā_k(i)‖²
    weight = (size_syn / size_real.clamp(min=1))[regions_real]  # |G_k| / |S_k|
    return (to_mean + (weight * spread).sum()) / (g * C)


def robustness_term(
    h_syn: torch.Tensor,
    regions_syn: torch.Tensor,
    K: int,
    *,
    regions_real: torch.Tensor | None = None,
) -> torch.Tensor:
    """Σ_k Σ_{i,j∈G_k} mse(h(g_i), h(g_j)) / (g·|G_k|) = (2 / (g·C)) Σ_k Σ_{i∈G_k} ‖h(g_i) − μ_k‖²,
    μ_k the mean logit of G_k. With `regions_real`, only regions holding a real point count (the
    released code's loop); without, every region."""
    real = torch.zeros(0, dtype=torch.int64) if regions_real is None else regions_real
    n_real = len(real) if isinstance(real, torch.Tensor) else 0
    width = h_syn.shape[1] if isinstance(h_syn, torch.Tensor) and h_syn.ndim == 2 else 1
    K = _check_terms(torch.zeros(n_real, width), h_syn, real, regions_syn, K)
    g, C = h_syn.shape
    A_syn = functional.one_hot(regions_syn, K).to(h_syn.dtype)  # (g, K)
    size = A_syn.sum(0)  # |G_k|
    mu = (A_syn.T @ h_syn) / size.clamp(min=1)[:, None]  # (K, C)
    resid = (h_syn - mu[regions_syn]).pow(2).sum(1)  # ‖h(g_i) − μ_k(i)‖²
    if regions_real is not None:
        has_real = torch.bincount(regions_real, minlength=K) > 0
        resid = resid * has_real[regions_syn].to(resid.dtype)
    return 2.0 * resid.sum() / (g * C)


@dataclass(frozen=True)
class ObjectiveTerms:
    """The objective's value and its four parts (tensors; `total` carries the gradient)."""

    total: torch.Tensor
    ce_real: torch.Tensor
    ce_syn: torch.Tensor
    discrepancy: torch.Tensor
    robustness: torch.Tensor


def objective(
    h_real,
    y_real,
    h_syn,
    y_syn,
    regions_real,
    regions_syn,
    K: int,
    *,
    lam_dis: float,
    lam_rob: float,
    ce_real: float = 1.0,
    ce_syn: float = 1.0,
    real_regions_only: bool = True,
) -> ObjectiveTerms:
    """ce_real·CE(real) + ce_syn·CE(synthetic) + λ_dis·discrepancy + λ_rob·robustness (see the
    package docstring). A weight of 0 skips its term (it is reported as 0)."""
    lam_dis, lam_rob = (
        checks.number("lam_dis", lam_dis, at_least=0),
        checks.number("lam_rob", lam_rob, at_least=0),
    )
    ce_real = checks.number("ce_real", ce_real, at_least=0)
    ce_syn = checks.number("ce_syn", ce_syn, at_least=0)
    K = _check_terms(h_real, h_syn, regions_real, regions_syn, K)
    for name, y, h in (("y_real", y_real, h_real), ("y_syn", y_syn, h_syn)):
        if not isinstance(y, torch.Tensor) or y.shape != (h.shape[0],):
            raise ValueError(
                f"{name} must be a tensor of shape ({h.shape[0]},), got "
                f"{getattr(y, 'shape', type(y).__name__)}"
            )
    zero = h_syn.sum() * 0.0
    l_real = (
        functional.cross_entropy(h_real, y_real) if ce_real and len(y_real) else zero
    )
    l_syn = functional.cross_entropy(h_syn, y_syn) if ce_syn else zero
    dis = (
        discrepancy_term(h_real, h_syn, regions_real, regions_syn, K)
        if lam_dis
        else zero
    )
    rob = (
        robustness_term(
            h_syn,
            regions_syn,
            K,
            regions_real=regions_real if real_regions_only else None,
        )
        if lam_rob
        else zero
    )
    total = ce_real * l_real + ce_syn * l_syn + lam_dis * dis + lam_rob * rob
    return ObjectiveTerms(total, l_real, l_syn, dis, rob)
