import pytest

from repbook.runner.chapters import (
    ChapterError,
    discover,
    paper_modules,
    parameters_cell,
    parameters_of,
    resolve,
)


def test_discover_and_resolve(book_root):
    assert [c.stem for c in discover(book_root)] == ["01_tiny", "02_broken"]
    assert [c.stem for c in resolve(book_root, ["1"])] == ["01_tiny"]
    assert [c.stem for c in resolve(book_root, ["02_broken", "tiny", "01"])] == [
        "02_broken",
        "01_tiny",
    ]
    assert len(resolve(book_root, [])) == 2
    with pytest.raises(
        ChapterError, match="no chapter matches '7'; chapters: 01_tiny, 02_broken"
    ):
        resolve(book_root, ["7"])


def test_parameters_of_reads_literals(book_root):
    assert parameters_of(book_root / "notebooks" / "01_tiny.py") == {
        "scale": "quick",
        "seed": 0,
        "width": 3,
    }


def test_parameters_cell_must_be_unique_and_literal(tmp_path):
    with pytest.raises(
        ChapterError, match="exactly one cell tagged 'parameters', found 0"
    ):
        parameters_cell("# %%\nx = 1\n")
    two = '# %% tags=["parameters"]\nx = 1\n# %% tags=["parameters"]\ny = 2\n'
    with pytest.raises(ChapterError, match="found 2"):
        parameters_cell(two)
    f = tmp_path / "c.py"
    f.write_text('# %% tags=["parameters"]\nx = len([])\n')
    with pytest.raises(ChapterError, match="'x' must be a literal"):
        parameters_of(f)
    f.write_text('# %% tags=["parameters"]\nprint(1)\n')
    with pytest.raises(ChapterError, match="only hold assignments"):
        parameters_of(f)


@pytest.mark.parametrize(
    "code, mods",
    [
        ("from repbook.papers import aurc", ["aurc"]),
        ("from repbook.papers import aurc as A, butterfly", ["aurc", "butterfly"]),
        (
            "from repbook.papers import (aurc,\n    butterfly)",
            ["aurc", "butterfly"],
        ),  # the regex missed it
        (
            "from repbook.papers import (\n    aurc as A,\n    butterfly as B,\n)",
            ["aurc", "butterfly"],
        ),
        ("import repbook.papers.aurc", ["aurc"]),
        ("import repbook.papers.aurc as A", ["aurc"]),
        ("import repbook.papers.grammar_decoding.lexer as L", ["grammar_decoding"]),
        ("from repbook.papers.grammar_decoding import lexer", ["grammar_decoding"]),
        (
            "from repbook.papers.grammar_decoding.engine import Engine",
            ["grammar_decoding"],
        ),
        ("if True:\n    from repbook.papers import aurc", ["aurc"]),
        ("from repbook import papers", ["*"]),
        ("import repbook.core\nfrom repbook.core import setup", []),
        ("%matplotlib inline\nfrom repbook.papers import aurc", ["aurc"]),
    ],
)
def test_paper_modules_every_import_form(tmp_path, code, mods):
    f = tmp_path / "c.py"
    f.write_text('# %% tags=["parameters"]\nscale = "quick"\n\n# %%\n' + code + "\n")
    assert paper_modules(f) == mods


def test_imports_in_markdown_do_not_count(tmp_path):
    f = tmp_path / "c.py"
    f.write_text("# %% [markdown]\n# from repbook.papers import aurc\n\n# %%\nx = 1\n")
    assert paper_modules(f) == []
