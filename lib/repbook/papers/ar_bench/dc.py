"""A structured simulator for detective cases (DC) and two questioning agents.

A question asks one suspect about one attribute (motive, opportunity, access to the weapon) and the
answer reveals whether the case file supports it (`Case.facts`). The agent knows the rule the cases
are built on: the murderer has all three attributes and every other suspect lacks at least one. Its
belief is uniform over every assignment that obeys the rule (murderer m, and for each other suspect
a non-empty set of missing attributes: n·7^(n−1) hypotheses) and consistent with the answers so far.
It names the most probable suspect when it is certain, or when the budget runs out. With
`stop_when_certain=False` it goes on asking (by the same rule) after it is certain, so that two
questioners can be compared at an equal number of questions; `certain_at` records when it became
certain.

- ``"random"`` asks a uniformly random question it has not asked yet;
- ``"info_gain"`` asks the question with the largest expected reduction of the entropy of "who is
  the murderer" (ties broken at random).
Both use the answers in the same exact way, so the comparison isolates *which* questions are asked.
The process score is the share of the case's key questions (as (suspect, attribute) pairs) asked.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from repbook.core import checks

from .loaders import Case

STRATEGIES = ("random", "info_gain")


@lru_cache(maxsize=8)
def hypotheses(n_suspects: int) -> tuple[np.ndarray, np.ndarray]:
    """bits (H, 3n) bool — suspect i has attribute a at column 3i + a — and murderer (H,) int."""
    checks.integer("n_suspects", n_suspects, at_least=2, at_most=6)
    partial = [
        p for p in itertools.product([True, False], repeat=3) if not all(p)
    ]  # 7 patterns
    rows, murderer = [], []
    for m in range(n_suspects):
        for combo in itertools.product(partial, repeat=n_suspects - 1):
            it = iter(combo)
            facts = [
                (True, True, True) if i == m else next(it) for i in range(n_suspects)
            ]
            rows.append(np.array(facts, dtype=bool).ravel())
            murderer.append(m)
    bits, mur = np.array(rows), np.array(murderer)
    bits.setflags(write=False)
    mur.setflags(write=False)
    return bits, mur


@dataclass(frozen=True)
class DCGame:
    questions: tuple[tuple[int, int], ...]  # (suspect, attribute) in the order asked
    answer: int  # the suspect named
    correct: bool
    turns: int  # questions asked
    process_score: float  # share of key questions asked (nan if the case has none)
    certain: bool  # the agent was certain when it answered
    certain_at: int = -1  # questions asked when it first became certain (-1: never)

    def process_within(self, q: int, key_pairs, n_key: int) -> float:
        """Share of the `n_key` key questions (`key_pairs`) among the first `q` questions."""
        checks.integer("q", q, at_least=0)
        if not n_key:
            return float("nan")
        return len(set(self.questions[:q]) & set(key_pairs)) / n_key


def _entropy(counts: np.ndarray, axis=-1) -> np.ndarray:
    total = counts.sum(axis=axis, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(total > 0, counts / total, 0.0)
        return -np.where(p > 0, p * np.log2(p), 0.0).sum(axis=axis)


def play_case(
    case: Case,
    strategy: str,
    rng: np.random.Generator,
    *,
    max_turn: int = 25,
    stop_when_certain: bool = True,
) -> DCGame:
    """Question the suspects of `case` with `strategy` for at most `max_turn` questions (stopping
    once certain, unless `stop_when_certain` is False)."""
    checks.one_of("strategy", strategy, STRATEGIES)
    checks.generator("rng", rng)
    checks.integer("max_turn", max_turn, at_least=0)
    if not isinstance(stop_when_certain, bool):
        raise TypeError(
            f"stop_when_certain must be True or False, got {stop_when_certain!r}"
        )
    n = len(case.names)
    bits, mur = hypotheses(n)
    truth = np.array(case.facts, dtype=bool).ravel()
    alive = np.ones(len(mur), dtype=bool)
    asked: list[int] = []
    certain_at = -1
    for _ in range(max_turn):
        counts = np.bincount(mur[alive], minlength=n)
        if np.count_nonzero(counts) <= 1:
            if certain_at < 0:
                certain_at = len(asked)
            if stop_when_certain:
                break
        free = np.array([q for q in range(3 * n) if q not in asked])
        if free.size == 0:
            break
        if strategy == "random":
            q = int(rng.choice(free))
        else:
            onehot = np.eye(n, dtype=np.int64)[mur[alive]]  # (Ha, n)
            yes = onehot.T @ bits[alive][:, free].astype(np.int64)  # (n, |free|)
            no = counts[:, None] - yes
            py = yes.sum(0) / counts.sum()
            after = py * _entropy(yes.T) + (1 - py) * _entropy(no.T)
            best = np.flatnonzero(np.isclose(after, after.min(), atol=1e-12))
            q = int(free[rng.choice(best)])
        asked.append(q)
        new = alive & (bits[:, q] == truth[q])
        if not new.any():  # the case breaks the agent's rule: keep what it had and stop
            break
        alive = new
    counts = np.bincount(mur[alive], minlength=n)
    if certain_at < 0 and np.count_nonzero(counts) == 1:
        certain_at = len(asked)
    top = np.flatnonzero(counts == counts.max())
    answer = int(rng.choice(top))
    pairs = tuple((q // 3, q % 3) for q in asked)
    score = (
        len(set(pairs) & case.key_pairs) / case.n_key_questions
        if case.n_key_questions
        else float("nan")
    )
    return DCGame(
        pairs,
        answer,
        answer == case.label,
        len(asked),
        score,
        bool(np.count_nonzero(counts) == 1),
        certain_at,
    )


def passive_accuracy(case: Case) -> float:
    """Accuracy when every fact is given up front (passive reasoning): the agent's rule then names
    the suspect with all three attributes (1.0 if exactly one suspect has them, else 1/ties)."""
    full = [i for i, f in enumerate(case.facts) if all(f)]
    return (
        (1.0 / len(full) if case.label in full else 0.0)
        if full
        else 1.0 / len(case.names)
    )
