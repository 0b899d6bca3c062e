"""Guessing numbers (GN): the judge, the 5,040-secret space and algorithmic agents.

The secret is a string of 4 distinct digits; a leading "0" is allowed (AR-Bench's own test set has
such secrets), so the space is all 10·9·8·7 = 5,040 strings. A guess gets bulls-and-cows feedback:
`bulls` digits right and in the right place, `cows` digits present elsewhere. The official evaluator
(`arbench/reasoner/gn/gn_evaluator.py`, zero-shot and few-shot methods) plays all `max_turn` turns
(25 by default) with feedback, then asks for one final answer and counts the game as solved when
that answer has 4 bulls. Our agents recognise a 4-bull answer and would repeat it to the end, so a
game is solved when a guess within `max_turn` has 4 bulls or, failing that, when the final answer
(one more guess by the agent's own rule, judged without feedback) does.

Feedback is coded as one small int, ``code = 5·bulls + cows`` (``WIN = 20``), and the 5,040×5,040
matrix ``F[g, s]`` of codes (uint8, about 25 MB) is computed once; every agent works on it.

Agents (all return the number of guesses used per game, the final answer included, 0 for a game
not solved):

- *tree agents* (deterministic: ``"entropy"``, ``"lookahead"``, ``"minimax"``) are solved for all
  secrets at once by splitting the candidate set recursively along the feedback;
- *random agents* (``consistent_random``, ``ignore_feedback``, ``forgetful``, ``noisy_reader``) are
  simulated game by game with a numpy Generator.
No printing, plotting or file I/O.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from repbook.core import checks

N_DIGITS = 4
N_SYMBOLS = 10
N_CODES = 25
WIN = 5 * N_DIGITS  # 4 bulls, 0 cows
MAX_TURN = 25


# ----------------------------------------------------------------------------------------------
# the judge
def _as_digits(x, name: str) -> list[int]:
    if isinstance(x, str):
        if not x.isdigit():
            raise ValueError(f"{name} must be a string of digits, got {x!r}")
        return [int(c) for c in x]
    try:
        out = [int(d) for d in x]
    except (TypeError, ValueError):
        raise ValueError(
            f"{name} must be a digit string or a sequence of ints, got {x!r}"
        ) from None
    if any(not 0 <= d <= 9 for d in out):
        raise ValueError(f"{name} must hold digits 0-9, got {x!r}")
    return out


def compare_guess(secret, guess) -> tuple[int, int, int]:
    """(bulls, cows, 2·bulls + cows) of `guess` against `secret`, as the benchmark's judge counts
    them: bulls are equal positions; shared digits are counted through a multiset intersection, so
    repeated digits in a guess are handled the same way as upstream."""
    s, g = _as_digits(secret, "secret"), _as_digits(guess, "guess")
    if len(s) != len(g):
        raise ValueError(
            f"secret and guess must have the same length, got {len(s)} and {len(g)}"
        )
    bulls = sum(a == b for a, b in zip(s, g))
    shared = sum((Counter(s) & Counter(g)).values())
    return bulls, shared - bulls, 2 * bulls + (shared - bulls)


def feedback_text(bulls: int, cows: int) -> str:
    """The feedback sentence an agent receives (same two numbers, in our own wording)."""
    return (
        f"{bulls} digits are present in the answer and in the correct positions, "
        f"{cows} digits are present in the answer but in the different positions"
    )


def is_valid_secret(x) -> bool:
    return (
        isinstance(x, str)
        and len(x) == N_DIGITS
        and x.isdigit()
        and len(set(x)) == N_DIGITS
    )


def encode(bulls: int, cows: int) -> int:
    return 5 * bulls + cows


def decode(code: int) -> tuple[int, int]:
    return int(code) // 5, int(code) % 5


VALID_CODES = np.array(
    sorted(
        {
            encode(b, c)
            for b in range(5)
            for c in range(5 - b)
            if not (b == 3 and c == 1)
        }
    ),
    dtype=np.uint8,
)
"""The 14 feedbacks that can occur with 4 distinct digits (3 bulls + 1 cow is impossible)."""


# ----------------------------------------------------------------------------------------------
# the space and the feedback matrix
@lru_cache(maxsize=1)
def _secrets_cached() -> np.ndarray:
    arr = np.array(
        list(itertools.permutations(range(N_SYMBOLS), N_DIGITS)), dtype=np.int8
    )
    arr.setflags(write=False)
    return arr


def all_secrets() -> np.ndarray:
    """All 5,040 secrets as a read-only (5040, 4) int8 array, in lexicographic order."""
    return _secrets_cached()


def secret_strings() -> list[str]:
    return ["".join(map(str, row)) for row in all_secrets()]


@lru_cache(maxsize=1)
def _index() -> dict[str, int]:
    return {s: i for i, s in enumerate(secret_strings())}


def index_of(secrets) -> np.ndarray:
    """Indices into `all_secrets()` of secret strings (one string or a list)."""
    single = isinstance(secrets, str)
    items = [secrets] if single else list(secrets)
    idx = _index()
    bad = [s for s in items if s not in idx]
    if bad:
        raise ValueError(
            f"secrets must be strings of {N_DIGITS} distinct digits, got {bad[:3]!r}"
        )
    out = np.array([idx[s] for s in items], dtype=np.int64)
    return out[0] if single else out


@lru_cache(maxsize=1)
def _matrix_cached() -> np.ndarray:
    S = all_secrets().astype(np.int16)
    n = len(S)
    bulls = np.zeros((n, n), dtype=np.uint8)
    for p in range(N_DIGITS):
        bulls += S[:, None, p] == S[None, :, p]
    masks = (1 << S).sum(1)  # the set of digits as a 10-bit mask
    popcount = np.array(
        [bin(m).count("1") for m in range(1 << N_SYMBOLS)], dtype=np.uint8
    )
    shared = popcount[masks[:, None] & masks[None, :]]
    F = (5 * bulls + (shared - bulls)).astype(np.uint8)
    F.setflags(write=False)
    return F


def feedback_matrix() -> np.ndarray:
    """F[g, s] = code of guess g against secret s over all 5,040 secrets (uint8, symmetric, cached)."""
    return _matrix_cached()


# ----------------------------------------------------------------------------------------------
# partition scores
def _code_counts(F: np.ndarray, guesses: np.ndarray, cands: np.ndarray) -> np.ndarray:
    """counts[i, c] = #candidates that give code c for guess guesses[i]."""
    sub = F[np.ix_(guesses, cands)].astype(np.int64)
    sub += (N_CODES * np.arange(len(guesses)))[:, None]
    return np.bincount(sub.ravel(), minlength=N_CODES * len(guesses)).reshape(
        len(guesses), N_CODES
    )


