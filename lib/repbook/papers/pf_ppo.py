"""Policy filtration for PPO (PF-PPO) on a toy code-generation task with an exact verifier.

Zhang, Shen, Zhao, Zhang, Xu, Dou, Bian, *Policy Filtration for RLHF to Mitigate Noise in Reward
Models*, ICML 2025 (arXiv 2409.06957). The paper samples N responses per prompt, scores them with
a learned reward model (RM), and trains PPO only on a filtered subset: the best (BoN), the best and
one random other (BR), or the best and the worst (BW). It picks the filter by R², the coefficient
of determination between the RM reward and the actual score on the filtered samples.

Everything here is a stand-in small enough for a laptop:

- *Prompts* are target functions f(x) = (a·x + b) mod 10, each with 8 hidden unit tests.
- *Responses* are programs of at most 8 tokens in a tiny stack language (`VOCAB`), run by
  `run_program`; the *actual score* is the fraction of hidden tests a program passes.
- The *reward model* is a Bradley–Terry logistic model on hashed n-gram features of
  (prompt, program), trained on verifier-labelled preference pairs with label noise.
- The *policy* (quick scale) is a categorical distribution over a pool of K candidate programs per
  prompt, trained with PPO-clip, a KL penalty to the initial policy and a tabular critic.

No function prints, plots or writes files; randomness comes in as a `numpy.random.Generator`.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import product

import numpy as np

# ---------------------------------------------------------------------------------------------
# The stack language and its verifier
# ---------------------------------------------------------------------------------------------
VOCAB: tuple[str, ...] = (
    "x",
    "1",
    "2",
    "3",
    "5",
    "7",
    "+",
    "-",
    "*",
    "dup",
    "swap",
    "drop",
)
"""Tokens: `x` pushes the input, digits push themselves, `+ - *` pop two and push the result
mod 10, `dup` copies the top, `swap` exchanges the top two, `drop` discards the top."""
DIGITS = ("1", "2", "3", "5", "7")
MOD = 10
MAX_LEN = 8
N_TESTS = 8

Program = tuple[str, ...]


def _check_program(program) -> Program:
    if isinstance(program, str) or not isinstance(program, Sequence):
        raise TypeError(f"program must be a sequence of tokens, got {program!r}")
    bad = [t for t in program if t not in VOCAB]
    if bad:
        raise ValueError(f"program has unknown token(s) {bad}; tokens are {VOCAB}")
    return tuple(program)


def run_program(program: Sequence[str], x: int) -> int | None:
    """Run `program` on input `x`; the result is the top of the stack (mod 10).

    Returns None when the program fails: an operation finds too few values on the stack, or the
    stack is empty at the end. A failed program passes no test.
    """
    program = _check_program(program)
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
        raise TypeError(f"x must be an int, got {x!r}")
    return _run(program, int(x))


def _run(program: Program, x: int) -> int | None:
    stack: list[int] = []
    for tok in program:
        if tok == "x":
            stack.append(x % MOD)
        elif tok in DIGITS:
            stack.append(int(tok))
        elif tok in ("+", "-", "*"):
            if len(stack) < 2:
                return None
            right, left = stack.pop(), stack.pop()
            value = (
                left + right
                if tok == "+"
                else left - right
                if tok == "-"
                else left * right
            )
            stack.append(value % MOD)
        elif tok == "dup":
            if not stack:
                return None
            stack.append(stack[-1])
        elif tok == "swap":
            if len(stack) < 2:
                return None
            stack[-1], stack[-2] = stack[-2], stack[-1]
        else:  # drop
            if not stack:
                return None
            stack.pop()
    return stack[-1] if stack else None


@dataclass(frozen=True)
class Task:
    """A prompt: the target f(x) = (a·x + b) mod 10 and its hidden test inputs."""

    a: int
    b: int
    tests: tuple[int, ...]

    def __post_init__(self):
        for name, v in (("a", self.a), ("b", self.b)):
            if (
                isinstance(v, bool)
                or not isinstance(v, (int, np.integer))
                or not 0 <= v < MOD
            ):
                raise ValueError(f"{name} must be an int in [0, {MOD}), got {v!r}")
        if len(self.tests) == 0:
            raise ValueError("tests must hold at least one input, got none")

    def target(self, x: int) -> int:
        return (self.a * x + self.b) % MOD

    @property
    def prompt_tokens(self) -> tuple[str, str]:
        return (f"a={self.a}", f"b={self.b}")


def pass_rate(program: Sequence[str], task: Task) -> float:
    """The actual score: the fraction of the task's hidden tests the program passes."""
    program = _check_program(program)
    return sum(_run(program, x) == task.target(x) for x in task.tests) / len(task.tests)


def is_correct(program: Sequence[str], a: int, b: int) -> bool:
    """Whether the program computes (a·x + b) mod 10 for every input 0..9 (not just the tests)."""
    program = _check_program(program)
    return all(_run(program, x) == (a * x + b) % MOD for x in range(MOD))


def sample_task(rng: np.random.Generator, *, n_tests: int = N_TESTS) -> Task:
    """A random prompt: a in 1..9, b in 0..9, and `n_tests` distinct test inputs from 0..9."""
    if not 1 <= n_tests <= MOD:
        raise ValueError(f"n_tests must lie in [1, {MOD}], got {n_tests!r}")
    a, b = int(rng.integers(1, MOD)), int(rng.integers(0, MOD))
    tests = tuple(int(t) for t in np.sort(rng.choice(MOD, size=n_tests, replace=False)))
    return Task(a, b, tests)


# ---------------------------------------------------------------------------------------------
# Candidate programs: correct ones from templates, mutants, random programs
# ---------------------------------------------------------------------------------------------
_CONST_CACHE: dict[int, dict[int, list[Program]]] = {}


def constant_expressions(max_len: int = 3) -> dict[int, list[Program]]:
    """Every program of at most `max_len` tokens without `x` that leaves exactly one value on an
    empty stack, grouped by that value (0..9). Used to write constants the vocabulary lacks."""
    if max_len not in _CONST_CACHE:
        tokens = [t for t in VOCAB if t not in ("x", "drop")]
        out: dict[int, list[Program]] = {v: [] for v in range(MOD)}
        for length in range(1, max_len + 1):
            for prog in product(tokens, repeat=length):
                stack_ok, depth = True, 0
                for (
                    tok
                ) in prog:  # stack depth must stay ≥ 1 after each push/op, end at 1
                    need, net = {
                        "+": (2, -1),
                        "-": (2, -1),
                        "*": (2, -1),
                        "dup": (1, 1),
                        "swap": (2, 0),
                    }.get(tok, (0, 1))
                    if depth < need:
                        stack_ok = False
                        break
                    depth += net
                if stack_ok and depth == 1:
                    out[_run(prog, 0)].append(prog)
        _CONST_CACHE[max_len] = out
    return _CONST_CACHE[max_len]


def correct_programs(a: int, b: int, *, max_len: int = MAX_LEN) -> list[Program]:
    """Programs of at most `max_len` tokens computing (a·x + b) mod 10, written from templates of
    the affine map with constants from `constant_expressions`: `x A * B +`, `B x A * +`,
    `A x * B +`, `x A * C -` (C = −b), `B x D * -` (D = −a), `x E + A *` (A·E = b) and
    `E x - D *` (D·E = b), plus the shortcuts for a = 1 or b = 0. Every program returned is
    verified on all inputs 0..9; sorted, so the list is deterministic."""
    for name, v in (("a", a), ("b", b)):
        if (
            isinstance(v, bool)
            or not isinstance(v, (int, np.integer))
            or not 0 <= v < MOD
        ):
            raise ValueError(f"{name} must be an int in [0, {MOD}), got {v!r}")
    return list(_correct_programs(int(a), int(b), int(max_len)))


