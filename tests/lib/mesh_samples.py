"""Small meshes shared by the tests of repbook.papers.mesh_tokenizers (protocols and readings)."""

import numpy as np

VOCAB = [160, 200]


def small_bases():
    import trimesh

    prims = {
        "ico": trimesh.creation.icosphere(subdivisions=1),
        "box": trimesh.creation.box(extents=[1.0, 0.6, 0.3]),
        "cyl": trimesh.creation.cylinder(radius=0.6, height=1.8, sections=12),
        "cone": trimesh.creation.cone(radius=0.7, height=1.5, sections=10),
    }
    return {
        k: (np.asarray(m.vertices, float), np.asarray(m.faces, np.int64))
        for k, m in prims.items()
    }
