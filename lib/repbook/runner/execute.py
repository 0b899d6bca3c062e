"""Executing one chapter: jupytext → papermill, with its parameters, into its own run folder."""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from .. import layout
from ..layout import DEFAULT_TAG
from .cache import chapter_key
from .chapters import Chapter
from .netguard import ipython_dir


def run_tag(params: dict, defaults: dict) -> str:
    """Folder name of a run: `quick` for the defaults, else the scale, seed and changed parameters."""
    if params == defaults:
        return DEFAULT_TAG
    extra = sorted(
        k for k in params if k not in ("scale", "seed") and params[k] != defaults.get(k)
    )
    tag = f"{params.get('scale', 'quick')}-seed{params.get('seed', 0)}"
    if extra:
        import hashlib

        tag += (
            "-"
            + hashlib.sha256(
                json.dumps({k: params[k] for k in extra}, sort_keys=True).encode()
            ).hexdigest()[:8]
        )
    return tag


def run_dir(root: Path, chapter: Chapter, tag: str = DEFAULT_TAG) -> Path:
    return layout.run_dir(root, chapter.stem, tag)


@dataclass
class RunRecord:
    chapter: str
    tag: str
    params: dict
    key: str
    status: str = "pending"  # ok | failed | cached
    seconds: float = 0.0
    finished: str = ""
    error: dict = field(default_factory=dict)
    summary: str = ""
    device: str = ""
    cached: bool = False

    def save(self, folder: Path) -> None:
        layout.run_file(folder).write_text(json.dumps(asdict(self), indent=1) + "\n")

    @classmethod
    def load(cls, folder: Path) -> "RunRecord | None":
        f = layout.run_file(folder)
        if not f.is_file():
            return None
        try:
            return cls(**json.loads(f.read_text()))
        except (TypeError, ValueError):
            return None


def cached_record(
    root: Path, chapter: Chapter, params: dict, tag: str, env: dict | None = None
) -> RunRecord | None:
    """The previous run's record if it succeeded with exactly this key and its outputs exist."""
    folder = run_dir(root, chapter, tag)
    rec = RunRecord.load(folder)
    if (
        rec
        and rec.status == "ok"
        and rec.key == chapter_key(root, chapter, params, env)
        and layout.notebook_file(folder).is_file()
    ):
        rec.cached = True
        return rec
    return None


def ledger_path(folder: Path) -> Path:
    return layout.ledger_file(folder)


def load_ledger(folder: Path):
    """The run's claims ledger (core.ledger reads it), or None if the chapter wrote none."""
    from ..core.ledger import Ledger

    f = ledger_path(folder)
    return Ledger.load(f) if f.is_file() else None


def _ledger_summary(folder: Path) -> tuple[str, str]:
    led = load_ledger(folder)
    if led is None:
        return "no claims ledger written", ""
    return led.short_summary(), led.device or ""


def execute(
    root: Path,
    chapter: Chapter,
    params: dict,
    tag: str,
    folder: Path | None = None,
    env: dict | None = None,
) -> RunRecord:
    """Run one chapter with papermill into `folder` (default: its run folder under _build/runs),
    with the environment variables `env` set for its kernel (a numerical environment).

    Never raises for a failing cell or a dead kernel: the record says what failed and where.
    """
    import jupytext
    import papermill as pm

    folder = folder or run_dir(root, chapter, tag)
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*"):
        if stale.is_file():
            stale.unlink()
    rec = RunRecord(chapter.stem, tag, params, chapter_key(root, chapter, params, env))
    saved_env = dict(os.environ)
    os.environ.update(env or {})
    # the kernel inherits this environment: where its ledger goes, and which chapter it is
    os.environ.update(layout.kernel_environment(folder, chapter.stem))
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    os.environ["IPYTHONDIR"] = ipython_dir()  # installs the network guard in the kernel
    os.environ.setdefault(
        "OMP_WAIT_POLICY", "PASSIVE"
    )  # idle OpenMP threads sleep, not spin
    log = os.environ.get(layout.KERNEL_LOG_ENV)
    if log:  # tests count kernel starts
        with open(log, "a") as f:
            f.write(f"{chapter.stem} {tag}\n")
    t0 = time.perf_counter()
    try:
        nb = jupytext.read(chapter.path)
        pm.execute_notebook(
            nb,
            str(layout.notebook_file(folder)),
            parameters=params,
            kernel_name="python3",
            cwd=str(chapter.path.parent),
            progress_bar=False,
            log_output=False,
        )
        rec.status = "ok"
    except pm.PapermillExecutionError as exc:
        first = (exc.source or "").strip().splitlines()[:1]
        rec.status = "failed"
        rec.error = {
            "cell": exc.cell_index,
            "exec_count": exc.exec_count,
            "ename": exc.ename,
            "evalue": str(exc.evalue)[:500],
            "source": first[0] if first else "",
        }
    except Exception as exc:  # kernel died, bad notebook, ...: reported, never raised
        rec.status = "failed"
        rec.error = {
            "cell": None,
            "ename": type(exc).__name__,
            "evalue": str(exc)[:500],
        }
    finally:
        os.environ.clear()
        os.environ.update(saved_env)
    rec.seconds = round(time.perf_counter() - t0, 2)
    rec.finished = datetime.now(timezone.utc).isoformat(timespec="seconds")
    rec.summary, rec.device = _ledger_summary(folder)
    rec.save(folder)
    return rec


def describe_failure(rec: RunRecord) -> str:
    e = rec.error
    where = f"cell {e['cell']}" if e.get("cell") is not None else "before any cell"
    src = f" [{e['source']}]" if e.get("source") else ""
    return f"failed at {where}{src}: {e.get('ename')}: {e.get('evalue', '').splitlines()[0] if e.get('evalue') else ''}"
