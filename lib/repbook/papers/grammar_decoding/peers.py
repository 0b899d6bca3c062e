"""Adapters to the peer tools, the token-by-token comparison of masks with llguidance,
and the per-document latency of three tools' masks.

- `Llguidance`: llguidance's matcher on a lark grammar and a `tokenizers` vocabulary;
  its mask at a text prefix, and fresh matchers for decoding traces.
- `compare_with_llguidance`: our mask against llguidance's at one prefix, every
  differing token assigned to one of llguidance's policies only if that token fits
  the policy's definition (direction included), the rest counted as a residue in each
  direction; `compare_on_prefixes` runs it (and the oracle) over many prefixes.
- `trace_mask_latency`: our mask and llguidance's, timed at every step of decoding.
- `syncode_grammar`, `syncode_mask_store`: SynCode's grammar files, and its DFA mask
  store (its offline preprocessing) with the time to build it; `SynCodeMasker`: its
  online mask over that store.
- `document_latency`: ours, SynCode's and llguidance's masks timed step by step over
  documents, each tool starting every document fresh.

llguidance and SynCode are imported only when used. Nothing here prints.
"""

from __future__ import annotations

import contextlib
import io
import logging
import time
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from repbook.core import checks

from .online import Decoder, State, oracle_mask
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


def compare_on_prefixes(
    prefixes: Sequence[str], small: Decoder, big: Decoder, peer: Llguidance
) -> list[dict]:
    """Claim 1's protocol: at each prefix, our mask on `small`'s vocabulary against
    the brute-force `oracle_mask` (`oracle_diff`: tokens, EOS included, where they
    differ), and our mask on `big`'s vocabulary against llguidance's, token by token
    (the fields of `PrefixComparison`). Both decoders must share one grammar."""
    g = small.grammar
    if big.grammar is not g:
        raise ValueError("the two decoders must be built on the same grammar")
    classes = dict(
        single_byte=single_byte_tokens(big.vocab),
        ignorable=ignorable_tokens(g, big.vocab),
        leading=leading_ignored_tokens(g, big.vocab),
    )
    rows = []
    for p in prefixes:
        data = p.encode()
        st = small.feed_bytes(small.initial(), data)
        if st is None:
            raise ValueError(f"prefix {p[:40]!r} is not a viable prefix of the grammar")
        diff = int((small.mask(st) != oracle_mask(g, small.vocab, data)).sum())
        c = compare_with_llguidance(big, peer, p, **classes)
        rows.append(dict(prefix=p, oracle_diff=diff, **asdict(c)))
    return rows


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


def _syncode_parts(grammar: str):
    _import_syncode()
    from syncode.parsers import create_base_parser
    from syncode.parsers.grammars.grammar import Grammar as SynGrammar

    sg = SynGrammar(grammar)
    return sg, create_base_parser(sg)  # no cache file: nothing is written


SYNCODE_MODES = ("grammar_mask", "grammar_strict")
"""SynCode's two masking modes: `grammar_mask`, its default (in `GrammarConstrainer`,
its logits processor and its command line) and, by its own docstring, an
over-approximation, i.e. sound; `grammar_strict`, an under-approximation that can leave
out a token the grammar allows."""


def syncode_mask_store(tokenizer, grammar: str = "json", mode: str = "grammar_mask"):
    """(seconds, store): SynCode's DFA mask store (its offline step, no cache) for its
    grammar `grammar`, a `tokenizers.Tokenizer` and one of `SYNCODE_MODES`, and the
    seconds its constructor took. The constructor builds the terminals' FSMs, the
    following-terminal map from the parse table and the token masks; reading the
    grammar and building lark's LALR table are not counted."""
    if mode not in SYNCODE_MODES:
        raise ValueError(f"mode must be one of {SYNCODE_MODES}, got {mode!r}")
    sg, base = _syncode_parts(grammar)
    from syncode.mask_store.mask_store import MaskStore
    from transformers import PreTrainedTokenizerFast

    hf = PreTrainedTokenizerFast(tokenizer_object=tokenizer, eos_token=EOS_TEXT)
    t0 = time.perf_counter()
    with contextlib.redirect_stderr(io.StringIO()):  # SynCode's progress bars
        store = MaskStore(
            base.terminals,
            hf,
            simplifications=sg.simplifications(),
            mode=mode,
            ignore_terminals=base.ignore_tokens,
            parse_table=base.parser.parser._parse_table,
            indent=False,
        )
    return time.perf_counter() - t0, store