def partition_entropy(F: np.ndarray, guesses, cands) -> np.ndarray:
    """Entropy (bits) of the feedback for each guess when the secret is uniform over `cands`."""
    guesses, cands = np.asarray(guesses), np.asarray(cands)
    c = _code_counts(F, guesses, cands).astype(np.float64)
    n = len(cands)
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(c > 0, c * np.log2(c), 0.0)
    return np.log2(n) - plogp.sum(1) / n


def _pick(
    scores: np.ndarray, guesses: np.ndarray, is_cand: np.ndarray, *, maximize: bool
) -> int:
    """Best score; ties go to a guess that could win (a candidate), then to the lowest index."""
    s = np.round(scores, 9)
    best = s.max() if maximize else s.min()
    tied = np.flatnonzero(s == best)
    cand_tied = tied[is_cand[tied]]
    return int(guesses[(cand_tied if cand_tied.size else tied)[0]])


TREE_AGENTS = ("entropy", "lookahead", "minimax")


@dataclass(frozen=True)
class TreeResult:
    """turns[s]: guesses used on secret s (0 if unsolved within max_turn); sizes[s, t]: candidates
    left after t guesses (sizes[:, 0] = 5040; 1 from the solving guess on, as the secret is known)."""

    agent: str
    turns: np.ndarray
    sizes: np.ndarray


