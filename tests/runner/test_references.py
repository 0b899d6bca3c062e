"""References are compared claim by claim with the runner's executed chapters, which run once."""

import json
import textwrap

import pytest

from repbook import layout
from minibook import HEADER

from repbook.runner.chapters import resolve
from repbook.runner.jobs import build_jobs, run_jobs
from repbook.runner.references import (
    ReferenceMismatch,
    compare_chapter,
    current_ledger,
    current_run,
    load_reference,
    reference_ledger_path,
    reference_path,
    write_reference,
)


def kernel_starts(log):
    return log.read_text().splitlines() if log.exists() else []


def test_a_book_run_serves_the_reference_comparison(book_root, tmp_path, monkeypatch):
    log = tmp_path / "kernels.log"
    monkeypatch.setenv(layout.KERNEL_LOG_ENV, str(log))
    tiny = resolve(book_root, ["01"])[0]
    run_jobs(
        book_root, build_jobs([tiny], {}), workers=1, force=False
    )  # what `make book` does
    assert kernel_starts(log) == ["01_tiny quick"]
    path, changes = write_reference(book_root, tiny)
    assert path == reference_path(book_root, tiny) and changes == ["a new reference"]
    assert reference_ledger_path(book_root, tiny).is_file()
    ref = load_reference(book_root, tiny)
    failures, near = compare_chapter(
        ref, current_ledger(book_root, tiny)
    )  # `make test`
    assert failures == [] and near == []
    assert kernel_starts(log) == ["01_tiny quick"], "the comparison started a kernel"
    # an input changed since the book was built: the comparison runs the chapter, once
    (book_root / "lib" / "repbook" / "papers" / "aurc.py").write_text("B = 7\n")
    current_run(book_root, tiny)
    current_run(book_root, tiny)
    assert kernel_starts(log) == ["01_tiny quick"] * 2
    # rewriting the reference from an unchanged run reports no change
    assert write_reference(book_root, tiny)[1] == []


def test_a_missing_reference_ledger_says_how_to_write_it(book_root):
    tiny = resolve(book_root, ["01"])[0]
    with pytest.raises(ReferenceMismatch, match="references 01"):
        load_reference(book_root, tiny)


CLAIMS = HEADER + textwrap.dedent("""\
    # %% tags=["parameters"]
    scale = "quick"
    seed = 0

    # %%
    from repbook.core import Ledger, at_least, setup, tol
    run = setup(scale=scale, seed=seed, sizes={"quick": {}, "full": {}})
    ledger = Ledger.for_run(run)
    for i, x in enumerate([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], start=1):
        ledger.check(i, f"claim {i} holds", paper="x ≥ 1", source="paper",
                     measured={"x": x}, criterion=at_least("x", 1.0),
                     tolerance=tol(abs=0.1))

    # %% tags=["nbval-check-output"]
    ledger.show()
    """)


def _tamper(path, claim_id, **fields):
    d = json.loads(path.read_text())
    c = next(c for c in d["claims"] if c["id"] == claim_id)
    for key, value in fields.items():
        if isinstance(value, dict) and isinstance(c.get(key), dict):
            c[key].update(value)
        else:
            c[key] = value
    path.write_text(json.dumps(d, ensure_ascii=False))


