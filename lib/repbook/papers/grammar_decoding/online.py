"""The online mask of grammar-constrained decoding (Park et al., 2025), and a brute-force
oracle.

`Decoder.mask_bits` (packed) and `Decoder.mask` (unpacked): the state is (q, LR stack). A
group of the offline tables is allowed when the LR parser accepts its terminal sequence
from the stack and, after it, accepts some terminal the pending lexeme can still become
(or the pending text can become ignored text). The mask is the union of the allowed
groups' token sets. The parser step is memoised exactly on (q, the top stack entries it
read). EOS is allowed only when the pending lexeme is complete (or empty) and the parser
accepts end of input after it.

`oracle_mask` decides every token of one prefix by lexing and parsing it directly, with no
tables and no caching.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from repbook.core import checks

from .lexer import DEAD
from .offline import Tables, step_tables, viability_classes
from .parser import Grammar
from .vocab import Vocabulary


# --------------------------------------------------------------------------------------
# online
@dataclass(frozen=True)
class State:
    """Decoder state: lexer state q and the LR stack (a tuple of LR states)."""

    q: int
    stack: tuple


class Decoder:
    """The online mask computation over preprocessed `tables`."""

    DENSE_WORDS = 16  # a group whose tokens touch more 64-bit words is a dense row

    def __init__(self, grammar: Grammar, vocab: Vocabulary, tables: Tables):
        self.grammar, self.vocab, self.tables = grammar, vocab, tables
        self.n = grammar.dfa.n_states
        self.nxt, self.emit = step_tables(grammar)
        self.cls, self.free, self.R = viability_classes(grammar)
        self.T = len(grammar.terminals)
        self.live_terms = np.array(
            [i for i in range(self.T) if i not in grammar.ignored]
        )
        self._ignored = grammar.ignored
        self._narrow = self.T + 1 <= 64  # parser-step codes fit one uint64
        self._n_words64 = -(-len(vocab) // 64)
        self._n_words32 = -(-len(vocab) // 32)
        self._adv: dict = {}
        self._acc: dict = {}
        self._step: dict = {}
        self._part: dict = {}
        self._info: dict = {}

    # -- parser with memoisation -------------------------------------------------------
    def _advance(self, stack, term):
        key = (stack, term)
        out = self._adv.get(key, 0)
        if out == 0:
            if len(self._adv) > 500_000:
                self._adv.clear()
            out = self._adv[key] = self.grammar.advance(stack, term)
        return out

    def _acceptable(self, stack) -> np.ndarray:
        out = self._acc.get(stack)
        if out is None:
            out = np.zeros(self.T, dtype=bool)
            for t in self.live_terms.tolist():
                out[t] = self._advance(stack, t) is not None
            if len(self._acc) > 200_000:
                self._acc.clear()
            self._acc[stack] = out
        return out

    def _feed(self, stack, seq):
        for t in seq:
            stack = self._advance(stack, t)
            if stack is None:
                return None
        return stack

    # -- public ------------------------------------------------------------------------
    def initial(self) -> State:
        return State(0, (self.grammar.start,))

    def feed_bytes(self, state: State, data: bytes) -> State | None:
        """The state after `data`, or None if `data` leaves the grammar."""
        q, stack = state.q, state.stack
        for b in data:
            t = int(self.emit[q, b])
            q = int(self.nxt[q, b])
            if q == self.n:
                return None
            if t >= 0:
                stack = self._advance(stack, t)
                if stack is None:
                    return None
        state = State(q, stack)
        return state if self.viable(state) else None

    def viable(self, state: State) -> bool:
        """True if the pending lexeme can still become a terminal the parser accepts (or
        is empty or ignorable)."""
        c = self.cls[state.q]
        return bool(self.free[c] or (self.R[c] & self._acceptable(state.stack)).any())

    def feed_token(self, state: State, token: int) -> State | None:
        """The state after one token (via the tables), or None if it is not allowed."""
        q2 = int(self.tables.end[state.q, token])
        if q2 == self.n or token == self.vocab.eos:
            return None
        seq = self.tables.seqs[int(self.tables.seq[state.q, token])]
        stack = self._feed(state.stack, seq)
        return None if stack is None else State(q2, stack)

    def can_end(self, state: State) -> bool:
        """EOS allowed: nothing, or a complete lexeme, is pending and the parser accepts
        END."""
        return bool(self.parser_step(state)[1])

    def _can_end_direct(self, state: State) -> bool:
        """`can_end` computed directly with the memoised LR parser (no parser-step
        memo)."""
        q, stack = state.q, state.stack
        label = int(self.grammar.dfa.label[q])
        if q != 0:
            if label < 0:
                return False
            if label not in self.grammar.ignored:
                stack = self._advance(stack, label)
                if stack is None:
                    return False
        return self._advance(stack, self.grammar.end) is not None

    def mask_bits(self, state: State) -> np.ndarray:
        """The mask packed into uint32 words (token i is bit i % 32 of word i // 32;
        bits past the vocabulary are 0), the layout of llguidance's `compute_bitmask`. A
        fresh array."""
        code, eos = self.parser_step(state)
        info = self._qinfo(state.q)
        out = self._gather_bits(info, self._verdicts(info, code))
        if eos:
            e = self.vocab.eos
            out[e >> 6] |= np.uint64(1 << (e & 63))
        return out.view(np.uint32)[: self._n_words32]

    def mask(self, state: State) -> np.ndarray:
        """Boolean mask over the vocabulary: tokens that keep the output a viable
        prefix."""
        return np.unpackbits(
            self.mask_bits(state).view(np.uint8),
            count=len(self.vocab),
            bitorder="little",
        ).view(bool)

    # -- the three phases of the online step -------------------------------------------
    def clear_memo(self) -> None:
        """Forget every parser memo (for timing the cold path); the masks do not
        change."""
        self._adv.clear()
        self._acc.clear()
        self._step.clear()
        self._part.clear()

    def parser_step(self, state: State):
        """Phase 1 of the online step: (code, eos) at (q, stack). Per distinct terminal
        sequence k at q, code[k] = 0 if the parser rejects the sequence, else bit T set
        plus bit t for every terminal t that some group of k asks about and the parser
        accepts after it (a bool row of T + 1 entries instead of bits when T + 1 > 64);
        eos: EOS is allowed.

        Memoised exactly on (q, the top d states of the stack), where d is the number of
        stack entries the simulation read: an LR parser never looks below them, so every
        stack with the same top d states gives the same answer. An entry is stored only
        under its own d.
        """
        return self._lookup(self._step, state.q, state.stack, self._simulate)[1]

    def is_memoised(self, state: State) -> bool:
        """True if `parser_step(state)` would be answered from the memo (nothing is
        computed)."""
        depths = self._step.get(state.q)
        if not depths:
            return False
        L = len(state.stack)
        return any(d <= L and (state.q, state.stack[-d:]) in self._step for d in depths)

    def group_verdicts(self, q: int, code) -> np.ndarray:
        """Phase 2: per token group of lexer state `q`, whether it is allowed, given the
        parser step's `code` at q."""
        return self._verdicts(self._qinfo(self._check_q(q)), code)

    def union_bits(self, q: int, allowed) -> np.ndarray:
        """Phase 3: the union of the allowed groups' token sets at lexer state `q`, as
        uint64 words (a fresh array of `n_words` words; EOS not included)."""
        info = self._qinfo(self._check_q(q))
        allowed = np.asarray(allowed, dtype=bool)
        if allowed.shape != (info["gs"].size,):
            raise ValueError(
                f"allowed must hold one bool per group of lexer state {q} "
                f"({info['gs'].size}), got shape {allowed.shape}"
            )
        return self._gather_bits(info, allowed)

    @property
    def n_words(self) -> int:
        """64-bit words in one packed row over the vocabulary."""
        return self._n_words64

    def prepare(self) -> None:
        """Build the per-lexer-state group arrays of every state now, instead of on
        first use (they depend on the tables only, not on the parser)."""
        for q in range(self.n):
            self._qinfo(q)

    def _check_q(self, q) -> int:
        return checks.integer("q", q, at_least=0, at_most=self.n - 1)

    def must_end(self, state: State) -> bool:
        """True when the output is a complete sentence and nothing but ignored text may
        follow it: EOS is allowed, the pending lexeme cannot grow into a terminal the
        parser accepts, and after it the parser accepts no terminal but the end of
        input. A sampler that stops here stops exactly where the grammar allows nothing
        more (where llguidance's mask holds EOS alone)."""
        if not self.can_end(state):
            return False
        q, stack = state.q, state.stack
        dfa = self.grammar.dfa
        grow: set = set()
        for s in set(dfa.trans[q].tolist()) - {DEAD}:
            grow |= dfa.reach[s]
        grow = sorted(grow - self._ignored)
        if grow and self._acceptable(stack)[grow].any():
            return False
        label = int(dfa.label[q])
        if q != 0 and label >= 0 and label not in self._ignored:
            stack = self._advance(stack, label)
        return not self._acceptable(stack).any()

    def _simulate(self, q: int, stack: tuple):
        """The parser step from scratch, one part (a terminal sequence, or EOS) at a
        time; each part is itself memoised exactly on (q, part, the top stack entries it
        read)."""
        info = self._qinfo(q)
        part, T = self._part, self.T
        depth, codes = 1, []
        for k in range(len(info["seqs"])):
            d, c = self._part_lookup(part, (q, k), stack)
            depth = max(depth, d)
            codes.append(c)
        d, eos = self._part_lookup(part, (q, -1), stack)
        depth = max(depth, d)
        code = (
            np.array(codes, dtype=np.uint64)
            if self._narrow
            else np.array(codes, dtype=bool).reshape(len(codes), T + 1)
        )
        return depth, (code, eos)

    def _part_lookup(self, memo: dict, key: tuple, stack: tuple):
        return self._lookup(
            memo, key, stack, lambda key, stack: self._simulate_part(*key, stack)
        )

    @staticmethod
    def _lookup(memo: dict, key, stack: tuple, compute):
        """Exact memo on (key, top d entries of stack): memo[key] lists the depths d
        stored for `key` (ascending), memo[key, suffix] holds (d, value). Only those
        depths are tried."""
        depths = memo.get(key)
        if depths is not None:
            L = len(stack)
            for d in depths:
                if d > L:
                    break
                hit = memo.get((key, stack[-d:]))
                if hit is not None:
                    return hit
        else:
            depths = memo[key] = []
        out = compute(key, stack)
        if len(memo) > 500_000:
            memo.clear()
            depths = memo[key] = []
        memo[key, stack[-out[0] :]] = out
        if out[0] not in depths:
            depths.append(out[0])
            depths.sort()
        return out

    def _simulate_part(self, q: int, k: int, stack: tuple):
        """Part k (a terminal sequence; -1: EOS) of the parser step at (q, stack), on a
        stack seen as (p entries popped off `stack`, list of entries pushed above them),
        recording the deepest entry read. Returns (depth read, code or EOS verdict)."""
        g = self.grammar
        actions, gotos, END, end_state = g.actions, g.gotos, g.end, g.end_state
        deepest = [1]

        def top(p, cur):
            if cur:
                return cur[-1]
            if p + 1 > deepest[0]:
                deepest[0] = p + 1
            return stack[-1 - p]

        def adv(p, cur, term):
            cur = list(cur)
            while True:
                act = actions[top(p, cur)].get(term)
                if act is None:
                    return None
                shift, arg = act
                if shift:
                    cur.append(arg)
                    return p, cur
                lhs, size = arg
                if size:
                    if len(cur) >= size:
                        del cur[len(cur) - size :]
                    else:
                        p += size - len(cur)
                        cur = []
                cur.append(gotos[top(p, cur)][lhs])
                if term == END and cur[-1] == end_state:
                    return p, cur

        T = self.T
        if k < 0:  # EOS, as in `_can_end_direct`
            label = int(g.dfa.label[q])
            conf, eos = (0, []), True
            if q != 0:
                if label < 0:
                    eos = False
                elif label not in self._ignored:
                    conf = adv(*conf, label)
                    eos = conf is not None
            if eos:
                eos = adv(*conf, END) is not None
            return deepest[0], eos
        info = self._qinfo(q)
        conf = (0, [])
        for t in info["seqs"][k]:
            conf = adv(*conf, t)
            if conf is None:
                return deepest[0], (0 if self._narrow else np.zeros(T + 1, dtype=bool))
        acc = [t for t in info["wanted"][k] if adv(*conf, t) is not None]
        if self._narrow:
            return deepest[0], (1 << T) | sum(1 << t for t in acc)
        row = np.zeros(T + 1, dtype=bool)
        row[acc] = True
        row[T] = True
        return deepest[0], row

    def _qinfo(self, q: int) -> dict:
        """Per lexer state, built on its first use and then kept: the distinct terminal
        sequences, each group's sequence index and the bits its class needs (bit T alone
        for a free class; else the terminals the pending lexeme can become), and each
        group's tokens as a packed bitset of uint64 words (dense rows for big groups,
        (word, bits) pairs for the rest)."""
        info = self._info.get(q)
        if info is None:
            t = self.tables
            gs, gc = t.group_seq[q].astype(np.intp), t.group_cls[q]
            T = self.T
            live = np.zeros(T, dtype=bool)
            live[self.live_terms] = True
            need = np.zeros((gc.size, T + 1), dtype=bool)
            need[:, :T] = self.R[gc] & ~self.free[gc][:, None]
            need[:, T] = self.free[gc]
            # per sequence, the terminals some group of it asks about: only these are
            # tested
            wanted = np.zeros((t.seq_list[q].size, T), dtype=bool)
            np.logical_or.at(wanted, gs, need[:, :T])
            wanted = [np.flatnonzero(w & live).tolist() for w in wanted]
            if self._narrow:
                shifts = np.arange(T + 1, dtype=np.uint64)
                need = (need.astype(np.uint64) << shifts).sum(1)
                need = need.astype(np.uint64)
            gid = t.gid[q]
            member = np.zeros((gc.size + 1, self._n_words64 * 64), dtype=bool)
            member[gid, np.arange(gid.size)] = True
            bits = np.packbits(member[1:], axis=1, bitorder="little").view(np.uint64)
            # most groups hold a few tokens: those are kept as (word, bits) pairs, the
            # others as dense rows of words
            nnz = (bits != 0).sum(1)
            dense = np.flatnonzero(nnz > self.DENSE_WORDS)
            sp_grp, sp_idx = np.nonzero(bits[nnz <= self.DENSE_WORDS])
            sp_grp = np.flatnonzero(nnz <= self.DENSE_WORDS)[sp_grp]
            info = self._info[q] = dict(
                seqs=[t.seqs[s] for s in t.seq_list[q].tolist()],
                wanted=wanted,
                gs=gs,
                need=need,
                dense=dense,
                dense_rows=bits[dense],
                sp_grp=sp_grp,
                sp_idx=sp_idx,
                sp_val=bits[sp_grp, sp_idx],
            )
        return info

    def _verdicts(self, info: dict, code) -> np.ndarray:
        """Per group: allowed? (its sequence is accepted, and its class is free or the
        parser then accepts a terminal the pending lexeme can become)."""
        hit = code[info["gs"]] & info["need"]
        return hit != 0 if self._narrow else hit.any(1)

    def _gather_bits(self, info: dict, allowed) -> np.ndarray:
        """The union of the allowed groups' bitsets (uint64 words, a fresh array)."""
        which = allowed[info["dense"]].nonzero()[0]
        if which.size == 0:
            out = np.zeros(self._n_words64, dtype=np.uint64)
        elif which.size == 1:
            out = info["dense_rows"][which[0]].copy()
        else:
            out = np.bitwise_or.reduce(info["dense_rows"][which], axis=0)
        sel = allowed[info["sp_grp"]]
        np.bitwise_or.at(out, info["sp_idx"][sel], info["sp_val"][sel])
        return out


