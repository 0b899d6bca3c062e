"""Mesh tokenizers, coordinate rearrangement and merging, and PTME (Liu et al., FreeMesh, ICML 2025,
arXiv 2505.13573; official code freemesh2025/FreeMesh, MIT). Our own implementation.

Pipeline
--------
1. ``quantize_mesh``: centre the bounding box, scale its longest side to 1, quantise every coordinate to
   ``2**bits`` bins (7 bits = 0..127), merge equal vertices, drop degenerate (zero-area) and repeated faces, sort the
   vertices (primary key y, then x, then z) and the faces (by their sorted vertex ids).
2. Three serialisations of a ``QuantMesh`` into integer tokens, each with a decoder:
   - ``"RAW"`` (MeshXL): the 9 coordinates of every face; alphabet 0..127.
   - ``"AMT"`` (MeshAnything V2): strips of adjacent faces; a strip starts with a full face and every
     further face adds one vertex (3 coordinates); ``SEP_AMT = 128`` ends a strip; alphabet 0..128.
   - ``"EDR"`` (EdgeRunner): an Edgebreaker-style half-edge traversal. Every sub-mesh is ``OP_BOM`` + 9
     coordinates, then per face an ``OP_L``/``OP_R`` op + 3 coordinates; coordinates are shifted by
     ``EDR_OFFSET = 3``; alphabet 0..130. Iterative (no recursion).
3. ``rearrange`` (RAC) and its inverse ``restore``: inside every block of 3 vertices, emit the 3 x's,
   then the 3 y's, then the 3 z's (a 1- or 2-vertex tail likewise); AMT per strip, EDR per sub-mesh
   with the ops moved in front of the coordinates.
4. ``train_merger``: coordinate merging, a SentencePiece BPE over the token alphabet; separators
   (AMT 128, EDR BOM) are user-defined symbols and are never merged.
5. PTME (bits per raw coordinate): ``PTME = H / l̄ · CR`` with H the entropy (bits) of the token
   distribution, l̄ = Σ p_t l_t the mean number of base symbols per token and CR = base symbols /
   (9 · faces). Equivalently PTME = H · tokens / (9 · faces).
6. The paper's first-order change of PTME when one pair (a, b) is merged:
   ΔPTME ≈ −CR · F*_ab / l̄ with F*_ab = p_ab (ln(p_ab / (p_a p_b)) − 1) (nats; converted to bits).
7. The chapter's protocols: ``hold_out`` and ``build_corpus`` (rotated meshes split by base mesh, all
   six tokenisations, each decoded back), ``merging_sweep`` (MC and RMC vocabularies per size, held-out
   PTME), ``tokens_per_face_by_base``, ``peer_merging`` (a second BPE), ``pair_sweep`` and
   ``formula_agreement`` (the first-order rule against exact merges), ``helpful_merges`` (how many
   candidate merges lower PTME), ``leave_one_base_out`` (MC against RMC with each base mesh held
   out in turn), ``learnability`` (held-out bits per face of a trigram or a small transformer on each
   tokenisation, beside a unigram fitted on the training split), ``bits_per_face_by_base`` and
   ``learnability_contrasts`` (whether the model orders MC against base and RMC against MC as PTME
   does, per held-out base mesh), and ``lm_step_seconds`` (a timing probe of the transformer).

No printing, plotting or file writing; randomness comes in as numpy / torch generators.
"""

from __future__ import annotations

import importlib.util
import io
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

BITS = 7
SEP_AMT = 128
OP_L, OP_R, OP_BOM = 0, 1, 2
EDR_OFFSET = 3
TOKENIZERS = ("RAW", "AMT", "EDR")
ALPHABET = {"RAW": 128, "AMT": 129, "EDR": 131}
"""Base alphabet size of each serialisation at 7 bits."""
SEPARATORS = {"RAW": (), "AMT": (SEP_AMT,), "EDR": (OP_BOM,)}
"""Tokens that coordinate merging must never merge."""
CHAR_BASE = 0x4E00
"""Token t is written as the character chr(CHAR_BASE + t) for SentencePiece (a CJK ideograph)."""


# ---------------------------------------------------------------------------------------------
# meshes
@dataclass(frozen=True)
class QuantMesh:
    """A quantised triangle mesh: integer vertices (V, 3) in 0..2**bits−1 and faces (F, 3).

    Vertices are unique and sorted (y, then x, then z); faces are sorted by their sorted vertex ids
    and keep their own cyclic order.
    """

    vertices: np.ndarray
    faces: np.ndarray
    bits: int = BITS

    @property
    def n_faces(self) -> int:
        return int(self.faces.shape[0])

    def triangles(self) -> np.ndarray:
        """(F, 3, 3) integer coordinates of every face."""
        return self.vertices[self.faces]


def check_mesh(vertices, faces) -> tuple[np.ndarray, np.ndarray]:
    """Validate a triangle mesh and return (vertices float64 (V, 3), faces int64 (F, 3))."""
    v = np.asarray(vertices, dtype=np.float64)
    f = np.asarray(faces)
    if v.ndim != 2 or v.shape[1] != 3:
        raise ValueError(f"vertices must have shape (V, 3), got {v.shape}")
    if f.ndim != 2 or f.shape[1] != 3:
        raise ValueError(f"faces must have shape (F, 3) (triangles), got {f.shape}")
    if v.shape[0] == 0 or f.shape[0] == 0:
        raise ValueError(
            f"the mesh is empty: {v.shape[0]} vertices and {f.shape[0]} faces; "
            "need at least one triangle"
        )
    if not np.all(np.isfinite(v)):
        bad = int(np.sum(~np.isfinite(v).all(axis=1)))
        raise ValueError(
            f"vertices must be finite, got {bad} vertices with NaN or inf coordinates"
        )
    if not np.issubdtype(f.dtype, np.integer):
        if not np.all(np.isfinite(f)) or not np.all(f == np.round(f)):
            raise ValueError("faces must hold integer vertex indices")
    f = f.astype(np.int64)
    if f.min() < 0 or f.max() >= v.shape[0]:
        raise ValueError(
            f"face indices must lie in [0, {v.shape[0] - 1}], got range "
            f"[{f.min()}, {f.max()}]"
        )
    return v, f


def quantize_mesh(vertices, faces, *, bits: int = BITS) -> QuantMesh:
    """Normalise to the unit box, quantise to `bits` bits and clean up (see the module docstring).

    Raises ValueError for an empty mesh, NaN vertices, bad indices, a flat bounding box, or a mesh
    with no non-degenerate face left after quantisation.
    """
    if (
        isinstance(bits, bool)
        or not isinstance(bits, (int, np.integer))
        or not 2 <= bits <= 10
    ):
        raise ValueError(f"bits must be an int in [2, 10], got {bits!r}")
    v, f = check_mesh(vertices, faces)
    lo, hi = v.min(axis=0), v.max(axis=0)
    extent = float((hi - lo).max())
    if not extent > 0:
        raise ValueError("the mesh's bounding box has zero size: all vertices coincide")
    v = np.clip((v - (lo + hi) / 2) / extent, -0.5, 0.5)
    n = 1 << bits
    q = np.clip(np.round((v + 0.5) * n - 0.5), 0, n - 1).astype(np.int64)
    uniq, inverse = np.unique(q, axis=0, return_inverse=True)
    f = inverse.reshape(-1)[f]
    tri = uniq[f]
    area2 = np.cross(
        tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]
    )  # exact on integer coordinates
    f = f[np.any(area2 != 0, axis=1)]  # drop repeated-vertex and zero-area faces
    if f.shape[0] == 0:
        raise ValueError("no non-degenerate face is left after quantisation")
    _, first = np.unique(np.sort(f, axis=1), axis=0, return_index=True)
    f = f[np.sort(first)]  # drop repeated faces, keep the first
    used = np.unique(f)
    # sort vertices: primary y, then x, then z (z-up after the paper's axis permutation)
    sub = uniq[used]
    order = np.lexsort((sub[:, 2], sub[:, 0], sub[:, 1]))
    rank = np.empty(uniq.shape[0], dtype=np.int64)
    rank[used[order]] = np.arange(used.size)
    f = rank[f]
    fs = np.sort(f, axis=1)
    f = f[np.lexsort((fs[:, 2], fs[:, 1], fs[:, 0]))]
    return QuantMesh(vertices=sub[order], faces=f, bits=bits)


