"""What the chapter reads from the sweeps: one small frozen dataclass per claim, with the
tables and numbers the chapter prints, draws and records, and the printed diagnostic lines
(`lines()`); plus the sizes of a scale in words. No printing or plotting here."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from repbook.core.stats import paired_summary, t_quantile

from .learners import accept_once
from .memory import r_star, stale_rounds


def span(xs, fmt: str = "{:g}") -> str:
    """'a' when the smallest and largest of `xs` format alike, else 'a–b' (for generated
    text)."""
    lo, hi = fmt.format(min(xs)), fmt.format(max(xs))
    return lo if lo == hi else f"{lo}–{hi}"


def describe_sizes(sizes) -> str:
    """The chapter's sizes at one scale (an entry of its size table), in words."""
    sz = sizes
    gammas = ", ".join(f"{g:g}" for g in sz["star_gammas"])
    return (
        f"stars up to K = {max(sz['star_K'])} (revealed, and hidden for γ ∈ "
        f"{{{gammas}}}), {sz['units']} switch units with γ up to "
        f"{max(sz['switch_gammas']):g} (after {sz['switch_wait']:,} quiet rounds), "
        f"{len(sz['dag_kin']) * sz['dag_per_kin']} random DAGs of {sz['dag_n']} "
        f"nodes with k_in ∈ {{{', '.join(map(str, sz['dag_kin']))}}} and horizons of "
        f"{sz['dag_T']:,} rounds"
    )


@dataclass(frozen=True, eq=False)
class StarSummary:
    """Claim 1 on the star, per K of `Ks`: the fewest mistakes of any learner under
    Revealed-Arb (`arb_best`), strategic halving's under Revealed-Std (`std_halving`)
    beside ⌈log2 K⌉ (`log2K`), the least-squares slope of `arb_best` on K, and
    halving's mistakes under Revealed-Arb (`arb_halving`, in the order of the runs)."""

    runs: pd.DataFrame
    Ks: np.ndarray
    arb_best: np.ndarray
    std_halving: np.ndarray
    log2K: np.ndarray
    slope: float
    arb_halving: np.ndarray

    @property
    def mistakes(self) -> pd.DataFrame:
        """Mistakes by (model, learner), one column per K."""
        return self.runs.pivot_table(
            index=["model", "learner"], columns="K", values="mistakes"
        )

    def lines(self) -> list[str]:
        """The printed reading: fewest Arb mistakes, halving under Std, the slope."""
        return [
            f"best under Arb: {self.arb_best.tolist()}  (K − 1 = {(self.Ks - 1).tolist()})",
            f"halving under Std: {self.std_halving.tolist()}  "
            f"(⌈log2 K⌉ = {self.log2K.tolist()})",
            f"slope of Arb mistakes on K: {self.slope:.3f}",
        ]


def summarise_star(records: Sequence[dict], Ks: Sequence[int]) -> StarSummary:
    """Read claim 1 from `star_sweep` records with the settings ("std", None) and ("arb",
    None)."""
    star = pd.DataFrame(records)
    Ks = np.array(Ks)
    arb = star[star.model == "arb"]
    arb_best = arb.groupby("K").mistakes.min().loc[Ks].to_numpy()
    std = star[(star.model == "std") & (star.learner == "halving")]
    std_halving = std.set_index("K").mistakes.loc[Ks].to_numpy()
    log2K = np.ceil(np.log2(Ks)).astype(int)
    slope = float(np.polyfit(Ks, arb_best, 1)[0])
    stuck = arb[arb.learner == "halving"].mistakes.to_numpy()
    return StarSummary(star, Ks, arb_best, std_halving, log2K, slope, stuck)


@dataclass(frozen=True, eq=False)
class StaleSummary:
    """Claim 2a: the stale rounds after a swap, per γ, after `history` rounds of the old
    classifier and after only `short` rounds, beside r*(γ)."""

    gammas: list
    history: int
    stale: np.ndarray
    r_star: np.ndarray
    short: int
    stale_short: np.ndarray

    @property
    def worst(self) -> int:
        """The largest |stale rounds − r*(γ)|."""
        return int(np.abs(self.stale - self.r_star).max())

    @property
    def table(self) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "γ": self.gammas,
                "stale rounds": self.stale,
                "r*(γ)": self.r_star,
                "ln 2 / (1 − γ)": np.log(2) / (1 - np.array(self.gammas)),
                f"stale after only {self.short} rounds": self.stale_short,
            }
        )


