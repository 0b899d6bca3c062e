import pytest

from repbook.runner.chapters import (ChapterError, discover, paper_modules, parameters_cell,
                                     parameters_of, resolve)


def test_discover_and_resolve(book_root):
    assert [c.stem for c in discover(book_root)] == ["01_tiny", "02_broken"]
    assert [c.stem for c in resolve(book_root, ["1"])] == ["01_tiny"]
    assert [c.stem for c in resolve(book_root, ["02_broken", "tiny", "01"])] == ["02_broken", "01_tiny"]
    assert len(resolve(book_root, [])) == 2
    with pytest.raises(ChapterError, match="no chapter matches '7'; chapters: 01_tiny, 02_broken"):
        resolve(book_root, ["7"])


def test_parameters_of_reads_literals(book_root):
    assert parameters_of(book_root / "notebooks" / "01_tiny.py") == {"scale": "quick", "seed": 0, "width": 3}


def test_parameters_cell_must_be_unique_and_literal(tmp_path):
    with pytest.raises(ChapterError, match="exactly one cell tagged 'parameters', found 0"):
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


def test_paper_modules(tmp_path):
    f = tmp_path / "c.py"
    f.write_text("from repbook.papers import aurc as A, tiny\nimport repbook.papers.grammar.lexer\n")
    assert paper_modules(f) == ["aurc", "grammar", "tiny"]
