"""Executors run chapter jobs: a local process pool (the default) or a Dask distributed cluster."""

from __future__ import annotations

import multiprocessing
import os
import tempfile
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from .execute import RunRecord
from .jobs import Job


EXECUTORS = ("local", "dask")


def _work(root: str, job: Job) -> RunRecord:
    return job.execute(Path(root))


def _work_remote(root: str, job: Job) -> tuple[RunRecord, dict[str, bytes]]:
    """Run a chapter on a worker into a scratch folder and send its files back to the client."""
    with tempfile.TemporaryDirectory(prefix="repbook-run-") as tmp:
        rec = job.execute(Path(root), folder=Path(tmp))
        files = {p.name: p.read_bytes() for p in Path(tmp).iterdir() if p.is_file()}
    return rec, files


def _lost(job: Job, exc: BaseException, where: str) -> RunRecord:
    return RunRecord(
        job.chapter.stem,
        job.tag,
        job.params,
        key="",
        status="failed",
        error={
            "cell": None,
            "ename": type(exc).__name__,
            "evalue": f"{where}: {exc}"[:500],
        },
    )


def default_workers() -> int:
    """Chapters run with QUICK_THREADS threads each, so run cores // QUICK_THREADS at once: more
    would oversubscribe the cores (two 2-thread chapters on 2 cores ran 5–7× slower, not 2×)."""
    from ..core.run import QUICK_THREADS

    return max(1, (os.cpu_count() or 1) // QUICK_THREADS)


class LocalExecutor:
    """Runs each chapter in a fresh worker process (spawned: no state leaks between chapters)."""

    def __init__(self, workers: int | None = None):
        self.workers = max(1, workers or default_workers())

    def map(
        self, root: Path, jobs: list[Job], on_start: Callable[[Job], None] | None = None
    ) -> Iterator[RunRecord]:
        if not jobs:
            return
        if on_start:
            for job in jobs[: self.workers]:
                on_start(job)
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(min(self.workers, len(jobs)), mp_context=ctx) as pool:
            futures = {
                pool.submit(_work, str(root), job): i for i, job in enumerate(jobs)
            }
            started = min(self.workers, len(jobs))
            for fut in as_completed(futures):
                job = jobs[futures[fut]]
                try:
                    rec = fut.result()
                except Exception as exc:  # the worker process itself died
                    rec = _lost(job, exc, "worker process failed")
                yield rec  # reported before the next chapter is announced as started
                if on_start and started < len(jobs):
                    on_start(jobs[started])
                    started += 1


class DaskExecutor:
    """Runs each chapter as a task on a `dask.distributed` cluster.

    `scheduler` is the address of a running scheduler (``tcp://host:port``); without one, a
    LocalCluster of `workers` single-threaded worker processes is started for the run. Workers need
    the book's environment and a checkout at the same path (a shared file system or the same image);
    the executed notebook, ledger and run record come back to the client and land in
    `_build/runs/` exactly where the local executor puts them. A task whose worker dies is
    rescheduled by Dask; if it keeps killing workers (`distributed.scheduler.allowed-failures`), the
    chapter is reported failed — never lost, never passed.
    """

    def __init__(
        self, scheduler: str | None = None, workers: int | None = None, client=None
    ):
        self.scheduler, self.client = scheduler, client
        self.workers = max(1, workers or default_workers())

    def _connect(self):
        from distributed import Client, LocalCluster

        if self.client is not None:
            return self.client, None
        if self.scheduler:
            return Client(self.scheduler, timeout="30s"), None
        cluster = LocalCluster(
            n_workers=self.workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
        )
        return Client(cluster), cluster

    def map(
        self, root: Path, jobs: list[Job], on_start: Callable[[Job], None] | None = None
    ) -> Iterator[RunRecord]:
        if not jobs:
            return
        from distributed import as_completed as dask_completed

        client, cluster = self._connect()
        try:
            futures = {}
            for job in jobs:
                key = f"repbook-{job.chapter.stem}-{job.tag}-{uuid.uuid4().hex[:8]}"
                futures[
                    client.submit(_work_remote, str(root), job, key=key, pure=False)
                ] = job
                if on_start:
                    on_start(job)
            for fut in dask_completed(list(futures)):
                job = futures[fut]
                try:
                    rec, files = fut.result()
                except Exception as exc:  # KilledWorker, a lost connection, ...
                    yield _lost(job, exc, "the Dask task failed")
                    continue
                folder = job.folder(root)
                folder.mkdir(parents=True, exist_ok=True)
                for stale in folder.glob("*"):
                    if stale.is_file():
                        stale.unlink()
                for name, data in files.items():
                    (folder / name).write_bytes(data)
                yield rec
        finally:
            if self.client is None:
                client.close()
            if cluster is not None:
                cluster.close()


def executor_for(name: str, workers: int | None, scheduler: str | None = None):
    if name == "local":
        if scheduler:
            raise ValueError("--scheduler is only used with --executor dask")
        return LocalExecutor(workers)
    if name == "dask":
        return DaskExecutor(scheduler, workers)
    raise ValueError(f"unknown executor {name!r}; choose one of {', '.join(EXECUTORS)}")