def stale_sweep(
    gammas: Sequence[float], history: int, *, short: int = 10
) -> StaleSummary:
    """`stale_rounds` for each γ after `history` and after `short` rounds, and r*(γ)."""
    gammas = list(gammas)
    stale = np.array([stale_rounds(g, history) for g in gammas])
    rstar = np.array([r_star(g) for g in gammas])
    stale_short = np.array([stale_rounds(g, short) for g in gammas])
    return StaleSummary(gammas, history, stale, rstar, short, stale_short)


@dataclass(frozen=True, eq=False)
class SwitchSummary:
    """Claim 2b on the switch gadget: the hidden runs (`runs`, with "stale per update"
    = (mistakes − updates) / updates), the conservative (`cons`) and monotone (`mono`)
    learners' rows in γ order, the revealed run's mistakes, the memory lengths
    (1 − γ)⁻¹, the slope of log mistakes on log (1 − γ)⁻¹ (conservative), the gaps
    |stale per update − r*|, the best hidden learner's mistakes and their ratio to the
    revealed ones, and the first memory length at which the reduction is cheaper than
    the conservative learner (`cross`)."""

    runs: pd.DataFrame
    cons: pd.DataFrame
    mono: pd.DataFrame
    revealed: int
    mem_len: np.ndarray
    slope: float
    stale_gap: np.ndarray
    best_hidden: np.ndarray
    hide_ratio: np.ndarray
    cross: float

    def lines(self) -> list[str]:
        """The printed table of the hidden runs and what is read from it."""
        cols = ["gamma", "label", "mistakes", "updates", "r_star", "stale per update"]
        table = self.runs[cols].rename(columns={"label": "learner"})
        lo, hi = self.mono.mistakes.min(), self.mono.mistakes.max()
        ratios = ", ".join(
            f"γ={g}: {r:g}" for g, r in zip(self.cons.gamma, self.hide_ratio)
        )
        return [
            table.to_string(index=False),
            f"revealed (Std), same gadget and adversary: {self.revealed} mistakes",
            f"slope of log mistakes on log (1 − γ)⁻¹ (conservative): {self.slope:.3f}",
            f"largest |stale mistakes per update − r*|: {self.stale_gap.max():.0f}",
            f"monotone reduction: {lo}–{hi} mistakes at every γ; cheaper than the "
            f"conservative learner from (1 − γ)⁻¹ = {self.cross:.0f} on",
            f"best hidden / revealed: {ratios}",
        ]

    def reading(self, units: int) -> str:
        """What the gadget shows, in words, for a gadget of `units` units."""
        cons, mono = self.cons, self.mono
        follows = bool((cons.mistakes == units * (1 + cons.r_star)).all())
        return (
            f"Each forced update costs the conservative learner one mistake plus r*(γ) "
            f"stale ones, so its total {'equals' if follows else 'differs from'} "
            f"units·(1 + r*(γ)) at every γ, an identity of the gadget; the +1 keeps the "
            f"slope ({self.slope:.2f}) under one. Revealed, the same learner makes "
            f"{self.revealed / units:g} mistake(s) per unit; the monotone reduction "
            f"makes {span(mono.mistakes / units)} per unit at every γ, so the best "
            f"hidden learner pays {span(self.hide_ratio)}× the revealed mistakes "
            f"whatever the memory, and is the reduction from (1 − γ)⁻¹ = "
            f"{self.cross:.0f} on. The gadget forces the conservative learner, not "
            f"every learner, to pay for the memory: the paper's (1 − γ)⁻¹ branch "
            f"(claim 2) stays blocked."
        )


def summarise_switch(rows: Sequence[dict], revealed: dict) -> SwitchSummary:
    """Read claim 2b from `switch_sweep`'s (hidden records, revealed record)."""
    sw = pd.DataFrame(rows)
    sw["stale per update"] = (sw.mistakes - sw.updates) / sw.updates
    std = revealed["mistakes"]
    cons = sw[sw.label.str.startswith("conservative")].reset_index(drop=True)
    mono = sw[sw.label.str.startswith("monotone")].reset_index(drop=True)
    mem_len = 1 / (1 - cons.gamma.to_numpy())
    slope = float(np.polyfit(np.log(mem_len), np.log(cons.mistakes), 1)[0])
    stale_gap = np.abs(cons["stale per update"] - cons.r_star).to_numpy()
    best_hidden = np.minimum(cons.mistakes, mono.mistakes).to_numpy()
    hide_ratio = best_hidden / max(std, 1)
    cross = mem_len[np.argmax(cons.mistakes.to_numpy() > mono.mistakes.to_numpy())]
    return SwitchSummary(
        sw, cons, mono, std, mem_len, slope, stale_gap, best_hidden, hide_ratio, cross
    )


