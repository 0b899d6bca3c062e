"""The chapter's experiments, built from the protocols: the domains it draws, the two samplers
on the same pair EBMs (claim 1), the four methods' training sets, the referee of the labels
(check 2), the measured values of a paired-gain claim (claims 3 and 4), the input-gradient norms
(claim 5) and, at full scale, the leave-one-domain-out splits and the sweep over the chain
length (claim 3d). No printing, plotting or file writing."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from repbook.core import checks
from repbook.core.stats import t_quantile

from .domains import Domain, channel_means, make_domain
from .measures import normalised_traversal
from .protocols import (
    EBMConfig,
    PairAugmentation,
    SegConfig,
    SegStudy,
    langdaug_split,
    paired_gains,
    per_seed,
)
from .samplers import Augmentations, langdaug_augment
from .segmentation import DRRange, SegTask, segment_dice
from .vqvae import train_vqvae

FIT = "fit: method's − baseline's in-domain Dice"
"""The name of the fit gate's value in claims 3 and 4."""


# ----------------------------------------------------------------------------------------------
# data and chains
def make_domains(
    train_domains: Sequence[str],
    test_domains: Sequence[str],
    *,
    n_train: int,
    n_test: int,
    rng: np.random.Generator,
    size: int = 32,
) -> tuple[dict[str, Domain], dict[str, Domain]]:
    """`n_train` images of each training domain, then `n_test` of each test domain, all drawn
    from `rng` in that order: (train, test), each {domain: Domain}."""
    checks.generator("rng", rng)
    train = {d: make_domain(d, n_train, rng, size=size) for d in train_domains}
    test = {d: make_domain(d, n_test, rng, size=size) for d in test_domains}
    return train, test


def pair_names(pairs: Sequence[tuple[str, str]]) -> list[str]:
    """'i→j' for each ordered pair."""
    return [f"{i}→{j}" for i, j in pairs]


