"""Sampling from a small language model, with or without the grammar mask.

The model is a token bigram (`bigram_logprobs`): a stand-in small enough to train in a
second, good enough to write JSON-like text, poor enough to go wrong without the mask.
`sample` draws one output token by token; under a decoder it masks the disallowed
tokens, renormalises, and stops at EOS or, with `stop_when_complete`, as soon as the
grammar allows nothing more than ignored text (`Decoder.must_end`), the point where a
grammar-aware sampler can only end the output.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from repbook.core import checks

from .online import Decoder

ENDS = ("eos", "complete", "budget")
"""How a sample ended: the model drew EOS; the grammar allowed nothing more (the sampler
stopped); the token budget ran out."""


def bigram_logprobs(
    sequences: Sequence[Sequence[int]],
    vocab_size: int,
    *,
    boundary: int,
    pseudo_count: float = 0.1,
) -> np.ndarray:
    """Log-probabilities of a token bigram model, rows indexed by the previous token.

    Every sequence is read as `boundary, x_1, ..., x_n, boundary` (EOS doubles as the
    start token); each observed pair adds 1 to its count and every pair gets
    `pseudo_count`.
    """
    checks.integer("vocab_size", vocab_size, at_least=2)
    if not 0 <= boundary < vocab_size:
        raise ValueError(
            f"boundary must be a token id in [0, {vocab_size}), got {boundary!r}"
        )
    checks.number("pseudo_count", pseudo_count, above=0.0)
    counts = np.full((vocab_size, vocab_size), float(pseudo_count))
    for i, seq in enumerate(sequences):
        ids = np.asarray(list(seq), dtype=np.int64)
        if ids.size and (ids.min() < 0 or ids.max() >= vocab_size):
            raise ValueError(f"sequence {i} holds a token id outside [0, {vocab_size})")
        path = np.r_[boundary, ids, boundary]
        np.add.at(counts, (path[:-1], path[1:]), 1.0)
    return np.log(counts / counts.sum(1, keepdims=True))


@dataclass(frozen=True)
class Sample:
    """One sampled output: its tokens (EOS excluded) and how it ended (one of
    `ENDS`)."""

    tokens: tuple[int, ...]
    end: str

    @property
    def stopped(self) -> bool:
        """Ended by EOS or by the grammar, not by the budget."""
        return self.end != "budget"


def sample(
    logp: np.ndarray,
    rng: np.random.Generator,
    *,
    eos: int,
    max_tokens: int,
    decoder: Decoder | None = None,
    stop_when_complete: bool = True,
) -> Sample:
    """Draw one output from the bigram `logp` (start token: `eos`), at most `max_tokens`
    tokens.

    With a `decoder`, every step samples from the model renormalised over the mask; with
    `stop_when_complete` the output also ends, without a draw, where `decoder.must_end`
    holds.
    """
    V = logp.shape[0]
    if logp.ndim != 2 or logp.shape[1] != V:
        raise ValueError(f"logp must be a square (V, V) array, got shape {logp.shape}")
    if not 0 <= eos < V:
        raise ValueError(f"eos must be a token id in [0, {V}), got {eos!r}")
    checks.integer("max_tokens", max_tokens, at_least=1)
    if decoder is not None and len(decoder.vocab) != V:
        raise ValueError(
            f"the decoder's vocabulary has {len(decoder.vocab)} tokens, the model {V}"
        )
    prev, out = eos, []
    state = decoder.initial() if decoder is not None else None
    while True:
        if decoder is not None and stop_when_complete and decoder.must_end(state):
            return Sample(tuple(out), "complete")
        if len(out) == max_tokens:
            return Sample(tuple(out), "budget")
        lp = logp[prev].copy()
        if decoder is not None:
            lp[~decoder.mask(state)] = -np.inf
        p = np.exp(lp - lp.max())
        tid = int(rng.choice(V, p=p / p.sum()))
        if tid == eos:
            return Sample(tuple(out), "eos")
        out.append(tid)
        if decoder is not None:
            state = decoder.feed_token(state, tid)
            if state is None:  # cannot happen with an exact mask
                raise RuntimeError(
                    f"token {tid} was allowed by the mask but rejected by feed_token"
                )
        prev = tid


def draw_documents(
    generate: Callable[[np.random.Generator], str],
    encode: Callable[[str], Sequence[int]],
    n: int,
    rng: np.random.Generator,
    *,
    max_tokens: int | None = None,
) -> list[list[int]]:
    """`n` generated documents as token ids; with `max_tokens`, a document longer than
    that is drawn again (so a sampler with that budget could write every one of
    them)."""
    checks.integer("n", n, at_least=1)
    out, draws = [], 0
    while len(out) < n:
        if draws == 100 * n:
            raise ValueError(
                f"fewer than 1 in 100 generated documents fit max_tokens="
                f"{max_tokens}; raise it"
            )
        draws += 1
        ids = list(encode(generate(rng)))
        if max_tokens is None or len(ids) <= max_tokens:
            out.append(ids)
    return out
