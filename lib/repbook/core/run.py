"""Run set-up for a chapter: validate parameters, seed every generator, pick the device, report."""

from __future__ import annotations

import os
import platform
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

from .. import layout
from .params import SCALES, ParameterError, validate_parameters

QUICK_THREADS = 2
"""Thread count at quick scale: the reference machine has 2 cores, and float reductions can depend
on the thread count, so quick runs use 2 (unless `layout.THREADS_ENV` says otherwise: one of the
numerical environments `repbook numerics` compares)."""
THREADS_ENV = layout.THREADS_ENV


def quick_threads() -> int:
    """The thread count of a quick run: QUICK_THREADS, or `layout.THREADS_ENV` when set."""
    text = os.environ.get(THREADS_ENV, "").strip()
    if not text:
        return QUICK_THREADS
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"${THREADS_ENV} must be a whole number ≥ 1, got {text!r}")
    return int(text)


@dataclass(frozen=True)
class RunConfig:
    """The effective configuration of one chapter run.

    `sizes` holds this scale's entry of the chapter's per-scale table; `rng` is the chapter's numpy
    generator, seeded from `seed`. Use `child_rng(k)` for independent streams and `torch_generator(k)`
    for torch.
    """

    chapter: str
    scale: str
    seed: int
    device: str  # "cpu" or "cuda": what torch code should use
    sizes: Mapping[str, Any]
    rng: np.random.Generator = field(repr=False, compare=False)
    started: float = field(repr=False, compare=False, default_factory=time.perf_counter)
    device_name: str = (
        ""  # for the record, e.g. "cuda: NVIDIA H200" or "cpu: x86_64, 2 cores"
    )
    ledger: Any = field(default=None, repr=False, compare=False)
    """The chapter's claims ledger (`repbook.core.ledger.Ledger`), made by `setup`."""

    def __getitem__(self, key: str) -> Any:
        try:
            return self.sizes[key]
        except KeyError:
            raise KeyError(
                f"size {key!r} is not in this chapter's table for scale "
                f"{self.scale!r}; it has: {', '.join(self.sizes)}"
            ) from None

    def child_rng(self, k: int) -> np.random.Generator:
        """An independent numpy generator for stream `k` (same seed and k → same stream)."""
        return np.random.default_rng([self.seed, int(k)])

    def torch_generator(self, k: int = 0):
        import torch

        return torch.Generator().manual_seed(self.seed * 1_000_003 + int(k))

    def elapsed(self) -> float:
        """Seconds since set-up."""
        return time.perf_counter() - self.started

    def time_line(self) -> str:
        """The chapter's run time so far, with its quick-scale budget (load-dependent: print it
        in a cell the references do not compare)."""
        text = f"chapter run time: {self.elapsed():.1f} s at scale={self.scale!r} on {self.device}"
        if self.scale == "quick":
            from .budgets import budget_of
            from .data import repo_root

            b = budget_of(repo_root(), self.chapter)
            text += f" (quick-scale budget {b.seconds:.0f} s on 2 CPU cores: {b.why})"
        return text


def _seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % 2**32)
    import torch

    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)


def _make_torch_deterministic(scale: str) -> tuple[str, int]:
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    import torch

    # Strict: an operation without a deterministic implementation raises instead of warning. A
    # chapter that needs one says so and relaxes it for that operation only.
    torch.use_deterministic_algorithms(True)
    torch.backends.cudnn.benchmark = False
    if scale == "quick":
        threads = quick_threads()
        torch.set_num_threads(threads)
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=threads)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    return device, torch.get_num_threads()


def chapter_name(explicit: str | None = None) -> str:
    """The running chapter's stem: as given, else as the runner says (`layout.CHAPTER_ENV`), else the
    notebook's file name when Jupyter tells it ($JPY_SESSION_NAME), else "interactive"."""
    if explicit:
        return explicit
    if layout.chapter_from_environment():
        return layout.chapter_from_environment()
    session = os.environ.get("JPY_SESSION_NAME", "")
    if session:
        stem = os.path.basename(session).split(".")[0]
        if stem:
            return stem
    return "interactive"


def setup(
    *,
    scale: str,
    seed: int,
    sizes: Mapping[str, Mapping[str, Any]],
    regime: str = "",
    colors: Mapping[str, str] | None = None,
    style: bool = True,
    quiet: bool = False,
    chapter: str | None = None,
) -> RunConfig:
    """Validate the chapter's parameters, seed numpy/random/torch, make torch deterministic,
    apply the house style and open the chapter's claims ledger (`run.ledger`).

    `sizes` maps every scale in SCALES to that scale's sizes. Fails at once, naming the parameter,
    when `scale` or `seed` is wrong. `regime` says what the chapter's checks run on (data, model,
    scale; a claim may say otherwise); `colors` gives named methods a role's colour, e.g.
    {"MC plug-in": "ours", "SELE": "baseline"}. Prints the effective configuration unless
    `quiet`. The chapter's name comes from the runner (see `chapter_name`); pass `chapter` only
    in tests.
    """
    chapter = chapter_name(chapter)
    validate_parameters({"scale": scale, "seed": seed}, {"scale": "quick", "seed": 0})
    missing = [s for s in SCALES if s not in sizes]
    if missing:
        raise ParameterError(
            f"the size table of chapter {chapter!r} lacks scale(s) {missing}; "
            f"it must have an entry for each of {SCALES}"
        )
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    _seed_everything(seed)
    device, threads = _make_torch_deterministic(scale)
    import torch

    name = (
        f"cuda: {torch.cuda.get_device_name(0)}"
        if device == "cuda"
        else f"cpu: {platform.machine()}, {os.cpu_count()} cores"
    )
    cfg = RunConfig(
        chapter=chapter,
        scale=scale,
        seed=seed,
        device=device,
        sizes=MappingProxyType(dict(sizes[scale])),
        device_name=name,
        rng=np.random.default_rng(seed),
    )
    from .ledger import Ledger

    object.__setattr__(cfg, "ledger", Ledger.for_run(cfg, regime=regime))
    if style:
        from .plotting import register_colors, use_style

        use_style()
        if colors:
            register_colors(dict(colors))
    if not quiet:
        table = ", ".join(f"{k}={v}" for k, v in cfg.sizes.items())
        print(
            f"chapter {chapter} · scale={scale} · seed={seed} · device={name} "
            f"(torch {torch.__version__}, {threads} threads, Python {platform.python_version()})"
        )
        print(f"sizes: {table}")
    return cfg
