"""Scoreboard, environment page and full-scale records, on the miniature book."""

import json

import pytest

from repbook import layout
from repbook.runner.pages import (
    environment_markdown,
    scoreboard_markdown,
    stage_chapters,
)
from repbook.runner.records import record_full_run
from repbook.runner.chapters import resolve
from repbook.runner.execute import RunRecord, execute, load_ledger, run_dir

QUICK = {"scale": "quick", "seed": 0, "width": 3}


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    from conftest import make_book

    book_root = make_book(tmp_path_factory.mktemp("book"))
    tiny = resolve(book_root, ["01"])[0]
    assert execute(book_root, tiny, QUICK, "quick").status == "ok"
    assert (
        execute(book_root, tiny, {**QUICK, "scale": "full"}, "full-seed0").status
        == "ok"
    )
    return book_root, tiny


def test_full_run_is_recorded_with_provenance(ran):
    root, tiny = ran
    path = record_full_run(root, tiny, "full-seed0")
    assert path == layout.full_run_path(root, "01_tiny")
    rec = json.loads(path.read_text())
    assert rec["params"]["scale"] == "full" and rec["counts"]["reproduced"] == 1
    for key in (
        "finished",
        "device",
        "commit",
        "machine",
        "python",
        "torch",
        "seconds",
    ):
        assert rec[key], key
    assert rec["device"].startswith(("cpu: ", "cuda: "))
    with pytest.raises(ValueError, match="not a full-scale one"):
        record_full_run(root, tiny, "quick")
    with pytest.raises(FileNotFoundError, match="no successful run"):
        record_full_run(root, tiny, "full-seed7")


def test_scoreboard_shows_quick_and_full_side_by_side_and_flags_slow_chapters(ran):
    root, tiny = ran
    chapters = resolve(root, [])
    text = scoreboard_markdown(root, chapters)
    assert "| [01_tiny](chapters/01_tiny.ipynb) | 1 / 1 |" in text and "| — |" in text
    assert "not run" in text  # 02_broken never ran
    record_full_run(root, tiny, "full-seed0")
    rec = RunRecord.load(run_dir(root, tiny))
    rec.seconds = 120.0
    rec.save(run_dir(root, tiny))
    text = scoreboard_markdown(root, chapters)
    assert "⚠ over 90 s" in text
    assert (
        "1 / 1 (" in text.split("\n## 01_tiny")[0].split("| [01_tiny]")[1]
    )  # full tally
    assert (
        "| 1 | tiny works | width ≥ 1 | width = 3 | +2 | ✓ reproduced | not measured | width = 3 | "
        "✓ reproduced |"
    ) in text


def test_environment_page_lists_runs_and_full_provenance(ran):
    root, tiny = ran
    chapters = resolve(root, [])
    (layout.full_run_path(root, "01_tiny")).unlink(missing_ok=True)
    text = environment_markdown(root, chapters, {"01_tiny"})
    assert "no full-scale run recorded yet" in text and "| 01_tiny | ok |" in text
    assert "executed |" in text
    record_full_run(root, tiny, "full-seed0")
    text = environment_markdown(root, chapters, set())
    assert (
        "reused from cache" in text
        and "| 01_tiny | 20" in text.split("## Full-scale runs")[1]
    )


def test_staging_hides_the_injected_parameters(ran):
    root, tiny = ran
    (root / "book").mkdir(exist_ok=True)
    stage_chapters(root, [tiny])
    nb = json.loads((layout.staged_chapter(root, "01_tiny")).read_text())
    injected = [
        c for c in nb["cells"] if "injected-parameters" in c["metadata"].get("tags", [])
    ]
    assert injected and all("remove-cell" in c["metadata"]["tags"] for c in injected)
    assert all("papermill" not in c["metadata"] for c in nb["cells"])


def test_a_two_seed_stability_record_reaches_the_scoreboard(ran):
    from repbook.core.ledger import read_stability
    from repbook.runner.records import record_stability

    root, tiny = ran
    recs = [
        execute(
            root, tiny, {**QUICK, "seed": s}, "quick" if s == 0 else f"quick-seed{s}"
        )
        for s in (0, 1)
    ]
    path = record_stability(root, tiny, recs)
    assert path == layout.stability_path(root, "01_tiny")
    rec = read_stability(path)
    assert rec.seeds == [0, 1] and rec.claim("1").cell() == "✓ 2/2 (value 3)"
    text = scoreboard_markdown(root, resolve(root, []))
    assert "2 seeds, all stable" in text and "| ✓ 2/2 (value 3) |" in text
    env = environment_markdown(root, resolve(root, []), set())
    assert "| 01_tiny | 0–1 (2) |" in env and "| 02_broken | not measured |" in env


def test_a_failed_seed_is_recorded_never_dropped(ran):
    from repbook.core.ledger import read_stability
    from repbook.runner.records import record_stability

    root, tiny = ran
    ok = execute(root, tiny, QUICK, "quick")
    bad = RunRecord(
        "01_tiny",
        "quick-seed1",
        {**QUICK, "seed": 1},
        key="",
        status="failed",
        error={"cell": 2, "ename": "RuntimeError"},
    )
    rec = read_stability(record_stability(root, tiny, [ok, bad]))
    assert rec.claim("1").verdicts == {"0": "reproduced", "1": "failed"}
    assert rec.claim("1").unstable and rec.runs[1]["status"] == "failed"
    assert "1/2 failed" in scoreboard_markdown(root, resolve(root, []))


def test_a_stale_stability_record_is_flagged(ran):
    from repbook.runner.records import record_stability

    root, tiny = ran
    record_stability(root, tiny, [execute(root, tiny, QUICK, "quick")])
    path = layout.stability_path(root, "01_tiny")
    data = json.loads(path.read_text())
    data["claims"][0]["statement"] = "an older wording"
    path.write_text(json.dumps(data))
    text = scoreboard_markdown(root, resolve(root, []))
    assert "stale record" in text and "✓ 1/1" not in text


def test_the_claims_data_set_and_figure_hold_exactly_the_ledgers_claims(ran):
    import csv

    root, tiny = ran
    text = scoreboard_markdown(root, resolve(root, []), assets=True)
    out = root / layout.GENERATED
    rows = json.loads((out / "claims.json").read_text())
    ledger = load_ledger(run_dir(root, tiny))
    assert [(r["chapter"], r["claim"], r["verdict"]) for r in rows] == [
        ("01_tiny", c.id, c.verdict) for c in ledger.claims
    ]
    assert rows[0]["measured"] == {"width": 3} and rows[0]["evidence"] == "simulation"
    with open(out / "claims.csv", newline="") as f:
        csv_rows = list(csv.DictReader(f))
    assert [r["claim"] for r in csv_rows] == [r["claim"] for r in rows]
    assert json.loads(csv_rows[0]["measured"]) == {"width": 3}
    assert (out / "margins.png").stat().st_size > 1000
    assert (
        "](generated/margins.png)" in text
        and "{download}`claims.csv <generated/claims.csv>`" in text
    )
