"""The HTML reports opened in a real browser (headless Chromium driven by Playwright).

Checks what a reader would see go wrong: console errors, images that do not decode, requests
that leave the file, missing section headings, and horizontal scrolling at a laptop width.
Needs ``/usr/bin/chromium`` (Debian package ``chromium``) and the ``playwright`` Python package
(``dev`` extras). Outside CI a missing browser skips the test; in CI (``CI=true``) it fails.
"""

import os
import re
import shutil
import urllib.parse
from pathlib import Path

import pytest

from sim.report import build_report

CHROMIUM = Path(os.environ.get("SIM_CHROMIUM", "/usr/bin/chromium"))
LAPTOP = {"width": 1366, "height": 768}
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


@pytest.mark.parametrize("batch", ["forest_dir", "harmonies_dir"])
def test_report_renders_cleanly_in_chromium(batch, browser, request, tmp_path):
    result = build_report(request.getfixturevalue(batch), tmp_path / "report")
    _check(batch, _open(browser, result.html), result.markdown.read_text())


def test_sweep_report_renders_cleanly_in_chromium(browser, sweep_report):
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