@lru_cache(maxsize=None)
def _correct_programs(a: int, b: int, max_len: int) -> tuple[Program, ...]:
    """Uncached `correct_programs`."""
    consts = constant_expressions(3)
    found: set[Program] = set()
    neg_a, neg_b = (-a) % MOD, (-b) % MOD
    for A in consts[a]:
        for B in consts[b]:
            found.update(
                [
                    ("x", *A, "*", *B, "+"),
                    (*B, "x", *A, "*", "+"),
                    (*A, "x", "*", *B, "+"),
                ]
            )
        for C in consts[neg_b]:
            found.add(("x", *A, "*", *C, "-"))
        if b == 0:
            found.update([("x", *A, "*"), (*A, "x", "*")])
    for D in consts[neg_a]:
        for B in consts[b]:
            found.add((*B, "x", *D, "*", "-"))
    for e in range(MOD):
        for E in consts[e]:
            if (a * e) % MOD == b:
                found.update(("x", *E, "+", *A, "*") for A in consts[a])
            if (neg_a * e) % MOD == b:
                found.update((*E, "x", "-", *D, "*") for D in consts[neg_a])
    if a == 1:
        for B in consts[b]:
            found.update([("x", *B, "+"), (*B, "x", "+")])
        if b == 0:
            found.add(("x",))
    progs = tuple(sorted(p for p in found if len(p) <= max_len and is_correct(p, a, b)))
    if not progs:
        raise ValueError(
            f"no correct program of at most {max_len} tokens for a={a}, b={b}"
        )
    return progs


def mutate(
    program: Sequence[str],
    rng: np.random.Generator,
    *,
    n_edits: int = 1,
    max_len: int = MAX_LEN,
) -> Program:
    """Apply `n_edits` random edits (substitute, insert or delete one token)."""
    prog = list(_check_program(program))
    for _ in range(n_edits):
        kinds = (
            ["sub"]
            + (["ins"] if len(prog) < max_len else [])
            + (["del"] if len(prog) > 1 else [])
        )
        kind = kinds[int(rng.integers(len(kinds)))]
        pos = int(rng.integers(len(prog) + (kind == "ins")))
        tok = VOCAB[int(rng.integers(len(VOCAB)))]
        if kind == "sub":
            prog[pos] = tok
        elif kind == "ins":
            prog.insert(pos, tok)
        else:
            del prog[pos]
    return tuple(prog)


def random_program(
    rng: np.random.Generator, *, min_len: int = 2, max_len: int = MAX_LEN
) -> Program:
    length = int(rng.integers(min_len, max_len + 1))
    return tuple(VOCAB[i] for i in rng.integers(len(VOCAB), size=length))


def candidate_pool(
    task: Task,
    rng: np.random.Generator,
    *,
    n_correct: int = 3,
    n_mutants: int = 21,
    n_random: int = 8,
) -> tuple[Program, ...]:
    """K = n_correct + n_mutants + n_random distinct programs for one prompt: correct programs
    (templates), mutants of correct programs (1 or 2 random edits) and random programs."""
    for name, v in (
        ("n_correct", n_correct),
        ("n_mutants", n_mutants),
        ("n_random", n_random),
    ):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ValueError(f"{name} must be an int ≥ 0, got {v!r}")
    correct = correct_programs(task.a, task.b)
    pick = rng.choice(len(correct), size=min(n_correct, len(correct)), replace=False)
    pool: list[Program] = [correct[i] for i in sorted(pick)]
    seen = set(pool)

    def add(make, count):
        added, tries = 0, 0
        while added < count:
            tries += 1
            if (
                tries > 10_000
            ):  # pragma: no cover - the space is far larger than the pool
                raise RuntimeError("could not find enough distinct candidate programs")
            prog = make()
            if prog not in seen:
                seen.add(prog)
                pool.append(prog)
                added += 1

    add(
        lambda: mutate(
            correct[int(rng.integers(len(correct)))],
            rng,
            n_edits=int(rng.integers(1, 3)),
        ),
        n_mutants,
    )
    add(lambda: random_program(rng), n_random)
    return tuple(pool)


@dataclass(frozen=True)
class Bandit:
    """P prompts, each with a pool of K candidate programs and their actual scores (P, K)."""

    tasks: tuple[Task, ...]
    programs: tuple[tuple[Program, ...], ...]
    scores: np.ndarray

    @property
    def shape(self) -> tuple[int, int]:
        return self.scores.shape


def make_bandit(
    n_prompts: int,
    rng: np.random.Generator,
    *,
    n_correct: int = 3,
    n_mutants: int = 21,
    n_random: int = 8,
) -> Bandit:
    """`n_prompts` random prompts with their candidate pools, scored by the verifier."""
    if isinstance(n_prompts, bool) or not isinstance(n_prompts, int) or n_prompts < 1:
        raise ValueError(f"n_prompts must be a positive int, got {n_prompts!r}")
    tasks, programs = [], []
    for _ in range(n_prompts):
        task = sample_task(rng)
        tasks.append(task)
        programs.append(
            candidate_pool(
                task, rng, n_correct=n_correct, n_mutants=n_mutants, n_random=n_random
            )
        )
    scores = np.array(
        [[pass_rate(p, t) for p in pool] for t, pool in zip(tasks, programs)]
    )
    return Bandit(tuple(tasks), tuple(programs), scores)


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
    if isinstance(dim, bool) or not isinstance(dim, int) or dim < 2:
        raise ValueError(f"dim must be an int ≥ 2, got {dim!r}")
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
    if isinstance(n_pairs, bool) or not isinstance(n_pairs, int) or n_pairs < 1:
        raise ValueError(f"n_pairs must be a positive int, got {n_pairs!r}")
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


# ---------------------------------------------------------------------------------------------
# Filters: the paper's per prompt, and verl's batch-level reweighting
# ---------------------------------------------------------------------------------------------
PER_PROMPT = ("all", "bon", "br", "bw", "worst", "random2", "random1")
"""`all` = PPO-M (every response), `bon` = best of N, `br` = best + one random other,
`bw` = best + worst, `worst` = worst only, `random2` = two at random, `random1` = one at
random (the sample-count control of BoN)."""
BATCH_LEVEL = ("verl-pow", "verl-max_min", "verl-max_random")
"""verl's `compute_pf_ppo_reweight_data`: weights over the whole batch, resampled with
replacement to the batch size."""
STRATEGIES = PER_PROMPT + BATCH_LEVEL


def _check_rewards(rewards, name: str = "rewards") -> np.ndarray:
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 2:
        raise ValueError(f"{name} must be a (prompts, N) array, got shape {r.shape}")
    if not np.all(np.isfinite(r)):
        raise ValueError(
            f"{name} must be finite, got {r[~np.isfinite(r)][:3]} among them"
        )
    return r


def best_worst(rewards) -> tuple[np.ndarray, np.ndarray]:
    """Per prompt (row): the best response (lowest index among the maxima) and the worst (highest
    index among the minima). With N ≥ 2 the two differ even when all rewards tie."""
    r = _check_rewards(rewards)
    best = np.argmax(r, axis=1)
    worst = r.shape[1] - 1 - np.argmin(r[:, ::-1], axis=1)
    return best, worst


def keep_count(strategy: str, n: int) -> int:
    """How many of the N responses of a prompt a strategy keeps (batch-level ones: N on average)."""
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {STRATEGIES}, got {strategy!r}")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive int, got {n!r}")
    if strategy in ("br", "bw", "random2") and n < 2:
        raise ValueError(
            f"strategy {strategy!r} keeps two responses and needs n ≥ 2, got {n}"
        )
    kept = {"bon": 1, "worst": 1, "random1": 1, "br": 2, "bw": 2, "random2": 2}
    return kept.get(strategy, int(n))


def select(
    rewards, strategy: str, rng: np.random.Generator | None = None
) -> np.ndarray:
    """The paper's per-prompt filters: a boolean mask (prompts, N) of the responses kept.

    Ties are broken deterministically (see `best_worst`); `br` and `random2` draw from `rng`.
    """
    r = _check_rewards(rewards)
    if strategy not in PER_PROMPT:
        raise ValueError(f"strategy must be one of {PER_PROMPT}, got {strategy!r}")
    m, n = r.shape
    keep_count(strategy, n)
    mask = np.zeros((m, n), dtype=bool)
    rows = np.arange(m)
    if strategy == "all":
        mask[:] = True
        return mask
    if strategy in ("br", "random2", "random1") and rng is None:
        raise ValueError(f"strategy {strategy!r} draws at random: pass rng")
    best, worst = best_worst(r)
    if strategy in ("bon", "br", "bw"):
        mask[rows, best] = True
    if strategy == "br":  # one uniformly random response other than the best
        other = rng.integers(n - 1, size=m)
        mask[rows, other + (other >= best)] = True
    elif strategy in ("bw", "worst"):
        mask[rows, worst] = True
    elif strategy == "random2":
        two = np.argsort(rng.random((m, n)), axis=1)[:, :2]
        mask[rows[:, None], two] = True
    elif strategy == "random1":
        mask[rows, rng.integers(n, size=m)] = True
    return mask


