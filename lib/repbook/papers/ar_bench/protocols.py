"""The chapter's experiment protocols: each runs agents of `gn`, `dc` or `sp` over games and seeds
and returns the numbers a check reads. Pure (no printing, plotting or file writing); randomness
comes in as numpy Generators, one per stream, so a chapter can keep its streams apart.

- `adaptive_vs_fixed`: an adaptive agent against a reasoner given k clues fixed in advance, both
  credited by one rule (one final answer among the secrets the k answers leave);
  (`credit_table` tabulates it);
- `sweep`: accuracy of a one-parameter family of GN agents (memory k, misreading rate p) on the
  same secrets, with each setting's standard error and per-secret results for paired tests;
  `wasted_information` runs the chapter's three ways of wasting answers (ignoring, forgetting,
  misreading) against the chance accuracy of blind play;
- `search_table`: the search agents' guesses against the consistent-random agent's;
- `dc_race`, `sp_race`: two questioners on the same detective cases or puzzles, repeated, with
  per-repetition paired differences (`race_summary` tabulates both).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import pandas as pd

from repbook.core import checks

from . import dc, gn, sp


def _check_rngs(rngs, name: str, n: int | None = None) -> list[np.random.Generator]:
    """A non-empty list of Generators (`n` of them when given): one random stream each."""
    rngs = list(rngs)
    if not rngs:
        raise TypeError(f"{name} must be a non-empty sequence of numpy Generators")
    for i, r in enumerate(rngs):
        checks.generator(f"{name}[{i}]", r)
    if n is not None and len(rngs) != n:
        raise ValueError(f"{name} must hold {n} Generators, got {len(rngs)}")
    return rngs


# ----------------------------------------------------------------------------------------------
# GN: adaptive answers against fixed clues
@dataclass(frozen=True)
class AdaptiveVsFixed:
    """Per seed (rows) and k (columns of `ks`): `adaptive` and `fixed` are the expected shares won
    by one final answer drawn uniformly from the secrets left after k answers (`gn.final_answer_
    credit`); `adaptive_won` is the share the consistent-random agent actually won by guess k+1
    (one realised draw of the same rule); `fixed_unique` is the share of secrets that k fixed
    clues leave alone (a stricter rule, kept for comparison)."""

    ks: np.ndarray
    adaptive: np.ndarray
    fixed: np.ndarray
    adaptive_won: np.ndarray
    fixed_unique: np.ndarray
    adaptive_stats: list = field(repr=False)
    fixed_sizes: list = field(repr=False)

    def _column(self, k: int) -> int:
        j = np.flatnonzero(self.ks == k)
        if j.size != 1:
            raise ValueError(f"k must be one of {self.ks.tolist()}, got {k!r}")
        return int(j[0])

    def gap(self, k: int) -> np.ndarray:
        """adaptive − fixed credit at k, one value per seed."""
        j = self._column(k)
        return self.adaptive[:, j] - self.fixed[:, j]

    def unequal_gap(self, k: int) -> np.ndarray:
        """The earlier, unequal statistic at k, per seed: the share the adaptive agent won by
        guess k + 1 minus the share of secrets k fixed clues leave alone."""
        j = self._column(k)
        return self.adaptive_won[:, j] - self.fixed_unique[:, j]

    def credits(self, k: int) -> tuple[float, float]:
        """(adaptive, fixed) credit at k, each the mean over seeds."""
        j = self._column(k)
        return self.adaptive[:, j].mean(), self.fixed[:, j].mean()

    @property
    def mean_guesses(self) -> np.ndarray:
        """Per seed, the consistent-random agent's mean number of guesses over the secrets."""
        return np.array([a.turns.mean() for a in self.adaptive_stats])


def adaptive_vs_fixed(
    secrets, ks, rngs_adaptive: Sequence, rngs_fixed: Sequence
) -> AdaptiveVsFixed:
    """Play the consistent-random agent and draw fixed random clues on every secret, once per
    seed (one Generator per seed for each), and credit both by one final answer after k answers."""
    ks = np.asarray(ks)
    if (
        ks.ndim != 1
        or ks.size == 0
        or not np.issubdtype(ks.dtype, np.integer)
        or ks.min() < 1
        or ks.max() > gn.MAX_TURN
    ):
        raise ValueError(f"ks must be ints in [1, {gn.MAX_TURN}], got {ks!r}")
    ra = _check_rngs(rngs_adaptive, "rngs_adaptive")
    rf = _check_rngs(rngs_fixed, "rngs_fixed", len(ra))
    stats, sizes = [], []
    adaptive, fixed, won, unique = [], [], [], []
    for a, f in zip(ra, rf):
        st = gn.consistent_random(secrets, a)
        sz = gn.passive_sizes(secrets, int(ks.max()), f)
        stats.append(st)
        sizes.append(sz)
        adaptive.append(gn.final_answer_credit(st.sizes, ks))
        fixed.append(gn.final_answer_credit(sz, ks))
        won.append(gn.solved_by(st.turns, ks + 1))
        unique.append((sz[:, ks] == 1).mean(0))
    return AdaptiveVsFixed(
        ks,
        np.array(adaptive),
        np.array(fixed),
        np.array(won),
        np.array(unique),
        stats,
        sizes,
    )


