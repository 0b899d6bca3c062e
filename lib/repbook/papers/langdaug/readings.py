"""What the chapter prints from its runs: the tables and the sentences that read them, generated
from the numbers. Pure functions of the studies' results (tables as pandas DataFrames); no
printing, plotting or file writing."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from repbook.core.stats import gain_line, paired_summary

from .domains import STYLES, Domain, hull_distance
from .measures import disc_contrast
from .protocols import SegStudy
from .samplers import Augmentations
from .studies import LabelCheck, SamplerComparison, chain_starts, domain_gap, mean_of

STYLE_PARAMETERS = [f"{p}_{c}" for p in ("tint", "gamma", "bias") for c in "RGB"] + [
    "noise"
]


# ----------------------------------------------------------------------------------------------
# domains and chains
def style_table(sources: Sequence[str], domains: Sequence[str]) -> pd.DataFrame:
    """The ten style parameters of each domain and its distance to the convex hull of the
    sources' styles ('to hull')."""
    styles = pd.DataFrame(
        {d: STYLES[d].vector() for d in domains}, index=STYLE_PARAMETERS
    ).T
    hull = np.stack([STYLES[d].vector() for d in sources])
    styles["to hull"] = [hull_distance(STYLES[d].vector(), hull) for d in styles.index]
    return styles


def hull_line(styles: pd.DataFrame, held_out: Sequence[str]) -> str:
    """Which held-out domains lie inside the sources' hull, and how far from it."""
    return "; ".join(
        f"{d}: {'inside' if styles.loc[d, 'to hull'] < 1e-6 else 'outside'} "
        "the sources' "
        f"hull (distance {styles.loc[d, 'to hull']:.2f})"
        for d in held_out
    )


def cd_loss_line(n_sets: int, names: Sequence[str], losses: np.ndarray) -> str:
    """The pair EBMs' CD loss over the last 10 iterations of the last set."""
    return (
        f"{n_sets} set(s) of {len(names)} pair EBMs; CD loss over the last 10 "
        f"iterations (last set): "
        + ", ".join(f"{p} {v:+.2f}" for p, v in zip(names, losses[-10:].mean(0)))
    )


def traversal_table(cmp: SamplerComparison) -> pd.DataFrame:
    """The code sampler's normalised distance per pair (rows) and saved step (columns)."""
    return pd.DataFrame(cmp.code, index=[f"step {k}" for k in cmp.steps]).T


def sampler_lines(cmp: SamplerComparison, beta: float) -> list[str]:
    """Where the Langevin chains end, and what their noise changes."""
    K = cmp.steps[-1]
    return [
        f"Langevin sampler, at step {K}: "
        + ", ".join(f"{p} {v[-1]:.3f}" for p, v in cmp.langevin.items()),
        "the two samplers' normalised distances differ by at most "
        f"{cmp.largest_gap:.4f}; at step {K} the Langevin chains differ from the code's "
        f"by {cmp.end_sd:.4f} per pixel (sd), against "
        f"√(Kβ) = {np.sqrt(K * beta):.4f} for noise that nothing removes: the noise "
        "adds pixel noise to the augmentations and leaves their colour where the drift "
        "takes it",
    ]


# ----------------------------------------------------------------------------------------------
# segmenters
def training_line(study: SegStudy, tasks: Mapping, batch: int) -> str:
    """How many UNets trained, for how many steps, on how many images."""
    n_src, n_aug = len(tasks["ERM"].images), len(tasks["LangDAug"][0].images)
    return (
        f"{len(study.labels)} UNets ({len(tasks)} methods × {len(tasks['LangDAug'])} "
        "seeds), "
        + ", ".join(f"{m} {n}" for m, n in study.steps.items())
        + f" steps of {batch} images; training sets: ERM {n_src} images, "
        f"LangDAug {n_aug} ({n_aug - n_src} augmentations)"
    )


def results_table(
    study: SegStudy,
    dice: Mapping[str, Mapping[tuple[str, int], float]],
    sources: Sequence[str],
    held_out: Sequence[str],
) -> pd.DataFrame:
    """One row per model (method, seed): its mean in-domain Dice (over the sources' test
    domains) and its Dice on each held-out domain."""
    return pd.DataFrame(
        [
            dict(
                method=m,
                seed=s,
                in_domain=np.mean([dice[d][m, s] for d in sources]),
                **{d: dice[d][m, s] for d in held_out},
            )
            for m, s in study.labels
        ]
    )


def in_domain_table(results: pd.DataFrame, study: SegStudy) -> pd.DataFrame:
    """Mean and sd of the in-domain Dice over seeds, and the last 20 steps' training loss."""
    last_loss = {m: float(v[-20:].mean()) for m, v in study.losses.items()}
    return (
        results.groupby("method", sort=False)
        .in_domain.agg(["mean", "std"])
        .assign(**{"training loss (last 20 steps)": pd.Series(last_loss)})
    )


