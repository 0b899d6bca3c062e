"""Domain randomisation and the segmenters: UNets trained side by side on BCE + Dice (the
official code's poly schedule), their predicted masks, Dice and input-gradient norms."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torch.nn import functional

from repbook.core import checks

from ._checks import _check_even, _check_images, _check_masks
from .networks import GroupedUNet, dice_score, make_unet

SCHEDULES = ("constant", "poly")


@dataclass(frozen=True)
class DRRange:
    """Domain randomisation: per image and channel, x ← clip(g·x^γ + b, 0, 1) with g and b
    uniform and log γ uniform in the given ranges."""

    gain: tuple[float, float] = (0.6, 1.4)
    bias: tuple[float, float] = (-0.2, 0.2)
    gamma: tuple[float, float] = (0.6, 1.7)

    def __post_init__(self):
        for field in ("gain", "bias", "gamma"):
            lo, hi = getattr(self, field)
            if not lo <= hi:
                raise ValueError(f"DRRange.{field} must be (lo, hi) with lo ≤ hi")
        if self.gain[0] <= 0 or self.gamma[0] <= 0:
            raise ValueError("DRRange.gain and DRRange.gamma must be positive")


def domain_randomize(
    x: torch.Tensor, generator: torch.Generator, ranges: DRRange = DRRange()
) -> torch.Tensor:
    """Random gain, bias and gamma per image and channel (see DRRange)."""
    x = _check_images("x", x)
    shape = (x.shape[0], x.shape[1], 1, 1)

    def u(lo, hi):
        return lo + (hi - lo) * torch.rand(shape, generator=generator)

    g, b = u(*ranges.gain), u(*ranges.bias)
    gamma = torch.exp(u(math.log(ranges.gamma[0]), math.log(ranges.gamma[1])))
    return (g * x.clamp_min(1e-4) ** gamma + b).clamp(0.0, 1.0)


@dataclass(frozen=True)
class SegTask:
    """One segmentation training set: images, masks, and optional domain randomisation."""

    images: torch.Tensor
    masks: torch.Tensor
    randomize: DRRange | None = None

    def __post_init__(self):
        images = _check_images("images", self.images)
        masks = _check_masks("masks", self.masks, (images.shape[0], *images.shape[2:]))
        _check_even(images)
        object.__setattr__(self, "images", images)
        object.__setattr__(self, "masks", masks)


def poly_lr(base: float, step: int, total: int, power: float = 0.9) -> float:
    """The "poly" learning rate base·(1 − step/total)^power of the official segmentation code
    (DeepLab's LR_Scheduler, power 0.9), for step = 0, …, total − 1."""
    total = checks.integer("total", total, at_least=1)
    step = checks.integer("step", step, at_least=0, at_most=total - 1)
    return float(base) * (1.0 - step / total) ** float(power)


@dataclass(frozen=True)
class SegTrace:
    """Trained UNets (member g learned task g) and their losses, shape (steps, G)."""

    model: GroupedUNet
    losses: np.ndarray


def train_unets(
    tasks: Sequence[SegTask],
    *,
    inits: Sequence[torch.Generator],
    steps: int,
    batch: int,
    generator: torch.Generator,
    lr: float = 2e-3,
    widths: tuple[int, int] = (16, 32),
    schedule: str = "constant",
) -> SegTrace:
    """Adam on BCE + Dice, `steps` minibatches of `batch` images drawn uniformly from each task
    (domain-randomised first where the task says so). Member g starts from a UNet2 made from
    `inits[g]`, so two tasks given equally seeded generators start from the same weights. The
    tasks train side by side in one grouped model (the loss is the sum of the members' losses,
    so each member's gradient is its own). `schedule`: "constant" keeps `lr`; "poly" decays it
    as lr·(1 − s/steps)^0.9 at step s, the official segmentation code's default schedule."""
    if not tasks or not all(isinstance(t, SegTask) for t in tasks):
        raise ValueError("tasks must be a non-empty sequence of SegTask")
    if len(inits) != len(tasks):
        raise ValueError(
            f"inits must give one generator per task ({len(tasks)}), got {len(inits)}"
        )
    if len({t.images.shape[1:] for t in tasks}) != 1:
        raise ValueError("all tasks must have images of the same shape")
    steps, batch = (
        checks.integer("steps", steps, at_least=1),
        checks.integer("batch", batch, at_least=1),
    )
    checks.one_of("schedule", schedule, SCHEDULES)
    lr = checks.number("lr", lr, above=0)
    model = GroupedUNet([make_unet(g, *widths) for g in inits])
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    G = len(tasks)
    losses = np.empty((steps, G))
    for s in range(steps):
        if schedule == "poly":
            for group in opt.param_groups:
                group["lr"] = poly_lr(lr, s, steps)
        xs, ys = [], []
        for t in tasks:
            idx = torch.randint(len(t.images), (batch,), generator=generator)
            x = t.images[idx]
            if t.randomize is not None:
                x = domain_randomize(x, generator, t.randomize)
            xs.append(x)
            ys.append(t.masks[idx])
        logits, y = model(torch.stack(xs)), torch.stack(ys)
        bce = functional.binary_cross_entropy_with_logits(logits, y, reduction="none")
        p = torch.sigmoid(logits)
        dice = (2 * (p * y).sum((2, 3)) + 1) / (p.sum((2, 3)) + y.sum((2, 3)) + 1)
        per_task = bce.mean((1, 2, 3)) + (1 - dice).mean(1)
        opt.zero_grad()
        per_task.sum().backward()
        opt.step()
        losses[s] = per_task.detach().numpy()
    model.eval()
    return SegTrace(model, losses)


def _as_grouped_input(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    if isinstance(model, GroupedUNet):
        return x.unsqueeze(0).expand(model.G, *x.shape)
    return x


@torch.no_grad()
def predict_masks(model: nn.Module, images, *, chunk: int = 64) -> torch.Tensor:
    """Binary masks (logit > 0, i.e. probability > 0.5): (n, H, W) for a UNet2, (G, n, H, W)
    for a GroupedUNet (every member sees the same images)."""
    images = _check_images("images", images)
    out = [
        model(_as_grouped_input(model, images[i : i + chunk])) > 0
        for i in range(0, len(images), chunk)
    ]
    return torch.cat(out, dim=-3).float()


def segment_dice(model: nn.Module, images, masks) -> np.ndarray:
    """Per-image Dice of the predicted masks: (n,) for a UNet2, (G, n) for a GroupedUNet."""
    images = _check_images("images", images)
    masks = _check_masks("masks", masks, (images.shape[0], *images.shape[2:]))
    pred = predict_masks(model, images)
    if pred.ndim == 3:
        return dice_score(pred, masks)
    return np.stack([dice_score(p, masks) for p in pred])


def input_grad_norm(model: nn.Module, images, masks, *, chunk: int = 64) -> np.ndarray:
    """Per-image ‖∇ₓ ℓ(x, y)‖₂ of the segmentation loss (BCE + soft Dice of that image alone):
    how sharply the loss changes with the input, the quantity LangDAug's first-order regulariser
    penalises. (n,) for a UNet2, (G, n) for a GroupedUNet."""
    images = _check_images("images", images)
    masks = _check_masks("masks", masks, (images.shape[0], *images.shape[2:]))
    out = []
    for i in range(0, len(images), chunk):
        x = _as_grouped_input(model, images[i : i + chunk]).clone().requires_grad_(True)
        y = masks[i : i + chunk].expand_as(x[..., 0, :, :])
        logits = model(x)
        bce = functional.binary_cross_entropy_with_logits(logits, y, reduction="none")
        p = torch.sigmoid(logits)
        dice = (2 * (p * y).sum((-2, -1)) + 1) / (p.sum((-2, -1)) + y.sum((-2, -1)) + 1)
        per_image = bce.mean((-2, -1)) + 1 - dice
        (g,) = torch.autograd.grad(per_image.sum(), x)
        out.append(g.flatten(-3).norm(dim=-1))
    return torch.cat(out, dim=-1).detach().double().numpy()
