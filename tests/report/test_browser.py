"""The HTML reports opened in a real browser (headless Chromium driven by Playwright).

Checks what a reader would see go wrong: console errors, images that do not decode, requests
that leave the file, missing section headings, and horizontal scrolling at a laptop width; and
at a phone's width (390 px) that no text of a figure is shown under 9 px: a PNG figure's
smallest font (points, recorded in the PNG by ``sim.report.plots.png_bytes``) scaled by the
width it is shown at over the PNG's width, and every text of a drawing (the games' SVG
pictures) as the browser renders it at the width the page shows the drawing. Every report is
screenshotted at both widths (into ``SIM_SCREENSHOTS`` when set, else a temporary folder).
Needs ``/usr/bin/chromium`` (Debian package ``chromium``) and the ``playwright`` Python package
(``dev`` extras). Outside CI a missing browser skips the test; in CI (``CI=true``) it fails.
"""

import base64
import io
import os
import re
import shutil
import urllib.parse
from pathlib import Path

import pytest

from sim.report import build_report
from sim.report.plots import MIN_TEXT_PX, SAVE_DPI, SMALLEST_FONT_KEY

CHROMIUM = Path(os.environ.get("SIM_CHROMIUM", "/usr/bin/chromium"))
LAPTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
# Root in a container with a closed network: no sandbox, no GPU, nothing phoning home.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
HOW_TO_RUN = ("install Chromium (apt-get install -y chromium) and the dev extras "
              "(pip install -e '.[dev]'), then: .venv/bin/python -m pytest "
              "tests/report/test_browser.py")


def _browser_or_skip():
    missing = []
    if not CHROMIUM.exists():
        missing.append(f"no browser at {CHROMIUM}")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("no playwright package")
    if missing:
        if os.environ.get("CI") == "true":
            pytest.fail(f"browser test cannot run in CI: {', '.join(missing)}")
        pytest.skip(f"{', '.join(missing)}: {HOW_TO_RUN}")


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    _browser_or_skip()
    from playwright.sync_api import sync_playwright

    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as driver:
        context = driver.chromium.launch_persistent_context(
            str(profile), executable_path=str(CHROMIUM), headless=True, args=FLAGS,
            viewport=LAPTOP)
        yield context
        context.close()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """Two small Legendary Forests batches played by `sim run` on the same deals (about 2 s):
    ``greedy`` (whose notable games carry their SVG) and ``random``."""
    from typer.testing import CliRunner

    from sim.cli import app

    folder = tmp_path_factory.mktemp("played")
    config = folder / "batch.toml"
    config.write_text('game = "legendary-forests"\nplayers = 2\nstrategies = ["greedy"]\n'
                      'deals = 150\nreplicates_per_deal = 1\nseed = 5\nshard_size = 150\n')
    for name in ("greedy", "random"):
        result = CliRunner().invoke(app, ["run", str(config), "--out", str(folder / name),
                                          "--strategy", name, "--workers", "1", "-q"])
        assert result.exit_code == 0, result.output
    return folder


