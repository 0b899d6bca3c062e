"""The losses: the contrastive intervention L_mix (`mix_loss`), the two I(C;G) proxies
(the paper's Gaussian bottleneck `embedding_info`, GSAT's `bernoulli_kl`), CGR's total
loss (`CGRLoss`) and ERM's (`erm_loss`).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor
from torch.nn import functional

from repbook.core import checks

from .models import CGROutput

CONFOUNDER_TERMS = ("gib", "var", "none")
INFO_TERMS = ("embedding", "kl")


# --------------------------------------------------------------------------------------
# losses
def mix_loss(
    h_causal: Tensor,
    h_conf: Tensor,
    h_graph: Tensor,
    *,
    temperature: float = 1.0,
    include_positive: bool = False,
) -> Tensor:
    """Contrastive intervention L_mix over all ordered pairs i ≠ j of the batch.

    h_mix[i, j] = h_causal[i] + h_conf[j]; s(u, v) is cosine similarity over
    `temperature`. ℓ_ij = −s(h_mix_ij, h_graph_i) + log Σ_k exp s(h_mix_ij, h_graph_k),
    the sum over k ≠ i (the released code) or over all k (`include_positive`, standard
    InfoNCE); returns the mean of ℓ_ij. One (B, B, B) einsum, no Python loop.
    """
    if not (h_causal.shape == h_conf.shape == h_graph.shape) or h_causal.dim() != 2:
        raise ValueError(
            f"h_causal, h_conf, h_graph must share one (B, D) shape, got "
            f"{tuple(h_causal.shape)}, {tuple(h_conf.shape)}, {tuple(h_graph.shape)}"
        )
    b = h_causal.size(0)
    if b < 2:
        raise ValueError(
            f"mix_loss needs a batch of at least 2 graphs (pairs i ≠ j), got {b}"
        )
    checks.number("temperature", temperature, above=0)
    mix = functional.normalize(
        h_causal[:, None, :] + h_conf[None, :, :], dim=-1
    )  # (B, B, D)
    g = functional.normalize(h_graph, dim=-1)  # (B, D)
    sim = torch.einsum("ijd,kd->ijk", mix, g) / temperature  # (B, B, B)
    eye = torch.eye(b, dtype=torch.bool, device=h_causal.device)
    pos = torch.diagonal(sim, dim1=0, dim2=2).T  # sim[i, j, i]
    if not include_positive:
        sim = sim.masked_fill(eye[:, None, :].expand(b, b, b), float("-inf"))
    loss = -pos + torch.logsumexp(sim, dim=-1)  # (B, B)
    return loss[~eye].mean()


def embedding_info(mu: Tensor, *, per_width: bool = False) -> Tensor:
    """The paper's I(C;G) proxy (its Eq. 8): ½·E‖μ(G)‖², the mean over graphs of half the
    squared norm of the causal embedding's mean. For h_o ~ N(μ, I) it is
    KL(N(μ, I) ‖ N(0, I)); `CausalGIN` samples that h_o in training. `per_width`
    divides by the width D: a rescaling of the weight α by 1/D."""
    if mu.dim() != 2 or mu.numel() == 0:
        raise ValueError(f"mu must be a non-empty (B, D) tensor, got {tuple(mu.shape)}")
    kl = 0.5 * mu.pow(2).sum(-1).mean()
    return kl / mu.size(1) if per_width else kl


def bernoulli_kl(att: Tensor, r: float = 0.3, eps: float = 1e-6) -> Tensor:
    """Mean over nodes of KL(Bernoulli(a) ‖ Bernoulli(r)): the I(C;G) proxy on node
    attention."""
    checks.number("r", r, above=0, below=1)
    if att.numel() == 0:
        raise ValueError("att is empty: need the attention of at least one node")
    a = att.clamp(eps, 1 - eps)
    return (a * torch.log(a / r) + (1 - a) * torch.log((1 - a) / (1 - r))).mean()


@dataclass(frozen=True)
class CGRLoss:
    """L = L1(ŷ_o, y) + β·conf + α·I(C;G) + λ·L_mix.

    `info`: the I(C;G) proxy, "embedding" (the paper's ½E‖μ(G)‖², `embedding_info`) or
    "kl" (GSAT's KL(a_o ‖ Bern(r)) on node attention, `bernoulli_kl`). `confounder`:
    "gib" (the paper: β·L1(ŷ_c, y), the confounder head predicts y), "var" (the released
    code: β·Var_batch(ŷ_c)) or "none". λ = 0 removes L_mix. The paper sets
    all weights to 0.5 (its Appendix A.4).
    """

    confounder: str = "gib"
    info: str = "embedding"
    alpha: float = 0.5
    beta: float = 0.5
    lam: float = 0.5
    r: float = 0.3
    per_width: bool = True  # "embedding": α·½E‖μ‖²/D, i.e. the weight α/D
    temperature: float = 1.0
    include_positive: bool = False

    def __post_init__(self):
        checks.one_of("confounder", self.confounder, CONFOUNDER_TERMS)
        checks.one_of("info", self.info, INFO_TERMS)
        for name in ("alpha", "beta", "lam"):
            checks.number(name, getattr(self, name), at_least=0)
        checks.number("r", self.r, above=0, below=1)

    def parts(self, out: CGROutput, y: Tensor) -> dict[str, Tensor]:
        parts = {"causal L1": functional.l1_loss(out.y_causal, y)}
        if self.confounder == "gib":
            parts["confounder"] = self.beta * functional.l1_loss(out.y_conf, y)
        elif self.confounder == "var":
            parts["confounder"] = self.beta * torch.var(out.y_conf)
        if self.alpha and self.info == "kl":
            parts["I(C;G)"] = self.alpha * bernoulli_kl(out.node_att, self.r)
        elif self.alpha:
            mu = out.h_causal if out.mu_causal is None else out.mu_causal
            parts["I(C;G)"] = self.alpha * embedding_info(mu, per_width=self.per_width)
        if self.lam:
            parts["L_mix"] = self.lam * mix_loss(
                out.h_causal,
                out.h_conf,
                out.h_graph,
                temperature=self.temperature,
                include_positive=self.include_positive,
            )
        return parts

    def __call__(self, out: CGROutput, y: Tensor) -> Tensor:
        return sum(self.parts(out, y).values())


def erm_loss(pred: Tensor, y: Tensor) -> Tensor:
    """ERM's objective: L1 (the metric is MAE)."""
    return functional.l1_loss(pred, y)
