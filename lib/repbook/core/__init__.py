"""What every chapter shares: run set-up, claims ledger, plotting style and data access, and
what the paper modules share: argument checks (`checks`) and small seeded networks (`nets`).

The names are imported lazily so that light users (the runner's parameter check) do not pay for
torch or matplotlib.
"""

from importlib import import_module

_EXPORTS = {
    "SCALES": "params",
    "validate_parameters": "params",
    "ParameterError": "params",
    "setup": "run",
    "RunConfig": "run",
    "Ledger": "ledger",
    "Claim": "ledger",
    "VERDICTS": "ledger",
    "fmt": "ledger",
    "SOURCES": "ledger",
    "at_least": "criteria",
    "at_most": "criteria",
    "within": "criteria",
    "same_order": "criteria",
    "same_sign": "criteria",
    "monotone": "criteria",
    "all_of": "criteria",
    "any_of": "criteria",
    "each_of": "criteria",
    "custom": "criteria",
    "paired_gain": "criteria",
    "CriterionError": "criteria",
    "tol": "tolerance",
    "register_colors": "plotting",
    "use_style": "plotting",
    "color_for": "plotting",
    "reference_line": "plotting",
    "log_ticks": "plotting",
    "slope_guide": "plotting",
    "seed_band": "plotting",
    "value_ticks": "plotting",
    "grouped_bars": "plotting",
    "gain_points": "plotting",
    "mesh_view": "plotting",
    "reading_lines": "ledger",
    "full_run_lines": "ledger",
    "unstable_sentence": "ledger",
    "fmt_margin": "ledger",
    "gain_line": "stats",
    "paired_summary": "stats",
    "t_quantile": "stats",
    "checks": None,
    "nets": None,
    "repo_root": "data",
    "data_file": "data",
    "load_sklearn": "data",
    "load_mnist5k": "data",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name in _EXPORTS:
        if _EXPORTS[name] is None:  # a submodule
            return import_module(f"{__name__}.{name}")
        return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