def verl_weights(scores, method: str, *, power: float = 2.0) -> np.ndarray:
    """verl's PF-PPO weights over a flat batch of scores: `pow` |s|^power; `max_min` 1 for the
    batch maximum and minimum, else 0; `max_random` 0.4 for the batch maximum, else 0.1."""
    s = np.asarray(scores, dtype=float)
    if s.ndim != 1 or s.size == 0:
        raise ValueError(f"scores must be a non-empty 1-d array, got shape {s.shape}")
    if not np.all(np.isfinite(s)):
        raise ValueError("scores must be finite")
    if method == "pow":
        return np.abs(s) ** power
    if method == "max_min":
        return np.where((s == s.max()) | (s == s.min()), 1.0, 0.0)
    if method == "max_random":
        return np.where(s == s.max(), 0.4, 0.1)
    raise ValueError(f"method must be 'pow', 'max_min' or 'max_random', got {method!r}")


def verl_resample(
    scores, method: str, rng: np.random.Generator, *, power: float = 2.0
) -> np.ndarray:
    """Indices of verl's resampled batch: the batch size drawn with replacement with probability
    proportional to `verl_weights` + 1e-8 (as `compute_pf_ppo_reweight_data` does)."""
    w = np.maximum(verl_weights(scores, method, power=power) + 1e-8, 1e-8)
    return rng.choice(w.size, size=w.size, replace=True, p=w / w.sum())


def r_squared(rewards, scores) -> float:
    """Coefficient of determination of the least-squares line of actual score on reward: the share
    of the actual scores' variance the reward explains (= squared Pearson correlation)."""
    x = np.asarray(rewards, dtype=float).ravel()
    y = np.asarray(scores, dtype=float).ravel()
    if x.size != y.size:
        raise ValueError(
            f"rewards and scores must have the same length, got {x.size} and {y.size}"
        )
    if x.size < 3:
        raise ValueError(f"R² needs at least 3 samples, got {x.size}")
    for name, v in (("rewards", x), ("scores", y)):
        if not np.all(np.isfinite(v)):
            raise ValueError(f"{name} must be finite")
        if np.ptp(v) == 0:
            raise ValueError(f"{name} are constant: R² is undefined")
    xc, yc = x - x.mean(), y - y.mean()
    slope = (xc @ yc) / (xc @ xc)
    resid = yc - slope * xc
    return float(1.0 - (resid @ resid) / (yc @ yc))


def filtered_r_squared(
    rewards,
    scores,
    strategy: str,
    rng: np.random.Generator | None = None,
    *,
    power: float = 2.0,
) -> float:
    """R² between reward and actual score on the samples a strategy keeps, pooled over prompts.
    `rewards` and `scores` are (prompts, N); batch-level strategies resample the flat batch."""
    r, s = _check_rewards(rewards), _check_rewards(scores, "scores")
    if r.shape != s.shape:
        raise ValueError(
            f"rewards and scores must have the same shape, got {r.shape} and {s.shape}"
        )
    if strategy in BATCH_LEVEL:
        if rng is None:
            raise ValueError(f"strategy {strategy!r} resamples at random: pass rng")
        idx = verl_resample(r.ravel(), strategy.split("-", 1)[1], rng, power=power)
        return r_squared(r.ravel()[idx], s.ravel()[idx])
    mask = select(r, strategy, rng)
    return r_squared(r[mask], s[mask])


def reliability_by_bin(rewards, scores, n_bins: int = 10) -> dict[str, np.ndarray]:
    """Split samples into `n_bins` equal-count bins of reward (deciles by default) and return each
    bin's mean reward, mean and variance of the actual score, and count."""
    x = np.asarray(rewards, dtype=float).ravel()
    y = np.asarray(scores, dtype=float).ravel()
    if x.size != y.size:
        raise ValueError(
            f"rewards and scores must have the same length, got {x.size} and {y.size}"
        )
    if (
        isinstance(n_bins, bool)
        or not isinstance(n_bins, int)
        or not 2 <= n_bins <= x.size
    ):
        raise ValueError(f"n_bins must be an int in [2, {x.size}], got {n_bins!r}")
    order = np.argsort(x, kind="stable")
    bins = np.array_split(order, n_bins)
    return {
        "reward": np.array([x[b].mean() for b in bins]),
        "mean": np.array([y[b].mean() for b in bins]),
        "var": np.array([y[b].var() for b in bins]),
        "count": np.array([b.size for b in bins]),
    }


# ---------------------------------------------------------------------------------------------
# PPO-clip on a categorical policy over the candidate pool
# ---------------------------------------------------------------------------------------------
def ppo_clip_loss(logp, logp_old, advantages, *, clip: float = 0.2) -> np.ndarray:
    """Per-sample PPO-clip loss −min(ρ·A, clip(ρ, 1−ε, 1+ε)·A) with ρ = exp(logp − logp_old)."""
    logp, logp_old, adv = (
        np.asarray(v, dtype=float) for v in (logp, logp_old, advantages)
    )
    if not (logp.shape == logp_old.shape == adv.shape):
        raise ValueError(
            f"logp, logp_old and advantages must have the same shape, got "
            f"{logp.shape}, {logp_old.shape}, {adv.shape}"
        )
    if not 0 < clip < 1:
        raise ValueError(f"clip must lie in (0, 1), got {clip!r}")
    ratio = np.exp(logp - logp_old)
    return -np.minimum(ratio * adv, np.clip(ratio, 1 - clip, 1 + clip) * adv)


def ppo_clip_grad(logp, logp_old, advantages, *, clip: float = 0.2) -> np.ndarray:
    """d(−loss)/d(logp) per sample: ρ·A where the unclipped term is the minimum, else 0."""
    logp, logp_old, adv = (
        np.asarray(v, dtype=float) for v in (logp, logp_old, advantages)
    )
    ratio = np.exp(logp - logp_old)
    active = ((adv >= 0) & (ratio < 1 + clip)) | ((adv < 0) & (ratio > 1 - clip))
    return np.where(active, ratio * adv, 0.0)


@dataclass(frozen=True)
class PPOConfig:
    """PPO settings, equal for every strategy.

    `prompts` rollout prompts per update, the same for every strategy, as the official filter
    code keeps its rollout batch: each prompt gets N responses and a strategy keeping k of them
    trains on k·prompts samples (filtering costs gradient samples, not updates: every prompt is
    visited as often under every filter). `lr` is the step on the logits per sample (summed
    loss, so a sample weighs the same under every filter); `kl_coef` penalises log(π/π_ref) of
    the sampled response in the reward, as OpenRLHF does; `value_lr` is the tabular critic's
    step."""

    n_updates: int = 60
    prompts: int = 100
    minibatches: int = 4
    epochs: int = 1
    lr: float = 0.2
    clip: float = 0.2
    kl_coef: float = 0.01
    value_lr: float = 0.5
    power: float = 2.0

    def __post_init__(self):
        for name in ("n_updates", "prompts", "minibatches", "epochs"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name} must be a positive int, got {v!r}")
        for name in ("lr", "value_lr"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)!r}")
        if not 0 < self.clip < 1:
            raise ValueError(f"clip must lie in (0, 1), got {self.clip!r}")
        if not self.kl_coef >= 0:
            raise ValueError(f"kl_coef must be ≥ 0, got {self.kl_coef!r}")


