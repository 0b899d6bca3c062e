"""The Dask executor on a real LocalCluster with 2 worker processes, including workers that die."""

import json
import textwrap

import dask
import distributed
import pytest

from minibook import HEADER
from repbook import layout
from repbook.runner.chapters import resolve
from repbook.runner.execute import cached_record, run_dir
from repbook.runner.executors import DaskExecutor, executor_for
from repbook.runner.jobs import Job


def killer(marker, always: bool) -> str:
    """A chapter that SIGKILLs its Dask worker (the kernel's parent) — once, or every time."""
    cond = "True" if always else f"not pathlib.Path({str(marker)!r}).exists()"
    return HEADER + textwrap.dedent(f"""\
        # %% tags=["parameters"]
        scale = "quick"
        seed = 0

        # %%
        import os, pathlib, signal
        if {cond}:
            pathlib.Path({str(marker)!r}).write_text("killed once")
            os.kill(os.getppid(), signal.SIGKILL)
        print("survived")
        """)


@pytest.fixture(scope="module")
def client():
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        )
        c = distributed.Client(cluster)
        yield c
        c.close()
        cluster.close()


def test_results_come_back_where_the_local_executor_puts_them(book_root, client):
    jobs = [
        Job(
            c,
            {"scale": "quick", "seed": 0, "width": 3}
            if c.stem == "01_tiny"
            else {"scale": "quick", "seed": 0},
            "quick",
        )
        for c in resolve(book_root, [])
    ]
    records = {r.chapter: r for r in DaskExecutor(client=client).map(book_root, jobs)}
    assert records["01_tiny"].status == "ok" and records["02_broken"].status == "failed"
    assert records["02_broken"].error["ename"] == "RuntimeError"
    tiny = resolve(book_root, ["01"])[0]
    folder = run_dir(book_root, tiny)
    assert set(layout.RUN_FILES) <= {p.name for p in folder.iterdir()}
    assert (
        json.loads(layout.ledger_file(folder).read_text())["counts"]["reproduced"] == 1
    )
    assert cached_record(
        book_root, tiny, jobs[0].params, "quick"
    )  # the cache sees the Dask run


def test_a_worker_that_dies_once_is_retried(book_root, client, tmp_path):
    (book_root / "notebooks" / "05_killer.py").write_text(
        killer(tmp_path / "once", always=False)
    )
    job = Job(resolve(book_root, ["05"])[0], {"scale": "quick", "seed": 0})
    (rec,) = DaskExecutor(client=client).map(book_root, [job])
    assert (tmp_path / "once").exists(), "the worker was never killed"
    assert rec.status == "ok"
    nb = json.loads(layout.notebook_file(run_dir(book_root, job.chapter)).read_text())
    assert "survived" in json.dumps(nb)


def test_a_chapter_that_keeps_killing_workers_is_reported_failed(
    book_root, client, tmp_path
):
    (book_root / "notebooks" / "06_killer.py").write_text(
        killer(tmp_path / "always", always=True)
    )
    job = Job(resolve(book_root, ["06"])[0], {"scale": "quick", "seed": 0})
    (rec,) = DaskExecutor(client=client).map(book_root, [job])
    assert rec.status == "failed" and rec.error["ename"] == "KilledWorker"
    assert "Dask task failed" in rec.error["evalue"]


def test_executor_choice():
    assert executor_for("dask", 2, "tcp://127.0.0.1:1").scheduler == "tcp://127.0.0.1:1"
    with pytest.raises(ValueError, match="only used with --executor dask"):
        executor_for("local", 2, "tcp://127.0.0.1:1")
    with pytest.raises(ValueError, match="unknown executor"):
        executor_for("ray", 2)
