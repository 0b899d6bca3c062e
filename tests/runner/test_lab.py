"""`repbook lab` (what `make lab` runs): a real JupyterLab server where chapters open as notebooks."""

import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from repbook.core.data import repo_root


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str):
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


def test_lab_serves_chapters_as_notebooks():
    port, token = free_port(), "repbook-test"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "repbook",
            "lab",
            "--no-browser",
            f"--port={port}",
            f"--token={token}",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=repo_root(),
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 90
        while True:
            try:
                get(f"{base}/api/status?token={token}")
                break
            except OSError:
                assert proc.poll() is None, proc.stdout.read()
                assert time.time() < deadline, "JupyterLab did not start within 90 s"
                time.sleep(0.5)
        model = get(f"{base}/api/contents/notebooks/04_aurc.py?token={token}")
        assert (
            model["type"] == "notebook"
        )  # jupytext reads the .py chapter as a notebook
        cells = model["content"]["cells"]
        assert any("parameters" in c["metadata"].get("tags", []) for c in cells)
        settings = get(
            f"{base}/lab/api/settings/@jupyterlab/docmanager-extension:plugin?token={token}"
        )
        viewers = settings["schema"]["properties"]["defaultViewers"][
            "default"
        ]  # overrides.json
        assert viewers["python"] == "Jupytext Notebook"
        assert (
            Path(sys.prefix)
            / "share"
            / "jupyter"
            / "labextensions"
            / "jupyterlab-jupytext"
        ).is_dir()
        kernels = get(f"{base}/api/kernelspecs?token={token}")
        assert "python3" in kernels["kernelspecs"]
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