@dataclass(frozen=True)
class TrainTrace:
    """Expected actual score, expected RM reward and KL(π‖π_ref) of the policy after each update
    (index 0 = initial policy), averaged over prompts; the final policy's expected actual score
    and RM reward per prompt; the final probabilities (P, K) (None for a token-level policy); and
    the number of responses rolled out; `trained`, the number of samples the actor trained on,
    summed over updates (keep count × prompts × updates for a per-prompt filter)."""

    actual: np.ndarray
    reward: np.ndarray
    kl: np.ndarray
    final_actual: np.ndarray
    final_reward: np.ndarray
    probs: np.ndarray | None
    rollouts: int
    steps: np.ndarray | None = (
        None  # update index of each recorded point (None: every update)
    )
    trained: int = 0


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def sample_responses(probs: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """N responses per row of `probs` (rows sum to 1), by inverse CDF: indices (rows, n)."""
    cum = np.cumsum(probs, axis=1)
    u = rng.random((probs.shape[0], n)) * cum[:, -1:]
    idx = (u[:, :, None] >= cum[:, None, :]).sum(axis=2)
    return np.minimum(idx, probs.shape[1] - 1)


def train_bandit(
    rewards,
    scores,
    strategy: str,
    n: int,
    config: PPOConfig,
    rng: np.random.Generator,
    *,
    init_logits=None,
) -> TrainTrace:
    """PPO with policy filtration on a categorical policy over each prompt's candidate pool.

    Each update: draw `config.prompts` prompts (cycling through a shuffled order; the same number
    for every strategy, so every prompt is updated as often under every filter), sample N responses per
    prompt from the current policy, score them with the RM (`rewards`, (P, K)), subtract the KL
    penalty, take advantages against a tabular critic V(prompt), filter (per prompt, or verl's
    batch-level resampling), normalise the advantages over the batch, train the critic on the kept
    samples and take `epochs` × `minibatches` PPO-clip steps on the logits. `scores` (the actual
    pass rates) are only read to report the expected actual score; the learner never sees them.
    """
    R, S = _check_rewards(rewards), _check_rewards(scores, "scores")
    if R.shape != S.shape:
        raise ValueError(
            f"rewards and scores must have the same shape, got {R.shape} and {S.shape}"
        )
    keep_count(strategy, n)  # checks the strategy and n
    P, K = R.shape
    if K < 2:
        raise ValueError(f"the pool needs at least 2 candidates, got {K}")
    theta = (
        np.zeros((P, K))
        if init_logits is None
        else np.array(init_logits, dtype=float, copy=True)
    )
    if theta.shape != (P, K):
        raise ValueError(f"init_logits must have shape {(P, K)}, got {theta.shape}")
    log_ref = np.log(_softmax(theta))
    V = np.zeros(P)
    n_prompts = config.prompts
    stream, pos = rng.permutation(P), 0
    trace_a, trace_r, trace_kl = [], [], []
    rollouts = trained = 0

    def record():
        pi = _softmax(theta)
        trace_a.append(float((pi * S).sum(1).mean()))
        trace_r.append(float((pi * R).sum(1).mean()))
        trace_kl.append(float((pi * (np.log(pi) - log_ref)).sum(1).mean()))

    record()
    for _ in range(config.n_updates):
        idx = np.empty(n_prompts, dtype=int)
        for j in range(n_prompts):
            if pos == P:
                stream, pos = rng.permutation(P), 0
            idx[j], pos = stream[pos], pos + 1
        pi = _softmax(theta[idx])
        draws = sample_responses(pi, n, rng)
        rollouts += draws.size
        logp_old = np.log(np.take_along_axis(pi, draws, axis=1))
        r = R[idx[:, None], draws]
        r_kl = r - config.kl_coef * (logp_old - log_ref[idx[:, None], draws])
        adv = r_kl - V[idx][:, None]
        prompts = np.repeat(idx[:, None], n, axis=1)
        if strategy in PER_PROMPT:
            mask = select(r, strategy, rng)
            sel_p, sel_a = prompts[mask], draws[mask]
            sel_adv, sel_lp, sel_ret = adv[mask], logp_old[mask], r_kl[mask]
            sel_adv = (sel_adv - sel_adv.mean()) / max(sel_adv.std(), 1e-8)
        else:  # verl: advantages whitened over the whole batch, then resampled
            flat_adv = adv.ravel()
            flat_adv = (flat_adv - flat_adv.mean()) / max(flat_adv.std(), 1e-8)
            pick = verl_resample(
                r.ravel(), strategy.split("-", 1)[1], rng, power=config.power
            )
            sel_p, sel_a = prompts.ravel()[pick], draws.ravel()[pick]
            sel_adv, sel_lp, sel_ret = (
                flat_adv[pick],
                logp_old.ravel()[pick],
                r_kl.ravel()[pick],
            )
        # critic: move V(prompt) toward the mean return of its kept samples
        total = np.zeros(P)
        count = np.zeros(P)
        np.add.at(total, sel_p, sel_ret)
        np.add.at(count, sel_p, 1.0)
        seen = count > 0
        V[seen] += config.value_lr * (total[seen] / count[seen] - V[seen])
        # actor: PPO-clip steps
        m = sel_p.size
        trained += m
        for _ in range(config.epochs):
            order = rng.permutation(m)
            for chunk in np.array_split(order, config.minibatches):
                if chunk.size == 0:
                    continue
                p, a = sel_p[chunk], sel_a[chunk]
                pi_now = _softmax(theta[p])
                lp = np.log(pi_now[np.arange(p.size), a])
                g = ppo_clip_grad(lp, sel_lp[chunk], sel_adv[chunk], clip=config.clip)
                step = -pi_now * g[:, None]
                step[np.arange(p.size), a] += g
                np.add.at(theta, p, config.lr * step)
        record()
    pi = _softmax(theta)
    return TrainTrace(
        np.array(trace_a),
        np.array(trace_r),
        np.array(trace_kl),
        (pi * S).sum(1),
        (pi * R).sum(1),
        pi,
        rollouts,
        trained=trained,
    )


# ---------------------------------------------------------------------------------------------
# Statistics
# ---------------------------------------------------------------------------------------------
def bootstrap_interval(
    values,
    rng: np.random.Generator,
    *,
    n_boot: int = 2000,
    level: float = 0.95,
    stat=np.mean,
) -> tuple[float, float]:
    """Percentile bootstrap interval of `stat` over the first axis of `values` (rows resampled
    with replacement). `stat` receives the resampled rows; pass row indices as `values` to
    resample several arrays together."""
    v = np.asarray(values)
    if v.ndim == 0 or not np.issubdtype(v.dtype, np.number):
        raise ValueError(
            f"values must be a numeric array with rows, got {values!r:.60}"
        )
    if v.shape[0] < 2:
        raise ValueError(f"values needs at least 2 rows, got {v.shape[0]}")
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    idx = rng.integers(v.shape[0], size=(n_boot, v.shape[0]))
    stats = np.array([stat(v[i]) for i in idx])
    lo, hi = np.quantile(stats, [(1 - level) / 2, (1 + level) / 2])
    return float(lo), float(hi)


# ---------------------------------------------------------------------------------------------
# Full scale: a token-level transformer policy, PPO with a critic, GAE and KL to the SFT policy
# ---------------------------------------------------------------------------------------------
EOS = "<eos>"
PROMPT_TOKENS = tuple(f"a={i}" for i in range(MOD)) + tuple(
    f"b={i}" for i in range(MOD)
)
OUT_TOKENS: tuple[str, ...] = VOCAB + (EOS,)
"""What the policy emits: a program token or the end of the program."""
IN_TOKENS: tuple[str, ...] = ("<bos>",) + PROMPT_TOKENS + OUT_TOKENS
PROMPT_LEN = 3  # <bos> a=… b=…
MAX_NEW = MAX_LEN + 1  # up to 8 program tokens and the end token
_OUT_OFFSET = 1 + len(PROMPT_TOKENS)
_EOS_ID = len(OUT_TOKENS) - 1


def encode_prompts(tasks: Sequence[Task]) -> np.ndarray:
    """Token ids (P, 3) of `<bos> a=… b=…`."""
    return np.array([[0, 1 + t.a, 1 + MOD + t.b] for t in tasks], dtype=np.int64)


def encode_programs(programs: Sequence[Sequence[str]]) -> np.ndarray:
    """Action ids (B, MAX_NEW) into OUT_TOKENS: the program, then the end token repeated."""
    out = np.full((len(programs), MAX_NEW), _EOS_ID, dtype=np.int64)
    for i, prog in enumerate(programs):
        prog = _check_program(prog)
        if len(prog) > MAX_LEN:
            raise ValueError(f"program {prog} is longer than {MAX_LEN} tokens")
        out[i, : len(prog)] = [VOCAB.index(t) for t in prog]
    return out


def decode_actions(actions) -> list[Program]:
    """Programs from action ids: the tokens before the first end token."""
    out = []
    for row in np.asarray(actions):
        toks = []
        for a in row:
            if a == _EOS_ID:
                break
            toks.append(VOCAB[int(a)])
        out.append(tuple(toks))
    return out


def action_mask(actions) -> np.ndarray:
    """True for the emitted actions: every program token and the first end token."""
    a = np.asarray(actions)
    ended_before = np.cumsum(a == _EOS_ID, axis=1) - (a == _EOS_ID)
    return ended_before == 0


def make_tiny_lm(
    seed: int,
    *,
    d_model: int = 64,
    n_layers: int = 2,
    n_heads: int = 4,
    value_head: bool = False,
):
    """A causal transformer over IN_TOKENS with a head over OUT_TOKENS (and a scalar value head
    if `value_head`), initialised from `seed` without touching the global torch generator."""
    import torch
    from torch import nn

    class TinyLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(len(IN_TOKENS), d_model)
            self.pos = nn.Embedding(PROMPT_LEN + MAX_NEW, d_model)
            layer = nn.TransformerEncoderLayer(
                d_model,
                n_heads,
                4 * d_model,
                dropout=0.0,
                batch_first=True,
                norm_first=True,
            )
            self.body = nn.TransformerEncoder(
                layer, n_layers, enable_nested_tensor=False
            )
            self.norm = nn.LayerNorm(d_model)
            self.head = nn.Linear(d_model, len(OUT_TOKENS))
            self.value = nn.Linear(d_model, 1) if value_head else None

        def forward(self, tokens):
            T = tokens.shape[1]
            pos = torch.arange(T, device=tokens.device)
            mask = torch.triu(
                torch.full((T, T), float("-inf"), device=tokens.device), 1
            )
            h = self.norm(
                self.body(self.embed(tokens) + self.pos(pos), mask=mask, is_causal=True)
            )
            values = self.value(h).squeeze(-1) if self.value is not None else None
            return self.head(h), values

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(int(seed))
        return TinyLM()


def _sequences(prompts, actions):
    import torch

    return torch.cat([prompts, actions[:, :-1] + _OUT_OFFSET], dim=1)


def _action_logp(model, prompts, actions):
    """log π(action_j | prefix) for every action position, and the values there (or None)."""
    import torch

    logits, values = model(_sequences(prompts, actions))
    logits = logits[:, PROMPT_LEN - 1 :]
    logp = torch.log_softmax(logits, dim=-1).gather(-1, actions[..., None]).squeeze(-1)
    return logp, (values[:, PROMPT_LEN - 1 :] if values is not None else None)


def generate(model, prompts, generator, *, device: str = "cpu"):
    """Sample one program per prompt row (ids (B, 3)), token by token at temperature 1; the end
    token is forced after 8 program tokens. Uniform draws come from the CPU `generator`, so the
    samples are the same on any device. Returns action ids (B, MAX_NEW) on `device`."""
    import torch

    B = prompts.shape[0]
    actions = torch.full((B, MAX_NEW), _EOS_ID, dtype=torch.long, device=device)
    done = torch.zeros(B, dtype=torch.bool, device=device)
    with torch.no_grad():
        for j in range(MAX_NEW):
            if j == MAX_NEW - 1:
                break  # the last action is the end token
            seq = torch.cat([prompts, actions[:, :j] + _OUT_OFFSET], dim=1)
            probs = torch.softmax(model(seq)[0][:, -1].double(), dim=-1)
            u = torch.rand(B, 1, generator=generator, dtype=torch.float64).to(device)
            cum = probs.cumsum(-1)
            tok = torch.clamp((u * cum[:, -1:] >= cum).sum(-1), max=len(OUT_TOKENS) - 1)
            tok = torch.where(done, torch.full_like(tok, _EOS_ID), tok)
            actions[:, j] = tok
            done |= tok == _EOS_ID
    return actions


def sft_train(
    model,
    tasks: Sequence[Task],
    programs: Sequence[Sequence[Program]],
    *,
    steps: int,
    batch: int,
    lr: float,
    rng: np.random.Generator,
    device: str = "cpu",
) -> np.ndarray:
    """Supervised fine-tuning on (prompt, program) pairs drawn uniformly from each prompt's pool
    (cross-entropy on the program tokens and the end token). Returns the loss per step."""
    import torch

    if len(tasks) != len(programs):
        raise ValueError(
            f"tasks and programs must have the same length, got {len(tasks)} and "
            f"{len(programs)}"
        )
    prompts = torch.as_tensor(encode_prompts(tasks), device=device)
    flat = [(i, p) for i, pool in enumerate(programs) for p in pool]
    acts = torch.as_tensor(encode_programs([p for _, p in flat]), device=device)
    owner = torch.as_tensor([i for i, _ in flat], device=device)
    mask = torch.as_tensor(action_mask(acts.cpu().numpy()), device=device).float()
    model.to(device).train()
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        pick = torch.as_tensor(rng.integers(len(flat), size=batch), device=device)
        logp, _ = _action_logp(model, prompts[owner[pick]], acts[pick])
        loss = -(logp * mask[pick]).sum() / mask[pick].sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return np.array(losses)


def gae(rewards, values, mask, *, gamma: float = 1.0, lam: float = 0.95):
    """Generalised advantage estimation over the action positions (B, T) of finished sequences
    (the value after the last action is 0). Returns advantages and returns (torch tensors)."""
    import torch

    B, T = rewards.shape
    adv = torch.zeros_like(rewards)
    last = torch.zeros(B, dtype=rewards.dtype, device=rewards.device)
    values = values * mask
    for t in reversed(range(T)):
        nxt = values[:, t + 1] if t + 1 < T else torch.zeros_like(last)
        delta = rewards[:, t] + gamma * nxt - values[:, t]
        last = (delta + gamma * lam * last) * mask[:, t]
        adv[:, t] = last
    return adv, adv + values


@dataclass(frozen=True)
class TokenPPOConfig:
    """Token-level PPO settings, equal for every strategy (see `PPOConfig` for `prompts`)."""

    n_updates: int = 60
    prompts: int = 128
    minibatches: int = 4
    epochs: int = 1
    lr: float = 1e-4
    critic_lr: float = 5e-4
    clip: float = 0.2
    value_clip: float = 0.2
    kl_coef: float = 0.01
    gamma: float = 1.0
    lam: float = 0.95
    eval_every: int = 10
    eval_samples: int = 8
    power: float = 2.0

    def __post_init__(self):
        for name in (
            "n_updates",
            "prompts",
            "minibatches",
            "epochs",
            "eval_every",
            "eval_samples",
        ):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name} must be a positive int, got {v!r}")
        if not 0 < self.clip < 1:
            raise ValueError(f"clip must lie in (0, 1), got {self.clip!r}")
        if not (self.lr > 0 and self.critic_lr > 0):
            raise ValueError("lr and critic_lr must be > 0")