def credit_table(avf: AdaptiveVsFixed, entropy_sizes) -> pd.DataFrame:
    """Per k: the final-answer credit of the consistent-random agent and of the fixed clues
    (means over seeds), and of the entropy agent whose candidate counts are `entropy_sizes`
    (`gn.solve_tree("entropy").sizes`; deterministic, one run)."""
    return pd.DataFrame(
        {
            "k": avf.ks,
            "adaptive: consistent random": avf.adaptive.mean(0),
            "adaptive: entropy": gn.final_answer_credit(entropy_sizes, avf.ks),
            "fixed: k random clues": avf.fixed.mean(0),
        }
    )


def search_table(avf: AdaptiveVsFixed, tree: dict) -> pd.DataFrame:
    """One row per agent (index `agent`): mean guesses over the secrets (for consistent random,
    the mean over seeds and its sd over seeds), worst case and share solved; `tree` maps names to
    `gn.solve_tree` results (deterministic: sd 0)."""
    cr = avf.mean_guesses
    rows = [
        dict(
            agent="consistent random",
            mean_guesses=cr.mean(),
            sd_over_seeds=cr.std(),
            worst=max(a.turns.max() for a in avf.adaptive_stats),
            solved=np.mean([a.solved.mean() for a in avf.adaptive_stats]),
        )
    ]
    for name, res in tree.items():
        rows.append(
            dict(
                agent=name,
                mean_guesses=res.turns.mean(),
                sd_over_seeds=0.0,
                worst=res.turns.max(),
                solved=(res.turns > 0).mean(),
            )
        )
    return pd.DataFrame(rows).set_index("agent")


# ----------------------------------------------------------------------------------------------
# GN: one-parameter families of agents that waste information
@dataclass(frozen=True)
class Sweep:
    """`solved[j, i]`: whether game i was won at setting `values[j]` (the same secrets at every
    setting, the official final-answer rule)."""

    parameter: str
    values: tuple
    solved: np.ndarray
    stats: list = field(repr=False)

    @property
    def accuracy(self) -> np.ndarray:
        return self.solved.mean(1)

    @property
    def se(self) -> np.ndarray:
        """Binomial standard error of each accuracy (floored at 1e-6 so a step over two settings
        that both won every game has a finite z)."""
        a = self.accuracy
        return np.sqrt(np.maximum(a * (1 - a), 1e-12) / self.solved.shape[1])

    def worst_wrong_step(self, direction: int) -> float:
        """Largest step between neighbouring settings against `direction` (+1: accuracy should
        rise along `values`, −1: fall), in units of the step's standard error; ≤ 0 when every step
        goes the expected way."""
        if direction not in (1, -1):
            raise ValueError(f"direction must be +1 or −1, got {direction!r}")
        a, se = self.accuracy, self.se
        steps = direction * np.diff(a)
        return float(np.max(-steps / np.sqrt(se[1:] ** 2 + se[:-1] ** 2)))

    def drop(self, first: int = 0, last: int = -1) -> np.ndarray:
        """Per secret: won at setting `first` minus won at setting `last` (1, 0 or −1)."""
        return self.solved[first].astype(int) - self.solved[last].astype(int)


SWEEPS = ("memory", "misreading")


def sweep(games, parameter: str, values: Sequence, rngs: Sequence) -> Sweep:
    """Play the consistent-random agent on `games` at each setting of `parameter`: "memory" (keeps
    the last k answers; `gn.forgetful`) or "misreading" (each answer misread with probability p;
    `gn.noisy_reader`), one Generator per setting."""
    if parameter not in SWEEPS:
        raise ValueError(f"parameter must be one of {SWEEPS}, got {parameter!r}")
    values = tuple(values)
    if len(values) < 2:
        raise ValueError(f"values must hold at least two settings, got {values!r}")
    rngs = _check_rngs(rngs, "rngs", len(values))
    stats = [
        gn.forgetful(games, r, k=v)
        if parameter == "memory"
        else gn.noisy_reader(games, r, p=v)
        for v, r in zip(values, rngs)
    ]
    return Sweep(parameter, values, np.array([s.solved for s in stats]), stats)