def label_lines(check: LabelCheck, auc_real: np.ndarray, auc_aug: np.ndarray) -> list:
    """The referee's Dice on the augmentations and on real images, ERM's, and the mask AUC."""
    return [
        f"referee (DR) Dice on the {check.referee.shape[1]} augmentations, per seed: "
        + ", ".join(f"{v:.3f}" for v in check.referee.mean(1))
        + "; by chain step (mean over seeds): "
        + ", ".join(f"{k} {v:.3f}" for k, v in check.by_step.items()),
        "the referee on real images (sources' test images and M), lowest: "
        f"{min(check.real.values()):.3f}; ERM's Dice on the augmentations, per seed: "
        + ", ".join(f"{v:.3f}" for v in check.other.mean(1)),
        f"mask AUC: real source test images median {np.median(auc_real):.3f} "
        f"(lowest {auc_real.min():.3f}); augmentations median {np.median(auc_aug):.3f}, "
        f"below 0.9 on {np.mean(auc_aug < 0.9):.1%} of them",
    ]


def contrast_table(
    aug: Augmentations,
    train: Mapping[str, Domain],
    pairs: Sequence[tuple[str, str]],
    n_chain: int,
) -> pd.DataFrame:
    """The disc contrast per pair: of the chains' first and last saved iterates (under the
    source masks) and of the target domain's own images."""
    _, m0 = chain_starts(train, pairs, n_chain)
    return pd.DataFrame(
        {
            f"{i}→{j}": {
                "step 0": disc_contrast(aug.chains[0, p], m0[p]),
                f"step {aug.steps[-1]}": disc_contrast(aug.chains[-1, p], m0[p]),
                "domain j": disc_contrast(train[j].images, train[j].masks),
            }
            for p, (i, j) in enumerate(pairs)
        }
    ).T


# ----------------------------------------------------------------------------------------------
# unseen domains and the gradient norms
def per_seed_tables(
    results: pd.DataFrame, held_out: Sequence[str], methods: Sequence[str]
) -> dict[str, pd.DataFrame]:
    """Per held-out domain, the Dice of each method (columns) and seed (rows)."""
    return {
        d: results.pivot(index="seed", columns="method", values=d)[list(methods)]
        for d in held_out
    }


def cost_line(in_dom, dice, methods: Sequence[str], held_out: Sequence[str]) -> str:
    """Each method's gap on each held-out domain."""
    return "cost of each unseen domain (mean in-domain Dice − mean Dice there): " + (
        "; ".join(
            f"{d}: "
            + ", ".join(f"{m} {domain_gap(in_dom, dice[d], m):+.3f}" for m in methods)
            for d in held_out
        )
    )


READ = {
    "reproduced": "beyond the noise in favour of the method",
    "within noise": "within the noise (neither ✓ nor ✗)",
    "not reproduced": "against the method, beyond the noise",
}


def gain_reading(claim) -> str:
    """A paired-gain claim read from the ledger: its gains' mean ± t·SE and sign count, or why
    it was not checked."""
    if not claim.checked:
        return f"{claim.id}: {claim.verdict_word()} ({claim.note})"
    name = next(k for k in claim.measured if k.endswith("per seed"))
    s = paired_summary(claim.measured[name])
    return (
        f"{claim.id}: {name} = {s.mean:+.4f} ± {s.half:.4f} (t·SE, {s.n} seeds; "
        f"positive on {s.positive} of {s.n}): {READ[claim.verdict]}"
    )


def grad_ratio_line(gn_held, gn_src, drop_src: Sequence[float]) -> str:
    """LangDAug's mean gradient norm over ERM's on M and on the sources' test images."""
    return (
        "LangDAug / ERM (means over seeds): "
        f"{mean_of(gn_held, 'LangDAug') / mean_of(gn_held, 'ERM'):.3f}"
        f" on M, {mean_of(gn_src, 'LangDAug') / mean_of(gn_src, 'ERM'):.3f} "
        "on the sources' "
        f"test images; ERM − LangDAug on the sources, per seed: "
        + ", ".join(f"{v:+.4f}" for v in drop_src)
    )


def source_gradient_line(drop_src: Sequence[float]) -> str:
    """ERM − LangDAug on the sources' images, where both fit, and what it says."""
    src = paired_summary(drop_src)
    return gain_line(
        "ERM − LangDAug ‖∇ₓℓ‖ on the sources' test images, per seed", drop_src
    ) + (
        ": beyond the noise where both fit, which points to a smoother model "
        "rather than only a better fit on M"
        if src.mean - src.half > 0
        else ": within the noise where both fit, so this run does not separate "
        "a smoother model from a better fit on M"
    )


# ----------------------------------------------------------------------------------------------
# full scale
def lodo_table(lodo: Mapping) -> pd.DataFrame:
    """Per held-out domain: each method's mean Dice there and ERM's in-domain Dice."""
    ds = list(lodo)
    return pd.DataFrame(
        {
            d: {m: np.mean(v) for m, v in lodo[d][d].items()}
            | {
                "in-domain ERM": np.mean(
                    [np.mean(lodo[d][s]["ERM"]) for s in ds if s != d]
                )
            }
            for d in ds
        }
    ).T
