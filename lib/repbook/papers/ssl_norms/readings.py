"""The lines that read the chapter's measurements: tables and sentences generated from the numbers
of the protocols (so that no number in them is typed by hand). Each function returns text and
prints nothing; the verdicts are read in the chapter, beside their criteria."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .protocol import (
    FamiliarityStudy,
    GradientStudy,
    ImbalanceStudy,
    NormGrowth,
    TargetStudy,
    ToyStudy,
    VariantRuns,
)


def gradient_lines(study: GradientStudy) -> list[str]:
    """Claim 1: the analytic gradient against autograd, its orthogonality and size, and the
    loss gradients' deviation from the 1/α law (p = 0) or from invariance (p = 1)."""
    lines = [
        f"(a) max relative error analytic vs autograd: {study.rel_autograd:.1e}",
        f"(b) max |∇·ẑ|/‖∇‖: {study.orth:.1e};  max |‖∇‖‖z‖ − sin φ|: "
        f"{study.sin_gap:.1e}",
        "(c) max relative deviation from the 1/α law (p = 0) or from invariance (p = 1):",
    ]
    for (kind, power), e in study.scale_err.items():
        lines.append(f"    {kind:16s} p = {power:.0f}: {e:.1e}")
    return lines


def toy_lines(study: ToyStudy) -> list[str]:
    """Claims 2a–2c: steps by norm, the log–log slope, the smallest norm change and the
    angle's rank correlation with the steps."""
    angles = study.by_angle
    return [
        study.by_norm.round(3).to_string(index=False),
        f"log-log slope of steps on r (r ≥ 1): {study.slope:.3f}",
        "smallest per-embedding change of the norm over all toy steps: "
        f"{study.min_increment:.1e}",
        f"Spearman ρ(initial angle, steps) = {study.rho:.3f}; steps from "
        f"{angles.steps.min()} (angle {angles.angle.iloc[0]:.0f}°) to "
        f"{angles.steps.max()} (angle {angles.angle.iloc[-1]:.0f}°)",
    ]


def tuning_lines(
    runs: VariantRuns, tuned: Sequence[str], n_validation: int
) -> list[str]:
    """The tuning table (validation score by rate and tuned variant), the binomial SE of
    one k-NN accuracy near the default's best score, and the chosen rates."""
    table = runs.tuning.pivot(index="lr", columns="method", values="score")[list(tuned)]
    default = tuned[0]
    p_best = runs.brackets[default].scores[runs.best_lr[default]]
    score_se = np.sqrt(p_best * (1 - p_best) / n_validation)
    chosen = ", ".join(
        f"{m} {runs.best_lr[m]:g} "
        f"({'bracketed' if runs.bracketed[m] else 'at the edge'})"
        for m in tuned
    )
    return [
        "mean validation k-NN accuracy, second half of the tuning run, by learning rate:",
        table.round(4).to_string(na_rep="—"),
        f"(binomial SE of one k-NN accuracy near {p_best:.2f} on {n_validation:,} "
        f"digits: {score_se:.4f})",
        f"chosen learning rates: {chosen}; cut-init at the default's rate",
    ]


def growth_lines(
    runs: VariantRuns, growth: NormGrowth, variants: Sequence[str]
) -> list[str]:
    """Claim 2d: the mean test norm of each variant every third evaluation, the default's
    growth, peak and Mann–Kendall trend per seed, and the cut's shrink of the initial
    norms."""
    table = runs.curves.groupby(["method", "step"]).norm.mean().unstack(0)
    trends = ", ".join(f"{t:+.3f} ({p:.3f})" for t, p in growth.trends)
    return [
        table[list(variants)].iloc[::3].round(3).to_string(),
        f"default run, final / initial mean ‖z‖ per seed: {np.round(growth.growth, 3)}",
        "default run, peak / initial mean ‖z‖ per seed:  "
        f"{np.round(growth.peak_growth, 3)}",
        f"default run, peak / final mean ‖z‖ per seed:    {np.round(growth.peak, 3)}",
        f"default run, Mann–Kendall τ (one-sided p) per seed: {trends}",
        "cut-initialisation divides the initial mean ‖z‖ by "
        f"{growth.shrink:.1f} on average",
    ]


def decay_lines(sweep: pd.DataFrame, *, lr: float, steps: int) -> list[str]:
    """Our check 2e: the decays used, the final norms by decay and seed, and the mean
    final k-NN accuracy by decay."""
    pairs = sweep.drop_duplicates("effective")
    decays = ", ".join(
        f"{e:g} → {wd:.3g}" for e, wd in zip(pairs.effective, pairs.weight_decay)
    )
    norms = sweep.pivot(index="seed", columns="effective", values="final_norm")
    knn = sweep.groupby("effective").knn.mean().round(4).to_dict()
    return [
        f"decays λ for the effective decays {decays} (η = {lr:g}, T = {steps})",
        "final mean test ‖z‖ by effective decay (columns) and seed (rows):\n"
        + norms.round(4).to_string(),
        f"final k-NN accuracy, mean over seeds: {knn}",
    ]


def target_lines(
    study: TargetStudy, *, steps: int, peak_growth, bracketed: dict
) -> list[str]:
    """Claim 3: the targets per seed, the steps to them per variant, the steps saved and
    the gate's values."""
    targets = pd.DataFrame(
        {
            "untrained default": study.start,
            f"default after {steps} steps": study.final,
            "target (halfway)": study.target,
        }
    )
    rates = ", ".join(f"{m} {'yes' if b else 'no'}" for m, b in bracketed.items())
    return [
        targets.round(4).to_string(),
        study.summary.round(4).to_string(),
        *(
            f"steps saved by {name} per seed (default − variant): {v}"
            for name, v in study.saved.items()
        ),
        f"gate: default's peak / initial ‖z‖ per seed {np.round(peak_growth, 3)} "
        f"(needs ≥ {np.sqrt(2):.3f}); rates bracketed: {rates}",
    ]


def familiarity_lines(study: FamiliarityStudy) -> list[str]:
    """Claims 4a–4c: each unexpected group's AUROC with its interval and median norm, and
    the k-NN accuracy by norm quintile (mean over seeds)."""
    seen = np.median(study.norms["seen digits"])
    lines = [
        f"{name:16s}: AUROC {auc:.3f} (95 % interval {lo:.3f}–{hi:.3f}); median ‖z‖ "
        f"{np.median(study.norms[name]):.3f} vs seen {seen:.3f}"
        for name, (auc, lo, hi) in study.aucs.items()
    ]
    quint = ", ".join(
        f"{q + 1}: {v:.3f}" for q, v in enumerate(study.quintiles.mean(0))
    )
    return lines + [
        "k-NN accuracy by norm quintile (1 = smallest norms), mean over seeds: " + quint
    ]


def imbalance_lines(study: ImbalanceStudy, weights: Sequence[float]) -> list[str]:
    """Claim 4d: the mean growth per class and the slope on log₂(class weight)."""
    t = study.trend
    listed = ", ".join(f"{w:g}" for w in weights)
    return [
        f"mean ‖z‖ growth per class (weights {listed}), mean over runs: "
        f"{np.round(study.growth.mean(0), 3)}",
        f"slope of growth on log2(class weight): mean {t.mean:.3f} over "
        f"{len(t.slopes)} runs, 95 % interval [{t.low:.3f}, {t.high:.3f}]; "
        f"positive in {int((t.slopes > 0).sum())} runs",
    ]
