"""Adapters to the peer tools, and the token-by-token comparison of masks with
llguidance.

- `Llguidance`: llguidance's matcher on a lark grammar and a `tokenizers` vocabulary;
  its mask at
  a text prefix, and fresh matchers for decoding traces.
- `compare_with_llguidance`: our mask against llguidance's at one prefix, every
  differing token
  assigned to one of llguidance's policies only if that token fits the policy's
  definition (direction included), the rest counted as a residue in each direction.
- `trace_mask_latency`: both masks, timed at every step of decoding given token
  sequences.
- `syncode_grammar`, `syncode_mask_store_seconds`: SynCode's grammar files and the time
  to build
  its DFA mask store (its offline preprocessing).

llguidance and SynCode are imported only when used. Nothing here prints.
"""

from __future__ import annotations

import contextlib
import io
import logging
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .engine import Decoder, State
from .lexer import DEAD
from .parser import Grammar
from .vocab import EOS_TEXT, Vocabulary


# --------------------------------------------------------------------------------------
# token classes used by the policies
def ignorable_tokens(grammar: Grammar, vocab: Vocabulary) -> np.ndarray:
    """Tokens whose bytes lex, from the initial state, entirely as one ignored
    lexeme."""
    out = np.zeros(len(vocab), dtype=bool)
    dfa = grammar.dfa
    for i, t in enumerate(vocab.tokens):
        r = dfa.run(t) if t else None
        if r is not None and not r[1] and dfa.label[r[0]] >= 0:
            out[i] = grammar.terminals[dfa.label[r[0]]].ignore
    return out


def _starts_ignored(grammar: Grammar, first_byte: int) -> bool:
    q = int(grammar.dfa.trans[0, first_byte])
    return (
        q != DEAD
        and grammar.dfa.label[q] >= 0
        and grammar.terminals[grammar.dfa.label[q]].ignore
    )


def leading_ignored_tokens(grammar: Grammar, vocab: Vocabulary) -> np.ndarray:
    """Tokens whose first byte, read from the lexer's initial state, starts an ignored
    lexeme (for JSON and calc: tokens that begin with whitespace)."""
    first = {b: _starts_ignored(grammar, b) for b in range(256)}
    return np.array([bool(t) and first[t[0]] for t in vocab.tokens])


def strip_leading_ignored(grammar: Grammar, text: str) -> str:
    """`text` without the ignored text it starts with (the longest leading part that
    lexes as ignored lexemes only)."""
    data = text.encode()
    dfa, ignored, k = grammar.dfa, grammar.ignored, 0
    for j in range(1, len(data) + 1):
        r = dfa.run(data[:j])
        if r is None or any(t not in ignored for t in r[1]):
            break
        q = r[0]
        if q == 0 or dfa.label[q] in ignored:
            k = j
        elif not dfa.reach[q] & ignored:
            break  # inside a lexeme that cannot be ignored text
    return data[k:].decode()


def single_byte_tokens(vocab: Vocabulary) -> np.ndarray:
    """Ids of the 256 one-byte tokens (a byte-level BPE has them all)."""
    ids = {t: i for i, t in enumerate(vocab.tokens) if len(t) == 1}
    missing = [b for b in range(256) if bytes([b]) not in ids]
    if missing:
        raise ValueError(
            f"vocabulary {vocab.name!r} lacks {len(missing)} single-byte "
            "tokens "
            f"(e.g. {bytes([missing[0]])!r}): not byte-level"
        )
    return np.array([ids[bytes([b])] for b in range(256)])


# --------------------------------------------------------------------------------------
# llguidance
class Llguidance:
    """llguidance's matcher for one lark grammar over a `tokenizers.Tokenizer`
    vocabulary."""

    def __init__(self, tokenizer, eos: int, grammar_text: str):
        import llguidance as llg

        self._llg = llg
        self.tokenizer = llg.LLTokenizer(tokenizer.to_str(), eos_token=eos)
        self.grammar = llg.LLMatcher.grammar_from_lark(grammar_text)
        self.n_vocab = int(tokenizer.get_vocab_size(with_added_tokens=True))
        self.eos = eos

    def matcher(self):
        """A fresh `LLMatcher` at the start of the output."""
        return self._llg.LLMatcher(self.tokenizer, self.grammar, log_level=0)

    def mask(self, prefix: str) -> np.ndarray | None:
        """llguidance's mask (bool over the vocabulary) after `prefix`, tokenised its
        own way; None if it rejects the prefix."""
        m = self.matcher()
        ok = m.consume_tokens(self.tokenizer.tokenize_str(prefix)) if prefix else True
        if not ok or m.is_error():
            return None
        bits = np.unpackbits(
            np.frombuffer(m.compute_bitmask(), dtype=np.uint8), bitorder="little"
        )
        return bits[: self.n_vocab].astype(bool)


