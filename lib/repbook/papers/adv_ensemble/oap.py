"""AdvEOAP ("AdvOAP" in the official code): each member attacked on its own, its non-true-class
predictions L1-normalised, and the loss Σ CE − α · mean log det(P Pᵀ + 10⁻⁶ I) − β · H(mean of
the members' normalised predictions); α = β = 0 is independent PGD-AT of every member."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from repbook.core import checks

from .attacks import pgd_attack_each

DIVERSITY_ON = ("adversarial", "clean")


def non_true_probabilities(logits, y):
    """Softmax probabilities of the K − 1 classes other than y, L1-normalised: (n, K − 1)."""
    n, K = logits.shape
    p = torch.softmax(logits, dim=1)
    keep = torch.ones_like(p, dtype=torch.bool)
    keep[torch.arange(n, device=logits.device), y] = False
    p = p[keep].reshape(n, K - 1)
    return p / p.sum(dim=1, keepdim=True)


def oap_regulariser(probs):
    """(mean log det(P Pᵀ + 10⁻⁶ I), entropy of the members' mean) for P of shape (n, m, K − 1),
    the L1-normalised non-true-class predictions of m members; as the official code computes
    them (the entropy is −Σ (p̄ + 10⁻⁶) log p̄)."""
    if probs.ndim != 3:
        raise ValueError(
            f"probs must have shape (n, members, K − 1), got {tuple(probs.shape)}"
        )
    m = probs.shape[1]
    gram = probs @ probs.transpose(1, 2) + 1e-6 * torch.eye(
        m, dtype=probs.dtype, device=probs.device
    )
    mean = probs.mean(dim=1)
    entropy = -((mean + 1e-6) * torch.log(mean)).sum(dim=1).mean()
    return torch.logdet(gram).mean(), entropy


@dataclass(frozen=True)
class OAPLoss:
    loss: object  # the scalar torch loss to minimise
    cross_entropy: float  # Σ over members of their adversarial cross-entropy
    logdet: float
    entropy: float


def adv_oap_loss(
    members,
    x,
    y,
    *,
    num_classes: int,
    epsilon: float,
    steps: int,
    step_size: float,
    alpha: float,
    beta: float,
    generator,
    diversity_on: str = "adversarial",
    random_start: bool = True,
) -> OAPLoss:
    """The AdvEOAP training loss on one batch.

    Each member is attacked on its own (ℓ∞ PGD on its cross-entropy, random start as in the
    code); loss = Σ_i CE(f_i(x_i^adv), y) − α · mean log det(P Pᵀ + 10⁻⁶ I) − β · H(mean_i p_i),
    with p_i member i's L1-normalised non-true-class probabilities on its own adversarial example
    (diversity_on="adversarial") or on the clean input (diversity_on="clean", an ADP-style
    variant). α = β = 0 is independent adversarial training of every member. The code requires
    m ≤ K − 1 members (the Gram matrix has rank at most K − 1)."""
    members = list(members)
    num_classes = checks.integer("num_classes", num_classes, at_least=1)
    if not 1 <= len(members) <= num_classes - 1:
        raise ValueError(
            f"the number of members must lie in [1, K − 1] = [1, {num_classes - 1}] "
            f"(K = num_classes), got {len(members)}"
        )
    checks.one_of("diversity_on", diversity_on, DIVERSITY_ON)
    checks.number("alpha", alpha, at_least=0)
    checks.number("beta", beta, at_least=0)
    x_adv = pgd_attack_each(
        members,
        x,
        y,
        epsilon=epsilon,
        steps=steps,
        step_size=step_size,
        random_start=random_start,
        generator=generator,
    )
    ce, probs = 0.0, []
    for mem, xa in zip(members, x_adv):
        mem.train()
        logits = mem(xa)
        if logits.shape[1] != num_classes:
            raise ValueError(
                f"members must output {num_classes} logits, got {logits.shape[1]}"
            )
        ce = ce + torch.nn.functional.cross_entropy(logits, y)
        src = logits if diversity_on == "adversarial" else mem(x)
        probs.append(non_true_probabilities(src, y))
    logdet, entropy = oap_regulariser(torch.stack(probs, dim=1))
    loss = ce - alpha * logdet - beta * entropy
    return OAPLoss(
        loss, float(ce.detach()), float(logdet.detach()), float(entropy.detach())
    )


def train_adv_ensemble(
    members,
    X,
    y,
    *,
    num_classes: int,
    epochs: int,
    batch_size: int,
    lr: float,
    epsilon: float,
    steps: int,
    step_size: float,
    alpha: float,
    beta: float,
    generator,
    diversity_on: str = "adversarial",
    weight_decay: float = 5e-4,
) -> list[dict]:
    """Train the members jointly with `adv_oap_loss` (SGD, momentum 0.9, cosine learning rate
    per epoch, as the official trainer). Batches are drawn from `generator`. Returns per-epoch
    means of the loss parts."""
    epochs = checks.integer("epochs", epochs, at_least=1)
    batch_size = checks.integer("batch_size", batch_size, at_least=1)
    params = [p for mem in members for p in mem.parameters()]
    opt = torch.optim.SGD(params, lr=lr, momentum=0.9, weight_decay=weight_decay)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs)
    history = []
    for _ in range(epochs):
        perm = torch.randperm(len(y), generator=generator).to(y.device)
        parts = []
        for i in range(0, len(y), batch_size):
            b = perm[i : i + batch_size]
            out = adv_oap_loss(
                members,
                X[b],
                y[b],
                num_classes=num_classes,
                epsilon=epsilon,
                steps=steps,
                step_size=step_size,
                alpha=alpha,
                beta=beta,
                generator=generator,
                diversity_on=diversity_on,
            )
            opt.zero_grad()
            out.loss.backward()
            opt.step()
            parts.append((out.cross_entropy, out.logdet, out.entropy))
        sched.step()
        ce, ld, ent = np.mean(parts, axis=0)
        history.append({"cross_entropy": ce, "logdet": ld, "entropy": ent})
    for mem in members:
        mem.eval()
    return history
