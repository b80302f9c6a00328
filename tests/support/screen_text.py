"""The text a running app shows, line by line, read from its public screenshot.

``App.export_screenshot`` writes an SVG in which each run of text is a ``<text>`` element
placed by its x; runs of spaces are left out. Placing each run at its column gives the
lines as a terminal shows them, so a test can assert a whole rendered line.
"""

from __future__ import annotations

import html
import re
from typing import Any

from textual.app import App

_RUN = re.compile(
    r'<text class="[^"]*" x="(?P<x>[\d.]+)" y="[\d.]+" textLength="[\d.]+" '
    r'clip-path="url\(#[\w-]+-line-(?P<line>\d+)\)">(?P<text>[^<]*)</text>'
)
CELL_WIDTH = 12.2
"""The width of a cell in Rich's SVG export."""


def screen_lines(app: App[Any]) -> list[str]:
    """Every line of the screen, right-trimmed."""
    width, height = app.size
    lines = [[" "] * width for _ in range(height)]
    for run in _RUN.finditer(app.export_screenshot()):
        row, column = int(run["line"]), round(float(run["x"]) / CELL_WIDTH)
        for offset, char in enumerate(html.unescape(run["text"]).replace("\xa0", " ")):
            if row < height and column + offset < width:
                lines[row][column + offset] = char
    return ["".join(line).rstrip() for line in lines]
