"""Constants and helpers the browser tests share (a uniquely named module: conftest.py is not importable)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "tests" / "e2e" / "artifacts"
DOCS_SCREENSHOTS = REPO / "docs" / "screenshots"

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def shoot(target, name: str, viewport: dict, full_page: bool = False) -> Path:
    """Save a screenshot of a page or a locator under tests/e2e/artifacts/ (CI keeps it).

    With UPDATE_SCREENSHOTS=1 the file is also copied to docs/screenshots/ (the curated set
    the README shows).
    """
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    kind = "desktop" if viewport["width"] >= 1000 else "phone"
    path = ARTIFACTS / f"{kind}-{name}.png"
    if hasattr(target, "goto"):
        target.screenshot(path=path, full_page=full_page, animations="disabled")
    else:
        target.screenshot(path=path, animations="disabled")
    if os.environ.get("UPDATE_SCREENSHOTS") == "1":
        DOCS_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, DOCS_SCREENSHOTS / path.name)
    return path
