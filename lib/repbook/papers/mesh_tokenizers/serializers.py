"""The three serialisations, each with its decoder: RAW (MeshXL), AMT (MeshAnything V2)
and EDR (EdgeRunner), `serialize` / `deserialize` by name, and the rearrangement of
coordinates (RAC, `rearrange`) with its inverse (`restore`)."""

from __future__ import annotations

import numpy as np

from .meshes import (
    BITS,
    EDR_OFFSET,
    OP_BOM,
    OP_L,
    OP_R,
    TOKENIZERS,
    QuantMesh,
)


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