def binomial_z(accuracy: float, p0: float, n: int) -> float:
    """|accuracy − p0| in binomial standard errors of n games won with probability p0."""
    checks.probability("p0", p0)
    checks.integer("n", n, at_least=1)
    return abs(accuracy - p0) / np.sqrt(p0 * (1 - p0) / n)


@dataclass(frozen=True)
class Wasting:
    """Three ways to waste answers, on the same games: `ignore` (the agent that ignores every
    answer), `memory` (keeps the last k answers) and `misreading` (misreads each with
    probability p), with the exact chance accuracies of blind play (26 guesses, the final
    answer included): without repeats for the agent that ignores answers, with repeats for no
    memory (k = 0)."""

    ignore: gn.GameStats
    memory: Sweep
    misreading: Sweep
    chance_ignore: float
    chance_no_memory: float

    @property
    def n_games(self) -> int:
        return len(self.ignore.secrets)

    @property
    def ignore_accuracy(self) -> float:
        return self.ignore.solved.mean()

    @property
    def z_ignore(self) -> float:
        """The ignoring agent's distance from chance, in binomial SE."""
        return binomial_z(self.ignore_accuracy, self.chance_ignore, self.n_games)

    @property
    def z_no_memory(self) -> float:
        """The agent with no memory (k = 0)'s distance from chance, in binomial SE."""
        z = binomial_z(self.memory.accuracy[0], self.chance_no_memory, self.n_games)
        return z

    def memory_drop(self, keep: int) -> np.ndarray:
        """Per secret: won with full memory (the last setting) − won keeping `keep` answers."""
        if keep not in self.memory.values:
            raise ValueError(f"keep must be one of {self.memory.values}, got {keep!r}")
        return self.memory.drop(-1, self.memory.values.index(keep))

    def misreading_drop(self) -> np.ndarray:
        """Per secret: won at p = 0 − won at the largest p."""
        return self.misreading.drop(0, -1)


def wasted_information(
    games,
    memories: Sequence[int],
    noises: Sequence[float],
    *,
    keep: int,
    rng_ignore: np.random.Generator,
    rngs_memory: Sequence,
    rngs_misreading: Sequence,
) -> Wasting:
    """Play the agent that ignores answers and the two sweeps (`sweep`) on `games`. The memory
    sweep must start at k = 0 and hold `keep` (the memory whose cost is judged), the misreading
    sweep at p = 0: the chance and drop statistics read those settings."""
    if memories[0] != 0 or noises[0] != 0.0 or keep not in memories:
        raise ValueError(
            f"the sweeps must start at k = 0 and p = 0 and hold k = {keep}, got "
            f"memories {list(memories)!r}, noises {list(noises)!r}"
        )
    checks.generator("rng_ignore", rng_ignore)
    ignore = gn.ignore_feedback(games, rng_ignore)
    return Wasting(
        ignore,
        sweep(games, "memory", memories, rngs_memory),
        sweep(games, "misreading", noises, rngs_misreading),
        gn.chance_accuracy(gn.MAX_TURN + 1, repeats=False),
        gn.chance_accuracy(gn.MAX_TURN + 1, repeats=True),
    )


# ----------------------------------------------------------------------------------------------
# DC and SP: two questioners on the same records
@dataclass(frozen=True)
class Race:
    """`rows`: one dict per game (agent, record, rep, and the measured values); `curves`: mean
    key facts uncovered by question number per agent (SP only)."""

    agents: tuple[str, str]
    rows: list
    curves: dict = field(default_factory=dict)

    def values(self, agent: str, name: str) -> np.ndarray:
        """(reps, records) array of `name` for `agent`."""
        if agent not in self.agents:
            raise ValueError(f"agent must be one of {self.agents}, got {agent!r}")
        mine = [r for r in self.rows if r["agent"] == agent]
        reps = 1 + max(r["rep"] for r in mine)
        recs = 1 + max(r["record"] for r in mine)
        out = np.full((reps, recs), np.nan)
        for r in mine:
            out[r["rep"], r["record"]] = r[name]
        return out

    def frame(self) -> pd.DataFrame:
        """The rows as a table."""
        return pd.DataFrame(self.rows)

    def paired(self, name: str, *, lower_is_better: bool = False) -> np.ndarray:
        """Per repetition, the mean over records of (first agent − second agent), signed so that
        positive favours the first agent."""
        a, b = self.agents
        d = self.values(a, name) - self.values(b, name)
        return (-d if lower_is_better else d).mean(1)


