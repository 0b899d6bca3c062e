"""Terminals of a lark grammar compiled into one byte-level longest-match DFA.

Each terminal's regular expression (lark's own regex text, parsed with Python's `re`
parser) becomes a Thompson NFA over *bytes*: character classes are expanded into UTF-8
byte sequences, so a byte-level BPE token that stops in the middle of a multi-byte
character is lexed exactly. The NFAs of all terminals are joined, determinised (subset
construction) and minimised (Moore refinement that keeps the terminal label of every
state).

Lexing follows the one-byte-lookahead maximal-munch rule used by lexer-based constrained
decoders: the DFA runs until a byte has no transition; if the state reached accepts a
terminal, that terminal is emitted and the byte restarts the DFA from its initial state,
otherwise the input is rejected. A state that accepts several terminals is labelled, as
lark does, by the highest priority, then by a string literal over a regular expression,
then by lark's order of regular expressions.

Supported regex syntax: literals, classes, `.`, `\\d \\w \\s` (ASCII meaning),
alternation, groups, inline flags `i`/`s`, and all repeats. Anchors, look-arounds and
back-references raise ValueError.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

try:  # Python ≥ 3.11
    import re._constants as _C
    import re._parser as _P
except ImportError:  # pragma: no cover
    import sre_constants as _C
    import sre_parse as _P

MAX_CP = 0x10FFFF
DEAD = -1

_ASCII_CATS = {
    _C.CATEGORY_DIGIT: [(0x30, 0x39)],
    _C.CATEGORY_WORD: [(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)],
    _C.CATEGORY_SPACE: [(0x09, 0x0D), (0x20, 0x20)],
}
_NOT_CATS = {
    _C.CATEGORY_NOT_DIGIT: _C.CATEGORY_DIGIT,
    _C.CATEGORY_NOT_WORD: _C.CATEGORY_WORD,
    _C.CATEGORY_NOT_SPACE: _C.CATEGORY_SPACE,
}


# --------------------------------------------------------------------------------------
# code-point interval sets and their UTF-8 encoding
def normalize(ranges) -> list[tuple[int, int]]:
    """Sorted, merged, non-overlapping closed intervals."""
    out: list[list[int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return [(a, b) for a, b in out]


def complement(ranges) -> list[tuple[int, int]]:
    out, start = [], 0
    for lo, hi in normalize(ranges):
        if lo > start:
            out.append((start, lo - 1))
        start = hi + 1
    if start <= MAX_CP:
        out.append((start, MAX_CP))
    return out


def _encode(cp: int) -> bytes:
    return chr(cp).encode("utf-8", "surrogatepass")


def utf8_sequences(lo: int, hi: int) -> list[list[tuple[int, int]]]:
    """The code points lo..hi (surrogates excluded) as byte-range sequences [(b1lo,
    b1hi), ...].

    Every valid UTF-8 encoding of a code point in the range matches exactly one
    sequence, and nothing else does (the classic range-splitting construction).
    """
    if lo > hi:
        return []
    if lo <= 0xDFFF and hi >= 0xD800:
        return utf8_sequences(lo, min(hi, 0xD7FF)) + utf8_sequences(max(lo, 0xE000), hi)
    for edge in (0x7F, 0x7FF, 0xFFFF):
        if lo <= edge < hi:
            return utf8_sequences(lo, edge) + utf8_sequences(edge + 1, hi)
    if hi <= 0x7F:
        return [[(lo, hi)]]
    for i in (1, 2, 3):
        m = (1 << (6 * i)) - 1
        if lo & ~m != hi & ~m:
            if lo & m:
                return utf8_sequences(lo, lo | m) + utf8_sequences((lo | m) + 1, hi)
            if hi & m != m:
                return utf8_sequences(lo, (hi & ~m) - 1) + utf8_sequences(hi & ~m, hi)
    a, b = _encode(lo), _encode(hi)
    return [list(zip(a, b))]


# --------------------------------------------------------------------------------------
# Thompson NFA over bytes
class ByteNFA:
    """Nodes with ε-edges and byte-range edges; `accept[node]` is a terminal index or
    -1."""

    def __init__(self):
        self.eps: list[list[int]] = []
        self.edges: list[list[tuple[int, int, int]]] = []
        self.accept: list[int] = []

    def node(self) -> int:
        self.eps.append([])
        self.edges.append([])
        self.accept.append(-1)
        return len(self.eps) - 1

    def charset(self, ranges) -> tuple[int, int]:
        s, e = self.node(), self.node()
        for lo, hi in normalize(ranges):
            for seq in utf8_sequences(lo, hi):
                cur = s
                for k, (blo, bhi) in enumerate(seq):
                    nxt = e if k == len(seq) - 1 else self.node()
                    self.edges[cur].append((blo, bhi, nxt))
                    cur = nxt
        return s, e

    def empty(self) -> tuple[int, int]:
        s, e = self.node(), self.node()
        self.eps[s].append(e)
        return s, e


def _case_ranges(cp: int, icase: bool) -> list[tuple[int, int]]:
    ch = chr(cp)
    if icase and ch.isascii() and ch.isalpha():
        return [(ord(ch.lower()),) * 2, (ord(ch.upper()),) * 2]
    return [(cp, cp)]


def _class_ranges(items, icase: bool) -> list[tuple[int, int]]:
    negate, out = False, []
    for op, av in items:
        if op is _C.NEGATE:
            negate = True
        elif op is _C.LITERAL:
            out += _case_ranges(av, icase)
        elif op is _C.RANGE:
            lo, hi = av
            out.append((lo, hi))
            if icase:
                for c in range(lo, min(hi, 0x7F) + 1):
                    out += _case_ranges(c, True)
        elif op is _C.CATEGORY:
            if av in _ASCII_CATS:
                out += _ASCII_CATS[av]
            elif av in _NOT_CATS:
                out += complement(_ASCII_CATS[_NOT_CATS[av]])
            else:
                raise ValueError(
                    f"unsupported character category {av} in a character class"
                )
        else:
            raise ValueError(f"unsupported item {op} in a character class")
    return complement(out) if negate else normalize(out)


def _build(nfa: ByteNFA, parsed, flags: int) -> tuple[int, int]:
    """Fragment (start, end) for a parsed sub-pattern (a sequence of items)."""
    start = cur = nfa.node()
    for op, av in parsed:
        icase, dotall = bool(flags & re.IGNORECASE), bool(flags & re.DOTALL)
        if op is _C.LITERAL:
            s, e = nfa.charset(_case_ranges(av, icase))
        elif op is _C.NOT_LITERAL:
            s, e = nfa.charset(complement(_case_ranges(av, icase)))
        elif op is _C.ANY:
            s, e = nfa.charset([(0, MAX_CP)] if dotall else complement([(10, 10)]))
        elif op is _C.IN:
            s, e = nfa.charset(_class_ranges(av, icase))
        elif op is _C.BRANCH:
            s, e = nfa.node(), nfa.node()
            for alt in av[1]:
                a, b = _build(nfa, alt, flags)
                nfa.eps[s].append(a)
                nfa.eps[b].append(e)
        elif op is _C.SUBPATTERN:
            _, add, delete, sub = av
            s, e = _build(nfa, sub, (flags | add) & ~delete)
        elif op in (
            _C.MAX_REPEAT,
            _C.MIN_REPEAT,
            getattr(_C, "POSSESSIVE_REPEAT", None),
        ):
            lo, hi, sub = av
            s = e = nfa.node()
            for _ in range(lo):
                a, b = _build(nfa, sub, flags)
                nfa.eps[e].append(a)
                e = b
            if hi is _C.MAXREPEAT:
                a, b = _build(nfa, sub, flags)
                loop = nfa.node()
                nfa.eps[e].append(loop)
                nfa.eps[loop].append(a)
                nfa.eps[b].append(loop)
                e = loop
            else:
                for _ in range(hi - lo):
                    a, b = _build(nfa, sub, flags)
                    nxt = nfa.node()
                    nfa.eps[e] += [a, nxt]
                    nfa.eps[b].append(nxt)
                    e = nxt
        elif op is getattr(_C, "ATOMIC_GROUP", None):
            s, e = _build(nfa, av, flags)
        else:
            raise ValueError(
                f"unsupported regex construct {op} (anchors, look-arounds "
                "and back-references cannot be lexed by a DFA)"
            )
        nfa.eps[cur].append(s)
        cur = e
    return start, cur


def regex_fragment(nfa: ByteNFA, pattern: str) -> tuple[int, int]:
    """Add the NFA of a Python regular expression (str) to `nfa`; return (start,
    end)."""
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be a str, got {type(pattern).__name__}")
    try:
        parsed = _P.parse(pattern, 0)
    except re.error as exc:
        raise ValueError(
            f"pattern {pattern!r} is not a valid regular expression: {exc}"
        ) from exc
    return _build(nfa, parsed, parsed.state.flags)


# --------------------------------------------------------------------------------------
# DFA
@dataclass(frozen=True)
class Terminal:
    name: str
    regex: str
    priority: int = 0
    is_string: bool = False
    ignore: bool = False


@dataclass
class LexerDFA:
    """Minimal combined DFA over bytes.

    trans[q, b]  next state or DEAD (-1); state 0 is the initial state.
    label[q]     index of the terminal accepted at q, or -1.
    terminals    the terminals, in the order used by `label`.
    """

    trans: np.ndarray
    label: np.ndarray
    terminals: tuple[Terminal, ...]
    reach: list[frozenset] = field(default_factory=list)

    @property
    def n_states(self) -> int:
        return int(self.trans.shape[0])

    def run(self, data: bytes, state: int = 0):
        """Lex `data` from `state`: (end state, emitted terminal indices incl. ignored)
        or None."""
        out = []
        for b in data:
            nxt = self.trans[state, b]
            if nxt == DEAD:
                t = self.label[state]
                if t < 0 or state == 0:
                    return None
                out.append(int(t))
                nxt = self.trans[0, b]
                if nxt == DEAD:
                    return None
            state = int(nxt)
        return state, out

    def tokenize(self, text: bytes | str) -> list[str]:
        """Complete lexing of `text` into terminal names (ignored ones dropped);
        ValueError if invalid."""
        data = text.encode() if isinstance(text, str) else text
        res = self.run(data)
        if res is None or (res[0] != 0 and self.label[res[0]] < 0):
            raise ValueError(
                f"text {text!r} cannot be lexed into the grammar's terminals"
            )
        state, out = res
        if state != 0:
            out.append(int(self.label[state]))
        return [self.terminals[t].name for t in out if not self.terminals[t].ignore]


def _rank(t: Terminal, max_width: int):
    return (-t.priority, 0 if t.is_string else 1, -max_width)


def build_dfa(terminals, max_states: int = 20_000) -> LexerDFA:
    """Combined, minimised longest-match DFA of `terminals` (a sequence of Terminal)."""
    terminals = tuple(terminals)
    if not terminals:
        raise ValueError("terminals is empty: a lexer needs at least one terminal")
    nfa = ByteNFA()
    root = nfa.node()
    widths = []
    for i, t in enumerate(terminals):
        s, e = regex_fragment(nfa, t.regex)
        nfa.eps[root].append(s)
        nfa.accept[e] = i
        try:
            widths.append(min(_P.parse(t.regex).getwidth()[1], 1 << 30))
        except Exception:  # pragma: no cover
            widths.append(0)
    order = {i: _rank(t, widths[i]) + (i,) for i, t in enumerate(terminals)}

    closure_cache: dict[int, frozenset] = {}

    def closure(nodes):
        seen, stack = set(nodes), list(nodes)
        while stack:
            n = stack.pop()
            for m in nfa.eps[n]:
                if m not in seen:
                    seen.add(m)
                    stack.append(m)
        return frozenset(seen)

    start = closure([root])
    index = {start: 0}
    states = [start]
    rows, labels = [], []
    k = 0
    while k < len(states):
        cur = states[k]
        k += 1
        targets: dict[int, set] = {}
        acc = [nfa.accept[n] for n in cur if nfa.accept[n] >= 0]
        for n in cur:
            for lo, hi, dst in nfa.edges[n]:
                for b in range(lo, hi + 1):
                    targets.setdefault(b, set()).add(dst)
        row = np.full(256, DEAD, dtype=np.int32)
        for b, dst in targets.items():
            key = frozenset(dst)
            cl = closure_cache.get(key)
            if cl is None:
                cl = closure_cache[key] = closure(key)
            if cl not in index:
                index[cl] = len(states)
                states.append(cl)
                if len(states) > max_states:
                    raise ValueError(f"the lexer DFA exceeds max_states={max_states}")
            row[b] = index[cl]
        rows.append(row)
        labels.append(min(acc, key=order.__getitem__) if acc else -1)
    trans, label = np.stack(rows), np.array(labels, dtype=np.int32)
    if label[0] >= 0:
        raise ValueError(
            f"terminal {terminals[label[0]].name} matches the empty string"
        )
    trans, label = _minimize(trans, label)
    dfa = LexerDFA(trans, label, terminals)
    dfa.reach = _reach(trans, label)
    return dfa


def _minimize(trans: np.ndarray, label: np.ndarray):
    """Moore refinement; DEAD is its own class; unreachable-to-accept states collapse
    into DEAD."""
    n = trans.shape[0]
    # states that can reach an accepting state
    live = label >= 0
    while True:
        t = trans.copy()
        t[t == DEAD] = n
        ext = np.append(live, False)
        new = live | ext[t].any(1)
        if (new == live).all():
            break
        live = new
    part = np.where(live, label + 1, -1)  # -1 = dead class
    _, part = np.unique(part, return_inverse=True)
    while True:
        nxt = np.where(trans == DEAD, -1, part[np.where(trans == DEAD, 0, trans)])
        nxt = np.where(
            live[np.where(trans == DEAD, 0, trans)] | (trans == DEAD), nxt, -1
        )
        nxt = np.where(trans == DEAD, -1, nxt)
        key = np.column_stack([part, nxt])
        _, new = np.unique(key, axis=0, return_inverse=True)
        new = new.ravel()
        if len(np.unique(new)) == len(np.unique(part)):
            break
        part = new
    # renumber: initial state first, dead class removed
    dead_cls = set(part[~live].tolist())
    order, mapping = [], {}
    for q in [0] + list(range(n)):
        c = int(part[q])
        if c in dead_cls or c in mapping:
            continue
        mapping[c] = len(order)
        order.append(q)
    m = len(order)
    new_trans = np.full((m, 256), DEAD, dtype=np.int32)
    new_label = np.empty(m, dtype=np.int32)
    for i, q in enumerate(order):
        row = trans[q]
        for b in range(256):
            d = row[b]
            if d != DEAD and live[d]:
                new_trans[i, b] = mapping[int(part[d])]
        new_label[i] = label[q]
    return new_trans, new_label


def _reach(trans: np.ndarray, label: np.ndarray) -> list[frozenset]:
    """For every state, the terminal labels of the accepting states reachable from it
    (incl. itself)."""
    n = trans.shape[0]
    succ = [set(int(x) for x in np.unique(trans[q]) if x != DEAD) for q in range(n)]
    reach = [({int(label[q])} if label[q] >= 0 else set()) for q in range(n)]
    changed = True
    while changed:
        changed = False
        for q in range(n):
            before = len(reach[q])
            for d in succ[q]:
                reach[q] |= reach[d]
            changed |= len(reach[q]) != before
    return [frozenset(r) for r in reach]