def _choose(agent: str, F: np.ndarray, cands: np.ndarray, width: int) -> int:
    n_all = F.shape[0]
    if len(cands) <= 2:
        return int(cands[0])
    guesses = np.arange(n_all)
    is_cand = np.zeros(n_all, dtype=bool)
    is_cand[cands] = True
    if agent == "minimax":
        worst = _code_counts(F, guesses, cands)
        worst[:, WIN] = 0
        return _pick(worst.max(1).astype(float), guesses, is_cand, maximize=False)
    h1 = partition_entropy(F, guesses, cands)
    if agent == "entropy":
        return _pick(h1, guesses, is_cand, maximize=True)
    # lookahead: the `width` best first guesses by entropy (candidates first on ties), each scored
    # by the information expected after it *and* the best next guess (drawn from the candidates).
    order = np.lexsort((guesses, ~is_cand, -np.round(h1, 9)))[:width]
    scores = np.empty(len(order))
    for i, g in enumerate(order):
        codes = F[g, cands]
        total = h1[g]
        for code in np.unique(codes):
            part = cands[codes == code]
            if code == WIN or len(part) <= 1:
                continue
            h2 = partition_entropy(F, cands, part).max()
            total += len(part) / len(cands) * h2
        scores[i] = total
    return _pick(scores, order, is_cand[order], maximize=True)


def solve_tree(
    agent: str, *, first_guess: int = 0, max_turn: int = MAX_TURN, width: int = 4
) -> TreeResult:
    """Play a deterministic agent against all 5,040 secrets at once.

    `agent`: "entropy" (maximise the feedback's entropy over the consistent set), "minimax" (minimise
    the largest remaining set, Knuth's rule) or "lookahead" (one step of tree search: the `width` best
    guesses by entropy are re-scored by the information expected after the best next guess).
    Every agent plays `first_guess` (an index; all first guesses are equivalent by symmetry).
    """
    if agent not in TREE_AGENTS:
        raise ValueError(f"agent must be one of {TREE_AGENTS}, got {agent!r}")
    if not 1 <= int(max_turn) <= 100:
        raise ValueError(f"max_turn must be an int in [1, 100], got {max_turn!r}")
    if isinstance(width, bool) or int(width) < 1:
        raise ValueError(f"width must be a positive int, got {width!r}")
    F = feedback_matrix()
    n = F.shape[0]
    if not 0 <= int(first_guess) < n:
        raise ValueError(
            f"first_guess must be an index in [0, {n}), got {first_guess!r}"
        )
    turns = np.zeros(n, dtype=np.int64)
    sizes = np.ones((n, max_turn + 1), dtype=np.int64)
    sizes[:, 0] = n
    stack = [(np.arange(n), 1, int(first_guess))]
    while stack:
        cands, depth, guess = stack.pop()
        codes = F[guess, cands]
        for code in np.unique(codes):
            part = cands[codes == code]
            if code == WIN:
                turns[part] = depth
                continue
            sizes[part, depth] = len(part)
            if depth < max_turn:
                stack.append((part, depth + 1, _choose(agent, F, part, int(width))))
            else:
                sizes[part, depth:] = len(part)
    # after an unsolved game the last size stays; solved games keep 1 (set at init)
    return TreeResult(agent, turns, sizes)


# ----------------------------------------------------------------------------------------------
# random agents, simulated game by game
@dataclass(frozen=True)
class GameStats:
    """turns[i]: guesses used in game i (0 = not solved within max_turn); sizes[i, t]: how many
    secrets were consistent with *all* true feedback after t guesses (the information the agent was
    given, whether or not it used it)."""

    agent: str
    secrets: np.ndarray
    turns: np.ndarray
    sizes: np.ndarray

    @property
    def solved(self) -> np.ndarray:
        return self.turns > 0


def _check_common(secrets, max_turn, rng):
    secrets = np.asarray(secrets)
    if (
        secrets.ndim != 1
        or secrets.size == 0
        or not np.issubdtype(secrets.dtype, np.integer)
    ):
        raise ValueError(
            f"secrets must be a non-empty 1-D array of secret indices, got {secrets!r}"
        )
    if secrets.min() < 0 or secrets.max() >= 5040:
        raise ValueError("secrets must be indices in [0, 5040)")
    checks.integer("max_turn", max_turn, at_least=1, at_most=1000)
    checks.generator("rng", rng)
    return secrets.astype(np.int64)