@dataclass(frozen=True, eq=False)
class HiddenStarSummary:
    """Check 2d, the star with hidden agents: the fewest mistakes of any learner (`best`,
    rows γ, columns K), the judged pairs ((1 − γ)⁻¹ ≥ K + 1) and their fewest mistakes
    minus (K − 1) (`minus`, by "γ=…, K=…"), the slope in K at the largest γ over its
    judged K, the ratio to the fewest under Revealed-Arb (`vs_arb`, γ × K), how many
    cheapest runs the horizon cut, accept once's mistakes by (γ, K) (`once`) and the
    cheapest learner of each (γ, K) (ties to the earlier learner)."""

    runs: pd.DataFrame
    gammas: list
    best: pd.DataFrame
    judged: np.ndarray
    minus: dict
    g_top: float
    slope: float
    vs_arb: np.ndarray
    best_capped: int
    once: pd.Series
    cheapest: pd.Series

    def lines(self) -> list[str]:
        """The printed table of fewest hidden mistakes and what is read from it."""
        ratios = "; ".join(
            f"γ={g}: {span(self.vs_arb[gi], '{:.2f}')}"
            for gi, g in enumerate(self.gammas)
        )
        return [
            "fewest mistakes of any learner under γ-Weighted (rows γ, columns K):",
            self.best.to_string(),
            f"judged pairs: {len(self.minus)}; slope at γ = {self.g_top}: "
            f"{self.slope:.3f}",
            f"hidden / Revealed-Arb (fewest of each): {ratios}",
            f"best hidden runs cut at the horizon: {self.best_capped}",
        ]

    def reading(self) -> str:
        """What the star with hidden agents shows, in words (the last sentence depends
        on whether some judged pair falls below K − 1)."""
        sg, minus, vs_arb, cheapest = (
            self.gammas,
            self.minus,
            self.vs_arb,
            self.cheapest,
        )
        once_name = accept_once().name
        pos_sg = [g for g in sg if g > 0]
        n_lt, n_gt = int((vs_arb < 1).sum()), int((vs_arb > 1).sum())
        below = [v for v in minus.values() if v < 0]
        return (
            f"On the {len(minus)} judged (K, γ) pairs the fewest hidden mistakes minus "
            f"(K − 1) are {span(list(minus.values()))} ({len(below)} below 0); at "
            f"γ = {self.g_top} their slope in K is {self.slope:.2f}. Accept once makes "
            f"{span(self.once.loc[pos_sg].to_numpy())} mistakes at every K for γ > 0 "
            f"and {span(self.once.loc[[g for g in sg if g == 0]].to_numpy())} at "
            f"γ = 0, and is the cheapest hidden learner at "
            f"{int((cheapest == once_name).sum())} of {cheapest.size} (K, γ) pairs. "
            f"Against Revealed-Arb the fewest hidden mistakes are "
            f"{span(vs_arb.ravel(), '{:.2f}')}× (fewer at {n_lt}, more at {n_gt} of "
            f"{vs_arb.size} pairs)."
            + (
                " On our star a DM that hides its classifier and uses the agents' "
                "memory escapes the k_in factor that the tie rule costs a revealed one: "
                "the star is not a lower bound for hidden agents and says nothing about "
                "the paper's k_in branch (2e)."
                if below
                else " On our star no learner we run escapes the k_in factor with "
                "hidden agents; the star is still our construction, not the paper's "
                "(2e)."
            )
        )


def summarise_hidden_star(
    records: Sequence[dict],
    Ks: Sequence[int],
    gammas: Sequence[float],
    arb_best: np.ndarray,
) -> HiddenStarSummary:
    """Read check 2d from `star_sweep` records under ("weighted", γ) for each γ of
    `gammas`; `arb_best` is claim 1's fewest mistakes under Revealed-Arb per K."""
    hstar, Ks, sg = pd.DataFrame(records), np.array(Ks), list(gammas)
    best = hstar.groupby(["gamma", "K"]).mistakes.min().unstack("K").loc[sg, Ks]
    judged = np.array([[1 / (1 - g) >= K + 1 for K in Ks] for g in sg])
    minus = {
        f"γ={g}, K={K}": int(best.loc[g, K] - (K - 1))
        for gi, g in enumerate(sg)
        for ki, K in enumerate(Ks)
        if judged[gi, ki]
    }
    g_top = max(sg)
    top_K = Ks[judged[sg.index(g_top)]]
    slope = float(np.polyfit(top_K, best.loc[g_top, top_K].to_numpy(), 1)[0])
    vs_arb = best.to_numpy() / arb_best[None, :]
    by_cost = hstar.sort_values("mistakes", kind="stable").groupby(["gamma", "K"])
    best_capped = int(by_cost.capped.first().sum())
    once = hstar[hstar.learner == accept_once().name].set_index(["gamma", "K"])
    return HiddenStarSummary(
        hstar,
        sg,
        best,
        judged,
        minus,
        g_top,
        slope,
        vs_arb,
        best_capped,
        once.mistakes,
        by_cost.learner.first(),
    )


