"""Real papermill runs of the miniature book (a kernel per chapter)."""

import json

from repbook import layout
from repbook.runner.chapters import resolve
from repbook.runner.execute import (
    cached_record,
    describe_failure,
    execute,
    run_dir,
    run_tag,
)
from repbook.runner.executors import LocalExecutor
from repbook.runner.jobs import Job

PARAMS = {"scale": "quick", "seed": 0, "width": 3}


def test_run_tag():
    d = {"scale": "quick", "seed": 0, "width": 3}
    assert run_tag(dict(d), d) == "quick"
    assert run_tag({**d, "scale": "full"}, d) == "full-seed0"
    assert run_tag({**d, "seed": 2, "width": 5}, d).startswith("quick-seed2-")


def test_execute_ok_then_cached(book_root):
    ch = resolve(book_root, ["01"])[0]
    rec = execute(book_root, ch, PARAMS, "quick")
    assert rec.status == "ok", rec.error
    folder = run_dir(book_root, ch)
    ledger = json.loads(layout.ledger_file(folder).read_text())
    assert ledger["counts"]["reproduced"] == 1 and rec.summary == "1/1 reproduced"
    assert (
        ledger["chapter"] == "01_tiny"
    )  # the runner named it; the chapter did not say
    nb = json.loads(layout.notebook_file(folder).read_text())
    assert nb["metadata"]["papermill"]["parameters"] == PARAMS
    assert cached_record(book_root, ch, PARAMS, "quick").cached
    assert cached_record(book_root, ch, {**PARAMS, "width": 4}, "quick") is None
    (book_root / "lib" / "repbook" / "papers" / "aurc.py").write_text("B = 5\n")
    assert cached_record(book_root, ch, PARAMS, "quick") is None


def test_failures_are_reported_with_the_cell_and_never_raised(book_root):
    jobs = [
        Job(c, {"scale": "quick", "seed": 0} if c.stem == "02_broken" else PARAMS)
        for c in resolve(book_root, [])
    ]
    records = {r.chapter: r for r in LocalExecutor(2).map(book_root, jobs)}
    assert records["01_tiny"].status == "ok"
    bad = records["02_broken"]
    assert bad.status == "failed" and bad.error["ename"] == "RuntimeError"
    assert bad.error["cell"] == 3 and "boom in cell" in describe_failure(bad)
    assert (
        cached_record(
            book_root,
            resolve(book_root, ["02"])[0],
            {"scale": "quick", "seed": 0},
            "quick",
        )
        is None
    )


def test_force_re_executes_a_cached_chapter(book_root, capsys):
    from repbook.runner.jobs import Job, run_jobs

    job = Job(resolve(book_root, ["01"])[0], PARAMS, "quick")
    _, executed = run_jobs(book_root, [job], workers=1, force=False)
    assert executed == {"01_tiny"}
    records, executed = run_jobs(book_root, [job], workers=1, force=False)
    assert executed == set() and records[0].cached
    records, executed = run_jobs(book_root, [job], workers=1, force=True)
    assert (
        executed == {"01_tiny"} and not records[0].cached and records[0].status == "ok"
    )
    assert "cached    01_tiny" in capsys.readouterr().out