def play_random(
    secrets,
    rng: np.random.Generator,
    *,
    memory: int | None = None,
    p_misread: float = 0.0,
    use_feedback: bool = True,
    max_turn: int = MAX_TURN,
    first_guess: int | None = None,
    agent: str = "",
    final_answer: bool = True,
) -> GameStats:
    """Simulate a random-choice agent on each secret (indices into `all_secrets()`).

    Each turn the agent guesses uniformly among the secrets consistent with the feedback it holds:
    - `use_feedback=False`: ignores all feedback (uniform over the guesses it has not made yet);
    - `memory=k`: holds only the last k (guess, feedback) pairs (None = all; 0 = none, and it may
      repeat a guess); old guesses leave its memory with their feedback;
    - `p_misread=p`: each non-winning feedback is misread, with probability p, as a uniformly chosen
      other non-winning feedback; the agent also remembers which guesses were wrong. When no secret
      fits what it believes, it drops its oldest observations until one does.
    A winning guess is always recognised (the agent would repeat it to the end and name it).
    With `final_answer` (the official evaluator's rule), a game not won within `max_turn` guesses
    gets one final answer, drawn by the same rule and judged without feedback: a win there
    counts `max_turn + 1` guesses. Without it, the game ends at `max_turn`.
    """
    secrets = _check_common(secrets, max_turn, rng)
    if memory is not None:
        checks.integer("memory", memory, at_least=0)
    checks.probability("p_misread", p_misread)
    if not isinstance(final_answer, bool):
        raise TypeError(f"final_answer must be True or False, got {final_answer!r}")
    last = max_turn + (1 if final_answer else 0)
    F = feedback_matrix()
    n = F.shape[0]
    nonwin = VALID_CODES[VALID_CODES != WIN]
    turns = np.zeros(len(secrets), dtype=np.int64)
    sizes = np.ones((len(secrets), max_turn + 1), dtype=np.int64)
    sizes[:, 0] = n
    for i, s in enumerate(secrets):
        history: list[tuple[int, int]] = []  # (guess, perceived code)
        truth = np.ones(n, dtype=bool)  # consistent with the true feedback
        wrong = np.zeros(n, dtype=bool)  # guesses known to be wrong
        for t in range(1, last + 1):
            if t == 1 and first_guess is not None:
                g = int(first_guess)
            elif not use_feedback:
                pool = np.flatnonzero(~wrong) if wrong.sum() < n else np.arange(n)
                g = int(rng.choice(pool))
            else:
                obs = (
                    history
                    if memory is None
                    else history[len(history) - memory :]
                    if memory
                    else []
                )
                mask = None
                while True:
                    mask = np.ones(n, dtype=bool) if p_misread == 0 else ~wrong
                    for gg, code in obs:
                        mask &= F[gg] == code
                    if mask.any() or not obs:
                        break
                    obs = obs[1:]  # drop the oldest observation
                    if p_misread > 0:
                        history = history[1:]
                if not mask.any():  # only with everything guessed: reset
                    mask = np.ones(n, dtype=bool)
                g = int(rng.choice(np.flatnonzero(mask)))
            if t > max_turn:  # the final answer: judged, no feedback
                if g == s:
                    turns[i] = t
                break
            code = int(F[g, s])
            truth &= F[g] == code
            sizes[i, t] = truth.sum()
            if code == WIN:
                turns[i] = t
                sizes[i, t:] = 1
                break
            wrong[g] = True
            seen = code
            if p_misread > 0 and rng.random() < p_misread:
                others = nonwin[nonwin != code]
                seen = int(rng.choice(others))
            history.append((g, seen))
        else:
            sizes[i, max_turn:] = sizes[i, max_turn]
    name = agent or (
        "ignores feedback"
        if not use_feedback
        else f"forgetful k={memory}"
        if memory is not None
        else f"noisy p={p_misread}"
        if p_misread
        else "consistent random"
    )
    return GameStats(name, secrets, turns, sizes)


def consistent_random(
    secrets, rng, *, max_turn: int = MAX_TURN, final_answer: bool = True
) -> GameStats:
    """Guess uniformly among the secrets consistent with every feedback so far."""
    return play_random(
        secrets,
        rng,
        max_turn=max_turn,
        agent="consistent random",
        final_answer=final_answer,
    )


def ignore_feedback(
    secrets, rng, *, max_turn: int = MAX_TURN, final_answer: bool = True
) -> GameStats:
    """Guess uniformly among the not-yet-tried secrets, ignoring what the feedback said."""
    return play_random(
        secrets,
        rng,
        use_feedback=False,
        max_turn=max_turn,
        agent="ignores feedback",
        final_answer=final_answer,
    )


