"""The lines that read the chapter's diagnostics: tables and sentences generated from the numbers
of the protocols (so that no number in them is typed by hand). Each function returns text and
prints nothing; the verdicts are read in the chapter, beside their criteria."""

from __future__ import annotations

import numpy as np
import pandas as pd

from repbook.core import gain_line, paired_gain, paired_summary

from .comparison import paired_differences, scale_free_table
from .models import MemberTerms
from .protocol import BinaryStudy, ExactStudy, PairMembers, RegressionStudy

REG_TERMS = ["ensemble", "average", "prediction", "gradient", "cross"]
BIN_TERMS = [
    "ensemble",
    "average",
    "kl",
    "gradient",
    "geometric_kl",
    "geometric_gradient",
]
DIVERSITIES = ["prediction", "gradient", "cross"]
READ = {
    "reproduced": "beyond the noise in favour of AdvEOAP",
    "within noise": "within the noise (neither ✓ nor ✗)",
    "not reproduced": "against AdvEOAP beyond the noise",
}
"""How a paired verdict on AdvEOAP − baseline differences reads."""


def paired_verdict(name: str, gains) -> str:
    """The verdict of the chapter's paired rule, `paired_gain(name, k="t")` (mean ± t·SE
    against 0), on these gains: "reproduced", "within noise" or "not reproduced"."""
    out = paired_gain(name, k="t").evaluate({name: list(gains)})
    if out.passed:
        return "reproduced"
    return "within noise" if out.undecided else "not reproduced"


def gain_reading(name: str, gains, *, digits: int = 4, extra: str = "") -> str:
    """`gain_line` of the paired gains (mean ± t·SE, seeds, how many positive), `extra`, and
    how the paired verdict reads for AdvEOAP."""
    return f"{gain_line(name, gains, digits=digits)}{extra}: {READ[paired_verdict(name, gains)]}"


def exact_lines(study: ExactStudy) -> list[str]:
    """Claim 1: the ensemble's adversarial loss and the diversity, exact (grid) against first
    order."""
    first, exact = study.first_diversity, study.exact_diversity
    side = int(round(np.sqrt(len(study.offsets))))
    return [
        f"{len(study.y)} points, ε = {study.epsilon}, grid {side}×{side}:",
        "ensemble adversarial loss: exact (grid) mean "
        f"{study.exact_ensemble.mean():.4f}, first order mean "
        f"{study.first_order.ensemble.mean():.4f}, median relative gap "
        f"{np.median(study.relative_gap):.1%}",
        f"diversity: exact mean {exact.mean():.4f}, first order mean {first.mean():.4f}, "
        f"largest |gap| {np.abs(first - exact).max():.4f}, "
        f"correlation {np.corrcoef(exact, first)[0, 1]:.3f}",
    ]


def members_lines(pair: PairMembers, reg: MemberTerms, clf: MemberTerms) -> list[str]:
    """Checks 2–4's data and members: the split, the regressors' test MSE and sign accuracy,
    the classifiers' accuracy and the regressors' mean input-gradient ℓ1 norm."""
    y_reg = pair.y_reg["test"].cpu().numpy()
    y_bin = pair.y_bin["test"].cpu().numpy()
    mse = np.mean((reg.outputs - y_reg) ** 2, axis=1).mean()
    return [
        f"{len(pair.train_index)} training and {len(pair.test_index)} test points, "
        f"input dimension {pair.x_test.shape[1]}",
        f"regressors: test MSE {mse:.4f} (mean over members), sign accuracy "
        f"{np.mean(np.sign(reg.outputs) == y_reg):.3f}",
        f"classifiers: test accuracy {np.mean((clf.outputs > 0) == (y_bin == 1)):.3f}; "
        f"mean ‖∇f‖₁ of a regressor {np.abs(reg.gradients).sum(-1).mean():.2f}",
    ]


def regression_lines(study: RegressionStudy) -> list[str]:
    """Sanity check 2's table (term means by ensemble size), its recorded values and the
    share of ensembles whose test-set mean cross diversity is negative."""
    n = int((study.table.m >= 2).sum())
    return [
        study.table.groupby("m")[REG_TERMS].mean().round(4).to_string(),
        "\n".join(f"{k}: {v:.3g}" for k, v in study.summary.items()),
        "ensembles whose test-set mean cross diversity is negative: "
        f"{study.config_share:.0%} of {n}",
    ]


def cross_sign_reading(study: RegressionStudy) -> list[str]:
    """Our check 2b read: the largest diversity, how often and how much the cross term is
    negative point by point and per test set, and whether test-set means hide the sign."""
    table, summary = study.table, study.summary
    multi = table[table.m >= 2]
    means = {t: float(multi[t].mean()) for t in DIVERSITIES}
    largest = max(means, key=means.get)
    listed = ", ".join(f"{t} {v:.4f}" for t, v in means.items())
    share, share_cfg, n_cfg = (
        summary["share with cross < 0"],
        study.config_share,
        len(multi),
    )
    cross_mean = float(study.cross.mean())
    sign_word = "adding to" if cross_mean > 0 else "taking from"
    hides = (
        "averaging over a test set hides the sign."
        if share_cfg < share
        else "the test-set means show the sign at least as often as the points."
    )
    return [
        "Averaged over the ensembles with m ≥ 2, the largest diversity is "
        f"{largest} diversity ({listed}).",
        f"Cross diversity is negative at {share:.1%} of the {len(study.cross):,} "
        "(ensemble, point) pairs with m ≥ 2 (float64); the test-set mean of an ensemble, "
        f"as the official code reports it, is negative for {share_cfg:.0%} of the {n_cfg} "
        f"ensembles. Its mean over all pairs is {cross_mean:+.4f} ({sign_word} the "
        "ensemble's gain over its members), and its mean size is "
        f"{summary['mean |cross| / mean gradient']:.2f} × the mean gradient diversity.",
        f"The test-set means show a negative cross diversity for "
        f"{int(round(share_cfg * n_cfg))} of the {n_cfg} ensembles ({share_cfg:.0%}), "
        f"against {share:.1%} of the points: {hides}",
    ]


