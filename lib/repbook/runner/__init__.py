"""Executing the book: chapters → papermill runs (cached, in parallel) → ledgers, scoreboard, HTML."""