def syncode_mask_store_seconds(
    tokenizer, grammar: str = "json", mode: str = "grammar_mask"
) -> float:
    """Seconds to build SynCode's DFA mask store (see `syncode_mask_store`)."""
    return syncode_mask_store(tokenizer, grammar, mode)[0]


def syncode_store_work(store) -> dict[str, int]:
    """How much work SynCode's mask store constructor did, by its loop structure: its
    per-terminal automaton states (`fsm states`), the tokens, and the (state, token)
    pairs it simulates one at a time in a Python loop (`pairs`, their product; each is
    then continued once per following terminal). Reads the store's private `_fsms` and
    `_vocab` (syncode 0.4.16)."""
    n_fsm = len(store._fsms.states())
    n_tok = len(store._vocab)
    return {"fsm states": n_fsm, "tokens": n_tok, "pairs": n_fsm * n_tok}


class SynCodeMasker:
    """SynCode's online mask for one grammar over a mask store from
    `syncode_mask_store`: its incremental LALR parser on the text so far, then the
    store's lookup, as SynCode's `GrammarConstrainer.mask_scores` does for one sequence
    (decoding the token ids to text is left out of the timed call).

    `reset()` starts a new output (SynCode resets per prompt); `mask(text)` is the
    allowed-token mask (a bool torch tensor over the vocabulary) after `text`. The
    store's mode (`SYNCODE_MODES`) decides whether the mask over- or
    under-approximates."""

    def __init__(self, store, grammar: str = "json"):
        import regex

        sg, base = _syncode_parts(grammar)
        from syncode.parsers.incremental_parser import IncrementalParser

        ignore_ws = any(
            t.name == name and regex.match(t.pattern.to_regexp(), " ") is not None
            for name in base.ignore_tokens
            for t in base.terminals
        )
        self.store = store
        self.parser = IncrementalParser(base, ignore_whitespace=ignore_ws)

    def reset(self) -> None:
        self.parser.reset()

    def mask(self, text: str, remainder: bytes = b""):
        """The mask after `text` (+ `remainder`, bytes that are not yet valid UTF-8)."""
        from syncode.parse_result import RemainderState

        res = self.parser.get_acceptable_next_terminals(text)
        if remainder:
            res.remainder_state = RemainderState.INCOMPLETE
            res.remainder = res.remainder.encode("utf-8") + remainder
        else:
            res.remainder = res.remainder.encode("utf-8")
        return self.store.get_accept_mask(res)


def _utf8_split(data: bytes) -> tuple[str, bytes]:
    """The longest prefix of `data` that is valid UTF-8, as text, and the rest."""
    for cut in range(len(data), max(len(data) - 4, -1), -1):
        try:
            return data[:cut].decode("utf-8"), data[cut:]
        except UnicodeDecodeError:
            continue
    raise ValueError(f"bytes {data[:40]!r} are not UTF-8 followed by a partial char")


