"""The gradient law of the cosine similarity and the losses built on it: the analytic gradient
(ẑ⁺ − cos ẑ)/‖z‖, GradScale (identity forward, gradient × ‖z‖^p backward), SimCLR's InfoNCE, the
non-contrastive negative cosine and the paired supervised InfoNCE of the class-imbalance
simulation."""

from __future__ import annotations

import torch
from torch.nn import functional

from repbook.core import checks


def _check_pair(z: torch.Tensor, z_pos: torch.Tensor, what: str = "z and z_pos"):
    if not isinstance(z, torch.Tensor) or not isinstance(z_pos, torch.Tensor):
        raise TypeError(
            f"{what} must be torch tensors, got {type(z).__name__} and "
            f"{type(z_pos).__name__}"
        )
    if z.shape != z_pos.shape or z.ndim != 2:
        raise ValueError(
            f"{what} must both have shape (n, d), got {tuple(z.shape)} "
            f"and {tuple(z_pos.shape)}"
        )
    if z.shape[0] == 0 or z.shape[1] == 0:
        raise ValueError(f"{what} are empty: need n ≥ 1 rows of dimension d ≥ 1")


# --------------------------------------------------------------------------------------
# the gradient law
def cosine_similarity(z: torch.Tensor, z_pos: torch.Tensor) -> torch.Tensor:
    """Row-wise cos(z_i, z⁺_i); a row of zero norm is an error (undefined cosine)."""
    _check_pair(z, z_pos)
    nz, np_ = z.norm(dim=1), z_pos.norm(dim=1)
    if bool((nz == 0).any()) or bool((np_ == 0).any()):
        raise ValueError(
            "z and z_pos must have non-zero rows: the cosine of a zero "
            "vector is undefined"
        )
    return (z * z_pos).sum(1) / (nz * np_)


def cosine_grad(z: torch.Tensor, z_pos: torch.Tensor) -> torch.Tensor:
    """Analytic ∇_{z_i} cos(z_i, z⁺_i) = (ẑ⁺_i − cos_i ẑ_i) / ‖z_i‖, row by row."""
    cos = cosine_similarity(z, z_pos)
    nz = z.norm(dim=1, keepdim=True)
    zh, ph = z / nz, z_pos / z_pos.norm(dim=1, keepdim=True)
    return (ph - cos[:, None] * zh) / nz


class _GradScale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, z, power):
        ctx.save_for_backward(z)
        ctx.power = power
        return z.view_as(z)

    @staticmethod
    def backward(ctx, grad):
        (z,) = ctx.saved_tensors
        return grad * z.norm(dim=-1, keepdim=True) ** ctx.power, None


def grad_scale(z: torch.Tensor, power: float = 1.0) -> torch.Tensor:
    """GradScale: identity forward; backward multiplies row i's gradient by ‖z_i‖^power.

    Apply it to z *before* normalisation. power = 0 is the plain loss; power = 1 cancels
    the 1/‖z‖ of the cosine gradient.
    """
    power = checks.number("power", power)
    if power == 0:
        return z
    return _GradScale.apply(z, power)


# --------------------------------------------------------------------------------------
# losses
def info_nce_loss(
    z1: torch.Tensor, z2: torch.Tensor, *, tau: float = 0.5, power: float = 0.0
) -> torch.Tensor:
    """NT-Xent (SimCLR's InfoNCE) over the 2n embeddings of two views, mean of anchors.

    Row i of z1 and row i of z2 are positives; the other 2n − 2 rows are negatives.
    `power` applies GradScale to both views before normalisation.
    """
    _check_pair(z1, z2, "z1 and z2")
    tau = checks.number("tau", tau, above=0)
    n = z1.shape[0]
    if n < 2:
        raise ValueError(
            f"info_nce_loss needs at least 2 pairs (negatives), got n = {n}"
        )
    z = torch.cat([grad_scale(z1, power), grad_scale(z2, power)])
    zh = functional.normalize(z, dim=1)
    logits = zh @ zh.T / tau
    eye = torch.eye(2 * n, dtype=torch.bool, device=z.device)
    logits = logits.masked_fill(eye, float("-inf"))
    target = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)]).to(z.device)
    return functional.cross_entropy(logits, target)


