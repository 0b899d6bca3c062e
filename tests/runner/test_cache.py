from repbook.runner.cache import chapter_key, environment_fingerprint, inputs_of
from repbook.runner.chapters import resolve


def test_key_follows_content_not_mtime(book_root):
    ch, other = resolve(book_root, ["01", "02"])
    params = {"scale": "quick", "seed": 0, "width": 3}
    k0 = chapter_key(book_root, ch, params)
    assert k0 == chapter_key(book_root, ch, dict(params))
    names = {p.relative_to(book_root).as_posix() for p in inputs_of(book_root, ch)}
    assert "lib/repbook/papers/aurc.py" in names and "data/01_tiny/t.csv" in names
    assert "lib/repbook/papers/other.py" not in names

    paper = book_root / "lib" / "repbook" / "papers" / "aurc.py"
    paper.touch()
    assert chapter_key(book_root, ch, params) == k0  # a touch is not a change
    k_other = chapter_key(book_root, other, {"scale": "quick", "seed": 0})
    paper.write_text("B = 3\n")
    assert chapter_key(book_root, ch, params) != k0  # its paper module changed
    assert (
        chapter_key(book_root, other, {"scale": "quick", "seed": 0}) == k_other
    )  # not its module
    k1 = chapter_key(book_root, ch, params)
    (book_root / "lib" / "repbook" / "papers" / "other.py").write_text("C = 4\n")
    assert chapter_key(book_root, ch, params) == k1  # another chapter's module
    assert chapter_key(book_root, ch, {**params, "seed": 1}) != k1  # parameters
    (book_root / "lib" / "repbook" / "core" / "thing.py").write_text("A = 2\n")
    assert chapter_key(book_root, ch, params) != k1  # the shared core
    k2 = chapter_key(book_root, ch, params)
    (book_root / "data" / "01_tiny" / "t.csv").write_text("2\n")
    assert chapter_key(book_root, ch, params) != k2  # its data
    k3 = chapter_key(book_root, ch, params)
    (book_root / "requirements.txt").write_text("numpy>=2\n")
    assert chapter_key(book_root, ch, params) != k3  # requirements


def test_environment_fingerprint_has_python_and_packages():
    fp = environment_fingerprint()
    assert fp.splitlines()[0].count(".") == 2
    assert any(line.startswith("numpy==") for line in fp.splitlines())


def test_key_follows_python_and_installed_packages(book_root, monkeypatch):
    from repbook.runner import cache

    ch = resolve(book_root, ["01"])[0]
    params = {"scale": "quick", "seed": 0, "width": 3}
    k0 = chapter_key(book_root, ch, params)
    monkeypatch.setattr(
        cache, "environment_fingerprint", lambda: "3.11.7\nnumpy==9.9.9"
    )
    assert chapter_key(book_root, ch, params) != k0


def test_editing_a_paper_module_invalidates_exactly_the_chapters_that_import_it(
    book_root,
):
    nb = book_root / "notebooks"
    header = (nb / "02_broken.py").read_text().split("# %%")[0]
    chapters = {
        "03_paren": "from repbook.papers import (other,\n    aurc)",
        "04_sub": "from repbook.papers.pkg import inner",
        "05_alias": "import repbook.papers.other as O",
        "06_none": "import numpy",
    }
    papers = book_root / "lib" / "repbook" / "papers"
    (papers / "pkg").mkdir()
    (papers / "pkg" / "__init__.py").write_text("")
    (papers / "pkg" / "inner.py").write_text("D = 1\n")
    for stem, code in chapters.items():
        (nb / f"{stem}.py").write_text(
            header + '# %% tags=["parameters"]\nscale = "quick"\n'
            "seed = 0\n\n# %%\n" + code + "\n"
        )
    params = {"scale": "quick", "seed": 0}

    def keys():
        return {
            c.stem: chapter_key(book_root, c, params) for c in resolve(book_root, [])
        }

    edits = {
        "aurc.py": {"01_tiny", "03_paren"},
        "other.py": {"03_paren", "05_alias"},
        "pkg/inner.py": {"04_sub"},
    }
    for name, expected in edits.items():
        before = keys()
        (papers / name).write_text((papers / name).read_text() + "# edited\n")
        after = keys()
        assert {s for s in before if before[s] != after[s]} == expected, name
