"""Render the HTML report in headless Chromium (Debian's package) and check the page is not blank."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import matplotlib.image
import numpy as np
import pytest
from support.reports import failing_report

from grader.report.html import write_html

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian's chromium is not installed (apt-get install -y chromium)")


def screenshot(html: Path, png: Path) -> np.ndarray:
    with tempfile.TemporaryDirectory(prefix="grader-chromium-") as profile:
        done = subprocess.run(
            [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--no-first-run", "--disable-component-update", "--disable-sync", "--disable-quic",
             # Wait for layout and image decoding to finish before the shot, even on a loaded machine.
             "--run-all-compositor-stages-before-draw", "--virtual-time-budget=10000",
             f"--user-data-dir={profile}", f"--screenshot={png}", "--window-size=1200,1600",
             html.resolve().as_uri()],
            capture_output=True, timeout=120,
        )
    assert png.exists(), f"chromium wrote no screenshot:\n{done.stderr.decode(errors='replace')[-2000:]}"
    return matplotlib.image.imread(png)


def ink(pixels: np.ndarray) -> float:
    """Share of pixels that are visibly not white."""
    rgb = pixels[..., :3]
    return float((rgb.min(axis=-1) < 0.9).mean())


def test_report_renders_with_content(tmp_path):
    page = write_html(failing_report(), tmp_path / "report.html")
    pixels = screenshot(page, tmp_path / "report.png")
    assert pixels.shape[:2] == (1600, 1200)
    assert ink(pixels) > 0.02
    # Colour, not just black text: the red diagnosis border and the status marks are on screen.
    red = (pixels[..., 0] > 0.6) & (pixels[..., 1] < 0.35) & (pixels[..., 2] < 0.35)
    assert red.sum() > 100


def test_blank_page_counts_as_blank(tmp_path):
    """Negative control: the same measure on an empty page finds nothing."""
    page = tmp_path / "blank.html"
    page.write_text("<!DOCTYPE html><html><body></body></html>", encoding="utf-8")
    assert ink(screenshot(page, tmp_path / "blank.png")) < 0.001