def forgetful(
    secrets, rng, *, k: int, max_turn: int = MAX_TURN, final_answer: bool = True
) -> GameStats:
    """Consistent-random on the last `k` feedbacks only."""
    return play_random(
        secrets,
        rng,
        memory=k,
        max_turn=max_turn,
        agent=f"forgetful k={k}",
        final_answer=final_answer,
    )


def noisy_reader(
    secrets, rng, *, p: float, max_turn: int = MAX_TURN, final_answer: bool = True
) -> GameStats:
    """Consistent-random on feedback misread with probability `p`."""
    return play_random(
        secrets,
        rng,
        p_misread=p,
        max_turn=max_turn,
        agent=f"noisy p={p}",
        final_answer=final_answer,
    )


def chance_accuracy(n_guesses: int, *, repeats: bool) -> float:
    """Exact accuracy of blind play with `n_guesses` uniform guesses (final answer included):
    without repeats (guesses among the untried secrets) n/5040; with repeats (a guesser with no
    memory) 1 − (1 − 1/5040)^n."""
    checks.integer("n_guesses", n_guesses, at_least=0, at_most=5040)
    n = 5040
    return 1.0 - (1.0 - 1.0 / n) ** n_guesses if repeats else n_guesses / n


# ----------------------------------------------------------------------------------------------
# passive: k clues chosen in advance
def passive_sizes(secrets, n_clues: int, rng: np.random.Generator) -> np.ndarray:
    """Non-adaptive play: for each secret draw `n_clues` distinct random guesses in advance and
    return sizes[i, k] = how many secrets are consistent with the first k clues (k = 0..n_clues)."""
    secrets = _check_common(secrets, 1, rng)
    checks.integer("n_clues", n_clues, at_least=0, at_most=5040)
    F = feedback_matrix()
    n = F.shape[0]
    sizes = np.empty((len(secrets), n_clues + 1), dtype=np.int64)
    sizes[:, 0] = n
    for i, s in enumerate(secrets):
        mask = np.ones(n, dtype=bool)
        for k, g in enumerate(rng.choice(n, size=n_clues, replace=False), start=1):
            mask &= F[g] == F[g, s]
            sizes[i, k] = mask.sum()
    return sizes


def passive_determined(secrets, k_values, rng: np.random.Generator) -> np.ndarray:
    """Whether k non-adaptive random clues leave exactly one consistent secret, for each k in
    `k_values` (the same clue sequence per secret for every k). Bool array (len(k_values), n)."""
    ks = np.asarray(k_values)
    if (
        ks.ndim != 1
        or ks.size == 0
        or not np.issubdtype(ks.dtype, np.integer)
        or ks.min() < 0
    ):
        raise ValueError(
            f"k_values must be a non-empty list of non-negative ints, got {k_values!r}"
        )
    sizes = passive_sizes(secrets, int(ks.max()), rng)
    return (sizes[:, ks] == 1).T


def final_answer_credit(sizes, k_values) -> np.ndarray:
    """Expected share of games won by one answer drawn uniformly from the secrets consistent with
    the first k answers, for each k: the mean of 1/|C_k| over games (`sizes[:, k]` = |C_k|; a game
    already won has |C_k| = 1). The same rule credits an adaptive agent and a reasoner given k
    fixed clues: one final answer among what the k answers leave."""
    sizes = np.asarray(sizes)
    ks = np.asarray(k_values)
    if sizes.ndim != 2 or sizes.size == 0 or (sizes < 1).any():
        raise ValueError(
            "sizes must be a non-empty 2-D array of candidate counts ≥ 1, got shape "
            f"{sizes.shape}"
        )
    if (
        ks.ndim != 1
        or ks.size == 0
        or not np.issubdtype(ks.dtype, np.integer)
        or ks.min() < 0
        or ks.max() >= sizes.shape[1]
    ):
        raise ValueError(
            f"k_values must be ints in [0, {sizes.shape[1] - 1}], got {k_values!r}"
        )
    return (1.0 / sizes[:, ks]).mean(0)


def solved_by(turns, k_values) -> np.ndarray:
    """Share of games solved within t guesses, for each t in k_values (unsolved = turns 0)."""
    turns = np.asarray(turns)
    return np.array([np.mean((turns > 0) & (turns <= k)) for k in k_values])