def _open(browser, html: Path) -> dict:
    """Load ``html`` and return what the page did: console errors, failed and outside
    requests, the headings, undecoded images and the page's scroll width."""
    page = browser.new_page()
    errors, outside = [], []
    page.on("console", lambda message: errors.append(message.text)
            if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    url = html.resolve().as_uri()

    def record(request):
        if request.url != url and not request.url.startswith("data:"):
            outside.append(request.url)

    page.on("request", record)
    page.goto(url, wait_until="load")
    seen = page.evaluate("""() => ({
        headings: [...document.querySelectorAll('h2, h3')].map(h => h.textContent),
        images: document.images.length,
        undecoded: [...document.images].filter(i => !i.complete || i.naturalWidth === 0)
                                      .map(i => i.alt),
        scrollWidth: document.documentElement.scrollWidth,
        clientWidth: document.documentElement.clientWidth,
        anchors: [...document.querySelectorAll('nav.contents a')].map(a => a.hash.slice(1)),
        ids: [...document.querySelectorAll('[id]')].map(e => e.id),
        links: [...document.querySelectorAll('a[href]')].filter(a => !a.hash).map(a => a.href),
    })""")
    page.close()
    return {**seen, "errors": errors, "outside": outside}


def _png_smallest_points(data: bytes) -> float:
    """The smallest font (points) a report PNG records (``SMALLEST_FONT_KEY``)."""
    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        return float(image.text[SMALLEST_FONT_KEY])


# Every text of an inline SVG: its rendered height in CSS pixels (font size in user units
# times the scale from user units to the screen).
_SVG_TEXT_SIZES = """() => [...document.querySelectorAll('svg text')]
    .filter(t => t.textContent.trim() !== '')
    .map(t => { const m = t.getScreenCTM();
                return [t.textContent.trim(),
                        parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b)]; })"""


def _phone_check(browser, html: Path, name: str, shots: Path) -> dict:
    """Open ``html`` at 1366 and 390 px, screenshot the whole page at each, and return what
    the phone shows: console errors, the page's widths, and the smallest text (px) of each
    figure and drawing (its alt text -> px)."""
    sizes: dict[str, float] = {}
    errors: list[str] = []
    seen = {}
    for label, viewport in (("1366", LAPTOP), ("390", PHONE)):
        page = browser.new_page()
        page.set_viewport_size(viewport)
        page.on("console", lambda message: errors.append(message.text)
                if message.type == "error" else None)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(html.resolve().as_uri(), wait_until="load")
        page.screenshot(path=str(shots / f"{name}-{label}.png"), full_page=True)
        if viewport is PHONE:
            seen = page.evaluate("""() => ({
                scrollWidth: document.documentElement.scrollWidth,
                clientWidth: document.documentElement.clientWidth,
                images: [...document.images].map(i => ({
                    alt: i.alt, src: i.src, shown: i.getBoundingClientRect().width,
                    natural: i.naturalWidth }))})""")
        page.close()
    for image in seen["images"]:
        kind, _, data = image["src"].partition(";base64,")
        raw = base64.b64decode(data)
        if kind == "data:image/png":
            points = _png_smallest_points(raw)
            sizes[image["alt"]] = (points / 72 * SAVE_DPI * image["shown"]
                                   / image["natural"])
        elif kind == "data:image/svg+xml":
            # The drawing inline in a box as wide as the page shows it: its text as rendered.
            page = browser.new_page()
            page.set_viewport_size(PHONE)
            page.set_content(f'<div style="width:{image["shown"]}px">'
                             f'{raw.decode("utf-8")}</div>')
            texts = page.evaluate(_SVG_TEXT_SIZES)
            page.close()
            if texts:
                sizes[image["alt"]] = min(size for _, size in texts)
    print(f"\n{name} at 390 px: {len(seen['images'])} images, smallest figure text "
          f"{min(sizes.values(), default=float('nan')):.1f} px; screenshots "
          f"{shots / name}-1366.png, -390.png")
    return {**seen, "errors": errors, "sizes": sizes}


def _assert_phone(seen: dict) -> None:
    assert seen["errors"] == []
    assert seen["scrollWidth"] <= seen["clientWidth"], "the page scrolls sideways at 390 px"
    small = {alt[:60]: round(px, 2) for alt, px in seen["sizes"].items()
             if px < MIN_TEXT_PX - 1e-6}
    assert not small, f"figure text under {MIN_TEXT_PX:g} px at 390 px: {small}"


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    folder = os.environ.get("SIM_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        return Path(folder)
    return tmp_path_factory.mktemp("screenshots")


def _markdown_headings(markdown: str) -> list[str]:
    return re.findall(r"^#{2,3} (.+)$", markdown, flags=re.MULTILINE)


def _check(name: str, seen: dict, markdown: str) -> None:
    print(f"\n{name}: {len(seen['headings'])} headings, {seen['images']} images, scroll width "
          f"{seen['scrollWidth']} px in a {seen['clientWidth']} px window, "
          f"{len(seen['errors'])} console errors, {len(seen['outside'])} outside requests")
    assert seen["errors"] == []
    assert seen["outside"] == []
    assert seen["images"] >= 3 and seen["undecoded"] == []
    expected = _markdown_headings(markdown)
    assert [h for h in seen["headings"] if h != "Contents"] == expected
    assert set(seen["anchors"]) <= set(seen["ids"]) and len(seen["anchors"]) == len(expected)
    assert seen["scrollWidth"] <= seen["clientWidth"], "the page scrolls sideways at 1366 px"


@pytest.mark.parametrize("batch", ["forest_dir", "harmonies_dir", "named_card_dir"])
def test_report_renders_cleanly_in_chromium(batch, browser, request, tmp_path, shots):
    """A batch report (the named one with the cards' and spirits' drawings and a sample
    position) at 1366 and 390 px."""
    result = build_report(request.getfixturevalue(batch), tmp_path / "report")
    _check(batch, _open(browser, result.html), result.markdown.read_text())
    _assert_phone(_phone_check(browser, result.html, batch, shots))


def test_played_reports_with_names_and_drawings_and_the_comparison_render_cleanly(
        browser, played, tmp_path, shots):
    """A played Legendary Forests batch (tiles by name, the tiles that move the score most and
    a sample final position drawn) and `sim compare` of two batches, at 1366 and 390 px."""
    from sim.report.compare import write_compare_report

    result = build_report(played / "greedy", tmp_path / "report")
    markdown = result.markdown.read_text()
    assert "figures/sample-position.svg" in markdown
    seen = _phone_check(browser, result.html, "played-report", shots)
    _assert_phone(seen)
    drawings = [image for image in seen["images"] if image["src"].startswith("data:image/svg")]
    assert drawings and all(image["alt"] in seen["sizes"] for image in drawings)
    _check("played report", _open(browser, result.html), markdown)
    compare = write_compare_report(played / "greedy", played / "random", tmp_path / "compare")
    seen = _phone_check(browser, compare.html, "compare", shots)
    assert seen["errors"] == []
    assert seen["scrollWidth"] <= seen["clientWidth"], "the page scrolls sideways at 390 px"


def test_sweep_report_renders_cleanly_in_chromium(browser, sweep_report, shots):
    """The sweep report (heatmaps over two axes) and a per-point report it links to; every
    link (a point's report, a figure's SVG) leads to a file that exists."""
    seen = _open(browser, sweep_report.html)
    _check("sweep report", seen, sweep_report.markdown.read_text())
    reports = [link for link in seen["links"] if link.endswith("report.html")]
    figures = [link for link in seen["links"] if link.endswith(".svg")]
    assert len(reports) == len(sweep_report.point_reports) == 4
    assert figures and len(reports) + len(figures) == len(seen["links"])
    for link in seen["links"]:
        assert Path(urllib.parse.unquote(urllib.parse.urlparse(link).path)).is_file(), link
    point = sweep_report.point_reports[0]
    _check("its first point's report", _open(browser, point),
           point.with_name("report.md").read_text())
    _assert_phone(_phone_check(browser, sweep_report.html, "sweep", shots))
    _assert_phone(_phone_check(browser, point, "sweep-point", shots))
