"""The toy code-generation task: a stack language with an exact verifier (prompts are
target functions f(x) = (a·x + b) mod 10 with hidden unit tests), and the candidate programs a
prompt's pool holds: correct ones from templates, mutants and random programs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import product

import numpy as np

from repbook.core import checks


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
            checks.integer(name, v, at_least=0, at_most=MOD - 1)
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
        checks.integer(name, v, at_least=0, at_most=MOD - 1)
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
        checks.integer(name, v, at_least=0)
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
    checks.integer("n_prompts", n_prompts, at_least=1)
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
