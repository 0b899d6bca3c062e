"""ℓ∞ PGD attacks (ours, in lockstep for several models, and torchattacks' as a peer) and the
evaluations built on them: robust accuracy, the transfer matrix between members."""

from __future__ import annotations

import numpy as np
import torch

from repbook.core import checks

from .models import Ensemble, accuracy

LOSSES = ("ce", "mse")


def _loss(kind: str, out, y):
    if kind == "ce":
        return torch.nn.functional.cross_entropy(out, y)
    return ((out.reshape(len(y)) - y) ** 2).mean()


def pgd_attack(
    model,
    x,
    y,
    *,
    epsilon: float,
    steps: int,
    step_size: float,
    loss: str = "ce",
    norm: str = "linf",
    random_start: bool = False,
    generator=None,
    clip: tuple[float, float] | None = (0.0, 1.0),
):
    """ℓ∞ PGD that maximises the mean `loss` ("ce" for class labels, "mse" for real targets).

    Each step moves by `step_size` along the sign of the input gradient, projects onto the
    ε-box around x and, unless `clip` is None, clamps to the data range `clip`. With
    `random_start` the search starts from a uniform point of the box (drawn from `generator`).
    The model is run in eval mode and its mode restored. Returns the adversarial inputs."""
    epsilon = checks.number("epsilon", epsilon, at_least=0)
    if norm != "linf":
        raise ValueError(
            f"pgd_attack implements the ℓ∞ attack only (norm='linf'), got {norm!r}"
        )
    steps = checks.integer("steps", steps, at_least=0)
    checks.number("step_size", step_size, at_least=0)
    checks.one_of("loss", loss, LOSSES)
    checks.same_length(x=x, y=y)
    if clip is not None:
        lo, hi = clip
        if not lo < hi:
            raise ValueError(f"clip must be (low, high) with low < high, got {clip!r}")
        if x.min() < lo or x.max() > hi:
            raise ValueError(
                f"x must lie in the data range {clip}, got values in "
                f"[{float(x.min())}, {float(x.max())}]"
            )
    if random_start and generator is None:
        raise ValueError("random_start needs a torch.Generator (generator=...)")

    def project(x_adv):
        x_adv = x + torch.clamp(x_adv - x, min=-epsilon, max=epsilon)
        return torch.clamp(x_adv, *clip) if clip is not None else x_adv

    was_training = model.training
    model.eval()
    try:
        x = x.detach()
        x_adv = x.clone()
        if random_start:
            noise = torch.rand(x.shape, generator=generator, dtype=x.dtype).to(x.device)
            x_adv = project(x + epsilon * (noise * 2 - 1))
        for _ in range(steps):
            x_adv.requires_grad_(True)
            (grad,) = torch.autograd.grad(_loss(loss, model(x_adv), y), x_adv)
            x_adv = project(x_adv.detach() + step_size * grad.sign()).detach()
    finally:
        model.train(was_training)
    return x_adv.detach()


def pgd_attack_each(
    models,
    x,
    y,
    *,
    epsilon: float,
    steps: int,
    step_size: float,
    random_start: bool = False,
    generator=None,
    clip: tuple[float, float] | None = (0.0, 1.0),
) -> list:
    """`pgd_attack` (cross-entropy) on each model separately, run in lockstep: one backward pass
    per step serves all models, since model i's loss depends on its own input only. Gives the
    same examples as separate calls in the same order (the random starts are drawn model by
    model)."""
    models = list(models)
    if not models:
        raise ValueError("models must hold at least one model")
    epsilon = checks.number("epsilon", epsilon, at_least=0)
    checks.same_length(x=x, y=y)
    if random_start and generator is None:
        raise ValueError("random_start needs a torch.Generator (generator=...)")
    if clip is not None and (x.min() < clip[0] or x.max() > clip[1]):
        raise ValueError(f"x must lie in the data range {clip}")
    x = x.detach()

    def project(x_adv):
        x_adv = x + torch.clamp(x_adv - x, min=-epsilon, max=epsilon)
        return torch.clamp(x_adv, *clip) if clip is not None else x_adv

    modes = [m.training for m in models]
    for m in models:
        m.eval()
    try:
        advs = []
        for _ in models:
            x_adv = x.clone()
            if random_start:
                noise = torch.rand(x.shape, generator=generator, dtype=x.dtype).to(
                    x.device
                )
                x_adv = project(x + epsilon * (noise * 2 - 1))
            advs.append(x_adv)
        for _ in range(int(steps)):
            for a in advs:
                a.requires_grad_(True)
            total = sum(_loss("ce", m(a), y) for m, a in zip(models, advs))
            grads = torch.autograd.grad(total, advs)
            advs = [
                project(a.detach() + step_size * g.sign()).detach()
                for a, g in zip(advs, grads)
            ]
    finally:
        for m, mode in zip(models, modes):
            m.train(mode)
    return advs


