"""Test-wide settings: ledgers written by re-executed notebooks go to a scratch folder, not _build."""
import os
import tempfile

os.environ.setdefault("MPLBACKEND", "Agg")
os.environ["REPBOOK_LEDGER_DIR"] = tempfile.mkdtemp(prefix="repbook-test-ledgers-")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