def edge_face_counts(faces: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Undirected edges (E, 2) and the number of faces on each."""
    f = np.asarray(faces)
    e = np.sort(
        np.stack([f[:, [1, 2, 0]].ravel(), f[:, [2, 0, 1]].ravel()], axis=1), axis=1
    )
    return np.unique(e, axis=0, return_counts=True)


def make_edge_manifold(mesh: QuantMesh) -> tuple[QuantMesh, int]:
    """Drop, in face order, every face that would put a third face on an edge.

    Returns the edge-manifold mesh and the number of faces dropped (quantisation can glue surfaces).
    """
    count: dict[tuple[int, int], int] = {}
    keep = np.ones(mesh.n_faces, dtype=bool)
    for i, (a, b, c) in enumerate(mesh.faces.tolist()):
        edges = [
            (a, b) if a < b else (b, a),
            (b, c) if b < c else (c, b),
            (a, c) if a < c else (c, a),
        ]
        if any(count.get(e, 0) >= 2 for e in edges):
            keep[i] = False
            continue
        for e in edges:
            count[e] = count.get(e, 0) + 1
    dropped = int((~keep).sum())
    if dropped == 0:
        return mesh, 0
    f = mesh.faces[keep]
    used = np.unique(f)
    remap = np.full(mesh.vertices.shape[0], -1, dtype=np.int64)
    remap[used] = np.arange(used.size)
    return QuantMesh(
        vertices=mesh.vertices[used], faces=remap[f], bits=mesh.bits
    ), dropped


def canonical_faces(triangles) -> np.ndarray:
    """A canonical form of a face multiset given as (F, 3, 3) coordinates: (F, 3) vertex keys, sorted
    within each face and then across faces. Two meshes have the same faces iff these are equal."""
    t = np.asarray(triangles, dtype=np.int64)
    if t.ndim != 3 or t.shape[1:] != (3, 3):
        raise ValueError(f"triangles must have shape (F, 3, 3), got {t.shape}")
    keys = np.sort((t[..., 0] << 20) | (t[..., 1] << 10) | t[..., 2], axis=1)
    return keys[np.lexsort((keys[:, 2], keys[:, 1], keys[:, 0]))]


def same_faces(a, b) -> bool:
    """True when two (F, 3, 3) coordinate arrays hold the same multiset of triangles."""
    ca, cb = canonical_faces(a), canonical_faces(b)
    return ca.shape == cb.shape and bool(np.array_equal(ca, cb))


def random_rotation(rng: np.random.Generator) -> np.ndarray:
    """A uniformly random 3-D rotation matrix (QR of a Gaussian matrix, sign-fixed)."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator, got {type(rng).__name__}")
    q, r = np.linalg.qr(rng.standard_normal((3, 3)))
    q = q * np.sign(np.diag(r))
    if np.linalg.det(q) < 0:
        q[:, 0] = -q[:, 0]
    return q


# ---------------------------------------------------------------------------------------------
# RAW (MeshXL)
def serialize_raw(mesh: QuantMesh) -> np.ndarray:
    """The 9 coordinates of every face, faces in order: length 9F."""
    return mesh.triangles().reshape(-1).astype(np.int64)


def deserialize_raw(tokens) -> np.ndarray:
    t = _as_tokens(tokens, "tokens")
    if t.size == 0 or t.size % 9:
        raise ValueError(
            f"a RAW sequence has 9 coordinates per face, got length {t.size}"
        )
    if t.min() < 0:
        raise ValueError("a RAW sequence holds coordinates ≥ 0 only")
    return t.reshape(-1, 3, 3)


# ---------------------------------------------------------------------------------------------
# AMT (MeshAnything V2)
def amt_vertex_order(mesh: QuantMesh) -> list[int]:
    """The AMT walk as vertex ids, −1 closing a strip (faces taken with sorted vertex ids)."""
    fs = np.sort(mesh.faces, axis=1)
    n = fs.shape[0]
    by_edge: dict[tuple[int, int], list[int]] = {}
    for i, (a, b, c) in enumerate(fs.tolist()):
        for e in ((a, b), (b, c), (a, c)):
            by_edge.setdefault(e, []).append(i)
    fl = fs.tolist()
    visited = [False] * n
    seq: list[int] = []
    nxt, left = 0, n
    while left:
        if not seq or seq[-1] == -1:
            while visited[nxt]:
                nxt += 1
            visited[nxt] = True
            left -= 1
            seq.extend(fl[nxt])
            continue
        u, v = seq[-2], seq[-1]
        best, best_w = -1, None
        for i in by_edge.get((u, v) if u < v else (v, u), ()):
            if not visited[i]:
                w = sum(fl[i]) - u - v
                if best_w is None or w < best_w:
                    best, best_w = i, w
        if best < 0:
            seq.append(-1)
        else:
            visited[best] = True
            left -= 1
            seq.append(best_w)
    return seq


def serialize_amt(mesh: QuantMesh) -> np.ndarray:
    """Strips of adjacent faces: 9 coordinates to start, 3 per further face, 128 between strips."""
    sep = 1 << mesh.bits
    out: list[int] = []
    verts = mesh.vertices.tolist()
    for vid in amt_vertex_order(mesh):
        if vid < 0:
            out.append(sep)
        else:
            out.extend(verts[vid])
    return np.asarray(out, dtype=np.int64)


def _split_runs(t: np.ndarray, sep: int) -> list[np.ndarray]:
    cut = np.flatnonzero(t == sep)
    return np.split(t, cut) if cut.size else [t]


def deserialize_amt(tokens, *, bits: int = BITS) -> np.ndarray:
    t = _as_tokens(tokens, "tokens")
    sep = 1 << bits
    tris = []
    for k, run in enumerate(_split_runs(t, sep)):
        run = run[1:] if k > 0 else run  # drop the separator itself
        if run.size < 9 or run.size % 3:
            raise ValueError(f"AMT strip {k} has {run.size} coordinates; need 9 + 3m")
        if run.min() < 0 or run.max() >= sep:
            raise ValueError(
                f"AMT strip {k} holds a token outside the coordinates 0..{sep - 1}"
            )
        v = run.reshape(-1, 3)
        idx = np.arange(v.shape[0] - 2)
        tris.append(np.stack([v[idx], v[idx + 1], v[idx + 2]], axis=1))
    return np.concatenate(tris)


# ---------------------------------------------------------------------------------------------
# EDR (EdgeRunner)
def _half_edges(faces: np.ndarray, n_vertices: int) -> np.ndarray:
    """Opposite half-edge of every half-edge h = 3·face + j (the edge facing corner j); −1 on the
    boundary. Raises for an edge shared by more than two faces."""
    a = faces[:, [1, 2, 0]].ravel()
    b = faces[:, [2, 0, 1]].ravel()
    key = np.minimum(a, b) * n_vertices + np.maximum(a, b)
    order = np.argsort(key, kind="stable")
    ks = key[order]
    _, start, counts = np.unique(ks, return_index=True, return_counts=True)
    if counts.max() > 2:
        bad = int((counts > 2).sum())
        raise ValueError(
            f"the mesh is not edge-manifold: {bad} edges are shared by more than two "
            "faces (EdgeRunner needs at most two; see make_edge_manifold)"
        )
    opp = np.full(key.size, -1, dtype=np.int64)
    pairs = start[counts == 2]
    opp[order[pairs]] = order[pairs + 1]
    opp[order[pairs + 1]] = order[pairs]
    return opp


