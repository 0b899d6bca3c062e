"""The claims ledger: one record per claim, its verdict decided by a typed criterion.

This package is the only owner of the ledger format. It writes and reads the JSON files (a
chapter's ledger, the committed full-scale and stability records), and it renders every claims
table: the chapter's verdict table, the scoreboard's rows and details. The runner and the book
pages call it; they know nothing of verdict names or table markup.

- `values`: measured values, as criteria read them, as the ledger stores and shows them;
- `claims`: the verdict vocabulary, `Claim` and `Ledger` (what a chapter records);
- `records`: the committed records (full runs, stability) and when they are stale;
- `tables`: the verdict table and the scoreboard;
- `reading`: the lines a chapter prints under its verdict table, generated from its records;
- `dataset`: the book's claims as data (claims.csv, claims.json) and the margin figure's points.

Names are loaded lazily, so that `repbook.core.criteria` can use `values` without a cycle.
"""

from importlib import import_module

_EXPORTS = {
    # values
    "CriterionError": "values",
    "fmt": "values",
    "fmt_margin": "values",
    "plain_values": "values",
    "show_value": "values",
    "MAX_SHOWN": "values",
    "TINY": "values",
    # claims
    "VERDICTS": "claims",
    "MARKS": "claims",
    "COMPARATIVE": "claims",
    "JUDGED": "claims",
    "ROLES": "claims",
    "ROLE_HEADINGS": "claims",
    "SOURCES": "claims",
    "EVIDENCE": "claims",
    "LOAD_MARK": "claims",
    "LOAD_DEPENDENT": "claims",
    "sanitize": "claims",
    "Claim": "claims",
    "Ledger": "claims",
    # records
    "stability_path": "records",
    "full_run_path": "records",
    "write_record": "records",
    "read_record": "records",
    "FAILED": "records",
    "ClaimStability": "records",
    "StabilityRecord": "records",
    "stability_record": "records",
    "write_stability": "records",
    "read_stability": "records",
    "load_stability": "records",
    "load_full_run": "records",
    "claims_signature": "records",
    "is_stale": "records",
    "is_stale_across_scales": "records",
    "scale_signature": "records",
    "full_run_lines": "records",
    "numerics_path": "records",
    "read_numerics": "records",
    "load_numerics": "records",
    "environment_verdicts": "records",
    # reading
    "reading_lines": "reading",
    # tables
    "claim_rows": "tables",
    "verdict_table": "tables",
    "stability_cells": "tables",
    "unstable_sentence": "tables",
    "scoreboard_details": "tables",
    "scoreboard_cells": "tables",
    "totals": "tables",
    "totals_text": "tables",
    "BookEntry": "tables",
    "SCOREBOARD_INTRO": "tables",
    "scoreboard_markdown": "tables",
    # dataset
    "CLAIM_FIELDS": "dataset",
    "claims_dataset": "dataset",
    "write_claims_dataset": "dataset",
    "margin_points": "dataset",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name in _EXPORTS:
        return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return __all__
