"""The benchmark's metrics: accuracy, turns, key-question process score, and the token F1 that
AR-Bench uses to compare an SP answer with the hidden story."""

from __future__ import annotations

from collections import Counter

import numpy as np


def accuracy(correct) -> float:
    """Share of games solved (DC: the named suspect is the label; GN: a guess had 4 bulls)."""
    c = np.asarray(correct, dtype=bool)
    if c.size == 0:
        raise ValueError("accuracy needs at least one game, got none")
    return float(c.mean())


def mean_turns(turns, solved=None) -> float:
    """Mean number of turns, over the solved games when `solved` is given."""
    t = np.asarray(turns, dtype=float)
    if solved is not None:
        t = t[np.asarray(solved, dtype=bool)]
    if t.size == 0:
        raise ValueError("mean_turns needs at least one (solved) game")
    return float(t.mean())


def process_score(asked, key) -> float:
    """Share of the key questions `key` that appear among the questions `asked`."""
    key = set(key)
    if not key:
        raise ValueError("process_score needs at least one key question")
    return len(set(asked) & key) / len(key)


def f1_score(prediction, truth) -> float:
    """Multiset-overlap F1 between two sequences of tokens (characters of a string, or words)."""
    common = sum((Counter(prediction) & Counter(truth)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(prediction), common / len(truth)
    return 2 * precision * recall / (precision + recall)
