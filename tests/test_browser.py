"""The rendered book in headless Chromium: pages load, figures and verdict tables are there."""

import re
import shutil
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import pytest

from repbook.core.data import repo_root
from repbook.runner.chapters import discover

ROOT = repo_root()
HTML = ROOT / "_build" / "html"
CHROMIUM = next(
    (
        p
        for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))
        if p
    ),
    None,
)
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
]

NO_CHROMIUM = (
    "the browser tests need Chromium, which is not on PATH: run `make test-deps` (as root on "
    "Debian/Ubuntu it installs the `chromium` package), or install Chromium yourself"
)


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.imgs, self.hrefs, self.tables = [], [], 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "img" and a.get("src"):
            self.imgs.append(a["src"])
        if tag == "a" and a.get("href"):
            self.hrefs.append(a["href"])
        if tag == "table":
            self.tables += 1


def chromium(page: Path, *extra: str) -> str:
    if CHROMIUM is None:
        pytest.fail(NO_CHROMIUM)
    with tempfile.TemporaryDirectory() as profile:
        proc = subprocess.run(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *extra, page.as_uri()],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def rendered(page: Path) -> tuple[str, Links]:
    assert page.is_file(), f"{page} is missing: run `make book` first"
    dom = chromium(page, "--virtual-time-budget=3000", "--dump-dom")
    links = Links()
    links.feed(dom)
    return dom, links


def assert_local_targets_exist(page: Path, links: Links):
    for ref in links.imgs + links.hrefs:
        if re.match(r"^(https?:|mailto:|#|data:|javascript:)", ref):
            continue
        target = (page.parent / ref.split("#")[0].split("?")[0]).resolve()
        assert target.exists(), f"{page.name} links to missing {ref}"


@pytest.mark.parametrize("chapter", discover(ROOT), ids=lambda c: c.stem)
def test_chapter_page(chapter):
    page = HTML / "book" / "chapters" / f"{chapter.stem}.html"
    dom, links = rendered(page)
    assert f"{chapter.number} ·" in dom
    figures = [i for i in links.imgs if "_images/" in i]
    assert len(figures) >= 3, f"only {len(figures)} figures on the page"
    for src in figures:
        assert (page.parent / src).resolve().stat().st_size > 5_000, (
            f"figure {src} is empty"
        )
    tables = re.findall(r"<table.*?</table>", dom, flags=re.S)
    assert any(
        "criterion (fixed before the run)" in t and "verdict" in t for t in tables
    ), "the verdict table is not rendered as a table"
    assert "checked claims reproduced" in dom
    assert "Traceback (most recent call last)" not in dom
    assert not re.search(r'class="output stderr', dom), (
        "a cell wrote to stderr (usually a warning): fix its cause or filter it where it arises"
    )
    assert "<mjx-container" in dom, (
        "formulas were not typeset (MathJax missing from _static?)"
    )
    assert_local_targets_exist(page, links)
    shots = ROOT / "_build" / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    chromium(
        page,
        "--window-size=1280,1600",
        f"--screenshot={shots / (chapter.stem + '.png')}",
    )
    assert (shots / f"{chapter.stem}.png").stat().st_size > 10_000


def test_scoreboard_and_environment_pages():
    dom, links = rendered(HTML / "book" / "scoreboard.html")
    assert "Scoreboard" in dom and links.tables >= 1
    for chapter in discover(ROOT):
        assert any(h.endswith(f"chapters/{chapter.stem}.html") for h in links.hrefs)
    assert_local_targets_exist(HTML / "book" / "scoreboard.html", links)
    dom, links = rendered(HTML / "book" / "environment.html")
    assert "Key packages" in dom and "torch" in dom
