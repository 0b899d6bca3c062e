"""A structured simulator for situation puzzles (SP) built on the puzzle's story tree.

The hidden story is a tree of facts; each non-root node carries the yes/no *key question* that
uncovers it, and the puzzle counts as solved when every key fact is uncovered (process score 1).
Besides the key questions, each fact has `n_distractors` plausible but off-track follow-ups
(answered "no"). A question only gets a useful answer once the fact it builds on (its parent) is
known; asked too early it would be answered "irrelevant". Both questioners follow the same rule and
ask only questions whose premise is known (a question answered "irrelevant" would be wasted by
construction); they differ in which of those they pick:

- ``"random"`` picks uniformly among all answerable, unresolved questions;
- ``"follow_up"`` asks only follow-ups of the oldest uncovered fact that still has unresolved
  questions, breadth-first (random order within a fact).
In AR-Bench the yes/no answers and the key-question hits are judged by an LLM; here they are exact,
so the simulator isolates the questioning strategy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from repbook.core import checks

from .loaders import Puzzle

STRATEGIES = ("random", "follow_up")


@dataclass(frozen=True)
class SPGame:
    turns: int  # questions asked
    solved: bool  # every key fact uncovered within the budget
    process_score: float  # share of key facts uncovered
    hits_by_turn: np.ndarray  # key facts uncovered after each question


def question_bank(
    puzzle: Puzzle, n_distractors: int
) -> tuple[np.ndarray, np.ndarray, int]:
    """(parent, reveals) per question and the number of facts. reveals = node index for a key
    question, −1 for a distractor; node 0 (the surface) is known from the start."""
    checks.integer("n_distractors", n_distractors, at_least=0)
    nodes, parent = [puzzle.story_tree], [-1]
    i = 0
    while i < len(nodes):
        for child in nodes[i].children:
            nodes.append(child)
            parent.append(i)
        i += 1
    par, rev = [], []
    for v in range(1, len(nodes)):
        par.append(parent[v])
        rev.append(v)
    for u in range(len(nodes)):
        par += [u] * n_distractors
        rev += [-1] * n_distractors
    return np.array(par, dtype=np.int64), np.array(rev, dtype=np.int64), len(nodes)


def play_puzzle(
    puzzle: Puzzle,
    strategy: str,
    rng: np.random.Generator,
    *,
    n_distractors: int = 2,
    max_turn: int = 25,
) -> SPGame:
    checks.one_of("strategy", strategy, STRATEGIES)
    checks.generator("rng", rng)
    checks.integer("max_turn", max_turn, at_least=1)
    par, rev, n_nodes = question_bank(puzzle, n_distractors)
    n_keys = n_nodes - 1
    known_at = np.full(n_nodes, -1)
    known_at[0] = 0
    resolved = np.zeros(len(par), dtype=bool)
    hits = []
    turns = 0
    while turns < max_turn and (known_at[1:] >= 0).sum() < n_keys:
        ready = ~resolved & (known_at[par] >= 0)
        if not ready.any():
            break
        if strategy == "random":
            pool = np.flatnonzero(ready)
        else:
            oldest = known_at[par[ready]].min()
            pool = np.flatnonzero(ready & (known_at[par] == oldest))
        q = int(rng.choice(pool))
        turns += 1
        resolved[q] = True  # the premise is known: a real yes/no answer
        if rev[q] >= 0:
            known_at[rev[q]] = turns
        hits.append(int((known_at[1:] >= 0).sum()))
    found = int((known_at[1:] >= 0).sum())
    return SPGame(
        turns,
        found == n_keys,
        found / n_keys if n_keys else float("nan"),
        np.array(hits, dtype=np.int64),
    )