def torchattacks_pgd(
    model,
    x,
    y,
    *,
    epsilon: float,
    steps: int,
    step_size: float,
    random_start: bool = False,
):
    """The peer: torchattacks' PGD (ℓ∞, cross-entropy, data range [0, 1]) on the same inputs.

    torchattacks' metadata pins an old `requests` and asks for torchvision; install it without
    its dependencies: pip install --no-deps 'torchattacks>=3.5'."""
    try:
        import torchattacks
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "the peer needs torchattacks: pip install --no-deps 'torchattacks>=3.5'"
        ) from exc
    attack = torchattacks.PGD(
        model, eps=epsilon, alpha=step_size, steps=steps, random_start=random_start
    )
    return attack(x, y).detach()


# ----------------------------------------------------------------------------------------------
# evaluation
def robust_accuracy(
    model, X, y, *, epsilon: float, steps: int, step_size: float, generator
) -> float:
    """Accuracy under ℓ∞ PGD (cross-entropy, random start, data range [0, 1])."""
    x_adv = pgd_attack(
        model,
        X,
        y,
        epsilon=epsilon,
        steps=steps,
        step_size=step_size,
        random_start=True,
        generator=generator,
    )
    return accuracy(model, x_adv, y)


def transfer_matrix(
    members, X, y, *, epsilon: float, steps: int, step_size: float, generator
) -> np.ndarray:
    """T[i, j]: among the points member j classifies correctly, the share that member i's own
    PGD examples make member j misclassify (the diagonal is the white-box success rate)."""
    members = list(members)
    with torch.no_grad():
        correct = [mem(X).argmax(1) == y for mem in members]
    T = np.zeros((len(members), len(members)))
    for i, src in enumerate(members):
        x_adv = pgd_attack(
            src,
            X,
            y,
            epsilon=epsilon,
            steps=steps,
            step_size=step_size,
            random_start=True,
            generator=generator,
        )
        with torch.no_grad():
            for j, tgt in enumerate(members):
                fooled = (tgt(x_adv).argmax(1) != y) & correct[j]
                T[i, j] = float(fooled.sum()) / max(int(correct[j].sum()), 1)
    return T


def mean_off_diagonal(T) -> float:
    T = np.asarray(T, dtype=float)
    if T.ndim != 2 or T.shape[0] != T.shape[1] or T.shape[0] < 2:
        raise ValueError(f"T must be a square matrix of size ≥ 2, got shape {T.shape}")
    return float(T[~np.eye(len(T), dtype=bool)].mean())


def peer_comparison(
    members, X, y, *, epsilon: float, steps: int
) -> tuple[float, float, float]:
    """Our PGD against torchattacks' on the mean-logit ensemble of `members` (ℓ∞,
    cross-entropy, no random start, `steps` steps of 2.5ε/steps): the largest absolute
    difference between the two adversarial inputs, and the ensemble's accuracy under ours and
    under the peer's."""
    ens = Ensemble(members).eval()
    kw = dict(epsilon=epsilon, steps=steps, step_size=2.5 * epsilon / steps)
    ours = pgd_attack(ens, X, y, **kw)
    peer = torchattacks_pgd(ens, X, y, **kw)
    gap = float((ours - peer).abs().max())
    return gap, accuracy(ens, ours, y), accuracy(ens, peer, y)
