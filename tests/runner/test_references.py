"""References are compared with the runner's executed chapters: each chapter runs once."""

import json

import pytest

from repbook.runner.chapters import resolve
from repbook.runner.cli import build_jobs, run_jobs
from repbook.runner.references import (
    ReferenceMismatch,
    checked_cells,
    compare_cell,
    current_run,
    reference_path,
    write_reference,
)


def kernel_starts(log):
    return log.read_text().splitlines() if log.exists() else []


def test_a_book_run_serves_the_reference_comparison(book_root, tmp_path, monkeypatch):
    log = tmp_path / "kernels.log"
    monkeypatch.setenv("REPBOOK_KERNEL_LOG", str(log))
    tiny = resolve(book_root, ["01"])[0]
    run_jobs(
        book_root, build_jobs([tiny], {}), workers=1, force=False
    )  # what `make book` does
    assert kernel_starts(log) == ["01_tiny quick"]
    write_reference(book_root, tiny)
    ref = json.loads(reference_path(book_root, tiny).read_text())
    executed = json.loads(
        current_run(book_root, tiny).read_text()
    )  # what `make test` does
    for want, got in zip(checked_cells(ref), checked_cells(executed), strict=True):
        compare_cell(want, got)
    assert kernel_starts(log) == ["01_tiny quick"], "the comparison started a kernel"
    # an input changed since the book was built: the comparison runs the chapter, once
    (book_root / "lib" / "repbook" / "papers" / "aurc.py").write_text("B = 7\n")
    current_run(book_root, tiny)
    current_run(book_root, tiny)
    assert kernel_starts(log) == ["01_tiny quick"] * 2


def test_a_changed_checked_output_is_reported_with_a_diff(book_root):
    tiny = resolve(book_root, ["01"])[0]
    executed = json.loads(current_run(book_root, tiny).read_text())
    cell = checked_cells(executed)[0]
    tampered = json.loads(json.dumps(cell))
    out = tampered["outputs"][0]["data"]
    out["text/markdown"] = "".join(out["text/markdown"]).replace(
        "width = 3", "width = 4"
    )
    with pytest.raises(
        ReferenceMismatch, match=r"(?s)differs.*-.*width = 4.*\+.*width = 3"
    ):
        compare_cell(tampered, cell)
    tampered["source"] = "ledger.show()  # edited"
    with pytest.raises(ReferenceMismatch, match="code differs"):
        compare_cell(tampered, cell)


def test_load_dependent_values_are_not_compared(book_root):
    tiny = resolve(book_root, ["01"])[0]
    cell = checked_cells(json.loads(current_run(book_root, tiny).read_text()))[0]
    a, b = json.loads(json.dumps(cell)), json.loads(json.dumps(cell))
    a["outputs"][0]["data"]["text/markdown"] = (
        "| 2 | fast | ◷ p50 ratio = 1.5 | ◷ ✓ reproduced |"
    )
    b["outputs"][0]["data"]["text/markdown"] = (
        "| 2 | fast | ◷ p50 ratio = 3.5 | ◷ ✗ not reproduced |"
    )
    compare_cell(a, b)


def test_a_failing_chapter_is_a_clear_failure(book_root):
    broken = resolve(book_root, ["02"])[0]
    with pytest.raises(ReferenceMismatch, match="02_broken failed at cell 3"):
        current_run(book_root, broken)


def test_sanitize_cfg_mirrors_the_ledger(tmp_path):
    import configparser

    from repbook.core.data import repo_root
    from repbook.core.ledger import LOAD_DEPENDENT, LOAD_MARK

    cfg = configparser.ConfigParser()
    cfg.read(repo_root() / "tests" / "sanitize.cfg", encoding="utf-8")
    assert cfg["load-dependent"]["regex"] == LOAD_DEPENDENT.pattern.replace("\n", "\\n")
    assert cfg["load-dependent"]["replace"] == LOAD_MARK