# --------------------------------------------------------------------------------------
# brute-force oracle
def oracle_mask(grammar: Grammar, vocab: Vocabulary, prefix: bytes) -> np.ndarray:
    """Decide every token for `prefix` directly: lex the token's bytes with the DFA from
    the prefix's lexer state, parse the completed terminals from scratch with the LR
    table, and search the DFA forward for a terminal the pending lexeme can become that
    the parser accepts. No preprocessing tables, no groups, no caches. EOS: the prefix
    parses completely.
    """
    dfa = grammar.dfa
    ignored = grammar.ignored
    trans = dfa.trans.tolist()
    label = dfa.label.tolist()
    out = np.zeros(len(vocab), dtype=bool)
    base = dfa.run(prefix)
    if base is None:
        raise ValueError(f"prefix {prefix[:40]!r} does not lex")
    q0, emitted0 = base

    def lex(q, data):
        emitted = []
        for b in data:
            nxt = trans[q][b]
            if nxt == DEAD:
                if label[q] < 0 or q == 0:
                    return None
                emitted.append(label[q])
                nxt = trans[0][b]
                if nxt == DEAD:
                    return None
            q = nxt
        return q, emitted

    for i, tok in enumerate(vocab.tokens):
        if i == vocab.eos:
            out[i] = grammar.accepts(prefix)
            continue
        if not tok:
            continue
        res = lex(q0, tok)
        if res is None:
            continue
        q, emitted = res
        stack = (grammar.start,)
        for t in emitted0 + emitted:
            if t in ignored:
                continue
            stack = grammar.advance(stack, t)
            if stack is None:
                break
        if stack is None:
            continue
        seen, todo, labels = {q}, [q], set()
        while todo:
            s = todo.pop()
            if label[s] >= 0:
                labels.add(label[s])
            for d in set(trans[s]):
                if d != DEAD and d not in seen:
                    seen.add(d)
                    todo.append(d)
        if q == 0 or labels & ignored:
            out[i] = True
        else:
            out[i] = any(grammar.advance(stack, t) is not None for t in labels)
    return out
