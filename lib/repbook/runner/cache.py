"""When must a chapter run again? A content key over everything that can change its outputs.

The key covers the chapter source, the shared core, the paper modules the chapter imports, its data
folder and stability record, requirements.txt, the Python version, every installed distribution's version, and the
parameters, and the variables of the numerical environment (kernels, BLAS, threads) the run
uses. Content hashes, not modification times: a fresh clone re-uses nothing it should not, and a
`touch` without a change re-runs nothing.
"""

from __future__ import annotations

import hashlib
import importlib.metadata as md
import json
import platform
from functools import lru_cache
from pathlib import Path

from .. import layout
from .chapters import Chapter, paper_modules


@lru_cache(maxsize=1)
def environment_fingerprint() -> str:
    """Python version plus name==version of every installed distribution."""
    dists = sorted(
        {
            f"{d.metadata['Name']}=={d.version}".lower()
            for d in md.distributions()
            if d.metadata["Name"] and d.metadata["Name"].lower() != "repbook"
        }
    )
    return platform.python_version() + "\n" + "\n".join(dists)


def _files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if path.is_dir():
        return sorted(
            p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts
        )
    return []


def inputs_of(root: Path, chapter: Chapter) -> list[Path]:
    """Every file whose content enters the chapter's key."""
    lib = root / "lib" / "repbook"
    files = [chapter.path, lib / "__init__.py", root / "requirements.txt"]
    files += [p for p in _files(lib / "core") if p.suffix == ".py"]
    mods = paper_modules(chapter.path)
    if "*" in mods:  # the whole papers package is reachable from the chapter
        files += [p for p in _files(lib / "papers") if p.suffix == ".py"]
    else:
        files += _files(lib / "papers" / "__init__.py")
        for mod in mods:
            files += _files(lib / "papers" / f"{mod}.py") + _files(lib / "papers" / mod)
    files += _files(layout.data_dir(root, chapter.stem))
    # its verdict table shows the stability record
    files += _files(layout.stability_path(root, chapter.stem))
    return [f for f in files if f.is_file()]


NUMERIC_ENV_VARS = (
    "ATEN_CPU_CAPABILITY",
    "MKL_ENABLE_INSTRUCTIONS",
    "MKL_CBWR",
    "MKL_NUM_THREADS",
    "ONEDNN_MAX_CPU_ISA",
    "OPENBLAS_CORETYPE",
    "OPENBLAS_NUM_THREADS",
    "OMP_NUM_THREADS",
    layout.THREADS_ENV,
)
"""Environment variables that choose which kernels compute a chapter's numbers: a run under other
values is another run (see `repbook.runner.numerics`)."""


def numeric_environment(env: dict | None = None) -> dict[str, str]:
    """The numerical-environment variables a run sees: this process's, overridden by `env`."""
    import os

    merged = {**os.environ, **(env or {})}
    return {k: merged[k] for k in NUMERIC_ENV_VARS if merged.get(k)}


def chapter_key(
    root: Path, chapter: Chapter, params: dict, env: dict | None = None
) -> str:
    h = hashlib.sha256()
    for f in inputs_of(root, chapter):
        h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes() + b"\0")
    h.update(environment_fingerprint().encode())
    h.update(json.dumps(params, sort_keys=True).encode())
    h.update(json.dumps(numeric_environment(env), sort_keys=True).encode())
    return h.hexdigest()
