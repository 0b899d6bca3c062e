"""Meshes: quantisation (7-bit grid, merged vertices, sorted faces), edge-manifold
clean-up, rotations, and the meshes that ship inside installed packages (read only)."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from repbook.core import checks

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
    checks.generator("rng", rng)
    q, r = np.linalg.qr(rng.standard_normal((3, 3)))
    q = q * np.sign(np.diag(r))
    if np.linalg.det(q) < 0:
        q[:, 0] = -q[:, 0]
    return q


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


def mesh_kinds(names) -> dict[str, list[str]]:
    """The base meshes by kind, in their given order: {"real": [...], "primitives": [...]}. A
    shipped real mesh is named with its source in parentheses ("bunny (pymeshlab)"), a primitive
    is not."""
    names = list(names)
    return {
        "real": [k for k in names if "(" in k],
        "primitives": [k for k in names if "(" not in k],
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