class ProgramScorer:
    """Actual score and reward of (prompt index, program) pairs, cached: the verifier, and either
    the learned RM (weights `w`) or the homoscedastic RM (actual score + σ·ε, ε fixed per pair by a
    hash of the pair and `noise_seed`). Rewards are (raw − shift) / scale."""

    def __init__(
        self,
        tasks: Sequence[Task],
        *,
        w: np.ndarray | None = None,
        sigma: float | None = None,
        noise_seed: int = 0,
        shift: float = 0.0,
        scale: float = 1.0,
    ):
        if (w is None) == (sigma is None):
            raise ValueError("give either w (learned RM) or sigma (homoscedastic RM)")
        self.tasks, self.w, self.sigma, self.noise_seed = (
            tuple(tasks),
            w,
            sigma,
            noise_seed,
        )
        self.shift, self.scale = float(shift), float(scale)
        self._cache: dict[tuple[int, Program], tuple[float, float]] = {}

    def raw(self, i: int, program: Program) -> tuple[float, float]:
        key = (int(i), program)
        if key not in self._cache:
            task = self.tasks[key[0]]
            s = pass_rate(program, task)
            if self.w is not None:
                r = sum(
                    v * self.w[j]
                    for j, v in features(task, program, dim=self.w.size).items()
                )
            else:
                h = zlib.crc32(repr(key).encode())
                eps = np.random.default_rng([self.noise_seed, h]).standard_normal()
                r = s + self.sigma * eps
            self._cache[key] = (s, float(r))
        return self._cache[key]

    def __call__(self, idx, programs) -> tuple[np.ndarray, np.ndarray]:
        """Actual scores and standardised rewards, arrays of len(programs)."""
        pairs = [self.raw(i, p) for i, p in zip(idx, programs)]
        s = np.array([p[0] for p in pairs])
        r = (np.array([p[1] for p in pairs]) - self.shift) / self.scale
        return s, r