@dataclass(frozen=True)
class PrefixComparison:
    """Our mask against llguidance's at one prefix, token by token.

    Where llguidance rejects the prefix and the prefix starts with ignored text, its
    mask is taken at the prefix without that text (`stripped`); where it rejects for
    another reason, or also rejects the stripped prefix, nothing is compared
    (`rejected_unexplained`).

    Policies fixed before the first run, counted over the compared masks:
      forced    tokens only we allow where exactly one next byte is allowed and EOS is
                not (i: llguidance keeps only its own tokenisation of forced bytes);
      trailing  tokens only we allow that lex entirely as ignored text, where EOS is
                allowed and the bytes are not forced (ii: no ignored text after a
                complete parse);
      other     every other differing token, in either direction.
    The policy found after the first run (iii: no ignored text at the start), and the
    rest:
      leading       tokens of `other` that only we allow, that start with ignored text,
                    where the output llguidance saw before them is empty;
      residue_ours  tokens of `other` that only we allow and (iii) does not explain;
      residue_peer  tokens of `other` that only llguidance allows (no policy explains
                    them).
    """

    ours_size: int
    peer_size: int  # llguidance's allowed tokens; -1: it rejects the prefix
    peer_rejects: bool
    stripped: bool
    rejected_unexplained: bool
    forced: int
    trailing: int
    other: int
    leading: int
    residue_ours: int
    residue_peer: int


def compare_with_llguidance(
    decoder: Decoder,
    peer: Llguidance,
    prefix: str,
    *,
    single_byte: np.ndarray,
    ignorable: np.ndarray,
    leading: np.ndarray,
) -> PrefixComparison:
    """Compare our mask at `prefix` with llguidance's, token by token (see
    PrefixComparison).

    `single_byte`, `ignorable`, `leading`: from `single_byte_tokens`,
    `ignorable_tokens`, `leading_ignored_tokens` for the decoder's grammar and
    vocabulary."""
    g, vocab = decoder.grammar, decoder.vocab
    if len(vocab) != peer.n_vocab:
        raise ValueError(
            f"our vocabulary has {len(vocab)} tokens, llguidance's {peer.n_vocab}"
        )
    state = decoder.feed_bytes(decoder.initial(), prefix.encode())
    if state is None:
        raise ValueError(
            f"prefix {prefix[:40]!r} is not a viable prefix of the grammar"
        )
    ours = decoder.mask(state)
    theirs = peer.mask(prefix)
    rejects, stripped, seen = theirs is None, False, prefix
    if rejects:
        seen = strip_leading_ignored(g, prefix)
        theirs = peer.mask(seen) if seen != prefix else None
        if theirs is None:
            return PrefixComparison(
                int(ours.sum()), -1, True, False, True, 0, 0, 0, 0, 0, 0
            )
        stripped = True
    diff = ours != theirs
    only_ours = diff & ours
    forced_here = bool(ours[single_byte].sum() == 1 and not ours[vocab.eos])
    none = np.zeros_like(diff)
    forced = only_ours if forced_here else none
    trailing = only_ours & ignorable if (ours[vocab.eos] and not forced_here) else none
    other = diff & ~forced & ~trailing
    lead = other & only_ours & leading if seen == "" else none
    residue = other & ~lead
    return PrefixComparison(
        int(ours.sum()),
        -1 if rejects else int(theirs.sum()),
        rejects,
        stripped,
        False,
        int(forced.sum()),
        int(trailing.sum()),
        int(other.sum()),
        int(lead.sum()),
        int((residue & ours).sum()),
        int((residue & theirs).sum()),
    )