@dataclass(frozen=True)
class DocumentLatency:
    """Per-token mask times (µs) of three tools decoding the same documents, each
    starting every document fresh: ours with every parser memo cleared at the start of
    the document (kept within it), SynCode with its parser reset, llguidance with a
    new matcher.

    `steps[tool]` has shape (repeats, steps) (one mask per step, the steps of all
    documents in order); `doc[tool]` (documents,) is each document's median step time,
    the median over repeats; `doc_total[tool]` (documents,) each document's total mask
    time (the sum over its steps), the median over repeats; `doc_id` (steps,) says
    which document a step belongs to;
    `syncode_missed` (steps,) marks the steps where SynCode's mask leaves out the
    token the document takes (which a sound mask never does), `syncode_misses` counts
    them; `syncode_allowed` (steps,) how many tokens SynCode's mask allows (0: an
    empty mask, on which SynCode's own `mask_scores` falls back to masking nothing);
    `tokens` (steps,) the token taken at each step (EOS last in each document);
    `states` (steps,) our decoder state at each step."""

    steps: dict
    doc: dict
    doc_total: dict
    doc_id: np.ndarray
    syncode_missed: np.ndarray
    syncode_allowed: np.ndarray
    tokens: np.ndarray
    states: tuple[State, ...]

    @property
    def syncode_misses(self) -> int:
        return int(self.syncode_missed.sum())


TOOLS = ("ours", "SynCode", "llguidance")
"""The tools `document_latency` times, in the order it times them at each step."""


def document_latency(
    decoder: Decoder,
    syncode: SynCodeMasker,
    peer: Llguidance,
    documents: Sequence[Sequence[int]],
    *,
    repeats: int = 3,
) -> DocumentLatency:
    """Time the three tools' masks at every step of each token sequence (then EOS),
    interleaved step by step so that they share the machine's load, `repeats` times.

    Raises ValueError if our mask or llguidance's leaves out the token a document
    takes (give documents both accept, e.g. without leading whitespace)."""
    checks.integer("repeats", repeats, at_least=1)
    docs = [list(d) for d in documents]
    if not docs or not all(docs):
        raise ValueError("documents must be a non-empty list of non-empty sequences")
    vocab, eos = decoder.vocab, decoder.vocab.eos
    times = {k: [] for k in TOOLS}
    doc_id, states, missed, allowed, taken = [], [], [], [], []
    for r in range(repeats):
        row = {k: [] for k in TOOLS}
        for d, doc in enumerate(docs):
            decoder.clear_memo()
            syncode.reset()
            st, m, data = decoder.initial(), peer.matcher(), b""
            for tid in doc + [eos]:
                text, rest = _utf8_split(data)
                t0 = time.perf_counter()
                ours = decoder.mask_bits(st)
                t1 = time.perf_counter()
                theirs = syncode.mask(text, rest)
                t2 = time.perf_counter()
                llg = m.compute_bitmask()
                t3 = time.perf_counter()
                for k, dt in zip(TOOLS, (t1 - t0, t2 - t1, t3 - t2)):
                    row[k].append(dt * 1e6)
                if r == 0:
                    doc_id.append(d)
                    states.append(st)
                    taken.append(tid)
                    missed.append(not bool(theirs[tid]))
                    allowed.append(int(theirs.sum()))
                for who, words in (
                    ("our mask", ours),
                    ("llguidance", np.frombuffer(llg, dtype=np.uint32)),
                ):
                    if not (int(words[tid >> 5]) >> (tid & 31)) & 1:
                        raise ValueError(
                            f"document {d}: token {tid} is not allowed by {who}"
                        )
                if tid == eos:
                    break
                st = decoder.feed_token(st, tid)
                data += vocab.tokens[tid]
                if not m.consume_token(tid) or m.is_error():
                    raise ValueError(f"document {d}: llguidance rejects token {tid}")
        for k in TOOLS:
            times[k].append(row[k])
    steps = {k: np.array(v) for k, v in times.items()}
    doc_id = np.array(doc_id)
    doc = {
        k: np.array(
            [np.median(np.median(v[:, doc_id == d], axis=1)) for d in range(len(docs))]
        )
        for k, v in steps.items()
    }
    total = {
        k: np.array(
            [np.median(v[:, doc_id == d].sum(axis=1)) for d in range(len(docs))]
        )
        for k, v in steps.items()
    }
    return DocumentLatency(
        steps,
        doc,
        total,
        doc_id,
        np.array(missed, dtype=bool),
        np.array(allowed),
        np.array(taken),
        tuple(states),
    )
