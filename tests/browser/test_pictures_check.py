"""The standing picture check of every screen (browser_helpers.assert_pictures_shown):
it reports a picture that does not load, and it does not mistake a picture that is
still loading on a page that changes by itself for one that failed."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from browser_helpers import LiveServer, assert_pictures_shown
from playwright.sync_api import Page

pytestmark = pytest.mark.browser

NewPage = Callable[..., Page]

GROWING = """(count) => new Promise((done) => {
  // A card picture a frame, each under a new address (so each is fetched), like a
  // table that goes on by itself: new cards appear while the check is running.
  let n = 0;
  const add = () => {
    const img = document.createElement("img");
    img.src = `/static/cards/grocer.svg?n=${n}`;
    document.body.append(img);
    n += 1;
    if (n < count) requestAnimationFrame(add);
  };
  add();
  done();
})"""


def test_a_picture_that_does_not_load_is_reported(live_server: LiveServer, new_page: NewPage) -> None:
    page = new_page()
    page.goto(live_server.url + "/")
    page.evaluate("""() => { const img = document.createElement("img");
        img.src = "/static/cards/no-such-card.svg"; document.body.append(img); }""")
    with pytest.raises(AssertionError, match=r"pictures that did not load on the page: .*no-such-card\.svg"):
        assert_pictures_shown(page, "the page")


def test_pictures_still_loading_on_a_changing_page_are_waited_for(
    live_server: LiveServer, new_page: NewPage
) -> None:
    page = new_page()
    page.goto(live_server.url + "/")
    for _ in range(10):
        page.evaluate(GROWING, 30)  # returns at once; the pictures come one a frame
        assert_pictures_shown(page, "a page that draws new pictures")
    page.wait_for_function("document.querySelectorAll('img[src*=\"?n=\"]').length === 300")
    assert_pictures_shown(page, "the page with all its pictures")
