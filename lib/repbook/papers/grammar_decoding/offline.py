"""Offline preprocessing of grammar-constrained decoding (Park et al., 2025).

The vocabulary becomes a byte trie; for every lexer-DFA state q, one pass over the trie
gives each token's end state q' and the sequence of terminals it completes on the way (the
*lexing transducer* composed with detokenisation). The pass is done for all q at once,
level by level, with numpy. Tokens are then grouped, per q, by (terminal sequence, class
of q'), where the class of q' records which terminals the unfinished lexeme could still
become. These groups are the token-level tables the online step needs (`preprocess`).

Baseline: `preprocess_naive` builds the same tables by simulating every (state, token)
pair independently, as prior sound methods do.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .lexer import DEAD
from .parser import Grammar
from .vocab import Vocabulary


# --------------------------------------------------------------------------------------
# the token trie
@dataclass(frozen=True)
class TokenTrie:
    """Nodes 0..n-1 (0 = root) in breadth-first order, with parent, incoming byte and
    depth; token i ends at node_of[i]. Children of node p are
    child_ids[child_ptr[p]:child_ptr[p+1]]."""

    parent: np.ndarray
    byte: np.ndarray
    depth: np.ndarray
    node_of: np.ndarray
    child_ptr: np.ndarray
    child_ids: np.ndarray

    @property
    def n_nodes(self) -> int:
        return int(self.parent.size)


def build_trie(tokens, *, share: bool = True) -> TokenTrie:
    """Byte trie of `tokens` (bytes), built level by level with numpy.

    `share=False` gives every token its own chain of nodes (no prefix sharing): the
    ablation that isolates what sharing buys.
    """
    for i, tok in enumerate(tokens):
        if not isinstance(tok, (bytes, bytearray)):
            raise TypeError(f"token {i} must be bytes, got {type(tok).__name__}")
    V = len(tokens)
    lens = np.fromiter((len(t) for t in tokens), dtype=np.int64, count=V)
    flat = np.frombuffer(b"".join(tokens), dtype=np.uint8)
    starts = np.concatenate([[0], np.cumsum(lens)[:-1]]).astype(np.int64)
    cur = np.zeros(V, dtype=np.int64)  # node of each token's prefix of length d
    parent, byte, depth = (
        [np.zeros(1, np.int64)],
        [np.zeros(1, np.int64)],
        [np.zeros(1, np.int64)],
    )
    n = 1
    for d in range(int(lens.max(initial=0))):
        idx = np.flatnonzero(lens > d)
        b = flat[starts[idx] + d].astype(np.int64)
        if share:
            key = cur[idx] * 256 + b
            uniq, inv = np.unique(key, return_inverse=True)
            new = n + inv.ravel()
            parent.append(uniq // 256)
            byte.append(uniq % 256)
        else:
            new = n + np.arange(idx.size)
            parent.append(cur[idx])
            byte.append(b)
        depth.append(np.full(parent[-1].size, d + 1, dtype=np.int64))
        n += parent[-1].size
        cur[idx] = new
    parent, byte, depth = (np.concatenate(x) for x in (parent, byte, depth))
    order = np.argsort(parent[1:], kind="stable") + 1
    child_ptr = np.searchsorted(parent[order], np.arange(n + 1))
    return TokenTrie(parent, byte, depth, cur, child_ptr, order)


# --------------------------------------------------------------------------------------
# the lexing transducer on bytes
def step_tables(grammar: Grammar):
    """(next, emit) arrays of shape (n+1, 256); row n is the dead state.

    next[q, b] is the state after byte b; emit[q, b] the non-ignored terminal completed
    by it (-1: none). A missing transition from an accepting state completes its
    terminal and restarts at 0.
    """
    dfa = grammar.dfa
    n = dfa.n_states
    trans = np.where(dfa.trans == DEAD, n, dfa.trans)
    nxt = np.full((n + 1, 256), n, dtype=np.int32)
    emit = np.full((n + 1, 256), -1, dtype=np.int32)
    nxt[:n] = trans
    ignored = grammar.ignored
    for q in range(1, n):
        t = int(dfa.label[q])
        if t < 0:
            continue
        miss = trans[q] == n
        nxt[q, miss] = trans[0, miss]
        if t not in ignored:
            emit[q, miss & (trans[0] != n)] = t
    return nxt, emit


def viability_classes(grammar: Grammar):
    """Per lexer state, a class id; classes share (free, R): free = nothing or ignorable
    text is pending; R = the non-ignored terminals the pending lexeme can still become
    (bool matrix)."""
    dfa, ignored = grammar.dfa, grammar.ignored
    keys, cls = {}, np.empty(dfa.n_states + 1, dtype=np.int64)
    for q in range(dfa.n_states):
        free = q == 0 or bool(dfa.reach[q] & ignored)
        r = frozenset() if free else frozenset(dfa.reach[q] - ignored)
        cls[q] = keys.setdefault((free, r), len(keys))
    cls[-1] = -1
    nT = len(grammar.terminals)
    free = np.array([k[0] for k in keys], dtype=bool)
    R = np.zeros((len(keys), nT), dtype=bool)
    for (f, r), c in keys.items():
        R[c, list(r)] = True
    return cls, free, R


@dataclass
class Tables:
    """Preprocessed tables for one (grammar, vocabulary).

    end[q, i]   lexer state after token i from state q (n_states = dead);
    seq[q, i]   id of the terminal sequence completed by token i from q (seqs[id] is the
                tuple);
    gid[q]      per token, 1 + its group at q (0 = dead or special);
    group_seq[q], group_cls[q]: the groups' distinct-sequence index and viability class;
    seq_list[q]: the distinct sequence ids used at q.
    """

    end: np.ndarray
    seq: np.ndarray
    seqs: list
    gid: list = field(default_factory=list)
    group_seq: list = field(default_factory=list)
    group_cls: list = field(default_factory=list)
    seq_list: list = field(default_factory=list)

    @property
    def n_groups(self) -> np.ndarray:
        return np.array([g.size for g in self.group_cls])


def transducer_trie(grammar: Grammar, trie: TokenTrie, token_nodes):
    """One pass over `trie` from every lexer state at once, level by level, following
    only live (state, node) pairs: a pair whose lexer died is never expanded, so a
    subtree is skipped as soon as its prefix fails. Returns, for the nodes
    `token_nodes`, the end state (n = dead) and the id of the completed terminal
    sequence, and the list of sequences."""
    nxt, emit = step_tables(grammar)
    n = grammar.dfa.n_states
    nT1 = len(grammar.terminals) + 1
    token_nodes = np.asarray(token_nodes)
    targets, col = np.unique(token_nodes, return_inverse=True)
    compact = np.full(trie.n_nodes, -1, dtype=np.int64)
    compact[targets] = np.arange(targets.size)
    end_node = np.full((n, targets.size), n, dtype=np.int32)
    seq_node = np.zeros((n, targets.size), dtype=np.int64)
    seqs: list = [()]
    intern: dict = {}
    n_children = np.diff(trie.child_ptr)
    # live pairs at the current level: lexer start state, node, current state, sequence
    # id
    q0 = np.arange(n, dtype=np.int64)
    node = np.zeros(n, dtype=np.int64)
    state = q0.copy()
    sid = np.zeros(n, dtype=np.int64)
    if compact[0] >= 0:
        end_node[:, compact[0]] = np.arange(n)
    while q0.size:
        cnt = n_children[node]
        rep = np.repeat(np.arange(node.size), cnt)
        if rep.size == 0:
            break
        first = np.repeat(trie.child_ptr[node] - np.cumsum(cnt) + cnt, cnt)
        child = trie.child_ids[first + np.arange(rep.size)]
        ps, by = state[rep], trie.byte[child]
        new_state = nxt[ps, by]
        em = emit[ps, by]
        live = new_state != n
        rep, child, new_state, em = rep[live], child[live], new_state[live], em[live]
        new_sid = sid[rep]
        hit = em >= 0
        if hit.any():
            keys = new_sid[hit] * nT1 + em[hit]
            uniq, inv = np.unique(keys, return_inverse=True)
            ids = np.empty(uniq.size, dtype=np.int64)
            for k, key in enumerate(uniq.tolist()):
                s_id = intern.get(key)
                if s_id is None:
                    p, t = divmod(key, nT1)
                    s_id = intern[key] = len(seqs)
                    seqs.append(seqs[p] + (t,))
                ids[k] = s_id
            new_sid[hit] = ids[inv.ravel()]
        q0, node, state, sid = q0[rep], child, new_state, new_sid
        c = compact[node]
        m = c >= 0
        end_node[q0[m], c[m]] = state[m]
        seq_node[q0[m], c[m]] = sid[m]
    col = col.ravel()
    return end_node[:, col], seq_node[:, col], seqs


def group_tokens(grammar: Grammar, vocab: Vocabulary, end, seq, seqs) -> Tables:
    """Group the tokens of every lexer state by (terminal sequence, viability class of
    end state)."""
    n = grammar.dfa.n_states
    cls, _, _ = viability_classes(grammar)
    n_cls = int(cls.max()) + 1
    special = np.array([len(t) == 0 for t in vocab.tokens])
    tables = Tables(end, seq, seqs)
    alive = (end != n) & ~special[None, :]
    qs, toks = np.nonzero(alive)  # sorted by q
    key = (qs * len(seqs) + seq[qs, toks]) * n_cls + cls[end[qs, toks]]
    uniq, inv = np.unique(key, return_inverse=True)  # all states' groups, sorted by q
    inv = inv.ravel()
    g_q = uniq // (len(seqs) * n_cls)
    g_first = np.searchsorted(g_q, np.arange(n + 1))
    for q in range(n):
        lo, hi = g_first[q], g_first[q + 1]
        gid = np.zeros(len(vocab), dtype=np.int32)
        sel = slice(*np.searchsorted(qs, [q, q + 1]))
        gid[toks[sel]] = inv[sel] - lo + 1
        gseq, gcls = np.divmod(uniq[lo:hi] % (len(seqs) * n_cls), n_cls)
        slist, spos = np.unique(gseq, return_inverse=True)
        tables.gid.append(gid)
        tables.group_seq.append(spos.ravel())
        tables.group_cls.append(gcls)
        tables.seq_list.append(slist)
    return tables


def preprocess(
    grammar: Grammar,
    vocab: Vocabulary,
    *,
    trie: TokenTrie | None = None,
    share: bool = True,
) -> Tables:
    """The paper's offline step: trie pass from every lexer state, then token
    grouping."""
    if trie is None:
        trie = build_trie(vocab.tokens, share=share)
    end, seq, seqs = transducer_trie(grammar, trie, trie.node_of)
    return group_tokens(grammar, vocab, end, seq, seqs)


def preprocess_naive(grammar: Grammar, vocab: Vocabulary) -> Tables:
    """Baseline: simulate every (lexer state, token) pair on its own, byte by byte, in
    Python."""
    nxt, emit = step_tables(grammar)
    nxt_l, emit_l = nxt.tolist(), emit.tolist()
    n = grammar.dfa.n_states
    V = len(vocab)
    end = np.empty((n, V), dtype=np.int32)
    seq = np.empty((n, V), dtype=np.int64)
    seqs, intern = [()], {(): 0}
    for q in range(n):
        e_row, s_row = [0] * V, [0] * V
        for i, tok in enumerate(vocab.tokens):
            s, out = q, ()
            for b in tok:
                t = emit_l[s][b]
                s = nxt_l[s][b]
                if s == n:
                    break
                if t >= 0:
                    out = out + (t,)
            sid = intern.get(out)
            if sid is None:
                sid = intern[out] = len(seqs)
                seqs.append(out)
            e_row[i], s_row[i] = s, sid
        end[q], seq[q] = e_row, s_row
    return group_tokens(grammar, vocab, end, seq, seqs)
