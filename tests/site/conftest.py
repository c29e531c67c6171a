"""The site tier's shared fixtures: the built book over HTTP and headless Chromium
(tests/helpers/browser_pages.py).

Only this folder's tests open a browser, so only they import Playwright's side of the tests; the
engine tier (tests/engine/) runs without the book's packages."""

from browser_pages import browser, checked_page, server, tabs, visit  # noqa: F401 (the browser tests' fixtures)
