"""Rendering the staged book to HTML with Jupyter Book (which executes nothing itself)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from .. import layout


def install_mathjax(html: Path) -> None:
    """Copy MathJax (from the django-static-mathjax wheel) into the site's _static folder.

    Sphinx points pages at a CDN by default; _config.yml points them at _static/mathjax instead,
    so formulas render with no network.
    """
    import mathjax

    src = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"
    dst = html / "_static" / "mathjax"
    stamp = dst / ".source"
    if stamp.is_file() and stamp.read_text() == str(src):
        return
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    stamp.write_text(str(src))


def render(root: Path, quiet: bool = True) -> int:
    """`jupyter-book build` of the staged notebooks; returns its exit code."""
    exe = Path(sys.executable).with_name("jupyter-book")
    cmd = [
        str(exe) if exe.exists() else shutil.which("jupyter-book") or "jupyter-book",
        "build",
        str(root),
        "--builder",
        "html",
        "-W",
        "--keep-going",
    ]
    proc = subprocess.run(cmd, cwd=root, capture_output=quiet, text=True)
    if proc.returncode != 0 and quiet:
        sys.stderr.write(proc.stdout[-6000:] + proc.stderr[-4000:])
    if proc.returncode == 0:
        install_mathjax(root / layout.HTML)
    return proc.returncode