def serialize_edr(mesh: QuantMesh) -> np.ndarray:
    """EdgeRunner tokens: per sub-mesh OP_BOM + 9 coordinates, then per face an op + 3 coordinates.

    Faces are visited from the lowest centroid (y, then z, then x); an unvisited tip vertex or a single
    unvisited neighbour decides the direction, and when both neighbours are unvisited the side whose
    unvisited boundary loop is shorter is taken first and the other side is deferred (a stack replaces
    the reference implementation's recursion).
    """
    T = mesh.faces.tolist()
    nf = len(T)
    nv = mesh.vertices.shape[0]
    opp = _half_edges(mesh.faces, nv).tolist()
    coords = (mesh.vertices + EDR_OFFSET).tolist()
    vmark = [False] * nv
    for h, o in enumerate(opp):  # boundary vertices count as visited
        if o < 0:
            f, j = divmod(h, 3)
            vmark[T[f][(j + 1) % 3]] = True
            vmark[T[f][(j + 2) % 3]] = True
    fmark = [False] * nf
    flip = [False] * nf
    cent = mesh.vertices[mesh.faces].sum(axis=1)
    order = np.lexsort((np.arange(nf), cent[:, 0], cent[:, 2], cent[:, 1])).tolist()
    guard = 6 * nf + 12

    def s_of(h):
        f, j = divmod(h, 3)
        return T[f][(j + 2) % 3] if flip[f] else T[f][(j + 1) % 3]

    def e_of(h):
        f, j = divmod(h, 3)
        return T[f][(j + 1) % 3] if flip[f] else T[f][(j + 2) % 3]

    def nxt(h):
        f, j = divmod(h, 3)
        return 3 * f + ((j + 2) % 3 if flip[f] else (j + 1) % 3)

    def prv(h):
        f, j = divmod(h, 3)
        return 3 * f + ((j + 1) % 3 if flip[f] else (j + 2) % 3)

    def loop_length(start, step):
        n, cur, steps = 0, start, 0
        while True:
            n += 1
            cur = step(cur)
            while opp[cur] >= 0 and not fmark[opp[cur] // 3]:
                cur = step(opp[cur])
                steps += 1
                if steps > guard:
                    return n
            if cur == start or steps > guard:
                return n
            steps += 1

    tokens: list[int] = []
    for f0 in order:
        if fmark[f0]:
            continue
        stack = [3 * f0]
        while stack:
            c = stack.pop()
            if fmark[c // 3]:
                continue
            tokens.append(OP_BOM)
            tokens.extend(coords[T[c // 3][c % 3]])
            tokens.extend(coords[s_of(c)])
            tokens.extend(coords[e_of(c)])
            vmark[s_of(c)] = vmark[e_of(c)] = True
            init = True
            while True:
                f = c // 3
                fmark[f] = True
                if not init:
                    o = opp[c]
                    if not (s_of(c) == e_of(o) and e_of(c) == s_of(o)):
                        flip[f] = True
                    tokens.extend(coords[T[f][c % 3]])
                init = False
                tip = T[f][c % 3]
                nc, pc = nxt(c), prv(c)
                right_done = opp[nc] < 0 or fmark[opp[nc] // 3]
                left_done = opp[pc] < 0 or fmark[opp[pc] // 3]
                if not vmark[tip]:
                    vmark[tip] = True
                    tokens.append(OP_L)
                    c = opp[nc]
                elif left_done and right_done:
                    break
                elif left_done:
                    tokens.append(OP_L)
                    c = opp[nc]
                elif right_done:
                    tokens.append(OP_R)
                    c = opp[pc]
                else:
                    len_l = loop_length(opp[nc], nxt)
                    len_r = loop_length(opp[pc], prv)
                    if len_l < len_r:
                        tokens.append(OP_L)
                        stack.append(opp[pc])
                        c = opp[nc]
                    else:
                        tokens.append(OP_R)
                        stack.append(opp[nc])
                        c = opp[pc]
    return np.asarray(tokens, dtype=np.int64)


def deserialize_edr(tokens) -> np.ndarray:
    """Faces (F, 3, 3) from EdgeRunner tokens; raises on a malformed sequence."""
    t = _as_tokens(tokens, "tokens").tolist()
    tris = []
    i, n = 0, len(t)
    v0 = v1 = v2 = None
    while i < n:
        op = t[i]
        if op == OP_BOM:
            if i + 10 > n:
                raise ValueError(
                    f"EDR sequence ends inside a first face at position {i}"
                )
            c = [x - EDR_OFFSET for x in t[i + 1 : i + 10]]
            if min(c) < 0:
                raise ValueError(
                    f"EDR first face at position {i} holds an op where a coordinate belongs"
                )
            v0, v1, v2 = tuple(c[0:3]), tuple(c[3:6]), tuple(c[6:9])
            tris.append((v0, v1, v2))
            i += 10
        elif op in (OP_L, OP_R):
            if v0 is None:
                raise ValueError("EDR sequence must start with OP_BOM")
            if i + 4 > n:
                raise ValueError(f"EDR sequence ends inside a vertex at position {i}")
            c = [x - EDR_OFFSET for x in t[i + 1 : i + 4]]
            if min(c) < 0:
                raise ValueError(
                    f"EDR vertex at position {i} holds an op where a coordinate belongs"
                )
            v = tuple(c)
            if op == OP_L:
                tris.append((v, v0, v2))
                v1, v0 = v0, v
            else:
                tris.append((v, v1, v0))
                v2, v0 = v0, v
            i += 4
        else:
            raise ValueError(
                f"EDR sequence has coordinate token {op} at position {i} where an op "
                "(0, 1 or 2) belongs"
            )
    return np.asarray(tris, dtype=np.int64)


# ---------------------------------------------------------------------------------------------
# dispatch
def serialize(
    mesh: QuantMesh, tokenizer: str, *, rearranged: bool = False
) -> np.ndarray:
    """Tokens of `mesh` under one of TOKENIZERS, optionally rearranged (RAC)."""
    fn = {"RAW": serialize_raw, "AMT": serialize_amt, "EDR": serialize_edr}.get(
        tokenizer
    )
    if fn is None:
        raise ValueError(f"tokenizer must be one of {TOKENIZERS}, got {tokenizer!r}")
    t = fn(mesh)
    return rearrange(t, tokenizer, bits=mesh.bits) if rearranged else t


def deserialize(
    tokens, tokenizer: str, *, rearranged: bool = False, bits: int = BITS
) -> np.ndarray:
    """Faces (F, 3, 3) from tokens (undoing RAC first when `rearranged`)."""
    if tokenizer not in TOKENIZERS:
        raise ValueError(f"tokenizer must be one of {TOKENIZERS}, got {tokenizer!r}")
    t = (
        restore(tokens, tokenizer, bits=bits)
        if rearranged
        else _as_tokens(tokens, "tokens")
    )
    if tokenizer == "AMT":
        return deserialize_amt(t, bits=bits)
    return {"RAW": deserialize_raw, "EDR": deserialize_edr}[tokenizer](t)


def _as_tokens(tokens, name) -> np.ndarray:
    t = np.asarray(tokens)
    if t.ndim != 1:
        raise ValueError(f"{name} must be a 1-D token sequence, got shape {t.shape}")
    if t.size and not np.issubdtype(t.dtype, np.integer):
        raise ValueError(f"{name} must hold integers, got dtype {t.dtype}")
    return t.astype(np.int64)


# ---------------------------------------------------------------------------------------------
# RAC: rearrangement of coordinates
def rac_encode(coords) -> np.ndarray:
    """[x1 y1 z1 x2 y2 z2 x3 y3 z3] → [x1 x2 x3 y1 y2 y3 z1 z2 z3] per block of 3 vertices; a tail
    of 1 or 2 vertices is rearranged the same way."""
    c = _as_tokens(coords, "coords")
    if c.size % 3:
        raise ValueError(
            f"coords must hold whole vertices (a multiple of 3), got length {c.size}"
        )
    m = c.size - c.size % 9
    head = c[:m].reshape(-1, 3, 3).transpose(0, 2, 1).reshape(-1)
    tail = c[m:].reshape(-1, 3).T.reshape(-1)
    return np.concatenate([head, tail])


def rac_decode(coords) -> np.ndarray:
    """The inverse of rac_encode."""
    c = _as_tokens(coords, "coords")
    if c.size % 3:
        raise ValueError(
            f"coords must hold whole vertices (a multiple of 3), got length {c.size}"
        )
    m = c.size - c.size % 9
    head = c[:m].reshape(-1, 3, 3).transpose(0, 2, 1).reshape(-1)
    tail = c[m:].reshape(3, -1).T.reshape(-1)
    return np.concatenate([head, tail])


def rearrange(tokens, tokenizer: str, *, bits: int = BITS) -> np.ndarray:
    """RAC on a serialisation: RAW whole; AMT per strip; EDR per sub-mesh as [BOM] + ops + RAC(coords)."""
    t = _as_tokens(tokens, "tokens")
    if tokenizer == "RAW":
        return rac_encode(t)
    if tokenizer == "AMT":
        sep = 1 << bits
        runs = _split_runs(t, sep)
        out = [rac_encode(runs[0])] + [
            np.concatenate([[sep], rac_encode(r[1:])]) for r in runs[1:]
        ]
        return np.concatenate(out)
    if tokenizer == "EDR":
        out = []
        for seg in _edr_segments(t):
            if seg.size < 10 or (seg.size - 10) % 4:
                raise ValueError(
                    f"EDR sub-mesh of length {seg.size} is malformed; need 10 + 4m"
                )
            body = seg[10:].reshape(-1, 4)
            out.append(
                np.concatenate(
                    [
                        [OP_BOM],
                        body[:, 0],
                        rac_encode(np.concatenate([seg[1:10], body[:, 1:].ravel()])),
                    ]
                )
            )
        return np.concatenate(out) if out else t
    raise ValueError(f"tokenizer must be one of {TOKENIZERS}, got {tokenizer!r}")


def restore(tokens, tokenizer: str, *, bits: int = BITS) -> np.ndarray:
    """The inverse of rearrange."""
    t = _as_tokens(tokens, "tokens")
    if tokenizer == "RAW":
        return rac_decode(t)
    if tokenizer == "AMT":
        sep = 1 << bits
        runs = _split_runs(t, sep)
        out = [rac_decode(runs[0])] + [
            np.concatenate([[sep], rac_decode(r[1:])]) for r in runs[1:]
        ]
        return np.concatenate(out)
    if tokenizer == "EDR":
        out = []
        for seg in _edr_segments(t):
            if seg.size < 10 or (seg.size - 10) % 4:
                raise ValueError(
                    f"EDR sub-mesh of length {seg.size} is malformed; need 10 + 4m"
                )
            n_ops = (seg.size - 10) // 4
            ops, coords = seg[1 : 1 + n_ops], rac_decode(seg[1 + n_ops :])
            if n_ops and ops.max() > OP_R:
                raise ValueError(
                    "rearranged EDR sub-mesh: the ops in front must be 0 or 1"
                )
            body = np.concatenate(
                [ops[:, None], coords[9:].reshape(-1, 3)], axis=1
            ).ravel()
            out.append(np.concatenate([[OP_BOM], coords[:9], body]))
        return np.concatenate(out) if out else t
    raise ValueError(f"tokenizer must be one of {TOKENIZERS}, got {tokenizer!r}")


def _edr_segments(t: np.ndarray) -> list[np.ndarray]:
    if t.size == 0:
        return []
    if t[0] != OP_BOM:
        raise ValueError(f"an EDR sequence starts with OP_BOM (2), got {t[0]}")
    cut = np.flatnonzero(t == OP_BOM)
    return np.split(t, cut[1:])


# ---------------------------------------------------------------------------------------------
# coordinate merging (SentencePiece BPE)
def to_text(tokens) -> str:
    return "".join(chr(CHAR_BASE + int(x)) for x in tokens)


def from_text(text: str) -> np.ndarray:
    return np.fromiter(
        (ord(ch) - CHAR_BASE for ch in text), dtype=np.int64, count=len(text)
    )


@dataclass
class Merger:
    """A trained coordinate-merging vocabulary (SentencePiece BPE over the token alphabet).

    `piece_length[i]` is the number of base tokens in piece i (1 for the unknown piece and the
    separators).
    """

    model_proto: bytes
    alphabet_size: int
    separators: tuple[int, ...]
    vocab_size: int = 0
    piece_length: np.ndarray = field(default=None, repr=False)

    def __post_init__(self):
        import sentencepiece as spm

        self._sp = spm.SentencePieceProcessor(model_proto=self.model_proto)
        self.vocab_size = self._sp.get_piece_size()
        lengths = []
        for i in range(self.vocab_size):
            if self._sp.is_unknown(i) or self._sp.is_control(i):
                lengths.append(1)
            else:
                lengths.append(len(self._sp.id_to_piece(i)))
        self.piece_length = np.asarray(lengths, dtype=np.int64)

    def encode(self, tokens) -> np.ndarray:
        t = _as_tokens(tokens, "tokens")
        if t.size and (t.min() < 0 or t.max() >= self.alphabet_size):
            raise ValueError(
                f"tokens must lie in 0..{self.alphabet_size - 1}, got "
                f"[{t.min()}, {t.max()}]"
            )
        return np.asarray(self._sp.encode(to_text(t)), dtype=np.int64)

    def decode(self, ids) -> np.ndarray:
        return from_text(self._sp.decode([int(i) for i in ids]))

    def piece_tokens(self, piece_id: int) -> np.ndarray:
        """The base tokens of one piece."""
        return from_text(self._sp.id_to_piece(int(piece_id)))


def train_merger(
    sequences,
    *,
    alphabet_size: int,
    vocab_size: int,
    separators=(),
    max_piece_length: int = 16,
) -> Merger:
    """Train a SentencePiece BPE (the paper's coordinate merging) on token sequences.

    A first line holding every base token makes sure all of them are in the vocabulary; separators
    are user-defined symbols, so no merged piece contains one. Normalisation, dummy prefix and
    script/number/whitespace splitting are off; runs single-threaded and is deterministic.
    """
    import sentencepiece as spm

    seqs = [_as_tokens(s, "sequence") for s in sequences]
    if not seqs or all(s.size == 0 for s in seqs):
        raise ValueError("sequences must hold at least one non-empty sequence")
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, (int, np.integer)):
        raise ValueError(f"vocab_size must be an int, got {vocab_size!r}")
    if vocab_size <= alphabet_size + 1:
        raise ValueError(
            f"vocab_size must exceed the alphabet ({alphabet_size}) + 1 unknown piece, "
            f"got {vocab_size}"
        )
    for s in seqs:
        if s.size and (s.min() < 0 or s.max() >= alphabet_size):
            raise ValueError(
                f"sequence tokens must lie in 0..{alphabet_size - 1}, got "
                f"[{s.min()}, {s.max()}]"
            )
    lines = [to_text(range(alphabet_size))] + [to_text(s) for s in seqs if s.size]
    max_bytes = max(len(line.encode("utf-8")) for line in lines) + 16
    buf = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines),
        model_writer=buf,
        model_type="bpe",
        vocab_size=int(vocab_size),
        character_coverage=1.0,
        user_defined_symbols=[chr(CHAR_BASE + s) for s in separators],
        max_sentence_length=max_bytes,
        max_sentencepiece_length=int(max_piece_length),
        split_by_unicode_script=False,
        split_by_number=False,
        split_by_whitespace=False,
        split_digits=False,
        add_dummy_prefix=False,
        remove_extra_whitespaces=False,
        normalization_rule_name="identity",
        unk_id=0,
        bos_id=-1,
        eos_id=-1,
        pad_id=-1,
        num_threads=1,
        minloglevel=2,
        hard_vocab_limit=False,
        input_sentence_size=0,
        shuffle_input_sentence=False,
    )
    return Merger(buf.getvalue(), alphabet_size, tuple(int(s) for s in separators))


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


# ---------------------------------------------------------------------------------------------
# meshes that ship with installed packages (read only; no download)
SAMPLE_FILES = {
    "airplane (pyvista)": ("pyvista", "examples/airplane.ply"),
    "ant (pyvista)": ("pyvista", "examples/ant.ply"),
    "nut (pyvista)": ("pyvista", "examples/nut.ply"),
    "airplane (pymeshlab)": ("pymeshlab", "tests/sample_meshes/airplane.obj"),
    "bone (pymeshlab)": ("pymeshlab", "tests/sample_meshes/bone.ply"),
    "bunny (pymeshlab)": ("pymeshlab", "tests/sample_meshes/bunny.obj"),
    "cow (pymeshlab)": ("pymeshlab", "tests/sample_meshes/cow.obj"),
}


def package_file(package: str, relative: str) -> Path:
    """Path of a file shipped inside an installed package, found without importing the package."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(f"package {package!r} is not installed")
    path = Path(list(spec.submodule_search_locations)[0]) / relative
    if not path.is_file():
        raise FileNotFoundError(f"{package} does not ship {relative}")
    return path


def decimate(vertices, faces, *, max_faces: int) -> tuple[np.ndarray, np.ndarray]:
    """Quadric edge-collapse decimation (pymeshlab) to at most `max_faces` faces; unchanged if
    already small enough."""
    v, f = check_mesh(vertices, faces)
    if f.shape[0] <= max_faces:
        return v, f
    import pymeshlab

    ms = pymeshlab.MeshSet()
    ms.add_mesh(pymeshlab.Mesh(vertex_matrix=v, face_matrix=f.astype(np.int32)))
    ms.meshing_decimation_quadric_edge_collapse(
        targetfacenum=int(max_faces), preservetopology=True, qualitythr=0.5
    )
    m = ms.current_mesh()
    return np.asarray(m.vertex_matrix(), dtype=np.float64), np.asarray(
        m.face_matrix(), dtype=np.int64
    )


def primitive_meshes() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Small meshes from trimesh's generators (deterministic)."""
    import trimesh

    prims = {
        "icosphere": trimesh.creation.icosphere(subdivisions=3),
        "torus": trimesh.creation.torus(
            major_radius=1.0, minor_radius=0.35, major_sections=40, minor_sections=16
        ),
        "capsule": trimesh.creation.capsule(height=1.5, radius=0.5, count=[24, 24]),
        "cylinder": trimesh.creation.cylinder(radius=0.6, height=1.8, sections=48),
        "cone": trimesh.creation.cone(radius=0.7, height=1.5, sections=48),
        "annulus": trimesh.creation.annulus(
            r_min=0.4, r_max=0.8, height=0.5, sections=48
        ),
        "box": trimesh.creation.box(extents=[1.0, 0.6, 0.3]),
    }
    return {
        k: (
            np.asarray(m.vertices, dtype=np.float64),
            np.asarray(m.faces, dtype=np.int64),
        )
        for k, m in prims.items()
    }


def sample_meshes(*, max_faces: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The real meshes shipped by pyvista and pymeshlab (decimated to `max_faces`), then the
    trimesh primitives. A missing package or file is an error naming it: silently dropping a mesh
    would change every result."""
    import trimesh

    out = {}
    for name, (pkg, rel) in SAMPLE_FILES.items():
        path = package_file(pkg, rel)
        m = trimesh.load(str(path), force="mesh", process=False)
        out[name] = decimate(m.vertices, m.faces, max_faces=max_faces)
    out.update(primitive_meshes())
    return out


# ---------------------------------------------------------------------------------------------
# a tiny autoregressive transformer (full scale: does PTME track learnability?)
def _causal_lm(vocab: int, *, d_model: int, n_layers: int, n_heads: int, context: int):
    """A small pre-norm causal transformer over `vocab` tokens plus one start token (id `vocab`)."""
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
            self.att = nn.MultiheadAttention(d_model, n_heads, batch_first=True)
            self.mlp = nn.Sequential(
                nn.Linear(d_model, 4 * d_model),
                nn.GELU(),
                nn.Linear(4 * d_model, d_model),
            )

        def forward(self, x, mask):
            h = self.ln1(x)
            x = x + self.att(h, h, h, attn_mask=mask, need_weights=False)[0]
            return x + self.mlp(self.ln2(x))

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(vocab + 1, d_model)
            self.pos = nn.Embedding(context + 1, d_model)
            self.blocks = nn.ModuleList(Block() for _ in range(n_layers))
            self.ln = nn.LayerNorm(d_model)
            self.head = nn.Linear(d_model, vocab + 1)

        def forward(self, idx):
            n = idx.shape[1]
            mask = torch.triu(torch.ones(n, n, dtype=torch.bool, device=idx.device), 1)
            x = self.tok(idx) + self.pos(torch.arange(n, device=idx.device))
            for blk in self.blocks:
                x = blk(x, mask)
            return self.head(self.ln(x))

    return LM()


def _seeded_lm(vocab, generator, device, **arch):
    """`_causal_lm` initialised from `generator` (not from global state), on `device`."""
    import torch

    init_seed = int(torch.randint(0, 2**31 - 1, (1,), generator=generator))
    devices = (
        [torch.device(device).index or 0] if str(device).startswith("cuda") else []
    )
    with torch.random.fork_rng(devices=devices):
        torch.manual_seed(init_seed)
        return _causal_lm(vocab, **arch).to(device)


def lm_bits_per_face(
    train,
    test,
    test_faces,
    *,
    vocab: int,
    generator,
    device: str = "cpu",
    d_model: int = 128,
    n_layers: int = 2,
    n_heads: int = 4,
    context: int = 512,
    steps: int = 2000,
    batch: int = 32,
    lr: float = 1e-3,
) -> dict:
    """Train a small causal transformer on token sequences and return held-out bits per token and per
    face (test sequences cut into windows of `context` tokens, each window predicted from its own
    start; the first token of every window is scored from an extra start-of-window token), and
    `sequence_bits`, the bits of each test sequence.
    """
    import torch
    from torch import nn

    if not train or not test:
        raise ValueError("train and test must be non-empty lists of sequences")
    bos = vocab
    stream = torch.as_tensor(
        np.concatenate([np.concatenate([[bos], s]) for s in train]), dtype=torch.long
    )
    if stream.numel() <= context + 1:
        raise ValueError(
            f"the training corpus ({stream.numel()} tokens) must be longer than the "
            f"context ({context}) + 1"
        )
    arch = dict(d_model=d_model, n_layers=n_layers, n_heads=n_heads, context=context)
    model = _seeded_lm(vocab, generator, device, **arch)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=lr, total_steps=steps, pct_start=0.1
    )
    model.train()
    for _ in range(steps):
        starts = torch.randint(
            0, stream.numel() - context - 1, (batch,), generator=generator
        )
        xb = torch.stack([stream[s : s + context + 1] for s in starts.tolist()]).to(
            device
        )
        loss = nn.functional.cross_entropy(
            model(xb[:, :-1]).reshape(-1, vocab + 1), xb[:, 1:].reshape(-1)
        )
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
    model.eval()
    seq_nats, total_tokens = [], 0
    with torch.no_grad():
        for s in test:
            s = torch.as_tensor(np.asarray(s), dtype=torch.long)
            nats = 0.0
            for i in range(0, s.numel(), context):
                w = s[i : i + context]
                x = torch.cat([torch.tensor([bos]), w]).unsqueeze(0).to(device)
                logits = model(x[:, :-1])
                nats += float(
                    nn.functional.cross_entropy(
                        logits.reshape(-1, vocab + 1),
                        x[:, 1:].reshape(-1),
                        reduction="sum",
                    )
                )
                total_tokens += w.numel()
            seq_nats.append(nats)
    sequence_bits = np.asarray(seq_nats) / math.log(2)
    bits = float(sequence_bits.sum())
    return {
        "bits_per_token": bits / total_tokens,
        "bits_per_face": bits / float(np.sum(test_faces)),
        "final_train_loss": float(loss.detach()),
        "sequence_bits": sequence_bits,
    }


def lm_step_seconds(
    *,
    vocab: int,
    generator,
    device: str = "cpu",
    d_model: int = 128,
    n_layers: int = 2,
    n_heads: int = 4,
    context: int = 512,
    batch: int = 32,
    lr: float = 1e-3,
    repeats: int = 2,
    **unused,
) -> float:
    """Wall seconds of one training step of `lm_bits_per_face`'s transformer with these settings
    (random tokens; one untimed warm-up step, then the mean over `repeats` steps): a timing probe
    for estimating a full-scale run. Extra keys of an `lm` settings dict (its `steps` count)
    are accepted and ignored."""
    import time

    import torch
    from torch import nn

    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be a positive int, got {repeats!r}")
    unknown = sorted(set(unused) - {"steps"})
    if unknown:
        raise TypeError(f"lm_step_seconds got unexpected settings {unknown}")
    arch = dict(d_model=d_model, n_layers=n_layers, n_heads=n_heads, context=context)
    model = _seeded_lm(vocab, generator, device, **arch)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    times = []
    for k in range(repeats + 1):
        xb = torch.randint(0, vocab, (batch, context + 1), generator=generator).to(
            device
        )
        t0 = time.perf_counter()
        loss = nn.functional.cross_entropy(
            model(xb[:, :-1]).reshape(-1, vocab + 1), xb[:, 1:].reshape(-1)
        )
        opt.zero_grad()
        loss.backward()
        opt.step()
        if str(device).startswith("cuda"):
            torch.cuda.synchronize()
        if k:
            times.append(time.perf_counter() - t0)
    return float(np.mean(times))


# ---------------------------------------------------------------------------------------------
# a second BPE implementation (Hugging Face `tokenizers`), run side by side with SentencePiece
class HFMerger:
    """Coordinate merging with the Hugging Face `tokenizers` BPE; same interface as Merger."""

    def __init__(self, tokenizer, alphabet_size: int, separators: tuple[int, ...]):
        self._tok = tokenizer
        self.alphabet_size = alphabet_size
        self.separators = separators
        self.vocab_size = tokenizer.get_vocab_size()
        self.piece_length = np.asarray(
            [
                1
                if tokenizer.id_to_token(i) == "[UNK]"
                else len(tokenizer.id_to_token(i))
                for i in range(self.vocab_size)
            ],
            dtype=np.int64,
        )

    def encode(self, tokens) -> np.ndarray:
        t = _as_tokens(tokens, "tokens")
        if t.size and (t.min() < 0 or t.max() >= self.alphabet_size):
            raise ValueError(
                f"tokens must lie in 0..{self.alphabet_size - 1}, got "
                f"[{t.min()}, {t.max()}]"
            )
        return np.asarray(self._tok.encode(to_text(t)).ids, dtype=np.int64)

    def decode(self, ids) -> np.ndarray:
        return from_text("".join(self._tok.id_to_token(int(i)) for i in ids))


def train_merger_hf(
    sequences,
    *,
    alphabet_size: int,
    vocab_size: int,
    separators=(),
    max_piece_length: int = 16,
) -> HFMerger:
    """Train a Hugging Face `tokenizers` BPE on token sequences; separators are split off before
    merging, so no piece contains one. Deterministic for a given corpus."""
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

    seqs = [_as_tokens(s, "sequence") for s in sequences]
    if not seqs or all(s.size == 0 for s in seqs):
        raise ValueError("sequences must hold at least one non-empty sequence")
    if (
        isinstance(vocab_size, bool)
        or not isinstance(vocab_size, (int, np.integer))
        or vocab_size <= alphabet_size + 1
    ):
        raise ValueError(
            f"vocab_size must be an int above the alphabet ({alphabet_size}) + 1, "
            f"got {vocab_size!r}"
        )
    for s in seqs:
        if s.size and (s.min() < 0 or s.max() >= alphabet_size):
            raise ValueError(
                f"sequence tokens must lie in 0..{alphabet_size - 1}, got "
                f"[{s.min()}, {s.max()}]"
            )
    tok = Tokenizer(models.BPE(unk_token="[UNK]"))
    if separators:
        pattern = "[" + "".join(chr(CHAR_BASE + s) for s in separators) + "]"
        tok.pre_tokenizer = pre_tokenizers.Split(Regex(pattern), behavior="isolated")
    trainer = trainers.BpeTrainer(
        vocab_size=int(vocab_size),
        special_tokens=["[UNK]"],
        initial_alphabet=[chr(CHAR_BASE + i) for i in range(alphabet_size)],
        limit_alphabet=alphabet_size,
        max_token_length=int(max_piece_length),
        show_progress=False,
    )
    tok.train_from_iterator([to_text(s) for s in seqs if s.size], trainer=trainer)
    return HFMerger(tok, alphabet_size, tuple(int(s) for s in separators))


# ----------------------------------------------------------------------------------------------
# a count-based next-token model: held-out bits per face without training a network
def ngram_bits_per_face(
    train, test, test_faces, *, vocab: int, order: int = 3, discount: float = 0.75
) -> dict:
    """Held-out bits per token and per face of an interpolated absolute-discounting n-gram model.

    P_k(w | last k−1 tokens) = max(c(ctx, w) − d, 0) / c(ctx) + d · T(ctx) / c(ctx) · P_{k−1}(w),
    with T(ctx) the number of distinct tokens seen after ctx, falling back to P_{k−1} for an unseen
    context; P_0 is uniform over the `vocab` tokens. Each sequence starts from `order − 1` start
    symbols. Trained on `train`, scored on `test` (lists of int token arrays); `test_faces` is the
    number of faces per test sequence (or their total). `order=1` is a unigram fitted on `train`
    (discounted towards the uniform). Returns bits per token and per face, the number of test
    tokens and `sequence_bits`, the bits of each test sequence.
    """
    if isinstance(order, bool) or not isinstance(order, (int, np.integer)) or order < 1:
        raise ValueError(f"order must be a positive int, got {order!r}")
    if not 0 < discount < 1:
        raise ValueError(f"discount must lie in (0, 1), got {discount!r}")
    if isinstance(vocab, bool) or not isinstance(vocab, (int, np.integer)) or vocab < 2:
        raise ValueError(f"vocab must be an int ≥ 2, got {vocab!r}")
    if not train or not test:
        raise ValueError("train and test must be non-empty lists of token sequences")
    base = int(vocab) + 1  # token ids 0..vocab−1 and the start symbol `vocab`
    if base**order >= 2**62:
        raise ValueError(
            f"vocab {vocab} and order {order} do not fit 64-bit context keys"
        )

    def contexts(seqs):
        """(target, context key of length j for j = 0..order−1) for every position."""
        tgt, ctx = [], [[] for _ in range(order)]
        for q in seqs:
            q = np.asarray(q, dtype=np.int64)
            if q.ndim != 1 or (q.size and (q.min() < 0 or q.max() >= vocab)):
                raise ValueError(f"token ids must be a 1-D array in [0, {vocab})")
            padded = np.concatenate([np.full(order - 1, vocab, dtype=np.int64), q])
            tgt.append(q)
            key = np.zeros(q.size, dtype=np.int64)
            ctx[0].append(key.copy())
            for j in range(1, order):  # context of the last j tokens
                key = key * base + padded[order - 1 - j : order - 1 - j + q.size]
                ctx[j].append(key.copy())
        return np.concatenate(tgt), [np.concatenate(c) for c in ctx]

    t_tr, c_tr = contexts(train)
    t_te, c_te = contexts(test)
    prob = np.full(t_te.size, 1.0 / vocab)  # P_0: uniform
    for j in range(order):  # j = context length: unigram, bigram, ...
        pair = c_tr[j] * base + t_tr
        pair_keys, pair_counts = np.unique(pair, return_counts=True)
        ctx_keys, ctx_counts = np.unique(c_tr[j], return_counts=True)
        distinct_ctx, distinct_counts = np.unique(pair_keys // base, return_counts=True)
        assert np.array_equal(distinct_ctx, ctx_keys)

        def lookup(keys, table, values):
            i = np.clip(np.searchsorted(table, keys), 0, len(table) - 1)
            return np.where(table[i] == keys, values[i], 0)

        c_pair = lookup(c_te[j] * base + t_te, pair_keys, pair_counts).astype(float)
        c_ctx = lookup(c_te[j], ctx_keys, ctx_counts).astype(float)
        n_types = lookup(c_te[j], ctx_keys, distinct_counts).astype(float)
        seen = c_ctx > 0
        safe = np.where(seen, c_ctx, 1.0)
        higher = (
            np.maximum(c_pair - discount, 0) / safe + discount * n_types / safe * prob
        )
        prob = np.where(seen, higher, prob)
    token_bits = -np.log2(prob)
    bits = float(token_bits.sum())
    faces = float(np.sum(test_faces))
    if faces <= 0:
        raise ValueError("test_faces must add up to a positive number of faces")
    which = np.repeat(np.arange(len(test)), [np.asarray(q).size for q in test])
    return {
        "bits_per_token": bits / t_te.size,
        "bits_per_face": bits / faces,
        "tokens": int(t_te.size),
        "sequence_bits": np.bincount(which, weights=token_bits, minlength=len(test)),
    }


# ---------------------------------------------------------------------------------------------
# experiment protocols: the chapter's corpus, sweeps and learnability runs
def hold_out(groups, *, rng: np.random.Generator, fraction: float = 1 / 3) -> set[str]:
    """Names held out for testing: `int(len(g) * fraction)` drawn without replacement from each
    group of base-mesh names (e.g. {"real": [...], "primitives": [...]}), in the groups' order."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator, got {type(rng).__name__}")
    if not 0 < fraction < 1:
        raise ValueError(f"fraction must lie in (0, 1), got {fraction!r}")
    out: list[str] = []
    for name, members in dict(groups).items():
        members = list(members)
        k = int(len(members) * fraction + 1e-9)
        if k == 0:
            raise ValueError(
                f"group {name!r} has {len(members)} meshes: too few to hold out "
                f"{fraction:.2f} of them"
            )
        out += rng.choice(members, k, replace=False).tolist()
    return set(out)


@dataclass(frozen=True)
class MeshCorpus:
    """Rotated, quantised copies of base meshes and their six serialisations.

    `rows[i]` describes mesh i (base name, rotation, split, faces before and after clean-up,
    faces dropped, each tokenizer's base CR and serialisation time in seconds); `sequences[(tk,
    rearranged)][i]` its tokens; `train` / `test` the mesh indices of each split."""

    rows: tuple[dict, ...]
    sequences: dict
    meshes: tuple[QuantMesh, ...]
    train: np.ndarray
    test: np.ndarray

    def faces(self, split: str) -> np.ndarray:
        """Faces of each mesh of a split ("train" or "test")."""
        idx = self._indices(split)
        return np.asarray([self.meshes[i].n_faces for i in idx], dtype=np.int64)

    def sequences_of(self, tokenizer: str, rearranged: bool, split: str) -> list:
        idx = self._indices(split)
        seqs = self.sequences[(tokenizer, bool(rearranged))]
        return [seqs[i] for i in idx]

    def _indices(self, split: str) -> np.ndarray:
        if split not in ("train", "test"):
            raise ValueError(f"split must be 'train' or 'test', got {split!r}")
        return self.train if split == "train" else self.test


def build_corpus(
    bases, *, rotations: int, test_bases, rng: np.random.Generator, bits: int = BITS
) -> MeshCorpus:
    """Rotate every base mesh `rotations` times (uniform random rotations from `rng`), quantise,
    make it edge-manifold and serialise it with every tokenizer, as is and rearranged.

    Every tokenisation is decoded and compared with the mesh's faces; a mismatch raises
    RuntimeError (a serialiser bug must not pass silently). A mesh is a test mesh when its base
    name is in `test_bases`, so no rotated copy of a test mesh is trained on."""
    import time

    if isinstance(rotations, bool) or not isinstance(rotations, (int, np.integer)):
        raise ValueError(f"rotations must be a positive int, got {rotations!r}")
    if rotations < 1:
        raise ValueError(f"rotations must be a positive int, got {rotations!r}")
    bases = dict(bases)
    unknown = sorted(set(test_bases) - set(bases))
    if unknown:
        raise ValueError(f"test_bases names meshes that are not bases: {unknown}")
    if not bases:
        raise ValueError("bases must hold at least one mesh")
    rows, meshes = [], []
    seqs: dict = {(tk, rac): [] for tk in TOKENIZERS for rac in (False, True)}
    for name, (v, f) in bases.items():
        for r in range(int(rotations)):
            q, dropped = make_edge_manifold(
                quantize_mesh(np.asarray(v) @ random_rotation(rng).T, f, bits=bits)
            )
            row = dict(
                mesh=name,
                rotation=r,
                split="test" if name in test_bases else "train",
                faces_in=len(f),
                faces=q.n_faces,
                dropped=dropped,
            )
            for tk in TOKENIZERS:
                t0 = time.perf_counter()
                base = serialize(q, tk)
                row[f"time_{tk}"] = time.perf_counter() - t0
                rac = rearrange(base, tk, bits=bits)
                if not (
                    same_faces(deserialize(base, tk, bits=bits), q.triangles())
                    and same_faces(
                        deserialize(rac, tk, rearranged=True, bits=bits),
                        q.triangles(),
                    )
                ):
                    raise RuntimeError(
                        f"{tk} does not decode to the faces of {name!r}, rotation {r}"
                    )
                seqs[(tk, False)].append(base)
                seqs[(tk, True)].append(rac)
                row[f"CR_{tk}"] = base.size / (9 * q.n_faces)
            rows.append(row)
            meshes.append(q)
    split = np.asarray([row["split"] for row in rows])
    train, test = np.flatnonzero(split == "train"), np.flatnonzero(split == "test")
    if train.size == 0 or test.size == 0:
        raise ValueError("both splits need meshes: check test_bases")
    return MeshCorpus(
        rows=tuple(rows),
        sequences={k: tuple(v) for k, v in seqs.items()},
        meshes=tuple(meshes),
        train=train,
        test=test,
    )


METHODS = ("base", "MC", "RMC")
"""A tokenisation: the serialisation as is (base), merged as is (MC), rearranged then merged
(RMC)."""


@dataclass(frozen=True)
class MergingSweep:
    """Held-out PTME of every tokenizer × method × vocabulary size, and the trained vocabularies.

    `rows`: dicts with tokenizer, method, V (the base alphabet for "base"), ptme, tokens_per_face,
    entropy and cr. `mergers[(tokenizer, method, V)]`: the trained Merger."""

    rows: tuple[dict, ...]
    mergers: dict

    def encode(self, corpus: MeshCorpus, tokenizer: str, method: str, V, split: str):
        """Token ids of one split under one tokenisation (V is ignored for "base")."""
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {method!r}")
        seqs = corpus.sequences_of(tokenizer, method == "RMC", split)
        if method == "base":
            return list(seqs)
        mg = self.mergers.get((tokenizer, method, V))
        if mg is None:
            raise KeyError(f"no {method} vocabulary of size {V} for {tokenizer}")
        return [mg.encode(s) for s in seqs]

    def vocab_size(self, tokenizer: str, method: str, V) -> int:
        if method == "base":
            return ALPHABET[tokenizer]
        return self.mergers[(tokenizer, method, V)].vocab_size

    def value(self, tokenizer: str, method: str, V, key: str = "ptme") -> float:
        for r in self.rows:
            if (
                r["tokenizer"] == tokenizer
                and r["method"] == method
                and (method == "base" or r["V"] == V)
            ):
                return float(r[key])
        raise KeyError(f"no row for {tokenizer} {method} V={V}")


def _ptme_row(tokenizer, method, V, r: PTME) -> dict:
    return dict(
        tokenizer=tokenizer,
        method=method,
        V=V,
        ptme=r.ptme,
        tokens_per_face=r.tokens_per_face,
        entropy=r.entropy,
        cr=r.cr,
    )


def _check_workers(workers) -> int:
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)):
        raise ValueError(f"workers must be a positive int, got {workers!r}")
    if workers < 1:
        raise ValueError(f"workers must be a positive int, got {workers!r}")
    return int(workers)


def _train_many(jobs: list[dict], workers: int) -> list[Merger]:
    """`train_merger(**job)` for every job, in order, on `workers` threads (SentencePiece releases
    the GIL while it trains, and each training is single-threaded and deterministic, so the
    vocabularies do not depend on `workers`)."""
    if workers == 1 or len(jobs) < 2:
        return [train_merger(**job) for job in jobs]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda job: train_merger(**job), jobs))


def merging_sweep(
    corpus: MeshCorpus, vocab, *, tokenizers=TOKENIZERS, workers: int = 1
) -> MergingSweep:
    """For each tokenizer: held-out PTME of the base serialisation, then one SentencePiece
    vocabulary per size in `vocab` trained on the training meshes as they are (MC) and
    rearranged (RMC), each applied to the held-out meshes. `workers` threads train the
    vocabularies (the result does not depend on it)."""
    vocab = [int(v) for v in vocab]
    if not vocab or sorted(set(vocab)) != vocab:
        raise ValueError(f"vocab must be increasing sizes, got {vocab!r}")
    workers = _check_workers(workers)
    for tk in tokenizers:
        if tk not in TOKENIZERS:
            raise ValueError(f"tokenizer must be one of {TOKENIZERS}, got {tk!r}")
    keys = [
        (tk, method, V) for tk in tokenizers for method in ("MC", "RMC") for V in vocab
    ]
    jobs = [
        dict(
            sequences=corpus.sequences_of(tk, method == "RMC", "train"),
            alphabet_size=ALPHABET[tk],
            vocab_size=V,
            separators=SEPARATORS[tk],
        )
        for tk, method, V in keys
    ]
    mergers = dict(zip(keys, _train_many(jobs, workers)))
    faces_test = corpus.faces("test")
    rows = []
    for tk in tokenizers:
        base = corpus_ptme(corpus.sequences_of(tk, False, "test"), faces_test)
        rows.append(_ptme_row(tk, "base", ALPHABET[tk], base))
        for method in ("MC", "RMC"):
            test = corpus.sequences_of(tk, method == "RMC", "test")
            for V in vocab:
                mg = mergers[(tk, method, V)]
                enc = [mg.encode(s) for s in test]
                r = corpus_ptme(enc, faces_test, piece_length=mg.piece_length)
                rows.append(_ptme_row(tk, method, V, r))
    return MergingSweep(rows=tuple(rows), mergers=mergers)


def tokens_per_face_by_base(
    corpus: MeshCorpus, sweep: MergingSweep, tokenizer: str, method: str, V
) -> dict[str, float]:
    """Held-out tokens per face of one tokenisation, for each held-out base mesh (its rotations
    pooled: total tokens / total faces), in the order the bases first appear."""
    enc = sweep.encode(corpus, tokenizer, method, V, "test")
    names = [corpus.rows[i]["mesh"] for i in corpus.test]
    faces = corpus.faces("test")
    tokens: dict[str, int] = {}
    total_faces: dict[str, int] = {}
    for name, e, f in zip(names, enc, faces):
        tokens[name] = tokens.get(name, 0) + int(np.asarray(e).size)
        total_faces[name] = total_faces.get(name, 0) + int(f)
    return {name: tokens[name] / total_faces[name] for name in tokens}


def peer_merging(
    corpus: MeshCorpus, sweep: MergingSweep, vocab, *, tokenizers=TOKENIZERS
) -> list[dict]:
    """RMC with a second BPE implementation (Hugging Face `tokenizers`) beside SentencePiece:
    held-out PTME and tokens per face of each at the sizes in `vocab` (which `sweep` must hold).
    Every held-out encoding is decoded back; a mismatch raises RuntimeError."""
    faces_test = corpus.faces("test")
    rows = []
    for tk in tokenizers:
        train = corpus.sequences_of(tk, True, "train")
        test = corpus.sequences_of(tk, True, "test")
        for V in vocab:
            hf = train_merger_hf(
                train,
                alphabet_size=ALPHABET[tk],
                vocab_size=int(V),
                separators=SEPARATORS[tk],
            )
            enc = [hf.encode(s) for s in test]
            if not all(np.array_equal(hf.decode(e), s) for e, s in zip(enc, test)):
                raise RuntimeError(f"tokenizers BPE does not round-trip {tk} at V={V}")
            r = corpus_ptme(enc, faces_test, piece_length=hf.piece_length)
            rows.append(
                {
                    "tokenizer": tk,
                    "V": int(V),
                    "PTME sentencepiece": sweep.value(tk, "RMC", V),
                    "PTME tokenizers": r.ptme,
                    "tokens/face sentencepiece": sweep.value(
                        tk, "RMC", V, "tokens_per_face"
                    ),
                    "tokens/face tokenizers": r.tokens_per_face,
                }
            )
    return rows


def pair_sweep(corpus: MeshCorpus, *, top: int, tokenizers=TOKENIZERS) -> list[dict]:
    """The paper's first-order formula against the exact change of PTME, for the `top` most
    frequent adjacent pairs of each training corpus (each tokenizer, as is and rearranged).

    Rows: tokenizer, order ("as is" / "RAC"), a, b, kind ("self" for a = b, "distinct"),
    p_ab, p_a, p_b, pmi, exact and predicted ΔPTME (bits per raw coordinate)."""
    faces_train = int(corpus.faces("train").sum())
    rows = []
    for tk in tokenizers:
        for rac in (False, True):
            seqs = corpus.sequences_of(tk, rac, "train")
            counts = np.bincount(np.concatenate(seqs), minlength=ALPHABET[tk]).astype(
                np.float64
            )
            cr = counts.sum() / (9 * faces_train)
            for a, b, n_ab in pair_candidates(seqs, top=top, exclude=SEPARATORS[tk]):
                e = pair_effect(counts, np.ones_like(counts), a, b, n_ab, cr=cr)
                rows.append(
                    dict(
                        tokenizer=tk,
                        order="RAC" if rac else "as is",
                        a=a,
                        b=b,
                        kind="self" if a == b else "distinct",
                        p_ab=e.p_ab,
                        p_a=e.p_a,
                        p_b=e.p_b,
                        pmi=e.pmi,
                        exact=e.exact,
                        predicted=e.first_order,
                    )
                )
    return rows


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


def learnability(
    corpus: MeshCorpus,
    sweep: MergingSweep,
    *,
    V: int,
    methods=METHODS,
    tokenizers=TOKENIZERS,
    lm: dict | None = None,
    generator=None,
    device: str = "cpu",
) -> list[dict]:
    """Held-out bits per face of a next-token model trained on each tokenisation (tokenizer ×
    method, merged ones at vocabulary size V), beside its held-out PTME and the bits per face of
    a unigram fitted on the same training split (`unigram_bits_per_face`: the model has learned
    something from context where it beats it).

    `lm=None`: a count-based trigram (interpolated absolute discounting, no randomness).
    Otherwise a causal transformer with the settings in `lm` (see `lm_bits_per_face`);
    `generator(i)` then gives the torch generator of the i-th tokenisation (in the order of the
    rows), so every model has its own stream. `sequence_bits` holds the model's bits of each
    held-out sequence (in the order of `corpus.test`)."""
    if lm is not None and not callable(generator):
        raise ValueError("a transformer run needs generator: i -> torch.Generator")
    faces_test = corpus.faces("test")
    rows = []
    for tk in tokenizers:
        for method in methods:
            tr = sweep.encode(corpus, tk, method, V, "train")
            te = sweep.encode(corpus, tk, method, V, "test")
            vocab = sweep.vocab_size(tk, method, V)
            unigram = ngram_bits_per_face(tr, te, faces_test, vocab=vocab, order=1)
            if lm is None:
                out = ngram_bits_per_face(tr, te, faces_test, vocab=vocab, order=3)
            else:
                out = lm_bits_per_face(
                    tr,
                    te,
                    faces_test,
                    vocab=vocab,
                    device=device,
                    generator=generator(len(rows)),
                    **lm,
                )
            rows.append(
                dict(
                    tokenizer=tk,
                    method=method,
                    ptme=sweep.value(tk, method, V),
                    tokens_per_face=sweep.value(tk, method, V, "tokens_per_face"),
                    unigram_bits_per_face=unigram["bits_per_face"],
                    **out,
                )
            )
    return rows


def bits_per_face_by_base(corpus: MeshCorpus, sequence_bits) -> dict[str, float]:
    """Bits per face of each held-out base mesh (its rotations pooled: total bits / total faces),
    from the bits of each held-out sequence (in the order of `corpus.test`)."""
    bits = np.asarray(sequence_bits, dtype=np.float64)
    if bits.shape != corpus.test.shape:
        raise ValueError(
            f"sequence_bits must hold one value per held-out mesh ({corpus.test.size}), "
            f"got shape {bits.shape}"
        )
    names = [corpus.rows[i]["mesh"] for i in corpus.test]
    total_bits: dict[str, float] = {}
    total_faces: dict[str, int] = {}
    for name, b, f in zip(names, bits, corpus.faces("test")):
        total_bits[name] = total_bits.get(name, 0.0) + float(b)
        total_faces[name] = total_faces.get(name, 0) + int(f)
    return {name: total_bits[name] / total_faces[name] for name in total_bits}


CONTRASTS = (("MC", "base"), ("RMC", "MC"))
"""The within-tokenizer contrasts of claim 6: (A, B) reads "A against B"."""


def learnability_contrasts(
    corpus: MeshCorpus, rows, *, contrasts=CONTRASTS
) -> list[dict]:
    """Does the model order two tokenisations of one tokenizer as PTME does, mesh by mesh?

    For each tokenizer in `rows` (from `learnability`) and each contrast (A, B): PTME's direction
    s = +1 when PTME(A) < PTME(B) (PTME calls A easier), −1 when it is above; and for every
    held-out base mesh the gain s · (bits per face of B − of A), positive when the model's bits
    per face on that mesh order A and B as PTME does. Rows: tokenizer, contrast ("A vs B"),
    ptme_a, ptme_b, direction (s), gains ({base mesh: gain})."""
    by = {(r["tokenizer"], r["method"]): r for r in rows}
    out = []
    for tk in dict.fromkeys(r["tokenizer"] for r in rows):
        for a, b in contrasts:
            if (tk, a) not in by or (tk, b) not in by:
                raise ValueError(f"rows lack {tk} {a} or {tk} {b} for the contrast")
            ra, rb = by[(tk, a)], by[(tk, b)]
            if ra["ptme"] == rb["ptme"]:
                raise ValueError(f"{tk}: PTME does not order {a} and {b} (equal)")
            s = 1.0 if ra["ptme"] < rb["ptme"] else -1.0
            bpf_a = bits_per_face_by_base(corpus, ra["sequence_bits"])
            bpf_b = bits_per_face_by_base(corpus, rb["sequence_bits"])
            out.append(
                dict(
                    tokenizer=tk,
                    contrast=f"{a} vs {b}",
                    ptme_a=float(ra["ptme"]),
                    ptme_b=float(rb["ptme"]),
                    direction=s,
                    gains={m: s * (bpf_b[m] - bpf_a[m]) for m in bpf_a},
                )
            )
    return out


def leave_one_base_out(
    corpus: MeshCorpus, vocab, *, tokenizers=TOKENIZERS, workers: int = 1
) -> list[dict]:
    """MC against RMC with each base mesh held out in turn: for every base mesh b, tokenizer and
    size V in `vocab`, MC and RMC vocabularies are trained on the meshes of every other base
    (both splits of `corpus`) and applied to b's rotations. Rows: tokenizer, V, mesh, faces,
    and the tokens per face of b (rotations pooled) as is (base), with MC and with RMC.
    `workers` threads train the vocabularies (the result does not depend on it)."""
    vocab = [int(v) for v in vocab]
    if not vocab or sorted(set(vocab)) != vocab:
        raise ValueError(f"vocab must be increasing sizes, got {vocab!r}")
    workers = _check_workers(workers)
    for tk in tokenizers:
        if tk not in TOKENIZERS:
            raise ValueError(f"tokenizer must be one of {TOKENIZERS}, got {tk!r}")
    names = np.asarray([r["mesh"] for r in corpus.rows])
    faces = np.asarray([q.n_faces for q in corpus.meshes], dtype=np.int64)
    bases = list(dict.fromkeys(names.tolist()))
    if len(bases) < 2:
        raise ValueError("leave-one-base-out needs at least two base meshes")
    folds = [(tk, V, b) for tk in tokenizers for V in vocab for b in bases]
    jobs = []
    for tk, V, b in folds:
        rest = np.flatnonzero(names != b)
        for rac in (False, True):
            seqs = corpus.sequences[(tk, rac)]
            jobs.append(
                dict(
                    sequences=[seqs[i] for i in rest],
                    alphabet_size=ALPHABET[tk],
                    vocab_size=V,
                    separators=SEPARATORS[tk],
                )
            )
    trained = iter(_train_many(jobs, workers))
    rows = []
    for tk, V, b in folds:
        held = np.flatnonzero(names == b)
        n_faces = int(faces[held].sum())
        row = dict(tokenizer=tk, V=V, mesh=b, faces=n_faces)
        base_seqs = corpus.sequences[(tk, False)]
        row["base"] = sum(base_seqs[i].size for i in held) / n_faces
        for method, rac in (("MC", False), ("RMC", True)):
            mg = next(trained)
            seqs = corpus.sequences[(tk, rac)]
            row[method] = sum(mg.encode(seqs[i]).size for i in held) / n_faces
        rows.append(row)
    return rows


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