def sample_policy(
    model, tasks_idx, prompts_all, n: int, generator, *, device: str = "cpu"
):
    """N programs per prompt index from `model`: (programs list of P·n, action ids tensor)."""
    import torch

    idx = np.repeat(np.asarray(tasks_idx), n)
    prompts = prompts_all[torch.as_tensor(idx, device=device)]
    model.eval()
    acts = generate(model, prompts, generator, device=device)
    return idx, decode_actions(acts.cpu().numpy()), acts


def minibatch_count(kept: int, batch: int, minibatches: int) -> int:
    """How many optimiser steps an epoch takes on `kept` samples when an unfiltered batch of
    `batch` samples takes `minibatches`: the minibatch size is fixed (⌈batch / minibatches⌉, as
    the official trainer's fixed train batch size) and the steps scale with the samples kept,
    ⌈kept / size⌉ (at least 1)."""
    for name, v in (("kept", kept), ("batch", batch), ("minibatches", minibatches)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be a positive int, got {v!r}")
    size = -(-int(batch) // int(minibatches))
    return max(1, -(-int(kept) // size))


def train_tokens(
    sft_model,
    scorer: ProgramScorer,
    strategy: str,
    n: int,
    config: TokenPPOConfig,
    rng: np.random.Generator,
    generator,
    *,
    device: str = "cpu",
    eval_idx=None,
) -> TrainTrace:
    """Token-level PPO with policy filtration from the SFT model (also the KL reference).

    Each update: `config.prompts` prompts (the same for every strategy), N samples each,
    rewards from `scorer` at the end token and a per-token KL penalty −β·log(π_old/π_ref), GAE
    (γ, λ) with a separate critic (a copy of the SFT body with a value head), per-prompt
    filtering (or verl's batch-level resampling after whitening), advantages normalised over
    the kept tokens, and per epoch clipped actor and critic steps (Adam, gradient norm 1) on
    minibatches of a fixed size, ⌈prompts·N / `minibatches`⌉ samples, so that the number of
    steps scales with the samples kept (`minibatch_count`), as in the official trainer. Every
    `eval_every` updates the policy samples `eval_samples` programs per evaluation prompt to
    estimate its actual score and reward.
    """
    import copy

    import torch

    keep_count(strategy, n)  # checks the strategy and n
    P = len(scorer.tasks)
    eval_idx = np.arange(P) if eval_idx is None else np.asarray(eval_idx)
    prompts_all = torch.as_tensor(encode_prompts(scorer.tasks), device=device)
    actor = copy.deepcopy(sft_model).to(device)
    ref = copy.deepcopy(sft_model).to(device).eval()
    critic = make_tiny_lm(
        int(rng.integers(2**31)),
        d_model=actor.embed.embedding_dim,
        n_layers=len(actor.body.layers),
        n_heads=actor.body.layers[0].self_attn.num_heads,
        value_head=True,
    )
    critic.load_state_dict(sft_model.state_dict(), strict=False)
    critic.to(device)
    opt_a = torch.optim.Adam(actor.parameters(), lr=config.lr)
    opt_c = torch.optim.Adam(critic.parameters(), lr=config.critic_lr)
    n_prompts = config.prompts
    stream, pos = rng.permutation(P), 0
    steps, trace_a, trace_r, trace_kl = [], [], [], []
    rollouts = trained = 0

    def evaluate(step):
        idx, progs, acts = sample_policy(
            actor, eval_idx, prompts_all, config.eval_samples, generator, device=device
        )
        s, r = scorer(idx, progs)
        with torch.no_grad():
            m = torch.as_tensor(action_mask(acts.cpu().numpy()), device=device).float()
            lp, _ = _action_logp(
                actor, prompts_all[torch.as_tensor(idx, device=device)], acts
            )
            lr_, _ = _action_logp(
                ref, prompts_all[torch.as_tensor(idx, device=device)], acts
            )
            kl = float(((lp - lr_) * m).sum(1).mean())
        steps.append(step)
        trace_a.append(float(s.mean()))
        trace_r.append(float(r.mean()))
        trace_kl.append(kl)
        return s.reshape(-1, config.eval_samples).mean(1), r.reshape(
            -1, config.eval_samples
        ).mean(1)

    evaluate(0)
    for u in range(config.n_updates):
        idx = np.empty(n_prompts, dtype=int)
        for j in range(n_prompts):
            if pos == P:
                stream, pos = rng.permutation(P), 0
            idx[j], pos = stream[pos], pos + 1
        rep, progs, acts = sample_policy(
            actor, idx, prompts_all, n, generator, device=device
        )
        rollouts += len(progs)
        _, r = scorer(rep, progs)
        pr = prompts_all[torch.as_tensor(rep, device=device)]
        mask = torch.as_tensor(action_mask(acts.cpu().numpy()), device=device).float()
        with torch.no_grad():
            lp_old, _ = _action_logp(actor, pr, acts)
            lp_ref, _ = _action_logp(ref, pr, acts)
            _, v_old = _action_logp(critic, pr, acts)
        last = mask.sum(1).long() - 1
        rew = -config.kl_coef * (lp_old - lp_ref) * mask
        rew[torch.arange(len(progs)), last] += torch.as_tensor(
            r, device=device, dtype=rew.dtype
        )
        adv, ret = gae(rew, v_old, mask, gamma=config.gamma, lam=config.lam)
        if strategy in PER_PROMPT:
            keep = np.flatnonzero(
                select(r.reshape(n_prompts, n), strategy, rng).ravel()
            )
            kt = torch.as_tensor(keep, device=device)
            m_k = mask[kt]
            a_k = adv[kt]
            mean = (a_k * m_k).sum() / m_k.sum()
            std = torch.sqrt((((a_k - mean) ** 2) * m_k).sum() / m_k.sum()).clamp(
                min=1e-8
            )
            a_k = (a_k - mean) / std
        else:
            mean = (adv * mask).sum() / mask.sum()
            std = torch.sqrt((((adv - mean) ** 2) * mask).sum() / mask.sum()).clamp(
                min=1e-8
            )
            whitened = (adv - mean) / std
            keep = verl_resample(r, strategy.split("-", 1)[1], rng, power=config.power)
            kt = torch.as_tensor(keep, device=device)
            m_k, a_k = mask[kt], whitened[kt]
        pr_k, acts_k, lp_k, v_k, ret_k = (
            pr[kt],
            acts[kt],
            lp_old[kt],
            v_old[kt],
            ret[kt],
        )
        actor.train()
        critic.train()
        trained += len(keep)
        n_chunks = minibatch_count(len(keep), n_prompts * n, config.minibatches)
        for _ in range(config.epochs):
            order = rng.permutation(len(keep))
            for chunk in np.array_split(order, n_chunks):
                if chunk.size == 0:
                    continue
                c = torch.as_tensor(chunk, device=device)
                mk = m_k[c]
                lp, _ = _action_logp(actor, pr_k[c], acts_k[c])
                ratio = torch.exp(lp - lp_k[c])
                surr = torch.minimum(
                    ratio * a_k[c],
                    ratio.clamp(1 - config.clip, 1 + config.clip) * a_k[c],
                )
                loss_a = -((surr * mk).sum(1) / mk.sum(1)).mean()
                opt_a.zero_grad()
                loss_a.backward()
                torch.nn.utils.clip_grad_norm_(actor.parameters(), 1.0)
                opt_a.step()
                _, v = _action_logp(critic, pr_k[c], acts_k[c])
                v_clip = v_k[c] + (v - v_k[c]).clamp(
                    -config.value_clip, config.value_clip
                )
                loss_v = torch.maximum((v - ret_k[c]) ** 2, (v_clip - ret_k[c]) ** 2)
                loss_v = 0.5 * ((loss_v * mk).sum(1) / mk.sum(1)).mean()
                opt_c.zero_grad()
                loss_v.backward()
                torch.nn.utils.clip_grad_norm_(critic.parameters(), 1.0)
                opt_c.step()
        if (u + 1) % config.eval_every == 0 and u + 1 < config.n_updates:
            evaluate(u + 1)
    fin_a, fin_r = evaluate(config.n_updates)
    return TrainTrace(
        np.array(trace_a),
        np.array(trace_r),
        np.array(trace_kl),
        fin_a,
        fin_r,
        None,
        rollouts,
        steps=np.array(steps),
        trained=trained,
    )


@dataclass(frozen=True)
class TokenWorld:
    """One replicate at full scale: the SFT model, its prompts, the two RMs as `ProgramScorer`s
    (rewards standardised over the SFT samples) and `n_samples` SFT samples per prompt with their
    standardised rewards under both RMs and actual scores, each (P, n_samples)."""

    sft: object
    prompts: object
    learned: ProgramScorer
    homoscedastic: ProgramScorer
    rewards: np.ndarray
    homo_rewards: np.ndarray
    scores: np.ndarray
    corr: float


def build_token_world(
    bandit: Bandit,
    w: np.ndarray,
    *,
    sft_steps: int,
    sft_batch: int,
    sft_lr: float,
    rng: np.random.Generator,
    generator,
    noise_seed: int,
    n_samples: int = 32,
    device: str = "cpu",
    model_kw: dict | None = None,
) -> TokenWorld:
    """SFT a tiny transformer on `bandit`'s pools, sample `n_samples` programs per prompt from it,
    and build the learned RM (weights `w`) and the homoscedastic RM whose correlation with the
    actual score on those samples matches the learned RM's. `model_kw` goes to `make_tiny_lm`."""
    import torch

    sft = make_tiny_lm(int(rng.integers(2**31)), **(model_kw or {})).to(device)
    sft_train(
        sft,
        bandit.tasks,
        bandit.programs,
        steps=sft_steps,
        batch=sft_batch,
        lr=sft_lr,
        rng=rng,
        device=device,
    )
    prompts = torch.as_tensor(encode_prompts(bandit.tasks), device=device)
    P = len(bandit.tasks)
    idx, progs, _ = sample_policy(
        sft, np.arange(P), prompts, n_samples, generator, device=device
    )
    S, raw = ProgramScorer(bandit.tasks, w=w)(idx, progs)
    corr = float(np.corrcoef(raw, S)[0, 1])
    if not 0 < corr < 1:
        raise ValueError(
            f"the learned RM's correlation with the actual score on the SFT "
            f"samples must lie in (0, 1) to match it, got {corr:.3f}"
        )
    sigma = float(np.sqrt(S.var() * (1 / corr**2 - 1)))
    homo_raw = ProgramScorer(bandit.tasks, sigma=sigma, noise_seed=noise_seed)(
        idx, progs
    )[1]
    learned = ProgramScorer(bandit.tasks, w=w, shift=raw.mean(), scale=raw.std())
    homo = ProgramScorer(
        bandit.tasks,
        sigma=sigma,
        noise_seed=noise_seed,
        shift=homo_raw.mean(),
        scale=homo_raw.std(),
    )
    shape = (P, n_samples)
    return TokenWorld(
        sft,
        prompts,
        learned,
        homo,
        learned(idx, progs)[1].reshape(shape),
        homo(idx, progs)[1].reshape(shape),
        S.reshape(shape),
        corr,
    )


# ---------------------------------------------------------------------------------------------
# The chapter's protocols: one replicate ("world"), its initial samples, training a filter, and
# the statistics the claims read
# ---------------------------------------------------------------------------------------------
def standardise(x, ref) -> np.ndarray:
    """(x − mean(ref)) / sd(ref): rewards standardised over a reference set of responses."""
    x, ref = np.asarray(x, dtype=float), np.asarray(ref, dtype=float)
    sd = ref.std()
    if not sd > 0:
        raise ValueError("ref must not be constant")
    return (x - ref.mean()) / sd


@dataclass(frozen=True)
class World:
    """One replicate: fresh prompts with their pools (`bandit`), the learned RM's weights `w`,
    the share of its training labels flipped, its correlation with the actual score on the
    initial policy's responses, the two RMs (`rm["learned"]`, `rm["homoscedastic"]`: (P, K)
    standardised rewards at quick scale, `ProgramScorer`s at full scale) and `initial[rm]` =
    (rewards, actual scores) of the initial policy's responses. Full scale adds the SFT model
    and the encoded prompts."""

    bandit: Bandit
    w: np.ndarray
    flipped: float
    corr: float
    rm: dict
    initial: dict
    sft: object = None
    prompts: object = None

    @property
    def tokens(self) -> bool:
        return self.sft is not None


def make_world(
    n_prompts: int,
    rng: np.random.Generator,
    *,
    rm_prompts: int,
    pairs: int,
    label_noise: float,
    pool: tuple[int, int, int] = (3, 21, 8),
    token: dict | None = None,
) -> World:
    """Build one replicate: `n_prompts` prompts and pools, an RM trained on `pairs` noisy pairs
    from `rm_prompts` *other* prompts, and the homoscedastic RM matched to its correlation.

    Quick scale (`token` None): the initial policy is uniform over each pool, so its responses
    are the pool; rewards are standardised over them. Full scale: `token` holds the keyword
    arguments of `build_token_world` besides the bandit, `w` and `rng` (sft_steps, sft_batch,
    sft_lr, generator, noise_seed, device, ...)."""
    n_correct, n_mutants, n_random = pool
    kw = dict(n_correct=n_correct, n_mutants=n_mutants, n_random=n_random)
    bandit = make_bandit(n_prompts, rng, **kw)
    rm_bandit = make_bandit(rm_prompts, rng, **kw)
    w, prefs = train_reward_model(rm_bandit, pairs, noise=label_noise, rng=rng)
    flipped = float(prefs.flipped.mean())
    if token is None:
        raw, S = reward_model_scores(bandit, w), bandit.scores
        learned = standardise(raw, raw)
        corr = float(np.corrcoef(learned.ravel(), S.ravel())[0, 1])
        homo = homoscedastic_rewards(S, corr, rng)
        homo = standardise(homo, homo)
        return World(
            bandit,
            w,
            flipped,
            corr,
            rm={"learned": learned, "homoscedastic": homo},
            initial={"learned": (learned, S), "homoscedastic": (homo, S)},
        )
    tw = build_token_world(bandit, w, rng=rng, **token)
    return World(
        bandit,
        w,
        flipped,
        tw.corr,
        rm={"learned": tw.learned, "homoscedastic": tw.homoscedastic},
        initial={
            "learned": (tw.rewards, tw.scores),
            "homoscedastic": (tw.homo_rewards, tw.scores),
        },
        sft=tw.sft,
        prompts=tw.prompts,
    )


def initial_samples(
    world: World,
    n: int,
    rng: np.random.Generator,
    *,
    rm: str = "learned",
    device: str = "cpu",
) -> tuple[np.ndarray, np.ndarray]:
    """Rewards and actual scores, each (P, n), of n fresh initial-policy responses per prompt:
    uniform draws from the pool at quick scale, samples of the SFT model at full scale."""
    if rm not in world.rm:
        raise ValueError(f"rm must be one of {sorted(world.rm)}, got {rm!r}")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive int, got {n!r}")
    P, K = world.bandit.shape
    if not world.tokens:
        draws = rng.integers(K, size=(P, n))
        rows = np.arange(P)[:, None]
        return world.rm[rm][rows, draws], world.bandit.scores[rows, draws]
    import torch

    gen = torch.Generator().manual_seed(int(rng.integers(2**62)))
    idx, progs, _ = sample_policy(
        world.sft, np.arange(P), world.prompts, n, gen, device=device
    )
    S, R = world.rm[rm](idx, progs)
    return R.reshape(P, n), S.reshape(P, n)


def train_filter(
    world: World,
    rm: str,
    n: int,
    strategy: str,
    config,
    rng: np.random.Generator,
    *,
    generator=None,
    device: str = "cpu",
) -> TrainTrace:
    """Train one filter on one replicate against RM `rm`: `train_bandit` at quick scale (config a
    `PPOConfig`), `train_tokens` at full scale (a `TokenPPOConfig` and a torch `generator`)."""
    if rm not in world.rm:
        raise ValueError(f"rm must be one of {sorted(world.rm)}, got {rm!r}")
    if not world.tokens:
        if not isinstance(config, PPOConfig):
            raise TypeError(
                f"quick scale needs a PPOConfig, got {type(config).__name__}"
            )
        return train_bandit(world.rm[rm], world.bandit.scores, strategy, n, config, rng)
    if not isinstance(config, TokenPPOConfig):
        raise TypeError(
            f"full scale needs a TokenPPOConfig, got {type(config).__name__}"
        )
    if generator is None:
        raise ValueError("full scale samples with torch: pass generator")
    return train_tokens(
        world.sft, world.rm[rm], strategy, n, config, rng, generator, device=device
    )


def _pair_terms(rewards, scores):
    R, S = _check_rewards(rewards), _check_rewards(scores, "scores")
    if R.shape != S.shape:
        raise ValueError(
            f"rewards and scores must have the same shape, got {R.shape} and {S.shape}"
        )
    if R.shape[1] < 2:
        raise ValueError(
            f"pairs need at least 2 responses per prompt, got {R.shape[1]}"
        )
    i, j = np.triu_indices(R.shape[1], 1)
    dr, ds = R[:, i] - R[:, j], S[:, i] - S[:, j]
    credit = np.where(dr == 0, 0.5, (np.sign(dr) == np.sign(ds)).astype(float))
    return i, j, ds != 0, credit


def pair_accuracy(rewards, scores) -> float:
    """Pairwise accuracy of an RM: among pairs of responses to the same prompt (row) with
    different actual scores, the share the reward orders like the actual score (a tie in reward
    counts one half)."""
    _, _, keep, credit = _pair_terms(rewards, scores)
    if not keep.any():
        raise ValueError(
            "no pair of responses to one prompt has different actual scores"
        )
    return float(credit[keep].mean())


def pair_accuracy_by_bin(rewards, scores, n_bins: int = 10) -> dict[str, np.ndarray]:
    """RM reliability per reward bin, not tied to the bin's mean score: responses are split into
    `n_bins` equal-count bins of reward over all prompts (deciles by default, as
    `reliability_by_bin`), and each bin's accuracy is `pair_accuracy` over the pairs of responses
    to the same prompt that both lie in the bin and have different actual scores. Returns per bin
    the mean reward, the accuracy (NaN without pairs) and the number of pairs."""
    R, S = _check_rewards(rewards), _check_rewards(scores, "scores")
    i, j, keep, credit = _pair_terms(R, S)
    x = R.ravel()
    if (
        isinstance(n_bins, bool)
        or not isinstance(n_bins, int)
        or not 2 <= n_bins <= x.size
    ):
        raise ValueError(f"n_bins must be an int in [2, {x.size}], got {n_bins!r}")
    label = np.empty(x.size, dtype=int)
    order = np.argsort(x, kind="stable")
    for b, members in enumerate(np.array_split(order, n_bins)):
        label[members] = b
    label = label.reshape(R.shape)
    same = (label[:, i] == label[:, j]) & keep
    which = label[:, i][same]
    pairs = np.bincount(which, minlength=n_bins)
    right = np.bincount(which, weights=credit[same], minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        acc = np.where(pairs > 0, right / np.maximum(pairs, 1), np.nan)
    reward = np.array([x[label.ravel() == b].mean() for b in range(n_bins)])
    return {"reward": reward, "accuracy": acc, "pairs": pairs}


def block_rank_test(
    xs: Sequence, ys: Sequence, rng: np.random.Generator, *, n_perm: int = 10_000
) -> tuple[float, float, np.ndarray]:
    """Pooled one-sided test that x and y are positively rank-correlated in every block.

    Each block (a replicate and N) holds one x and one y per item (a filter). The statistic is
    the mean over blocks of Spearman's ρ (ties get average ranks); under the null hypothesis
    the y's are exchangeable among the items of each block, so the p-value is the share of
    `n_perm` independent within-block permutations whose statistic reaches the observed one,
    counting the observed one: (1 + #{T* ≥ T}) / (1 + n_perm). Returns (mean ρ, p, ρ per
    block)."""
    from scipy.stats import rankdata

    if len(xs) != len(ys) or len(xs) == 0:
        raise ValueError(
            f"xs and ys must hold the same number ≥ 1 of blocks, got {len(xs)} and {len(ys)}"
        )
    if isinstance(n_perm, bool) or not isinstance(n_perm, int) or n_perm < 1:
        raise ValueError(f"n_perm must be a positive int, got {n_perm!r}")
    rhos, nulls = [], np.zeros(n_perm)
    for x, y in zip(xs, ys):
        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        if x.shape != y.shape or x.ndim != 1 or x.size < 3:
            raise ValueError(
                f"each block needs x and y of the same length ≥ 3, got {x.shape}, {y.shape}"
            )
        if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
            raise ValueError("x and y must be finite")
        rx, ry = rankdata(x), rankdata(y)
        rx, ry = rx - rx.mean(), ry - ry.mean()
        denom = math.sqrt((rx @ rx) * (ry @ ry))
        if denom == 0:
            raise ValueError("a block's x or y is constant: ρ is undefined")
        rhos.append(float(rx @ ry / denom))
        perm = np.argsort(rng.random((n_perm, x.size)), axis=1)
        nulls += ry[perm] @ rx / denom
    rhos = np.array(rhos)
    stat = float(rhos.mean())
    nulls /= len(rhos)
    p = (1 + int(np.sum(nulls >= stat - 1e-12))) / (1 + n_perm)
    return stat, float(p), rhos


def filter_rank_test(xs: Sequence, ys: Sequence) -> tuple[float, float, np.ndarray]:
    """Filter-level one-sided test that x and y are positively rank-correlated across items.

    Each block (a replicate and N) holds one x and one y per item (a filter); the statistic is
    the mean over blocks of Spearman's ρ (average ranks for ties). The unit is the item: under
    the null hypothesis the items' labels are exchangeable, so one permutation of the items is
    applied to the y's of *every* block, and the p-value is exact over all m! orderings (the
    identity counted): #{T* ≥ T} / m!. Returns (mean ρ, p, ρ per block)."""
    import itertools

    from scipy.stats import rankdata

    if len(xs) != len(ys) or len(xs) == 0:
        raise ValueError(
            f"xs and ys must hold the same number ≥ 1 of blocks, got {len(xs)} and {len(ys)}"
        )
    X = [np.asarray(x, dtype=float) for x in xs]
    Y = [np.asarray(y, dtype=float) for y in ys]
    m = X[0].size
    if not 3 <= m <= 8:
        raise ValueError(f"exact enumeration needs 3 to 8 items per block, got {m}")
    rx_all, ry_all = [], []
    for x, y in zip(X, Y):
        if x.shape != (m,) or y.shape != (m,):
            raise ValueError(
                f"each block needs x and y of length {m}, got {x.shape}, {y.shape}"
            )
        if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
            raise ValueError("x and y must be finite")
        rx, ry = rankdata(x), rankdata(y)
        rx, ry = rx - rx.mean(), ry - ry.mean()
        denom = math.sqrt((rx @ rx) * (ry @ ry))
        if denom == 0:
            raise ValueError("a block's x or y is constant: ρ is undefined")
        rx_all.append(rx / denom)
        ry_all.append(ry)
    RX, RY = np.array(rx_all), np.array(ry_all)
    rhos = (RX * RY).sum(1)
    stat = float(rhos.mean())
    perms = np.array(list(itertools.permutations(range(m))))
    null = np.einsum("bi,pbi->p", RX, RY[:, perms].transpose(1, 0, 2)) / len(RX)
    p = float(np.mean(null >= stat - 1e-12))
    return stat, p, rhos