def negative_cosine_loss(
    p1: torch.Tensor,
    z2: torch.Tensor,
    p2: torch.Tensor | None = None,
    z1: torch.Tensor | None = None,
    *,
    power: float = 0.0,
) -> torch.Tensor:
    """Non-contrastive loss (SimSiam/BYOL form): −mean cos(p, stopgrad(z)).

    With p2 and z1 given it is symmetrised: −½[cos(p1, sg z2) + cos(p2, sg z1)].
    GradScale acts on the predictions p (the targets carry no gradient).
    """
    _check_pair(p1, z2, "p1 and z2")
    loss = -functional.cosine_similarity(
        grad_scale(p1, power), z2.detach(), dim=1
    ).mean()
    if p2 is None and z1 is None:
        return loss
    if p2 is None or z1 is None:
        raise ValueError("give both p2 and z1 for the symmetric loss, or neither")
    _check_pair(p2, z1, "p2 and z1")
    other = functional.cosine_similarity(
        grad_scale(p2, power), z1.detach(), dim=1
    ).mean()
    return 0.5 * (loss - other)


def paired_supervised_info_nce(
    z: torch.Tensor,
    labels: torch.Tensor,
    *,
    generator: torch.Generator,
    tau: float = 1.0,
) -> torch.Tensor:
    """Supervised InfoNCE with one random same-class positive per sample (the loss of
    the paper's class-imbalance simulation).

    Each row i picks one other row j of its class at random; the pairs are made
    symmetric (i attracts j and j attracts i), so a row may end up with several
    positives. The loss of row i is −log(Σ_pos exp(cos/τ) / Σ_{m≠i} exp(cos/τ)),
    averaged over the rows that have a positive; rows alone in their class in the batch
    are left out.

    z is (n, d) with labels (n,), giving a scalar; or (R, n, d) with labels (R, n) for R
    independent runs side by side, giving one loss per run, shape (R,).
    """
    checks.torch_generator("generator", generator)
    tau = checks.number("tau", tau, above=0)
    if not isinstance(z, torch.Tensor) or z.ndim not in (2, 3) or z.shape[-2] < 2:
        raise ValueError(
            f"z must be a tensor of shape (n ≥ 2, d) or (R, n ≥ 2, d), "
            f"got {getattr(z, 'shape', type(z).__name__)}"
        )
    if not isinstance(labels, torch.Tensor) or labels.shape != z.shape[:-1]:
        raise ValueError(
            f"labels must be a tensor of shape {tuple(z.shape[:-1])}, got "
            f"{getattr(labels, 'shape', type(labels).__name__)}"
        )
    n = z.shape[-2]
    eye = torch.eye(n, dtype=torch.bool, device=z.device)
    same = (labels[..., :, None] == labels[..., None, :]) & ~eye
    has = same.any(-1)
    if not bool(has.any(-1).all()):
        raise ValueError("no two rows share a label: the loss has no positive pair")
    # one uniform pick among the same-class rows: the largest of uniform keys there
    keys = torch.rand(same.shape, generator=generator).to(z.device)
    pick = keys.masked_fill(~same, -1.0).argmax(-1)
    pos = functional.one_hot(pick, n).bool() & has[..., None]
    pos = pos | pos.transpose(-1, -2)
    zh = functional.normalize(z, dim=-1)
    logits = (zh @ zh.transpose(-1, -2) / tau).masked_fill(eye, float("-inf"))
    log_den = torch.logsumexp(logits, -1)
    log_num = torch.logsumexp(logits.masked_fill(~pos, float("-inf")), -1)
    valid = pos.any(-1)
    per_row = torch.where(valid, log_den - log_num, torch.zeros_like(log_den))
    return per_row.sum(-1) / valid.sum(-1)
