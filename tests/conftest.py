"""Test-wide settings: ledgers written by re-executed notebooks go to a scratch folder, not _build."""
import os
import tempfile

os.environ.setdefault("MPLBACKEND", "Agg")
os.environ["REPBOOK_LEDGER"] = os.path.join(tempfile.mkdtemp(prefix="repbook-test-ledgers-"),
                                           "ledger.json")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from repbook.runner.netguard import ipython_dir  # noqa: E402

# every kernel the tests start (nbval, papermill) runs with the network guard
os.environ["IPYTHONDIR"] = ipython_dir()
