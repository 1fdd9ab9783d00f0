"""Check the rendered user guide in a real headless browser: no horizontal overflow, no raw math.

It first redraws the figures of ``docs/make_plots.py`` and checks that no two texts of a
figure overlap (titles, axis and tick labels, legends: :func:`check_figures`, which
needs no browser; the test suite runs it).

Usage (from the repository root, with Debian's ``chromium`` installed)::

    .venv/bin/python docs/check_rendered.py [--browser /usr/bin/chromium] [--width 1024]

(the python of the environment dpinfer is installed in, which has Sphinx; Chromium from
Debian: ``apt-get install chromium``).

It builds the guide with Sphinx into a temporary folder, opens each checked page in
headless Chromium at the given window width, and reports every ``pre``, ``table`` and
``img`` element that is wider than its box or runs past the window's right edge, a page
that scrolls sideways, and text that still looks like unrendered LaTeX (``\\(``,
``\\varepsilon``, ``$$``).  The exit status is 0 when every page passes, 1 otherwise.
Screenshots are not taken (and none are committed): the check reads the layout the
browser computed.

How: a copy of each page gets a small script that measures the layout after the load
event and writes the findings into an attribute of ``<body>``; Chromium's
``--dump-dom`` prints the resulting document, from which the attribute is read.
"""

from __future__ import annotations

import argparse
import html
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
PAGES = ("tutorial", "two_arm", "coming_from_r", "plots", "validation", "privacy", "budget",
         "getting_started", "cli", "api", "api_inference", "api_releases")

_PROBE = """
<script>
window.addEventListener("load", function () {
  var found = [];
  var vw = document.documentElement.clientWidth;
  document.querySelectorAll("pre, table, img").forEach(function (el) {
    var box = el.getBoundingClientRect();
    if (el.scrollWidth > el.clientWidth + 1 || box.right > vw + 1) {
      found.push(el.tagName.toLowerCase() + ": " + (el.getAttribute("src") || el.textContent || "")
                 .trim().slice(0, 60));
    }
  });
  if (document.documentElement.scrollWidth > vw + 1) { found.push("the page scrolls sideways"); }
  var text = document.body.innerText;
  var math = /\\\\\\(|\\\\varepsilon|\\$\\$/.test(text);
  document.body.setAttribute("data-check", JSON.stringify({overflow: found, raw_math: math}));
});
</script>
"""


def build(out):
    """Build the guide into ``out`` (warnings are errors, as in the test suite)."""
    subprocess.run([sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", str(DOCS), str(out)],
                   check=True)


def check_page(browser, page, width):
    """The findings for one built page: ``{'overflow': [...], 'raw_math': bool}``."""
    probe_page = page.with_name(page.stem + "._check.html")
    probe_page.write_text(page.read_text(encoding="utf-8").replace("</body>", _PROBE + "</body>"),
                          encoding="utf-8")
    dom = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         f"--window-size={width},900", "--virtual-time-budget=3000", "--dump-dom",
         probe_page.as_uri()],
        capture_output=True, text=True, timeout=120, check=True).stdout
    found = re.search(r'data-check="([^"]*)"', dom)
    if found is None:
        return {"overflow": ["the probe did not run (no data-check attribute)"], "raw_math": False}
    return json.loads(html.unescape(found.group(1)))


def check_figures():
    """``{figure name: [(text, text), ...]}`` for every figure of ``make_plots.py`` whose texts
    overlap (compared as drawn by the Agg renderer); empty when none does."""
    import importlib.util

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sys.path.insert(0, str(DOCS.parent))
    try:
        from validation._figures import text_overlaps
    finally:
        sys.path.pop(0)
    spec = importlib.util.spec_from_file_location("make_plots", DOCS / "make_plots.py")
    make_plots = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_plots)
    found = {}
    for name, draw in make_plots.FIGURES.items():
        fig, ax = plt.subplots(figsize=make_plots.SIZE, layout="constrained")
        draw(ax)
        fig.set_dpi(make_plots.DPI)
        overlaps = text_overlaps(fig)
        plt.close(fig)
        if overlaps:
            found[name] = overlaps
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--browser", default=shutil.which("chromium") or "/usr/bin/chromium")
    parser.add_argument("--width", type=int, default=1024, help="window width in pixels (default 1024)")
    args = parser.parse_args(argv)
    if importlib.util.find_spec("sphinx") is None:  # e.g. the system python3 instead of the environment's
        print(f"Sphinx is not installed for {sys.executable}; run this with the python of the environment "
              "dpinfer is installed in: .venv/bin/python docs/check_rendered.py", file=sys.stderr)
        return 2
    if not Path(args.browser).exists():
        print(f"no browser at {args.browser}: apt-get install -y chromium", file=sys.stderr)
        return 2
    failed = 0
    for name, overlaps in check_figures().items():
        failed += 1
        print(f"FAIL {name}: overlapping texts {overlaps}")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "html"
        build(out)
        for name in PAGES:
            page = out / f"{name}.html"
            if not page.is_file():
                continue
            result = check_page(args.browser, page, args.width)
            ok = not result["overflow"] and not result["raw_math"]
            failed += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {name}.html"
                  + ("" if ok else f": {result['overflow']}{' raw math' if result['raw_math'] else ''}"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
