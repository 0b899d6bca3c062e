from pathlib import Path

import pytest

from minibook import BROKEN, TINY


@pytest.fixture
def book_root(tmp_path: Path) -> Path:
    return make_book(tmp_path)


def make_book(tmp_path: Path) -> Path:
    """A miniature book: two chapters (one fails), a core file, a paper module, a data folder."""
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: intro\n")
    (tmp_path / "requirements.txt").write_text("numpy\n")
    nb = tmp_path / "notebooks"
    nb.mkdir()
    (nb / "01_tiny.py").write_text(TINY)
    (nb / "02_broken.py").write_text(BROKEN)
    lib = tmp_path / "lib" / "repbook"
    (lib / "core").mkdir(parents=True)
    (lib / "papers").mkdir()
    (lib / "__init__.py").write_text("")
    (lib / "core" / "thing.py").write_text("A = 1\n")
    (lib / "papers" / "aurc.py").write_text("B = 2\n")
    (lib / "papers" / "other.py").write_text("C = 3\n")
    (tmp_path / "data" / "01_tiny").mkdir(parents=True)
    (tmp_path / "data" / "01_tiny" / "t.csv").write_text("1\n")
    return tmp_path
