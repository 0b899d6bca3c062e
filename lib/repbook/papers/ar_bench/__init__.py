"""AR-Bench (Zhou et al., ICML 2025, arXiv 2506.08295): active reasoning under incomplete information.

Submodules: `loaders` (the benchmark's JSON schemas), `gn` (guessing-numbers judge and agents),
`dc` (detective-case simulator), `sp` (situation-puzzle simulator), `metrics`, `protocols` (the
chapter's experiment protocols), `llm` (an OpenAI-compatible chat client and an LLM agent).
All pure: no printing, plotting or file writing.
"""

from . import dc, gn, llm, loaders, metrics, protocols, sp
from .loaders import ArBenchFormatError, load_arbench

__all__ = [
    "dc",
    "gn",
    "llm",
    "loaders",
    "metrics",
    "protocols",
    "sp",
    "ArBenchFormatError",
    "load_arbench",
]