def binary_lines(study: BinaryStudy) -> list[str]:
    """Sanity check 3's table (both readings by ensemble size), its recorded values, the
    geometric reading's residual, the code's literal forms and their gap to our terms."""
    return [
        study.table.groupby("m")[BIN_TERMS].mean().round(5).to_string(),
        "\n".join(f"{k}: {v:.3g}" for k, v in study.summary.items()),
        f"geometric-mean reading: max relative residual {study.geometric_residual:.2g}, "
        f"smallest term {study.geometric_min:.2g}",
        "the code's literal forms (1 − σ, (y − p̄)(2y − 1)) in float32: max relative "
        f"residual {study.literal_residual:.2g}",
        "largest gap between our terms and the code's literal formulas (test-set means): "
        f"{study.code_gap:.1e}",
    ]


def sweep_reading(rows) -> str:
    """Our check 4 read at the smallest and the largest ε of `first_order_sweep`'s rows."""
    table = pd.DataFrame(rows)
    lo, hi = table.iloc[0], table.iloc[-1]
    more = "more" if hi.pgd_free > hi.first else "less"
    return (
        f"Without clamping the mean relative error is {lo.err_free:.1%} at ε = {lo.eps} "
        f"and {hi.err_free:.1%} at ε = {hi.eps}; at ε = {hi.eps} PGD finds a mean loss of "
        f"{hi.pgd_free:.3f} against the first order's {hi.first:.3f} ({more} than the "
        "linear part predicts). With the code's clamping the whole-box first order is off "
        f"by {lo.err_clamped:.1%} already at ε = {lo.eps}; the range-aware first order is "
        f"off by {lo.err_in_range:.1%} there."
    )


def comparison_lines(rows, ours: str, base: str) -> list[str]:
    """Claim 5's table (clean, robust, members-alone robust accuracy and transfer, mean and sd
    over seeds), the per-seed robust-accuracy gains (points) and transfer drops, and the
    members attacked alone against the ensembles."""
    table = pd.DataFrame(rows)
    cols = ["clean", "robust", "member_robust", "transfer"]
    summary = table.groupby("method", sort=False)[cols].agg(["mean", "std"])
    gains = [100 * v for v in paired_differences(rows, "robust", ours, base)]
    drops = [-v for v in paired_differences(rows, "transfer", ours, base)]
    by = table.groupby("method")[["robust", "member_robust"]].mean()
    return [
        summary.round(3).to_string(),
        "robust accuracy, AdvEOAP − PGD-AT (points), per seed: "
        + ", ".join(f"{v:+.2f}" for v in gains),
        "transfer, PGD-AT − AdvEOAP, per seed: "
        + ", ".join(f"{v:+.3f}" for v in drops),
        f"members attacked alone: {by.member_robust[base]:.3f} (baseline) vs "
        f"{by.member_robust[ours]:.3f} (AdvEOAP); the ensembles: "
        f"{by.robust[base]:.3f} vs {by.robust[ours]:.3f}",
    ]


def direction_reading(drops) -> str:
    """Our check 5b's direction: on how many seeds transfer rose, and how far the paired
    interval's upper end lies from the ✗ boundary (mean + t·SE ≤ 0)."""
    s = paired_summary(drops)
    rose, upper = sum(v < 0 for v in drops), s.mean + s.half
    near = abs(upper) < 0.05 * s.half
    return (
        f"5b's direction: transfer rose under AdvEOAP on {rose} of {s.n} seeds; the "
        f"interval {s.mean:+.4f} ± {s.half:.4f} ends at {upper:+.5f}, "
        f"{'above' if upper > 0 else 'at or below'} the ✗ boundary (mean + t·SE ≤ 0) by "
        f"{abs(upper):.1e}, {abs(upper) / s.half:.1%} of the half-width: the margin is "
        f"{'within rounding of' if near else 'clear of'} ✗."
    )


def confidence_reading(rows, true_class, ours: str, base: str) -> list[str]:
    """The confidence confound (not judged): AdvEOAP's members' first-order loss, prediction
    diversity and robustness alone against the baseline's, the two ensembles' losses, and the
    scale-free diagnostics (`scale_free_table`)."""
    cols = ["average", "ensemble", "prediction", "robust", "member_robust"]
    by = pd.DataFrame(rows).groupby("method")[cols].mean()

    def vs(col, digits=4, between=" against ", more="higher", less="lower"):
        a, b = by[col][ours], by[col][base]
        return f"{a:.{digits}f}{between}{b:.{digits}f} ({more if a > b else less})"

    average = vs("average", between=" against the baseline's ")
    alone = vs("member_robust", 3, " robust accuracy against ", "stronger", "weaker")
    table = scale_free_table(rows, true_class, [base, ours])
    return [
        "With the one-hot sum, AdvEOAP's members' mean first-order loss (average term) is "
        f"{average} and their prediction diversity {vs('prediction')}; attacked alone, "
        f"its members keep {alone}. The probability-averaged ensemble's first-order loss "
        f"is {vs('ensemble')}, while the logit-averaged ensemble's PGD-20 robust accuracy "
        f"is {vs('robust', 3)}: the diversity terms and the first-order loss read the "
        "members' confidence as well as their disagreement.",
        "scale-free diagnostics (means over seeds; not judged):",
        table.T.round(4).to_string(),
    ]
