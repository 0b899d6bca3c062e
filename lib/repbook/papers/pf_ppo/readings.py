"""The lines the chapter prints under its tables, generated from the study's numbers so that
they cannot go stale: the replicates and their RM, R² on the filtered samples, where training
ends, the keep count, the reward-matched comparison and the control RM. Each returns text (no
printing); a sentence that reads a criterion's outcome takes it as an argument."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from .filters import PER_PROMPT, STRATEGIES
from .study import LABELS, TOP_PICK, DecileGaps, KeepCount


def summary_reading(summary: pd.DataFrame) -> str:
    """The learned RM's pair accuracy, its correlation with the actual score and (quick scale)
    the pass rate of its favourite candidate, over the replicates."""
    acc, corr = summary["pair accuracy, learned RM"], summary["corr(RM, actual)"]
    top = (
        f", and its favourite candidate passes {summary[TOP_PICK].mean():.2f} of the "
        "tests (mean over replicates)"
        if TOP_PICK in summary
        else ""
    )
    return (
        f"The learned RM orders {min(acc):.2f}–{max(acc):.2f} of same-prompt pairs right, "
        f"correlates {corr.min():.2f}–{corr.max():.2f} with the actual score{top}; whether "
        "that is near a real code RM is unknown."
    )


def decile_lines(deciles: DecileGaps) -> list[str]:
    """The learned RM's pair accuracy, pairs and mean reward per decile (mean over
    replicates), and the top-decile gap per replicate of both RMs."""
    t = deciles.table
    table = t[t.rm == "learned"].pivot_table(
        index="decile", values=["reward", "accuracy", "pairs"]
    )
    learned, homo = deciles.gaps["learned"], deciles.gaps["homoscedastic"]
    larger = "larger" if np.mean(learned) > np.mean(homo) else "smaller"
    return [
        table.round(3).T.to_string(),
        "top decile − middle deciles, learned RM, per replicate: "
        + ", ".join(f"{g:+.3f}" for g in learned),
        "the same for the homoscedastic RM (same correlation, constant noise): "
        + ", ".join(f"{g:+.3f}" for g in homo),
        f"mean over replicates: learned RM {np.mean(learned):+.3f}, homoscedastic RM "
        f"{np.mean(homo):+.3f}; the learned RM's gap is the {larger}",
    ]


def r2_lines(r2_mean: pd.DataFrame, intervals: Mapping) -> list[str]:
    """R² of every filter (mean over replicates, per N), the bootstrap intervals of the
    contrasts (`bootstrap_contrasts`) and the largest R² of a per-prompt filter."""
    lines = [
        "R² on the filtered samples (mean over replicates):",
        r2_mean.rename(index=LABELS).round(3).to_string(),
    ]
    for (n, name), (lo, hi) in intervals.items():
        lines.append(
            f"N={n}: R²({name}), bootstrap over prompts (figure only) 95% interval "
            f"[{lo:+.3f}, {hi:+.3f}]"
        )
    most = r2_mean.loc[list(PER_PROMPT)].max().max()
    lines.append(
        f"Across the per-prompt filters and every N, R² is at most {most:.3f}: on their "
        "samples the reward explains that share of the actual score's variance at most."
    )
    return lines


def final_lines(final: pd.DataFrame, init_actual: float, replicates: int) -> list[str]:
    """The final policy of every filter on the learned RM (actual score, reward, KL; mean
    over replicates, per N)."""
    table = final[final.rm == "learned"].pivot_table(
        index="strategy", columns="N", values=["actual", "reward", "kl"]
    )
    return [
        f"final policy, learned RM, mean over {replicates} replicates (initial actual "
        f"score {init_actual:.3f}):",
        table.reindex(STRATEGIES).rename(index=LABELS).round(3).to_string(),
    ]


def keep_count_lines(kc: KeepCount) -> list[str]:
    """ρ within the groups of equal keep count, and the keep count against both axes of the
    rank test (shown, not judged)."""
    lines = [
        f"among the filters keeping {kept} per prompt "
        f"({', '.join(LABELS[s] for s in group)}): ρ(mean R², mean final score) "
        f"= {rho:+.2f}"
        for kept, (group, rho) in kc.groups.items()
    ]
    lines.append(
        f"ρ(samples kept, mean R²) = {kc.rho_r2:+.2f}, "
        f"ρ(samples kept, mean final score) = {kc.rho_final:+.2f}: "
        + (
            "both axes rise with how many samples a filter keeps, so the rank test "
            "mixes R² with the keep count (shown, not judged)"
            if min(kc.rho_r2, kc.rho_final) > 0.5
            else "the keep count does not drive both axes"
        )
    )
    return lines


def training_gain_lines(final: pd.DataFrame, init_actual: float, Ns) -> list[str]:
    """Per N, what PPO-M and the paper's filters gain from the initial policy in RM reward
    and in actual score."""
    lines = []
    for n in Ns:
        f = (
            final[(final.rm == "learned") & (final.N == n)]
            .groupby("strategy")[["actual", "reward"]]
            .mean()
        )
        lines.append(
            f"N={n}: from the initial policy (actual score {init_actual:.3f}, RM reward 0), "
            + "; ".join(
                f"{LABELS[s]} gains {f.reward[s]:+.2f} RM reward and "
                f"{f.actual[s] - init_actual:+.3f} actual score"
                for s in ["all", "bon", "br", "bw"]
            )
        )
    return lines


def keep_ranking_lines(rankings: Mapping) -> list[str]:
    """Per N the per-prompt filters by final actual score with the samples each keeps
    (`keep_ranking`), and whether the ranking follows the keep count."""
    lines, rho = [], {}
    for n, (order, kept, rho[n]) in rankings.items():
        lines.append(
            f"N={n}: final actual score, highest first: "
            + " > ".join(f"{LABELS[s]} ({k} kept)" for s, k in zip(order.index, kept))
            + "; Spearman ρ(samples kept, final score) over the per-prompt filters = "
            f"{rho[n]:+.2f}"
        )
    lines.append(
        "With a fixed rollout batch and a fixed train batch size, as in the official "
        "setting (the setting judged), a filter that keeps fewer samples per prompt takes "
        "fewer gradient steps: the final ranking "
        + (
            "follows the number of samples kept"
            if min(rho.values()) >= 0.8
            else "does not simply follow the number of samples kept"
        )
        + f" (ρ = {', '.join(f'{v:+.2f}' for v in rho.values())} for N = "
        + f"{', '.join(map(str, rho))}), so a filter's rank mixes what it keeps with how "
        "much it trains."
    )
    return lines


def matched_line(n: int, r_star: float, at: Mapping) -> str:
    """The filters' actual score where their RM reward first reaches r* (`matched_reward`)."""
    return f"N={n}: actual score at RM reward {r_star:.2f}: " + "; ".join(
        f"{LABELS[s]} "
        + ("not reached" if np.isnan(a) else f"{a:.3f}")
        + f" (gain per unit reward {slope:.3f})"
        for s, (a, slope) in at.items()
    )


