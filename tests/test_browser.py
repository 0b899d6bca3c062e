"""The rendered book in headless Chromium: pages load, figures and verdict tables are there."""

import re
import shutil
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import pytest

from repbook import layout
from repbook.core.data import repo_root
from repbook.runner.chapters import discover

ROOT = repo_root()
HTML = ROOT / layout.HTML
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
    shots = ROOT / layout.SCREENSHOTS
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


PROBE = """<script>
window.addEventListener('load', () => {
  const folds = [...document.querySelectorAll('details.hide')];
  let opened = 0;
  for (const d of folds) { d.querySelector('summary').click(); if (d.open) opened++; }
  const pres = [...document.querySelectorAll('div.cell_input pre')];
  const span = document.createElement('span');
  span.textContent = 'x'.repeat(100);
  pres[0].appendChild(span);
  const charWidth = span.getBoundingClientRect().width / 100;
  span.remove();
  const narrowest = pres.reduce((a, p) => (p.clientWidth < a.clientWidth ? p : a));
  const style = getComputedStyle(narrowest);
  const inner = narrowest.clientWidth - parseFloat(style.paddingLeft)
    - parseFloat(style.paddingRight);
  const cols = Math.floor(inner / charWidth);
  const over = pres.filter(p => p.scrollWidth > p.clientWidth + 1).length;
  const outs = [...document.querySelectorAll('div.cell_output pre')];
  const outOver = outs.filter(p => p.scrollWidth > p.clientWidth + 1).length;
  const tables = [...document.querySelectorAll('article table')];
  const wide = tables.filter(t => t.parentElement.scrollWidth > t.parentElement.clientWidth + 1
    || t.getBoundingClientRect().right > document.querySelector('article').getBoundingClientRect().right + 1).length;
  document.body.setAttribute('data-repbook-probe',
    JSON.stringify({cols, over, cells: pres.length, folds: folds.length, opened,
                    outOver, outputs: outs.length, wide, tables: tables.length}));
});
</script>"""


@pytest.mark.parametrize("chapter", discover(ROOT), ids=lambda c: c.stem)
def test_code_cells_fit_at_1280_px_and_folds_open(chapter):
    """At a 1280-px window every code cell fits its column without horizontal scrolling (the
    narrowest cell's text area, padding excluded, holds the 88 characters ruff allows), and
    folded cells open on a click."""
    import html
    import json

    page = HTML / "book" / "chapters" / f"{chapter.stem}.html"
    assert page.is_file(), f"{page} is missing: run `make book` first"
    probe = page.with_name(f"_probe_{chapter.stem}.html")
    probe.write_text(page.read_text().replace("</body>", PROBE + "</body>"))
    try:
        dom = chromium(
            probe, "--window-size=1280,1000", "--virtual-time-budget=5000", "--dump-dom"
        )
    finally:
        probe.unlink()
    found = re.search(r'data-repbook-probe="([^"]*)"', dom)
    assert found, "the probe script did not run"
    got = json.loads(html.unescape(found.group(1)))
    assert got["cols"] >= 88, (
        f"a code cell shows only {got['cols']} characters at 1280 px"
    )
    assert got["over"] == 0, (
        f"{got['over']} of {got['cells']} code cells scroll horizontally"
    )
    assert got["folds"] >= 1 and got["opened"] == got["folds"], got
    assert got["outOver"] == 0, (
        f"{got['outOver']} of {got['outputs']} printed outputs run off to the right at 1280 px"
    )
    assert got["wide"] == 0, (
        f"{got['wide']} of {got['tables']} tables overflow at 1280 px"
    )


def test_the_scoreboard_fits_at_1280_px():
    """Every column of the scoreboard's tables is in view at a 1280-px window."""
    import html
    import json

    page = HTML / "book" / "scoreboard.html"
    assert page.is_file(), f"{page} is missing: run `make book` first"
    probe = page.with_name("_probe_scoreboard.html")
    script = """<script>
window.addEventListener('load', () => {
  const art = document.querySelector('article').getBoundingClientRect();
  const tables = [...document.querySelectorAll('article table')];
  const wide = tables.filter(t => t.parentElement.scrollWidth > t.parentElement.clientWidth + 1
    || t.getBoundingClientRect().right > art.right + 1).length;
  document.body.setAttribute('data-repbook-probe', JSON.stringify({wide, tables: tables.length}));
});
</script>"""
    probe.write_text(page.read_text().replace("</body>", script + "</body>"))
    try:
        dom = chromium(
            probe, "--window-size=1280,1000", "--virtual-time-budget=5000", "--dump-dom"
        )
    finally:
        probe.unlink()
    found = re.search(r'data-repbook-probe="([^"]*)"', dom)
    assert found, "the probe script did not run"
    got = json.loads(html.unescape(found.group(1)))
    assert got["tables"] >= 2 and got["wide"] == 0, got


def test_scoreboard_has_the_figure_and_the_claims_as_data():
    page = HTML / "book" / "scoreboard.html"
    dom, links = rendered(page)
    assert any(i.endswith("margins.png") for i in links.imgs), "no margin figure"
    for name in ("claims.csv", "claims.json"):
        hrefs = [h for h in links.hrefs if h.endswith(name)]
        assert hrefs, f"the scoreboard does not link {name}"
        assert (page.parent / hrefs[0]).resolve().stat().st_size > 100


def test_the_published_claims_are_exactly_the_ledgers_claims():
    import json

    from repbook.runner.execute import load_ledger, run_dir

    page = HTML / "book" / "scoreboard.html"
    _, links = rendered(page)
    href = next(h for h in links.hrefs if h.endswith("claims.json"))
    rows = json.loads((page.parent / href).resolve().read_text())
    expected = []
    for ch in discover(ROOT):
        led = load_ledger(run_dir(ROOT, ch))
        assert led is not None, f"{ch.stem} has no quick run"
        expected += [(ch.stem, c.id, c.verdict, c.margin) for c in led.claims]
    assert [
        (r["chapter"], r["claim"], r["verdict"], r["margin"]) for r in rows
    ] == expected
