"""Timing the offline and online phases of the decoder, through its public methods only.

`median_seconds` times a whole call; `time_offline` times the offline preprocessing of
one grammar and vocabulary three ways (the trie pass, the flat pass, the naive loop),
and the build of the grammar's lexer DFA, interleaved repeat by repeat; `time_masks`
times one mask per decoder state, with the parser memos warm or cleared before each call;
`time_phases` splits a warm mask into the three phases of `Decoder.mask_bits` (parser
step, group verdicts, bitset union) plus the unpacking that `Decoder.mask` adds;
`step_statistics` counts the work each phase sees. Times are wall-clock
(`time.perf_counter`) and depend on the machine's load.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np

from repbook.core import checks

from .offline import preprocess, preprocess_naive
from .online import Decoder, State
from .lexer import build_dfa
from .parser import Grammar
from .vocab import Vocabulary

PHASES = (
    "parser step (memo lookup)",
    "group verdicts",
    "bitset union",
    "unpack to bool (mask only)",
)
"""The phases `time_phases` reports, in the order `Decoder.mask` runs them."""


def median_seconds(fn: Callable[[], object], repeats: int) -> float:
    """Median wall-clock time of `repeats` calls of `fn()`, in seconds."""
    checks.integer("repeats", repeats, at_least=1)
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return float(np.median(out))


OFFLINE = ("ours (trie pass)", "flat (no trie sharing)", "naive per (state, token)")
"""The preprocessing variants `time_offline` times, in the order it runs them."""

LEXER = "lexer DFA build (warm)"
"""`time_offline`'s key for the build of the grammar's combined lexer DFA from its
terminals (the part of our offline phase that runs before the token tables)."""


def time_offline(
    grammar: Grammar,
    vocab: Vocabulary,
    repeats: int,
    *,
    naive: bool = True,
    lexer: bool = True,
) -> dict[str, np.ndarray]:
    """Seconds of each of `OFFLINE` (the naive loop only if `naive`), one array of
    `repeats` per variant; within a repeat the variants run back to back, so that the
    k-th times of two variants are paired under the same machine load.

    With `lexer`, the first key is `LEXER`: the seconds to rebuild the grammar's lexer
    DFA from its terminals (`build_dfa`, as `load_grammar` does), timed first in each
    repeat after one untimed build (warm: imports and caches of the first build are
    not counted)."""
    checks.integer("repeats", repeats, at_least=1)
    calls = {}
    if lexer:
        n_states = grammar.dfa.n_states
        build = build_dfa(grammar.terminals)  # the untimed warm-up build
        if build.n_states != n_states:
            raise ValueError(
                f"the rebuilt lexer has {build.n_states} states, the grammar's "
                f"{n_states}: build the grammar with load_grammar's defaults"
            )
        calls[LEXER] = lambda: build_dfa(grammar.terminals)
    calls[OFFLINE[0]] = lambda: preprocess(grammar, vocab)
    calls[OFFLINE[1]] = lambda: preprocess(grammar, vocab, share=False)
    if naive:
        calls[OFFLINE[2]] = lambda: preprocess_naive(grammar, vocab)
    out = {k: np.empty(repeats) for k in calls}
    for r in range(repeats):
        for k, fn in calls.items():
            t0 = time.perf_counter()
            fn()
            out[k][r] = time.perf_counter() - t0
    return out


def _states(states: Sequence[State]) -> list[State]:
    states = list(states)
    if not states or not all(isinstance(s, State) for s in states):
        raise ValueError("states must be a non-empty sequence of decoder States")
    return states


def time_masks(
    decoder: Decoder,
    states: Sequence[State],
    *,
    cold: bool = False,
    packed: bool = True,
) -> np.ndarray:
    """Microseconds of one mask per state: `mask_bits` (packed) or `mask` (bool array).

    cold=True clears every parser memo before each call (outside the timed region), so
    each mask simulates the LR parser from scratch; the per-lexer-state group arrays,
    which depend on the tables only, are kept. The memos are left cold afterwards.
    """
    states = _states(states)
    call = decoder.mask_bits if packed else decoder.mask
    out = np.empty(len(states))
    for i, st in enumerate(states):
        if cold:
            decoder.clear_memo()
        t0 = time.perf_counter()
        call(st)
        out[i] = time.perf_counter() - t0
    return out * 1e6


def time_phases(decoder: Decoder, states: Sequence[State]) -> dict[str, np.ndarray]:
    """Microseconds per state of each of `PHASES`, memos warm (one untimed pass warms
    them).

    The phases compose exactly as `Decoder.mask` does, minus the EOS bit."""
    states = _states(states)
    for st in states:
        decoder.mask_bits(st)
    out = {k: np.empty(len(states)) for k in PHASES}
    n_vocab = len(decoder.vocab)
    for i, st in enumerate(states):
        t0 = time.perf_counter()
        code, _ = decoder.parser_step(st)
        t1 = time.perf_counter()
        allowed = decoder.group_verdicts(st.q, code)
        t2 = time.perf_counter()
        words = decoder.union_bits(st.q, allowed)
        t3 = time.perf_counter()
        np.unpackbits(words.view(np.uint8), count=n_vocab, bitorder="little")
        t4 = time.perf_counter()
        for k, dt in zip(PHASES, (t1 - t0, t2 - t1, t3 - t2, t4 - t3)):
            out[k][i] = dt * 1e6
    return out


def step_statistics(decoder: Decoder, states: Sequence[State]) -> dict[str, np.ndarray]:
    """Per state: distinct terminal sequences at its lexer state (what the parser step
    tests), token groups at its lexer state, and groups allowed (what the union
    reads)."""
    states = _states(states)
    t = decoder.tables
    n_seq = np.array([t.seq_list[st.q].size for st in states])
    groups = t.n_groups
    n_groups = np.array([groups[st.q] for st in states])
    n_allowed = np.array(
        [
            int(decoder.group_verdicts(st.q, decoder.parser_step(st)[0]).sum())
            for st in states
        ]
    )
    return {"sequences": n_seq, "groups": n_groups, "allowed groups": n_allowed}