def chain_starts(
    train: Mapping[str, Domain], pairs: Sequence[tuple[str, str]], n_chain: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """The first `n_chain` training images of each pair's source and their masks, stacked
    per pair: (G, n_chain, 3, H, W) and (G, n_chain, H, W)."""
    n_chain = checks.integer("n_chain", n_chain, at_least=1)
    x0 = torch.stack([train[i].images[:n_chain] for i, _ in pairs])
    m0 = torch.stack([train[i].masks[:n_chain] for i, _ in pairs])
    return x0, m0


def target_means(
    train: Mapping[str, Domain], pairs: Sequence[tuple[str, str]]
) -> np.ndarray:
    """The mean colour (channel means averaged over the images) of each pair's target domain,
    (G, 3)."""
    return np.stack([channel_means(train[j].images).mean(0).numpy() for _, j in pairs])


@dataclass(frozen=True)
class SamplerComparison:
    """Claim 1 and sanity check 1b: the normalised distance to the target's mean colour per
    pair ('i→j') and saved step, with the code's sampler (the augmentations) and with the
    paper's Langevin step on the same EBMs from the same starts; the largest difference between
    the two, and the per-pixel sd of the Langevin chains' last iterate minus the code's."""

    steps: tuple[int, ...]
    code: dict[str, np.ndarray]
    langevin: dict[str, np.ndarray]
    largest_gap: float
    end_sd: float
    langevin_augmentations: Augmentations


def compare_samplers(
    pair_set: PairAugmentation,
    train: Mapping[str, Domain],
    *,
    n_chain: int,
    steps: int,
    beta: float,
    temperature: float,
    save_every: int,
    generator: torch.Generator,
    vq=None,
) -> SamplerComparison:
    """Run the paper's Langevin step (β = `beta`, at `temperature`) on `pair_set`'s EBMs from
    the starts of its augmentations, and measure both samplers' traversal."""
    x0, m0 = chain_starts(train, pair_set.pairs, n_chain)
    lang = langdaug_augment(
        pair_set.trace.ebm,
        x0,
        m0,
        steps=steps,
        step_size=beta,
        sampler="langevin",
        temperature=temperature,
        generator=generator,
        save_every=save_every,
        vq=vq,
    )
    code_aug = pair_set.augmentations
    names, means = pair_names(pair_set.pairs), target_means(train, pair_set.pairs)
    code = dict(zip(names, normalised_traversal(code_aug.chains, means)))
    langevin = dict(zip(names, normalised_traversal(lang.chains, means)))
    gap = max(np.abs(code[p] - langevin[p]).max() for p in names)
    end_diff = lang.chains[-1] - code_aug.chains[-1]
    return SamplerComparison(
        code_aug.steps, code, langevin, gap, float(end_diff.std()), lang
    )


# ----------------------------------------------------------------------------------------------
# the four methods and what they are scored on
def method_tasks(
    train: Mapping[str, Domain],
    sources: Sequence[str],
    augmentations: Sequence[Augmentations],
    *,
    seeds: int,
    dr: DRRange,
) -> dict[str, SegTask | list[SegTask]]:
    """The training sets of ERM (the sources' images), DR (the same, randomised by `dr`),
    LangDAug (the sources plus seed s's augmentations, `augmentations[s % len]`) and
    DR + LangDAug (both), for `train_segmenters`."""
    seeds = checks.integer("seeds", seeds, at_least=1)
    if not augmentations:
        raise ValueError("augmentations must hold at least one set")
    x = torch.cat([train[d].images for d in sources])
    m = torch.cat([train[d].masks for d in sources])
    aug_sets = [augmentations[s % len(augmentations)] for s in range(seeds)]
    aug_tasks = [(torch.cat([x, a.images]), torch.cat([m, a.masks])) for a in aug_sets]
    return {
        "ERM": SegTask(x, m),
        "DR": SegTask(x, m, dr),
        "LangDAug": [SegTask(xa, ma) for xa, ma in aug_tasks],
        "DR + LangDAug": [SegTask(xa, ma, dr) for xa, ma in aug_tasks],
    }


@dataclass(frozen=True)
class LabelCheck:
    """Check 2: Dice of the referee's seeds (rows) on every augmentation (columns), the same
    for a second method (ERM), the referee's mean Dice per chain step ('step k'), and its Dice
    on the real test images of `domains` ('d, seed s')."""

    referee: np.ndarray
    other: np.ndarray
    by_step: dict[str, float]
    real: dict[str, float]


def label_check(
    study: SegStudy,
    aug: Augmentations,
    dice: Mapping[str, Mapping[tuple[str, int], float]],
    *,
    domains: Sequence[str],
    referee: str = "DR",
    other: str = "ERM",
) -> LabelCheck:
    """Score the augmentations against their source masks with the referee's and `other`'s
    seeds; `dice` holds every model's mean Dice per real test domain."""
    seeds = range(sum(m == referee for m, _ in study.labels))
    dice_all = study.per_image(segment_dice, aug.images, aug.masks)
    ref = dice_all[[study.labels.index((referee, s)) for s in seeds]]
    oth = dice_all[[study.labels.index((other, s)) for s in seeds]]
    n_per_step = len(aug.images) // (len(aug.steps) - 1)
    by_step = {
        f"step {k}": ref[:, i * n_per_step : (i + 1) * n_per_step].mean()
        for i, k in enumerate(aug.steps[1:])
    }
    real = {f"{d}, seed {s}": dice[d][referee, s] for d in domains for s in seeds}
    return LabelCheck(ref, oth, by_step, real)


def mean_of(values: Mapping[tuple[str, int], float], method: str) -> float:
    """A method's mean over its seeds."""
    return float(np.mean(per_seed(values, method)))


def domain_gap(in_dom, dice_d, method: str) -> float:
    """A method's mean in-domain Dice minus its mean Dice on a held-out domain (`dice_d`)."""
    return mean_of(in_dom, method) - mean_of(dice_d, method)


def resolution(values) -> float:
    """t·SE of per-seed values: the smallest mean difference their scatter resolves."""
    v = np.asarray(values, dtype=float)
    return float(t_quantile(len(v)) * v.std(ddof=1) / np.sqrt(len(v)))


@dataclass(frozen=True)
class GainMeasures:
    """The measured values of a paired-gain claim on one held-out domain (`measured`, in the
    order gain, gap, fit, resolution, the baseline's Dice, the method's Dice) and the names
    of the first four, which the gate and the criterion read."""

    gain: str
    gap: str
    fit: str
    resolution: str
    measured: dict


def gain_measures(
    dice_d: Mapping[tuple[str, int], float],
    in_dom: Mapping[tuple[str, int], float],
    method: str,
    baseline: str,
    d: str,
) -> GainMeasures:
    """`method` − `baseline` on domain `d` per seed (paired), the baseline's gap on `d`, the
    method's in-domain fit against the baseline's, and the resolution of the baseline's
    per-seed Dice on `d`."""
    name = f"{method} − {baseline} on {d}, per seed"
    gap = f"{baseline} gap on {d} (in-domain − held-out)"
    res = f"{baseline} resolution on {d} (t·SE of its per-seed Dice)"
    measured = {
        name: paired_gains(dice_d, method, baseline),
        gap: domain_gap(in_dom, dice_d, baseline),
        FIT: mean_of(in_dom, method) - mean_of(in_dom, baseline),
        res: resolution(per_seed(dice_d, baseline)),
        f"{baseline} Dice on {d}": per_seed(dice_d, baseline),
        f"{method} Dice on {d}": per_seed(dice_d, method),
    }
    return GainMeasures(name, gap, FIT, res, measured)


def source_grad_norm(
    study: SegStudy, domains: Sequence[Domain], n: int
) -> dict[tuple[str, int], float]:
    """Each model's input-gradient norm on the first `n` test images of each domain, averaged
    over the domains' means."""
    n = checks.integer("n", n, at_least=1)
    by_domain = [study.grad_norm(d.images[:n], d.masks[:n]) for d in domains]
    return {lab: float(np.mean([g[lab] for g in by_domain])) for lab in study.labels}


# ----------------------------------------------------------------------------------------------
# full scale: leave-one-domain-out over every domain, and the chain length
Streams = Callable[[int], torch.Generator]


def lodo_splits(
    train: Mapping[str, Domain],
    tests: Mapping[str, Domain],
    *,
    seeds: int,
    ebm: EBMConfig,
    seg: SegConfig,
    n_chain: int,
    save_every: int,
    streams: Streams,
    latent: bool = False,
    vq_steps: int = 0,
) -> dict[str, dict[str, dict[str, list[float]]]]:
    """Each domain of `train` held out in turn (the n-th), the others the sources: its VQ-VAE
    (with `latent`, from stream 2000 + n), then `langdaug_split` with the pair EBMs of seed s
    from stream 3010 + 100·n + s, the UNets of seed s from stream 100 + s and the batches of
    group k from stream 4000 + 100·n + k; every domain of `tests` scored.
    Returns {held-out domain: {test domain: {"ERM": [...], "LangDAug": [...]}}}."""
    domains = list(train)
    out = {}
    for n, d in enumerate(domains):
        rest = [s for s in domains if s != d]
        vq = None
        if latent:
            vq = train_vqvae(
                torch.cat([train[s].images for s in rest]),
                steps=vq_steps,
                batch=64,
                generator=streams(2000 + n),
            ).model
        out[d] = langdaug_split(
            train,
            {s: tests[s] for s in domains},
            sources=rest,
            seeds=seeds,
            ebm=ebm,
            seg=seg,
            n_chain=n_chain,
            save_every=save_every,
            ebm_generator=lambda s, n=n: streams(3000 + 100 * n + 10 + s),
            init=lambda s: streams(100 + s),
            batches=lambda k, n=n: streams(4000 + 100 * n + k),
            vq=vq,
        )
    return out


def k_sweep(
    train: Mapping[str, Domain],
    held_out: str,
    test: Domain,
    *,
    ks: Sequence[int],
    sources: Sequence[str],
    seeds: int,
    ebm: EBMConfig,
    seg: SegConfig,
    n_chain: int,
    save_every: int,
    streams: Streams,
    vq=None,
) -> list[dict]:
    """`langdaug_split` with chains of K steps for each K in `ks` (pair EBMs of seed s from
    stream 9010 + K + s, UNets from 100 + s, batches of group k from 9500 + K + k), scored on
    the held-out domain: one row {K, ERM, LangDAug} of mean Dice each."""
    rows = []
    for K in ks:
        res = langdaug_split(
            train,
            {held_out: test},
            sources=sources,
            seeds=seeds,
            ebm=dataclasses.replace(ebm, steps=K),
            seg=seg,
            n_chain=n_chain,
            save_every=save_every,
            ebm_generator=lambda s, K=K: streams(9000 + K + 10 + s),
            init=lambda s: streams(100 + s),
            batches=lambda k, K=K: streams(9500 + K + k),
            vq=vq,
        )[held_out]
        rows.append(dict(K=K, **{m: np.mean(v) for m, v in res.items()}))
    return rows


@dataclass(frozen=True)
class LodoSummary:
    """Claim 3d from the leave-one-domain-out splits: LangDAug − ERM per seed averaged over the
    held-out domains, ERM's gap and LangDAug's in-domain fit averaged over the splits, ERM's
    held-out Dice per seed (averaged over the splits) and the mean gain per held-out domain."""

    gain: np.ndarray
    erm_gap: float
    fit: float
    erm_held: np.ndarray
    by_domain: dict[str, float]


def lodo_summary(lodo: Mapping[str, Mapping[str, Mapping[str, list]]]) -> LodoSummary:
    """Summarise `lodo_splits`' result for claim 3d."""
    ds = list(lodo)
    gain = np.mean(
        [np.subtract(lodo[d][d]["LangDAug"], lodo[d][d]["ERM"]) for d in ds], axis=0
    )
    erm_gap = np.mean(
        [
            np.mean([np.mean(lodo[d][s]["ERM"]) for s in ds if s != d])
            - np.mean(lodo[d][d]["ERM"])
            for d in ds
        ]
    )
    fit = np.mean(
        [
            np.mean(lodo[d][s]["LangDAug"]) - np.mean(lodo[d][s]["ERM"])
            for d in ds
            for s in ds
            if s != d
        ]
    )
    erm_held = np.mean([lodo[d][d]["ERM"] for d in ds], axis=0)
    by_domain = {
        d: np.mean(lodo[d][d]["LangDAug"]) - np.mean(lodo[d][d]["ERM"]) for d in ds
    }
    return LodoSummary(gain, erm_gap, fit, erm_held, by_domain)
