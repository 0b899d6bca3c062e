"""The chapter's experiment protocols: each runs agents of `gn`, `dc` or `sp` over games and seeds
and returns the numbers a check reads. Pure (no printing, plotting or file writing); randomness
comes in as numpy Generators, one per stream, so a chapter can keep its streams apart.

- `adaptive_vs_fixed`: an adaptive agent against a reasoner given k clues fixed in advance, both
  credited by one rule (one final answer among the secrets the k answers leave);
- `sweep`: accuracy of a one-parameter family of GN agents (memory k, misreading rate p) on the
  same secrets, with each setting's standard error and per-secret results for paired tests;
- `dc_race`, `sp_race`: two questioners on the same detective cases or puzzles, repeated, with
  per-repetition paired differences.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from . import dc, gn, sp


def _check_rngs(rngs, name: str, n: int | None = None) -> list[np.random.Generator]:
    rngs = list(rngs)
    if not rngs or not all(isinstance(r, np.random.Generator) for r in rngs):
        raise TypeError(f"{name} must be a non-empty sequence of numpy Generators")
    if n is not None and len(rngs) != n:
        raise ValueError(f"{name} must hold {n} Generators, got {len(rngs)}")
    return rngs


def _check_reps(reps) -> int:
    if isinstance(reps, bool) or not isinstance(reps, (int, np.integer)) or reps < 2:
        raise ValueError(f"reps must be an int ≥ 2, got {reps!r}")
    return int(reps)


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

    def gap(self, k: int) -> np.ndarray:
        """adaptive − fixed credit at k, one value per seed."""
        j = np.flatnonzero(self.ks == k)
        if j.size != 1:
            raise ValueError(f"k must be one of {self.ks.tolist()}, got {k!r}")
        return self.adaptive[:, j[0]] - self.fixed[:, j[0]]


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
    counts `equal_at`, fixed in advance, of the share of key questions among the first q)."""
    reps = _check_reps(reps)
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
        for r in range(reps):
            g_info = games["info_gain"][ci][r]
            q_info = g_info.certain_at if g_info.certain_at >= 0 else max_turn
            for s, lab in (("info_gain", "info gain"), ("random", "random")):
                g = games[s][ci][r]
                q = g.certain_at if g.certain_at >= 0 else max_turn
                rows.append(
                    dict(
                        agent=lab,
                        record=ci,
                        rep=r,
                        questions=q,
                        correct=bool(g.certain_at >= 0 and g.answer == case.label),
                        process=g.process_within(
                            q, case.key_pairs, case.n_key_questions
                        ),
                        process_equal=g.process_within(
                            q_info, case.key_pairs, case.n_key_questions
                        ),
                        process_fixed=float(
                            np.mean(
                                [
                                    g.process_within(
                                        int(qq), case.key_pairs, case.n_key_questions
                                    )
                                    for qq in equal_at
                                ]
                            )
                        ),
                    )
                )
    return Race(("info gain", "random"), rows)


def sp_race(
    puzzles, reps: int, rngs: dict, *, n_distractors: int = 2, max_turn: int = 25
) -> Race:
    """Follow-up against random questions on every puzzle, `reps` times; per game: `questions`
    (until every key fact is uncovered, `max_turn` if not), `correct` (solved) and `process` (share
    of key facts uncovered); `curves` the mean share uncovered after each question."""
    reps = _check_reps(reps)
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
