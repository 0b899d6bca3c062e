"""Executors run chapter jobs. The local process pool is the default."""
from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from .chapters import Chapter
from .execute import RunRecord, execute

Job = tuple[Chapter, dict, str]  # chapter, parameters, run tag


def _work(root: str, job: Job) -> RunRecord:
    chapter, params, tag = job
    return execute(Path(root), chapter, params, tag)


class LocalExecutor:
    """Runs each chapter in a fresh worker process (spawned: no state leaks between chapters)."""

    def __init__(self, workers: int | None = None):
        self.workers = max(1, workers or os.cpu_count() or 1)

    def map(self, root: Path, jobs: list[Job],
            on_start: Callable[[Job], None] | None = None) -> Iterator[RunRecord]:
        if not jobs:
            return
        if on_start:
            for job in jobs[: self.workers]:
                on_start(job)
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(min(self.workers, len(jobs)), mp_context=ctx) as pool:
            futures = {pool.submit(_work, str(root), job): i for i, job in enumerate(jobs)}
            started = min(self.workers, len(jobs))
            for fut in as_completed(futures):
                job = jobs[futures[fut]]
                try:
                    rec = fut.result()
                except Exception as exc:  # the worker process itself died
                    chapter, params, tag = job
                    rec = RunRecord(chapter.stem, tag, params, key="", status="failed",
                                    error={"cell": None, "ename": type(exc).__name__,
                                           "evalue": f"worker process failed: {exc}"})
                if on_start and started < len(jobs):
                    on_start(jobs[started])
                    started += 1
                yield rec


def executor_for(name: str, workers: int | None) -> LocalExecutor:
    if name == "local":
        return LocalExecutor(workers)
    raise ValueError(f"unknown executor {name!r}; available: local")
