"""Experiment protocols: the pair EBMs of a set of sources and their augmentations, the
segmenters of several methods trained side by side, and one domain-generalisation split."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from repbook.core import checks

from .domains import Domain
from .measures import ordered_pairs
from .networks import GroupedUNet
from .samplers import Augmentations, EBMTrace, langdaug_augment, train_pair_ebms
from .segmentation import SCHEDULES, SegTask, input_grad_norm, segment_dice, train_unets
from .vqvae import VQVAE


@dataclass(frozen=True)
class EBMConfig:
    """Contrastive-divergence settings of the pair EBMs (see `train_pair_ebms`): `iters`
    iterations of `batch` images, chains of `steps` steps of size `step_size` (the code's
    sampler), energy penalty `l2`, Adam lr `lr`, conv `widths`."""

    iters: int
    batch: int
    steps: int
    step_size: float
    widths: tuple[int, ...] = (32, 64, 64)
    l2: float = 0.1
    lr: float = 1e-3

    def __post_init__(self):
        for name in ("iters", "batch", "steps"):
            checks.integer(f"EBMConfig.{name}", getattr(self, name), at_least=1)
        checks.number("EBMConfig.step_size", self.step_size, above=0)
        checks.number("EBMConfig.lr", self.lr, above=0)


@dataclass(frozen=True)
class PairAugmentation:
    """The pair EBMs of a set of source domains and the augmentations their chains made:
    `pairs` in the EBMs' order, the EBMs' `trace`, and the `augmentations` (chains from the
    first `n_chain` training images of each pair's source)."""

    pairs: tuple[tuple[str, str], ...]
    trace: EBMTrace
    augmentations: Augmentations


def pair_augmentations(
    train: Mapping[str, Domain],
    sources: Sequence[str],
    *,
    ebm: EBMConfig,
    n_chain: int,
    save_every: int,
    generator: torch.Generator,
    vq: "VQVAE | None" = None,
) -> PairAugmentation:
    """Train one EBM per ordered pair of `sources` (side by side, on VQ-VAE latents when `vq`
    is given) and run each pair's chains from the first `n_chain` training images of its source
    domain, keeping every `save_every`-th iterate labelled with the source masks."""
    pairs = ordered_pairs(sources)
    missing = [d for d in sources if d not in train]
    if missing:
        raise ValueError(f"train has no images of source domain(s) {missing}")
    n_chain = checks.integer("n_chain", n_chain, at_least=1)
    short = [i for i, _ in pairs if len(train[i].images) < n_chain]
    if short:
        raise ValueError(
            f"n_chain ({n_chain}) exceeds the training images of domain(s) {sorted(set(short))}"
        )
    x_src = torch.stack([train[i].images for i, _ in pairs])
    x_tgt = torch.stack([train[j].images for _, j in pairs])
    if vq is not None:
        x_src, x_tgt = (
            torch.stack([vq.latent(x) for x in xs]) for xs in (x_src, x_tgt)
        )
    trace = train_pair_ebms(
        list(x_src),
        list(x_tgt),
        iters=ebm.iters,
        batch=ebm.batch,
        steps=ebm.steps,
        step_size=ebm.step_size,
        generator=generator,
        widths=ebm.widths,
        l2=ebm.l2,
        lr=ebm.lr,
        clip=None if vq is not None else (0.0, 1.0),
        offset=0.0 if vq is not None else 0.5,
    )
    x0 = torch.stack([train[i].images[:n_chain] for i, _ in pairs])
    m0 = torch.stack([train[i].masks[:n_chain] for i, _ in pairs])
    aug = langdaug_augment(
        trace.ebm,
        x0,
        m0,
        steps=ebm.steps,
        step_size=ebm.step_size,
        save_every=save_every,
        vq=vq,
    )
    return PairAugmentation(tuple(pairs), trace, aug)


@dataclass(frozen=True)
class SegConfig:
    """How the segmenters train. With `epochs`, every training set gets that many passes
    (steps = ⌈epochs · images / batch⌉, as the official code trains each set for a fixed number
    of epochs, so a set enlarged by augmentations gets more steps); with `steps`, every set gets
    that many. Exactly one of the two. `schedule` as in `train_unets` ("poly": the official
    code's)."""

    batch: int
    widths: tuple[int, int]
    epochs: float | None = None
    steps: int | None = None
    lr: float = 2e-3
    schedule: str = "poly"

    def __post_init__(self):
        checks.integer("SegConfig.batch", self.batch, at_least=1)
        if (self.epochs is None) == (self.steps is None):
            raise ValueError("SegConfig takes exactly one of epochs and steps")
        if self.epochs is not None:
            checks.number("SegConfig.epochs", self.epochs, above=0)
        else:
            checks.integer("SegConfig.steps", self.steps, at_least=1)
        checks.number("SegConfig.lr", self.lr, above=0)
        checks.one_of("schedule", self.schedule, SCHEDULES)

    def steps_for(self, n_images: int) -> int:
        """The number of steps a training set of `n_images` images gets."""
        n_images = checks.integer("n_images", n_images, at_least=1)
        if self.steps is not None:
            return int(self.steps)
        return int(math.ceil(self.epochs * n_images / self.batch - 1e-9))


@dataclass(frozen=True)
class SegStudy:
    """Segmenters trained side by side: member k is `labels[k]` = (method, seed); `steps` per
    method; `groups` holds each grouped model with the members it holds (one group per step
    count). Evaluate with `per_image`, `dice` or `grad_norm`."""

    labels: tuple[tuple[str, int], ...]
    steps: Mapping[str, int]
    groups: tuple[tuple[GroupedUNet, tuple[int, ...]], ...]
    losses: Mapping[str, np.ndarray]  # per method: (steps, seeds) training losses

    def per_image(self, measure: Callable, images, masks) -> np.ndarray:
        """measure(model, images, masks) → (G, n) for each group, reassembled in member order:
        (members, n)."""
        out: list = [None] * len(self.labels)
        for model, members in self.groups:
            vals = np.asarray(measure(model, images, masks))
            for row, k in zip(vals, members):
                out[k] = row
        return np.stack(out)

    def dice(self, images, masks) -> dict[tuple[str, int], float]:
        """Mean Dice over the images, per (method, seed)."""
        d = self.per_image(segment_dice, images, masks).mean(1)
        return {lab: float(v) for lab, v in zip(self.labels, d)}

    def grad_norm(self, images, masks) -> dict[tuple[str, int], float]:
        """Mean input-gradient norm of the loss over the images, per (method, seed)."""
        g = self.per_image(input_grad_norm, images, masks).mean(1)
        return {lab: float(v) for lab, v in zip(self.labels, g)}


def train_segmenters(
    train_sets: Mapping[str, SegTask | Sequence[SegTask]],
    *,
    seeds: int | Mapping[str, int],
    config: SegConfig,
    init: Callable[[int], torch.Generator],
    batches: Callable[[int], torch.Generator],
) -> SegStudy:
    """Train every method's training set for its seeds: a SegTask serves every seed, a sequence
    gives one task per seed (all of one size, e.g. augmentations from EBMs retrained per seed).
    Seed s of every method starts from the UNet made from `init(s)` (the same weights for every
    method: gains pair by seed). Methods with the same number of steps (see
    `SegConfig.steps_for`) train side by side in one grouped model; the group with the k-th
    smallest step count draws its batches from `batches(k)`."""
    if not train_sets:
        raise ValueError(
            "train_sets must map method names to SegTask (or one per seed)"
        )
    if not isinstance(config, SegConfig):
        raise TypeError(f"config must be a SegConfig, got {type(config).__name__}")
    n_seeds, tasks = {}, {}
    for m, t in train_sets.items():
        n = seeds[m] if isinstance(seeds, Mapping) else seeds
        n_seeds[m] = checks.integer(f"seeds[{m!r}]", n, at_least=1)
        per = [t] * n_seeds[m] if isinstance(t, SegTask) else list(t)
        if len(per) != n_seeds[m] or not all(isinstance(x, SegTask) for x in per):
            raise ValueError(
                f"train_sets[{m!r}] must be a SegTask or {n_seeds[m]} of them (one per seed)"
            )
        if len({len(x.images) for x in per}) != 1:
            raise ValueError(f"the per-seed tasks of {m!r} must all have the same size")
        tasks[m] = per
    steps = {m: config.steps_for(len(per[0].images)) for m, per in tasks.items()}
    labels = tuple((m, s) for m in tasks for s in range(n_seeds[m]))
    groups, losses = [], {}
    for k, n_steps in enumerate(sorted(set(steps.values()))):
        members = tuple(i for i, (m, _) in enumerate(labels) if steps[m] == n_steps)
        trace = train_unets(
            [tasks[labels[i][0]][labels[i][1]] for i in members],
            inits=[init(labels[i][1]) for i in members],
            steps=n_steps,
            batch=config.batch,
            generator=batches(k),
            lr=config.lr,
            widths=config.widths,
            schedule=config.schedule,
        )
        groups.append((trace.model, members))
        for m in {labels[i][0] for i in members}:
            cols = [c for c, i in enumerate(members) if labels[i][0] == m]
            losses[m] = trace.losses[:, cols]
    return SegStudy(labels, steps, tuple(groups), losses)


def per_seed(values: Mapping[tuple[str, int], float], method: str) -> list[float]:
    """The values of one method in seed order."""
    seeds = sorted(s for m, s in values if m == method)
    if not seeds:
        raise ValueError(f"no values for method {method!r}")
    return [float(values[method, s]) for s in seeds]


def paired_gains(
    values: Mapping[tuple[str, int], float], method: str, baseline: str
) -> list[float]:
    """method − baseline per seed, for the seeds both have (a paired gain per seed)."""
    a = {s: v for (m, s), v in values.items() if m == method}
    b = {s: v for (m, s), v in values.items() if m == baseline}
    common = sorted(set(a) & set(b))
    if not common:
        raise ValueError(f"{method!r} and {baseline!r} share no seed")
    return [float(a[s] - b[s]) for s in common]


def langdaug_split(
    train: Mapping[str, Domain],
    tests: Mapping[str, Domain],
    *,
    sources: Sequence[str],
    seeds: int,
    ebm: EBMConfig,
    seg: SegConfig,
    n_chain: int,
    save_every: int,
    ebm_generator: Callable[[int], torch.Generator],
    init: Callable[[int], torch.Generator],
    batches: Callable[[int], torch.Generator],
    vq: "VQVAE | None" = None,
) -> dict[str, dict[str, list[float]]]:
    """One domain-generalisation split: for each seed s, pair EBMs of `sources` (from
    `ebm_generator(s)`) and their augmentations; ERM (the sources) and LangDAug (the sources
    and seed s's augmentations) segmenters, seed s of both from `init(s)`; their mean Dice on
    each test domain. Returns {test domain: {"ERM": [per seed], "LangDAug": [per seed]}}."""
    seeds = checks.integer("seeds", seeds, at_least=1)
    if not tests:
        raise ValueError("tests must name at least one test domain")
    x = torch.cat([train[d].images for d in sources])
    m = torch.cat([train[d].masks for d in sources])
    augmented = []
    for s in range(seeds):
        aug = pair_augmentations(
            train,
            sources,
            ebm=ebm,
            n_chain=n_chain,
            save_every=save_every,
            generator=ebm_generator(s),
            vq=vq,
        ).augmentations
        augmented.append(SegTask(torch.cat([x, aug.images]), torch.cat([m, aug.masks])))
    study = train_segmenters(
        {"ERM": SegTask(x, m), "LangDAug": augmented},
        seeds=seeds,
        config=seg,
        init=init,
        batches=batches,
    )
    out = {}
    for d, dom in tests.items():
        dice = study.dice(dom.images, dom.masks)
        out[d] = {k: per_seed(dice, k) for k in ("ERM", "LangDAug")}
    return out