@dataclass(frozen=True, eq=False)
class DagSummary:
    """Claim 3 on the random DAGs. `hidden` has one row per (instance, γ): the fewest
    hidden mistakes and the fewest under Revealed-Std (`std`) and Revealed-Arb (`arb`),
    their differences (`gain`, `gain vs Arb`), ratios (`ratio`, `ratio vs Arb`, the
    revealed count floored at 1) and C = ratio / min((1 − γ)⁻¹, k_in). `gains` and
    `gains_arb` are those differences per γ (one per instance), `memory_gain` the
    hidden mistakes at the largest γ minus those at γ = 0 per instance, `winners` how
    often each learner is the cheapest hidden one, and `once_best` on how many
    instances accept once is strictly the cheapest, per γ."""

    runs: pd.DataFrame
    hidden: pd.DataFrame
    gammas: list
    n_instances: int
    gains: dict
    gains_arb: dict
    mean_ratio: pd.Series
    mean_ratio_arb: pd.Series
    C: float
    memory_gain: np.ndarray
    winners: pd.Series
    once_best: dict

    @property
    def judged(self) -> list:
        """The γ > 0 that claim 3 judges (γ = 0 is a diagnostic)."""
        return [g for g in self.gammas if g > 0]

    @property
    def top(self) -> float:
        return max(self.gammas)

    def lines(self) -> list[str]:
        """The printed ratios per instance and γ, the paired differences (mean ± t·SE),
        the memory effect, C and the cheapest hidden learners."""
        n, g0, top = self.n_instances, 0.0, self.top
        ratio = self.hidden.pivot_table(
            index=["k_in", "rep"], columns="gamma", values="ratio"
        )
        out = [
            ratio.round(2).to_string(),
            f"{n} instances; k = t quantile(0.975, {n - 1} df) = {t_quantile(n):.3f}",
        ]
        for g in self.gammas:
            d, e = paired_summary(self.gains[g]), paired_summary(self.gains_arb[g])
            out.append(
                f"γ={g}: hidden − Std {d.mean:.2f} ± {d.half:.2f}, ratio "
                f"{self.mean_ratio[g]:.2f}; hidden − Arb {e.mean:.2f} ± {e.half:.2f}, "
                f"ratio {self.mean_ratio_arb[g]:.2f}"
            )
        m = paired_summary(self.memory_gain)
        winners = ", ".join(f"{k} ×{v}" for k, v in self.winners.items())
        return out + [
            f"memory effect hidden(γ={top}) − hidden(γ={g0}): {m.mean:.2f} ± "
            f"{m.half:.2f} (per instance: {self.memory_gain.astype(int).tolist()})",
            f"C = max ratio / min((1 − γ)⁻¹, k_in) = {self.C:.2f}",
            f"best hidden learner per (instance, γ): {winners}",
        ]

    def reading(self) -> str:
        """What the random DAGs show, in words: where hiding helped, the paired
        differences per γ with their reading (t·SE), the memory effect, accept once and
        where C is reached."""
        hid, g0, top = self.hidden, 0.0, self.top
        c_at = hid.loc[hid.C.idxmax()]
        mem_word = {
            "above 0": "costs the DM mistakes beyond the one-round lag",
            "below 0": "saves the DM mistakes",
            "within the noise": "has no effect beyond the noise",
        }[paired_summary(self.memory_gain).reading]

        def read(diffs):
            return ", ".join(
                f"γ={g}: {d.mean():+.2f} ({paired_summary(d).reading})"
                for g, d in diffs.items()
            )

        return (
            f"Hiding helped (ratio < 1) on {int((hid.ratio < 1).sum())} of {len(hid)} "
            f"(instance, γ) pairs. Mean paired difference hidden − Revealed-Std: "
            f"{read(self.gains)}; hidden − Revealed-Arb: {read(self.gains_arb)}. Mean "
            f"ratio hidden / Revealed-Std {self.mean_ratio[g0]:.2f} at γ = {g0} and "
            f"{self.mean_ratio[top]:.2f} at γ = {top}. The longer memory {mem_word} on "
            f"these instances (hidden(γ={top}) − hidden(γ={g0}) = "
            f"{self.memory_gain.mean():+.2f} per instance). Accept once, the hidden "
            f"learner that uses the agents' memory, is strictly the cheapest hidden "
            f"learner on "
            + ", ".join(f"{n} (γ={g})" for g, n in self.once_best.items())
            + f" of {self.n_instances} instances. C is reached at γ = {c_at.gamma}, "
            f"k_in = {c_at.k_in}, where min((1 − γ)⁻¹, k_in) = "
            f"{min(1 / (1 - c_at.gamma), c_at.k_in):.0f}."
        )


