"""Jobs: what the runner executes, and the one way every command gets them executed.

A job is one chapter run: the chapter, its validated parameters, the tag of its run folder and the
environment variables it runs under (a numerical environment of `repbook numerics`; empty: the
caller's). `build_jobs` makes them from the command line's parameters without starting a kernel;
`run_jobs` executes what is out of date on an executor and reports progress. The reference tests
reach a chapter's run through `current_run`, the same cache and the same `Job.execute`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .. import layout
from ..core.params import ParameterError, validate_parameters
from .chapters import Chapter, parameters_of
from .execute import RunRecord, cached_record, describe_failure, execute, run_tag


@dataclass(frozen=True)
class Job:
    """One chapter run (see the module's docstring)."""

    chapter: Chapter
    params: dict = field(hash=False)
    tag: str = layout.DEFAULT_TAG
    env: tuple = ()  # ((name, value), ...)

    @classmethod
    def for_chapter(
        cls, chapter: Chapter, overrides: dict | None = None, env: tuple = ()
    ) -> "Job":
        """The job of `chapter` with `overrides` checked against its parameters cell (no kernel
        starts: a bad parameter fails here, naming the chapter)."""
        defaults = parameters_of(chapter.path)
        try:
            params = validate_parameters(dict(overrides or {}), defaults)
        except ParameterError as exc:
            raise ParameterError(f"{chapter.stem}: {exc}") from None
        return cls(chapter, params, run_tag(params, defaults), tuple(env))

    def with_environment(self, tag: str, env: dict) -> "Job":
        """The same run under other environment variables, into the run folder `tag`."""
        return Job(self.chapter, self.params, tag, tuple(sorted(env.items())))

    def folder(self, root: Path) -> Path:
        return layout.run_dir(root, self.chapter.stem, self.tag)

    def cached(self, root: Path) -> RunRecord | None:
        """The record of this job's previous run when nothing it depends on changed since."""
        return cached_record(root, self.chapter, self.params, self.tag, dict(self.env))

    def execute(self, root: Path, folder: Path | None = None) -> RunRecord:
        """Run it now, in this process's kernel manager (never raises for a failing cell)."""
        return execute(
            root, self.chapter, self.params, self.tag, folder=folder, env=dict(self.env)
        )


def build_jobs(chapters: list[Chapter], overrides: dict) -> list[Job]:
    """One job per chapter, its parameters validated against its parameters cell."""
    return [Job.for_chapter(ch, overrides) for ch in chapters]


def run_jobs(
    root: Path,
    jobs: list[Job],
    *,
    workers: int | None = None,
    force: bool = False,
    executor: str = "local",
    scheduler: str | None = None,
    report: Callable[[str], None] = lambda line: print(line, flush=True),
) -> tuple[list[RunRecord], set[str]]:
    """Run what is out of date (everything with `force`) and report progress; return (records,
    stems executed now). A failing chapter does not stop the others."""
    from .executors import executor_for

    records, todo = [], []
    for job in jobs:
        rec = None if force else job.cached(root)
        if rec:
            records.append(rec)
            report(
                f"  cached    {rec.chapter:<28} {rec.summary} (ran {rec.seconds:.1f} s)"
            )
        else:
            todo.append(job)
    ex = executor_for(executor, workers, scheduler)
    if todo:
        where = (
            f"the Dask cluster at {scheduler}"
            if scheduler
            else f"{min(ex.workers, len(todo))} {executor} worker(s)"
        )
        report(f"executing {len(todo)} chapter(s) on {where}")
    done = 0
    for rec in ex.map(
        root, todo, on_start=lambda j: report(f"  started   {j.chapter.stem} [{j.tag}]")
    ):
        done += 1
        state = "ok" if rec.status == "ok" else "FAILED"
        detail = rec.summary if rec.status == "ok" else describe_failure(rec)
        report(
            f"  [{done}/{len(todo)}] {state:<6} {rec.chapter:<24} {rec.seconds:6.1f} s  "
            f"{detail}"
        )
        records.append(rec)
    return records, {j.chapter.stem for j in todo}


def current_run(root: Path, chapter: Chapter) -> tuple[RunRecord, Path]:
    """The chapter's default quick run as the runner left it for the book: (its record, its
    folder). When it is missing or out of date it is executed here, once, as the runner would."""
    job = Job.for_chapter(chapter)
    rec = job.cached(root) or job.execute(root)
    return rec, job.folder(root)
