"""Fixtures for the browser tests: a live web table and headless Chromium.

The server runs in a thread (uvicorn + ``create_app``) on a free port with a
temporary SQLite file and bot delay 0; Chromium is Debian's package driven by
Playwright (never a downloaded browser).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
uvicorn = pytest.importorskip("uvicorn")

from browser_helpers import LiveServer  # noqa: E402
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, sync_playwright  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    database = f"sqlite:///{tmp_path_factory.mktemp('web') / 'spieltisch.db'}"
    server = LiveServer(database)
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def playwright_instance() -> Iterator[Playwright]:
    """One a module, not a session: while Playwright's sync API is alive its event loop
    counts as running in this thread, so ``asyncio.run`` in any later test of the same
    process (e.g. tests/server/test_cluster_leases.py on the same xdist worker) would
    fail. (``scope="package"`` does not end with this folder: it has no __init__.py.)"""
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed (apt-get install -y chromium)")
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def browser(playwright_instance: Playwright) -> Iterator[Browser]:
    b = playwright_instance.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    yield b
    b.close()


def _context(browser: Browser, locale: str, width: int = 1280, height: int = 800) -> BrowserContext:
    ctx = browser.new_context(viewport={"width": width, "height": height}, locale=locale)
    ctx.set_default_timeout(15_000)
    return ctx


@pytest.fixture
def new_page(browser: Browser) -> Iterator[object]:
    """Factory: ``new_page(locale="en-US")`` -> a Page in its own browser context
    (its own localStorage, like a second device). Page errors and texts
    missing in the UI language fail the test."""
    contexts: list[BrowserContext] = []
    errors: list[str] = []

    def make(locale: str = "en-US", width: int = 1280, height: int = 800, auto_review: bool = False) -> Page:
        ctx = _context(browser, locale, width, height)
        if not auto_review:  # (a review at every game's end would load the machine; tested on its own)
            ctx.add_init_script("localStorage.setItem('spieltisch.autoReview', 'off')")
        contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda m: errors.append(m.text) if m.text.startswith("missing text:") else None)
        return page

    yield make
    for ctx in contexts:
        ctx.close()
    assert not errors, f"JavaScript errors or missing texts in the page: {errors}"