def control_lines(
    summary: pd.DataFrame, deciles: DecileGaps, advantage: Mapping
) -> list[str]:
    """The control RM against the learned one (pair accuracy, claim 1's gap), the advantage
    of filtering per N and RM (`filtering_advantage`), and (quick scale) the pass rate of
    each RM's favourite candidate."""
    homo = summary["pair accuracy, homoscedastic RM"]
    acc = summary["pair accuracy, learned RM"]
    g, gh = np.mean(deciles.gaps["learned"]), np.mean(deciles.gaps["homoscedastic"])
    lines = [
        f"control RM: pair accuracy {min(homo):.2f}–{max(homo):.2f} (learned "
        f"{min(acc):.2f}–{max(acc):.2f}); top-decile gap of claim 1 {gh:+.3f} (learned "
        f"{g:+.3f}), mean over replicates: the control's gap is the "
        f"{'larger' if gh > g else 'smaller'}"
    ]
    for n, adv in advantage.items():
        for rm, v in adv.items():
            lines.append(
                f"N={n}, {rm} RM: mean of BR and BW − PPO-M per replicate "
                + ", ".join(f"{x:+.4f}" for x in v)
            )
        pos = {rm: sum(x > 0 for x in v) for rm, v in adv.items()}
        lines.append(
            f"N={n}: the advantage of filtering is positive on "
            + " and ".join(
                f"{pos[rm]} of {len(v)} with the {rm} RM" for rm, v in adv.items()
            )
        )
    if TOP_PICK in summary:
        lines.append(
            f"A policy that fully trusted the RM would reach a pass rate of "
            f"{summary[TOP_PICK].mean():.3f} with the learned RM and "
            f"{summary['same, homoscedastic RM'].mean():.3f} with the homoscedastic one "
            "(mean over replicates)."
        )
    return lines


def per_replicate_line(name: str, values: Sequence[float]) -> str:
    """One paired difference per replicate, as printed."""
    return f"{name}: " + ", ".join(f"{v:+.4f}" for v in values)