@dataclass(frozen=True)
class LatencyTrace:
    """Per decoding step: our `mask_bits` and llguidance's `compute_bitmask` times (µs),
    whether our parser step was answered from the memo, the decoder state and the token
    taken."""

    ours_us: np.ndarray
    peer_us: np.ndarray
    memo_hit: np.ndarray
    states: tuple[State, ...]
    tokens: tuple[int, ...]


def trace_mask_latency(
    decoder: Decoder, peer: Llguidance, documents: Sequence[Sequence[int]]
) -> LatencyTrace:
    """Decode each token sequence (then EOS) with both tools, timing one mask per step.

    llguidance gets a fresh matcher per document; our decoder keeps its memos as they
    are. Raises ValueError if either mask disallows the token the document takes (a
    matcher in llguidance's error state answers at once with an empty mask, so it must
    never be timed): give documents both tools accept, e.g. without leading whitespace
    (policy iii)."""
    eos = decoder.vocab.eos
    ours_t, peer_t, hits, states, tokens = [], [], [], [], []
    for d, doc in enumerate(documents):
        st, m = decoder.initial(), peer.matcher()
        for tid in list(doc) + [eos]:
            states.append(st)
            tokens.append(tid)
            hits.append(decoder.is_memoised(st))
            t0 = time.perf_counter()
            ours = decoder.mask_bits(st)
            t1 = time.perf_counter()
            theirs = m.compute_bitmask()
            t2 = time.perf_counter()
            ours_t.append(t1 - t0)
            peer_t.append(t2 - t1)
            for who, words in (
                ("our mask", ours),
                ("llguidance", np.frombuffer(theirs, dtype=np.uint32)),
            ):
                if not (int(words[tid >> 5]) >> (tid & 31)) & 1:
                    raise ValueError(
                        f"document {d}: token {tid} is not allowed by "
                        f"{who} at step {len(states) - 1}"
                    )
            if tid == eos:
                break
            st = decoder.feed_token(st, tid)
            if not m.consume_token(tid) or m.is_error():
                raise ValueError(
                    f"document {d}: llguidance rejects token {tid} at "
                    f"step {len(states) - 1}"
                )
    return LatencyTrace(
        np.array(ours_t) * 1e6,
        np.array(peer_t) * 1e6,
        np.array(hits),
        tuple(states),
        tuple(tokens),
    )


# --------------------------------------------------------------------------------------
# SynCode
def _import_syncode():
    # syncode imports tqdm.auto, which warns when ipywidgets is absent
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="IProgress not found")
        import syncode  # noqa: F401
    logging.getLogger("syncode").setLevel(logging.ERROR)


def syncode_grammar(name: str) -> str:
    """The text of one of SynCode's lark grammars (`json`, `calc`, `java`, `go`, ...),
    read from the installed package without importing it (its import loads torch)."""
    import importlib.util

    spec = importlib.util.find_spec("syncode")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("syncode is not installed: pip install 'syncode>=0.4.16'")
    folder = Path(list(spec.submodule_search_locations)[0]) / "parsers" / "grammars"
    path = folder / f"{name}.lark"
    if not path.is_file():
        have = sorted(p.stem for p in folder.glob("*.lark"))
        raise ValueError(f"SynCode has no grammar {name!r}; it has {have}")
    return path.read_text()


def syncode_mask_store_seconds(tokenizer, grammar: str = "json") -> float:
    """Seconds to build SynCode's DFA mask store (its offline step, mode grammar_strict,
    no cache) for its grammar `grammar` and a `tokenizers.Tokenizer`; reading the
    grammar is not counted."""
    _import_syncode()
    from syncode.mask_store.mask_store import MaskStore
    from syncode.parsers import create_base_parser
    from syncode.parsers.grammars.grammar import Grammar as SynGrammar
    from transformers import PreTrainedTokenizerFast

    hf = PreTrainedTokenizerFast(tokenizer_object=tokenizer, eos_token=EOS_TEXT)
    sg = SynGrammar(grammar)
    base = create_base_parser(sg)
    t0 = time.perf_counter()
    with contextlib.redirect_stderr(io.StringIO()):  # SynCode's progress bars
        MaskStore(
            base.terminals,
            hf,
            simplifications=sg.simplifications(),
            mode="grammar_strict",
            ignore_terminals=base.ignore_tokens,
            parse_table=base.parser.parser._parse_table,
            indent=False,
        )
    return time.perf_counter() - t0
