"""Estimating scaling laws (Choshen, Zhang & Andreas, ICML 2025, arXiv 2410.11840).

- `synthetic`: Chinchilla's law L(N, D) = E + A/N^α + B/D^β, its log-space Huber fit, and the
  teacher–student families of the chapter's controlled demonstration;
- `real`: the paper's protocols (ARE over the target's last 30 %, the 10¹⁰-token cut, windows of
  four sizes, one model plus borrowed parameters) on the curves it collected (data/18_scaling_laws).

Everything of `synthetic` is re-exported here, so `scaling_laws.fit_scaling_law` keeps working.
"""

from . import real as real
from .synthetic import *  # noqa: F403
from .synthetic import (  # noqa: F401  (names the star import skips)
    _check_points,
    _protocol_are,
)
