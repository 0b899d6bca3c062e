"""The reward model: a Bradley–Terry logistic model on hashed n-gram features of (prompt,
program), trained on verifier-labelled preference pairs with label noise, and the
homoscedastic control RM."""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from repbook.core import checks

from .task import Bandit, Program, Task, _check_program


# ---------------------------------------------------------------------------------------------
# The reward model: Bradley–Terry on hashed n-gram features
# ---------------------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def _key_hash(key: str) -> int:
    return zlib.crc32(key.encode())


@lru_cache(maxsize=1 << 16)
def _program_grams(program: Program, max_n: int) -> tuple[str, ...]:
    toks = ("<s>", *program, "</s>")
    return tuple(
        " ".join(toks[i : i + n])
        for n in range(1, max_n + 1)
        for i in range(len(toks) - n + 1)
    )


def features(
    task: Task, program: Sequence[str], *, dim: int = 4096, max_n: int = 3
) -> dict[int, float]:
    """Hashed n-gram features (n = 1..max_n) of the program, each alone and conjoined with each
    prompt token (`a=3`, `b=7`), with signed hashing into `dim` buckets: the CRC-32 of the feature's
    text picks the bucket (mod `dim`) and its bit 24 the sign."""
    checks.integer("dim", dim, at_least=2)
    out: dict[int, float] = {}
    prefixes = ("", *(f"{p}|" for p in task.prompt_tokens))
    for gram in _program_grams(_check_program(program), max_n):
        for prefix in prefixes:
            h = _key_hash(prefix + gram)
            j, sign = h % dim, 1.0 if (h >> 24) & 1 else -1.0
            out[j] = out.get(j, 0.0) + sign
    return out


def feature_matrix(
    tasks: Sequence[Task],
    programs: Sequence[Sequence[Sequence[str]]],
    *,
    dim: int = 4096,
):
    """Sparse (P·K, dim) matrix of `features` for every (prompt, candidate), row-major."""
    from scipy import sparse

    if len(tasks) != len(programs):
        raise ValueError(
            f"tasks and programs must have the same length, got {len(tasks)} and "
            f"{len(programs)}"
        )
    rows, cols, vals, r = [], [], [], 0
    for task, pool in zip(tasks, programs):
        for prog in pool:
            for j, v in features(task, prog, dim=dim).items():
                rows.append(r)
                cols.append(j)
                vals.append(v)
            r += 1
    return sparse.csr_matrix((vals, (rows, cols)), shape=(r, dim))


@dataclass(frozen=True)
class Preferences:
    """Preference pairs inside pools: prompt, winner and loser candidate, and whether the label
    was flipped by noise (then `winner` has the lower actual score)."""

    prompt: np.ndarray
    winner: np.ndarray
    loser: np.ndarray
    flipped: np.ndarray


def preference_pairs(
    scores: np.ndarray, n_pairs: int, *, noise: float, rng: np.random.Generator
) -> Preferences:
    """`n_pairs` random pairs of candidates with different actual scores, labelled by the
    verifier (higher score wins) and flipped with probability `noise`."""
    scores = np.asarray(scores, dtype=float)
    if scores.ndim != 2 or scores.shape[1] < 2:
        raise ValueError(
            f"scores must be a (prompts, candidates ≥ 2) array, got {scores.shape}"
        )
    if not 0.0 <= noise < 0.5:
        raise ValueError(f"noise must lie in [0, 0.5), got {noise!r}")
    checks.integer("n_pairs", n_pairs, at_least=1)
    P, K = scores.shape
    prompt, win, lose = [], [], []
    tries = 0
    while len(prompt) < n_pairs:
        tries += 1
        if tries > 100 * n_pairs:
            raise ValueError("scores: too few pairs with different actual scores")
        p = int(rng.integers(P))
        i, j = (int(v) for v in rng.choice(K, size=2, replace=False))
        if scores[p, i] == scores[p, j]:
            continue
        if scores[p, i] < scores[p, j]:
            i, j = j, i
        prompt.append(p)
        win.append(i)
        lose.append(j)
    flipped = rng.random(n_pairs) < noise
    win, lose = np.array(win), np.array(lose)
    w = np.where(flipped, lose, win)
    l = np.where(flipped, win, lose)
    return Preferences(np.array(prompt), w, l, flipped)


def fit_bradley_terry(diff, *, l2: float = 1.0) -> np.ndarray:
    """Weights w minimising Σ log(1 + exp(−w·Δφ)) + (l2/2)·|w|² over preference pairs, where each
    row of `diff` is φ(winner) − φ(loser) (dense or scipy sparse). L-BFGS, deterministic."""
    from scipy.optimize import minimize

    if not l2 > 0:
        raise ValueError(f"l2 must be > 0, got {l2!r}")
    n, dim = diff.shape
    if n < 1:
        raise ValueError("diff must hold at least one preference pair")

    def loss(w):
        m = diff @ w
        val = np.logaddexp(0.0, -m).sum() + 0.5 * l2 * w @ w
        grad = -(diff.T @ (1.0 / (1.0 + np.exp(m)))) + l2 * w
        return val, np.asarray(grad).ravel()

    res = minimize(
        loss,
        np.zeros(dim),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": 500, "gtol": 1e-8},
    )
    return res.x


def reward_model_scores(bandit: Bandit, w: np.ndarray) -> np.ndarray:
    """The RM reward w·φ(prompt, program) of every candidate, shape (P, K)."""
    w = np.asarray(w, dtype=float)
    X = feature_matrix(bandit.tasks, bandit.programs, dim=w.size)
    return (X @ w).reshape(bandit.shape)


def train_reward_model(
    bandit: Bandit,
    n_pairs: int,
    *,
    noise: float,
    rng: np.random.Generator,
    l2: float = 1.0,
    dim: int = 4096,
) -> tuple[np.ndarray, Preferences]:
    """Fit the Bradley–Terry RM on `n_pairs` noisy verifier-labelled pairs from `bandit`'s pools.
    Returns the weights and the pairs."""
    pairs = preference_pairs(bandit.scores, n_pairs, noise=noise, rng=rng)
    X = feature_matrix(bandit.tasks, bandit.programs, dim=dim)
    K = bandit.shape[1]
    diff = X[pairs.prompt * K + pairs.winner] - X[pairs.prompt * K + pairs.loser]
    return fit_bradley_terry(diff, l2=l2), pairs


def homoscedastic_rewards(
    scores: np.ndarray, corr: float, rng: np.random.Generator
) -> np.ndarray:
    """A reward with noise of constant variance: actual score + σ·ε (ε ~ N(0, 1), fixed per
    candidate), with σ chosen so that its correlation with the actual score over all candidates is
    `corr` in expectation: σ² = Var(score)·(1/corr² − 1)."""
    scores = np.asarray(scores, dtype=float)
    if not 0.0 < corr < 1.0:
        raise ValueError(f"corr must lie in (0, 1), got {corr!r}")
    var = scores.var()
    if not var > 0:
        raise ValueError("scores must not be constant")
    sigma = math.sqrt(var * (1.0 / corr**2 - 1.0))
    return scores + sigma * rng.standard_normal(scores.shape)