def dc_race(
    cases,
    reps: int,
    rngs: dict,
    *,
    max_turn: int = 25,
    equal_at: Sequence = (1, 2, 3, 4),
) -> Race:
    """Information gain against random questions on every case, `reps` times. Both go on asking
    after they are certain, so that their questions can be compared at equal counts; per game:
    `questions` (asked until certain, `max_turn` if never), `correct` (the suspect named after
    `questions` questions is the murderer), `process` (the benchmark's process score of an agent
    that stops when certain: key questions among its first `questions`), `process_equal` (key
    questions among the first q, q = the information-gain agent's `questions` on the same case and
    repetition; a stopping point, so not a fixed count) and `process_fixed` (the mean over the
    counts `equal_at`, fixed in advance, of the share of key questions among the first q), with
    each count's share as `process_q<q>` (e.g. `process_q3`)."""
    reps = checks.integer("reps", reps, at_least=2)
    equal_at = tuple(equal_at)
    if not equal_at or not all(
        not isinstance(q, bool)
        and isinstance(q, (int, np.integer))
        and 1 <= q <= max_turn
        for q in equal_at
    ):
        raise ValueError(
            f"equal_at must hold ints in [1, {max_turn}], got {equal_at!r}"
        )
    if set(rngs) != {"info_gain", "random"}:
        raise ValueError("rngs must map 'info_gain' and 'random' to Generators")
    _check_rngs(rngs.values(), "rngs")
    games = {
        s: [
            [
                dc.play_case(c, s, rngs[s], max_turn=max_turn, stop_when_certain=False)
                for _ in range(reps)
            ]
            for c in cases
        ]
        for s in ("info_gain", "random")
    }
    rows = []
    for ci, case in enumerate(cases):
        key, n_key = case.key_pairs, case.n_key_questions
        for r in range(reps):
            g_info = games["info_gain"][ci][r]
            q_info = g_info.certain_at if g_info.certain_at >= 0 else max_turn
            for s, lab in (("info_gain", "info gain"), ("random", "random")):
                g = games[s][ci][r]
                q = g.certain_at if g.certain_at >= 0 else max_turn
                at = [g.process_within(int(qq), key, n_key) for qq in equal_at]
                row = dict(
                    agent=lab,
                    record=ci,
                    rep=r,
                    questions=q,
                    correct=bool(g.certain_at >= 0 and g.answer == case.label),
                    process=g.process_within(q, key, n_key),
                    process_equal=g.process_within(q_info, key, n_key),
                    process_fixed=float(np.mean(at)),
                )
                rows.append(
                    row | {f"process_q{int(qq)}": v for qq, v in zip(equal_at, at)}
                )
    return Race(("info gain", "random"), rows)


def sp_race(
    puzzles, reps: int, rngs: dict, *, n_distractors: int = 2, max_turn: int = 25
) -> Race:
    """Follow-up against random questions on every puzzle, `reps` times; per game: `questions`
    (until every key fact is uncovered, `max_turn` if not), `correct` (solved) and `process` (share
    of key facts uncovered); `curves` the mean share uncovered after each question."""
    reps = checks.integer("reps", reps, at_least=2)
    if set(rngs) != {"follow_up", "random"}:
        raise ValueError("rngs must map 'follow_up' and 'random' to Generators")
    _check_rngs(rngs.values(), "rngs")
    rows, curves = [], {}
    for s, lab in (("follow_up", "follow-up"), ("random", "random")):
        hits = []
        for pi, puz in enumerate(puzzles):
            n_keys = sum(1 for _ in puz.story_tree.walk()) - 1
            for r in range(reps):
                g = sp.play_puzzle(
                    puz, s, rngs[s], n_distractors=n_distractors, max_turn=max_turn
                )
                rows.append(
                    dict(
                        agent=lab,
                        record=pi,
                        rep=r,
                        questions=g.turns if g.solved else max_turn,
                        correct=g.solved,
                        process=g.process_score,
                    )
                )
                h = np.r_[0, g.hits_by_turn] / n_keys
                hits.append(np.r_[h, np.full(max_turn + 1 - len(h), h[-1])])
        curves[lab] = np.mean(hits, axis=0)
    return Race(("follow-up", "random"), rows, curves)


SUMMARY_COLUMNS = (
    "accuracy",
    "mean questions",
    "process score (own stop)",
    "process at q = 1–4",
    "process at q_info",
)
"""`race_summary`'s columns: `correct`, `questions`, `process`, `process_fixed` (the chapter's
counts q = 1–4) and `process_equal` (at the information-gain agent's q)."""


def race_summary(dc_result: Race, sp_result: Race) -> pd.DataFrame:
    """Means per task (DC, SP) and agent of accuracy, questions and the process scores (the
    SP race has no equal-count columns: NaN)."""
    dc_cols = ["correct", "questions", "process", "process_fixed", "process_equal"]
    out = pd.concat(
        {
            "DC": dc_result.frame().groupby("agent")[dc_cols].mean(),
            "SP": sp_result.frame()
            .groupby("agent")[["correct", "questions", "process"]]
            .mean(),
        }
    )
    out.columns = list(SUMMARY_COLUMNS)
    return out