def test_injected_regressions_fail_with_a_message_and_noise_passes(
    book_root, tmp_path, monkeypatch
):
    """The reference tests as `make test` runs them (pytest on tests/reference), against a
    reference with one regression injected per claim."""
    import shutil
    import subprocess
    import sys
    import xml.etree.ElementTree as ET

    from repbook.core.data import repo_root

    (book_root / "notebooks" / "03_claims.py").write_text(CLAIMS)
    chapter = resolve(book_root, ["03"])[0]
    log = tmp_path / "kernels.log"
    monkeypatch.setenv(layout.KERNEL_LOG_ENV, str(log))
    run_jobs(book_root, build_jobs([chapter], {}), workers=1, force=False)
    write_reference(book_root, chapter)
    shutil.copy(repo_root() / "tests" / "conftest.py", book_root / "tests")
    ref = reference_ledger_path(book_root, chapter)
    # 1: the reference verdict differs, but both margins lie within tolerance of 0: reported
    _tamper(ref, "1", verdict="not reproduced", margin=-0.05, measured={"x": 0.95})
    # 2: a value moved within its tolerance: passes
    _tamper(ref, "2", measured={"x": 2.05}, margin=1.05)
    # 3: a value moved beyond its tolerance
    _tamper(ref, "3", measured={"x": 3.5}, margin=2.5)
    # 4: a verdict flipped, with the values unchanged
    _tamper(ref, "4", verdict="not reproduced")
    # 5: a changed criterion
    _tamper(ref, "5", criterion={"text": "x ≥ 2", "bound": 2.0})
    d = json.loads(ref.read_text())
    extra = dict(d["claims"][0], id="7")
    d["claims"] = [c for c in d["claims"] if c["id"] != "6"] + [
        extra
    ]  # 6 added, 7 dropped
    ref.write_text(json.dumps(d, ensure_ascii=False))

    xml = tmp_path / "report.xml"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/reference/03_claims.ipynb",
         "-p", "no:cacheprovider", "-p", "no:xdist", f"--junitxml={xml}"],
        cwd=book_root, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert kernel_starts(log) == ["03_claims quick"], "the tests re-ran the chapter"
    cases = {
        tc.get("name"): " ".join(
            (f.get("message") or "") + (f.text or "") for f in tc.findall("failure")
        )
        for tc in ET.parse(xml).getroot().iter("testcase")
    }
    assert set(cases) == {"claims"} | {f"claim {i}" for i in (1, 2, 3, 4, 5, 7)}
    assert cases["claim 1"] == "" and cases["claim 2"] == ""
    assert "within tolerance of their boundary" in proc.stdout
    assert "03_claims claim 1: verdict 'reproduced'" in proc.stdout
    three = cases["claim 3"]
    for part in ("03_claims claim 3", "value 'x' = 3", "reference 3.5", "±0.1"):
        assert part in three, three
    four = cases["claim 4"]
    for part in (
        "03_claims claim 4",
        "verdict 'reproduced'",
        "reference 'not reproduced'",
    ):
        assert part in four, four
    assert "margin tolerance ±0.1" in four
    assert "criterion changed: reference 'x ≥ 2', this run 'x ≥ 1'" in cases["claim 5"]
    assert "in the reference but not in this run" in cases["claim 7"]
    for part in ("03_claims", "['6'] are in this run", "['7'] are in the reference"):
        assert part in cases["claims"], cases["claims"]


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


def test_an_unmet_gate_note_is_compared_by_its_gate_not_by_its_values():
    from repbook.core import Ledger, at_least
    from repbook.core.tolerance import compare_claims, tol
    from repbook.runner.references import comparable

    def run(gap, note=""):
        lg = Ledger("99_demo", "quick", seed=0)
        lg.check(
            "1", "A beats B", paper="better", source="paper",
            measured={"gain": 0.1, "gap": gap}, gate=at_least("gap", 0.04),
            criterion=at_least("gain", 0.0), tolerance=tol(abs=0.01), note=note,
            unpaired_because="a test",
        )  # fmt: skip
        return lg.claims[0]

    ref, moved = run(0.00233), run(0.000342)  # another machine: the gate's value moved
    assert ref.note != moved.note  # the ledger's note shows the value
    # the numbers a note quotes are masked (note_words), so even the raw notes agree
    assert not compare_claims(ref, moved).failures
    assert comparable(ref).note == "gate unmet: gap ≥ 0.04"
    assert not compare_claims(comparable(ref), comparable(moved)).failures
    far = run(
        0.5
    )  # beyond its tolerance: the value is still compared (and the gate flips)
    assert compare_claims(comparable(ref), comparable(far)).failures
    mine = comparable(run(0.00233, note="our note"))
    assert mine.note == "gate unmet: gap ≥ 0.04; our note"  # a chapter's own note stays