def summarise_dag(records: Sequence[dict], gammas: Sequence[float]) -> DagSummary:
    """Read claim 3 from `dag_sweep` records; `gammas` must hold 0 and some γ > 0."""
    gam = list(gammas)
    if 0.0 not in gam or max(gam) == 0.0:
        raise ValueError(f"gammas must hold 0 and some γ > 0, got {gam}")
    dag = pd.DataFrame(records)
    keys = ["k_in", "rep", "model", "gamma"]
    best = dag.groupby(keys, dropna=False).mistakes.min().reset_index()
    std_min = best[best.model == "std"].set_index(["k_in", "rep"]).mistakes
    arb_min = best[best.model == "arb"].set_index(["k_in", "rep"]).mistakes
    hid = best[best.model == "weighted"].copy()
    inst = list(zip(hid.k_in, hid.rep))
    hid["std"] = std_min.loc[inst].to_numpy()
    hid["arb"] = arb_min.loc[inst].to_numpy()
    hid["gain"] = hid.mistakes - hid["std"]
    hid["gain vs Arb"] = hid.mistakes - hid["arb"]
    hid["ratio"] = hid.mistakes / np.maximum(hid["std"], 1)
    hid["ratio vs Arb"] = hid.mistakes / np.maximum(hid["arb"], 1)
    hid["C"] = hid.ratio / np.minimum(1 / (1 - hid.gamma), hid.k_in)
    gains = {g: hid[hid.gamma == g].gain.to_numpy() for g in gam}
    gains_arb = {g: hid[hid.gamma == g]["gain vs Arb"].to_numpy() for g in gam}
    per_inst = hid.pivot_table(
        index=["k_in", "rep"], columns="gamma", values="mistakes"
    )
    memory_gain = (per_inst[max(gam)] - per_inst[0.0]).to_numpy()
    # ties go to the earlier learner (accept once is the last of the seven)
    hidden_runs = dag[dag.model == "weighted"].sort_values("mistakes", kind="stable")
    winners = hidden_runs.groupby(["k_in", "rep", "gamma"]).learner.first()
    cheapest = hidden_runs.groupby(["gamma", "k_in", "rep"]).learner.first()
    once = accept_once().name
    once_best = {g: int((cheapest.loc[g] == once).sum()) for g in gam}
    return DagSummary(
        dag,
        hid,
        gam,
        len(std_min),
        gains,
        gains_arb,
        hid.groupby("gamma").ratio.mean(),
        hid.groupby("gamma")["ratio vs Arb"].mean(),
        float(hid.C.max()),
        memory_gain,
        winners.value_counts(),
        once_best,
    )


@dataclass(frozen=True, eq=False)
class BoundSummary:
    """Claim 4: the runs that have one of our explicit bounds (`bounded`, with
    `ratio` = mistakes / max(bound, 1)), how many runs there are in all, how many exceed
    their bound and how many the horizon cut."""

    n_runs: int
    bounded: pd.DataFrame
    violations: int
    cut: int

    @property
    def tight(self) -> pd.DataFrame:
        """The runs that meet their bound with equality."""
        return self.bounded[self.bounded.mistakes == self.bounded.bound]

    def lines(self) -> list[str]:
        """The printed counts and the largest mistakes / bound by learner and model."""
        worst = self.bounded.groupby(["learner", "model"]).ratio.max()
        return [
            f"{len(self.bounded)} runs with an explicit bound ({self.n_runs} runs in "
            f"all); violations: {self.violations}; runs cut at the horizon: {self.cut}",
            "largest mistakes / bound by learner and model:",
            worst.round(3).to_string(),
        ]


def summarise_bounds(records: Sequence[dict]) -> BoundSummary:
    """Read claim 4 from every run's record (`play`)."""
    rec = pd.DataFrame(records)
    bounded = rec[rec.bound.notna()].copy()
    bounded["ratio"] = bounded.mistakes / bounded.bound.clip(lower=1)
    violations = int((bounded.mistakes > bounded.bound).sum())
    return BoundSummary(len(rec), bounded, violations, int(bounded.capped.sum()))
