"""PTME (bits per raw coordinate), the first-order effect of merging one pair, and how
that rule agrees with the exact changes over candidate pairs (`formula_agreement`,
`helpful_merges`, `spearman`)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .serializers import _as_tokens


# ---------------------------------------------------------------------------------------------
# PTME
@dataclass(frozen=True)
class PTME:
    """PTME of a corpus (bits per raw coordinate) and its parts."""

    ptme: float  # H / l̄ · CR
    entropy: float  # H, bits per token
    mean_length: float  # l̄, base tokens per token
    cr: float  # base tokens / (9 · faces)
    n_tokens: int
    n_faces: int

    @property
    def tokens_per_face(self) -> float:
        return self.n_tokens / self.n_faces

    @property
    def token_ratio(self) -> float:
        """Tokens / (9 · faces): the effective compression ratio after merging."""
        return self.n_tokens / (9 * self.n_faces)


def entropy_bits(counts) -> float:
    """Shannon entropy (bits) of the distribution given by non-negative counts."""
    c = np.asarray(counts, dtype=np.float64)
    if c.ndim != 1 or c.size == 0 or np.any(c < 0) or c.sum() <= 0:
        raise ValueError(
            "counts must be a non-empty 1-D array of non-negative numbers with a "
            "positive sum"
        )
    p = c[c > 0] / c.sum()
    return float(-(p * np.log2(p)).sum())


def ptme_from_counts(counts, lengths, *, cr: float = 1.0) -> float:
    """H / l̄ · CR for token counts and the base length of each token (the paper's toy examples use
    CR = 1)."""
    c = np.asarray(counts, dtype=np.float64)
    ln = np.asarray(lengths, dtype=np.float64)
    if c.shape != ln.shape:
        raise ValueError(
            f"counts and lengths must have the same shape, got {c.shape} and {ln.shape}"
        )
    if np.any(ln[c > 0] < 1):
        raise ValueError("every used token must have length ≥ 1")
    h = entropy_bits(c)
    return h / float((c / c.sum() * ln).sum()) * cr


def ptme_of_string(text: str, vocab: dict[str, str]) -> float:
    """PTME (with CR = 1) of a string of symbols, `vocab` mapping each symbol to what it stands for."""
    if not text:
        raise ValueError("text must not be empty")
    missing = sorted(set(text) - set(vocab))
    if missing:
        raise ValueError(f"symbols {missing} of text are not in vocab")
    symbols = sorted(set(text))
    counts = [text.count(s) for s in symbols]
    return ptme_from_counts(counts, [len(vocab[s]) for s in symbols])


def corpus_ptme(
    sequences, n_faces, *, piece_length=None, n_symbols: int | None = None
) -> PTME:
    """PTME of a corpus of token sequences (ids), pooled over sequences.

    `n_faces` is the total number of faces (or one count per sequence). `piece_length` gives the
    number of base tokens per id (None: every id is one base token, i.e. no merging).
    """
    seqs = [_as_tokens(s, "sequence") for s in sequences]
    if not seqs:
        raise ValueError("sequences must not be empty")
    faces = int(np.sum(n_faces))
    if faces <= 0:
        raise ValueError(f"n_faces must be positive, got {faces}")
    allt = np.concatenate(seqs)
    if allt.size == 0:
        raise ValueError("the corpus holds no tokens")
    size = n_symbols or (
        len(piece_length) if piece_length is not None else int(allt.max()) + 1
    )
    counts = np.bincount(allt, minlength=size).astype(np.float64)
    lengths = (
        np.ones(size)
        if piece_length is None
        else np.asarray(piece_length, dtype=np.float64)
    )
    n_base = float((counts * lengths).sum())
    cr = n_base / (9 * faces)
    h = entropy_bits(counts)
    mean_len = n_base / allt.size
    return PTME(
        ptme=h / mean_len * cr,
        entropy=h,
        mean_length=mean_len,
        cr=cr,
        n_tokens=int(allt.size),
        n_faces=faces,
    )


# ---------------------------------------------------------------------------------------------
# the first-order effect of one merge
def merge_count(sequences, a: int, b: int) -> int:
    """Non-overlapping occurrences of the pair (a, b), counted as a left-to-right merge would."""
    total = 0
    for s in sequences:
        s = _as_tokens(s, "sequence")
        if s.size < 2:
            continue
        if a != b:
            total += int(np.sum((s[:-1] == a) & (s[1:] == b)))
        else:
            is_a = np.concatenate([[False], s == a, [False]]).astype(np.int8)
            d = np.diff(is_a)
            runs = np.flatnonzero(d == -1) - np.flatnonzero(d == 1)
            total += int(np.sum(runs // 2))
    return total


def merge_pair(sequence, a: int, b: int, new: int) -> np.ndarray:
    """Replace the pair (a, b) by `new`, left to right without overlaps (brute force, for tests)."""
    s = _as_tokens(sequence, "sequence").tolist()
    out, i = [], 0
    while i < len(s):
        if i + 1 < len(s) and s[i] == a and s[i + 1] == b:
            out.append(new)
            i += 2
        else:
            out.append(s[i])
            i += 1
    return np.asarray(out, dtype=np.int64)


@dataclass(frozen=True)
class PairEffect:
    a: int
    b: int
    count: int  # N_ab, non-overlapping
    p_ab: float
    p_a: float
    p_b: float
    pmi: float  # ln(p_ab / (p_a p_b))
    exact: float  # ΔPTME from the counts after the merge (bits)
    first_order: float  # −CR · F*_ab / l̄ (converted to bits)


def pair_candidates(sequences, *, top: int, exclude=()) -> list[tuple[int, int, int]]:
    """The `top` most frequent adjacent pairs (a, b, non-overlapping count), none touching `exclude`;
    ties broken by (a, b)."""
    seqs = [_as_tokens(s, "sequence") for s in sequences]
    size = int(max(s.max() for s in seqs if s.size)) + 1
    codes = np.concatenate([s[:-1] * size + s[1:] for s in seqs if s.size > 1])
    uniq, counts = np.unique(codes, return_counts=True)
    a, b = uniq // size, uniq % size
    ok = ~(np.isin(a, list(exclude)) | np.isin(b, list(exclude)))
    a, b, counts = a[ok], b[ok], counts[ok]
    same = a == b  # overlapping runs: recount without overlaps
    for k in np.flatnonzero(same):
        counts[k] = merge_count(seqs, int(a[k]), int(b[k]))
    order = np.lexsort((b, a, -counts))[:top]
    return [(int(a[k]), int(b[k]), int(counts[k])) for k in order]


def pair_effect(
    counts, lengths, a: int, b: int, n_ab: int, *, cr: float = 1.0
) -> PairEffect:
    """Exact and first-order change of PTME when n_ab occurrences of (a, b) become one new token.

    `counts` / `lengths` describe the token distribution before the merge (see ptme_from_counts).
    Exact: recompute PTME from the updated counts (a and b lose n_ab each, the new token gains n_ab).
    First order (the paper): ΔPTME ≈ −CR · F*_ab / l̄ with F*_ab = p_ab (ln(p_ab / (p_a p_b)) − 1),
    here divided by ln 2 because H is in bits.
    """
    c = np.asarray(counts, dtype=np.float64)
    ln = np.asarray(lengths, dtype=np.float64)
    if not (0 <= a < c.size and 0 <= b < c.size):
        raise ValueError(f"a and b must index counts (size {c.size}), got {a}, {b}")
    need = 2 * n_ab if a == b else n_ab
    if (
        n_ab <= 0
        or c[a] < (need if a == b else n_ab)
        or c[b] < (need if a == b else n_ab)
    ):
        raise ValueError(
            f"n_ab must be positive and at most the counts of a and b, got {n_ab}"
        )
    n = c.sum()
    before = ptme_from_counts(c, ln, cr=cr)
    new_c = c.copy()
    new_c[a] -= n_ab
    new_c[b] -= n_ab
    after = ptme_from_counts(
        np.append(new_c, n_ab), np.append(ln, ln[a] + ln[b]), cr=cr
    )
    p_ab, p_a, p_b = n_ab / n, c[a] / n, c[b] / n
    pmi = math.log(p_ab / (p_a * p_b))
    mean_len = float((c / n * ln).sum())
    f_star = p_ab * (pmi - 1.0)
    return PairEffect(
        a=int(a),
        b=int(b),
        count=int(n_ab),
        p_ab=p_ab,
        p_a=p_a,
        p_b=p_b,
        pmi=pmi,
        exact=after - before,
        first_order=-cr * f_star / mean_len / math.log(2),
    )


# the first-order rule against the exact changes, over candidate pairs
def spearman(x, y) -> float:
    """Spearman's rank correlation (average ranks for ties); NaN when either side is constant
    or there are fewer than 3 pairs."""
    from scipy import stats

    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"x and y must be 1-D of one length, got {x.shape}, {y.shape}")
    if x.size < 3:
        return math.nan
    if np.all(x == x[0]) or np.all(y == y[0]):
        return math.nan
    return float(stats.spearmanr(x, y)[0])


@dataclass(frozen=True)
class FormulaAgreement:
    """How the first-order ΔPTME agrees with the exact one over a set of candidate merges."""

    n_pairs: int
    sign_agreement: (
        float  # share of pairs whose predicted and exact changes share their sign
    )
    spearman_pooled: float  # over all pairs
    spearman_by_kind: dict  # {kind: Spearman} for kinds with at least `min_pairs` pairs
    pairs_by_kind: dict  # {kind: number of pairs}
    closest_pmi_to_one: (
        float  # |PMI − 1| of the pair nearest the formula's sign boundary
    )


def formula_agreement(exact, predicted, kinds, pmi, *, min_pairs: int = 10):
    """Sign agreement and rank correlations of exact against predicted changes; the ranking is
    also read within each kind of pair that has at least `min_pairs` pairs."""
    exact = np.asarray(exact, dtype=np.float64)
    predicted = np.asarray(predicted, dtype=np.float64)
    kinds = np.asarray(kinds)
    pmi = np.asarray(pmi, dtype=np.float64)
    if (
        not (exact.shape == predicted.shape == kinds.shape == pmi.shape)
        or exact.ndim != 1
    ):
        raise ValueError("exact, predicted, kinds and pmi must be 1-D of one length")
    if exact.size == 0:
        raise ValueError("formula_agreement needs at least one pair")
    if isinstance(min_pairs, bool) or not isinstance(min_pairs, int) or min_pairs < 3:
        raise ValueError(f"min_pairs must be an int ≥ 3, got {min_pairs!r}")
    by_kind, counts = {}, {}
    for k in sorted(set(kinds.tolist())):
        sel = kinds == k
        counts[k] = int(sel.sum())
        if counts[k] >= min_pairs:
            by_kind[k] = spearman(exact[sel], predicted[sel])
    return FormulaAgreement(
        n_pairs=int(exact.size),
        sign_agreement=float(np.mean(np.sign(exact) == np.sign(predicted))),
        spearman_pooled=spearman(exact, predicted),
        spearman_by_kind=by_kind,
        pairs_by_kind=counts,
        closest_pmi_to_one=float(np.min(np.abs(pmi - 1.0))),
    )


def helpful_merges(rows) -> list[dict]:
    """Per tokenizer and order (rows of `pair_sweep`): the number of candidate pairs, the share
    whose merge lowers PTME exactly (exact ΔPTME < 0), the share the first-order rule calls
    helpful (F*_ab > 0, i.e. predicted ΔPTME < 0), and the mean p_ab of the candidates."""
    groups: dict = {}
    for r in rows:
        groups.setdefault((r["tokenizer"], r["order"]), []).append(r)
    if not groups:
        raise ValueError("helpful_merges needs at least one pair")
    out = []
    for (tk, order), rs in groups.items():
        out.append(
            dict(
                tokenizer=tk,
                order=order,
                pairs=len(rs),
                helpful_exact=float(np.mean([r["exact"] < 0 for r in rs])),
                helpful_first_order=float(np.mean([r["predicted"] < 0 for r in rs])),
                mean_p_ab=float(np.mean([r["p_ab"] for r in rs])),
            )
        )
    return out
