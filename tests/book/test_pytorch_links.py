"""Every PyTorch fact in the book rests on a page a reader can open, of the version the book names.

The book cites PyTorch 2.13's documentation (docs.pytorch.org/docs/2.13/) and its source at
the tag v2.13.0 (github.com/pytorch/pytorch/blob/v2.13.0/), never an unpublished run. The
first test reads the pages; the second opens each link, and needs the network: it is skipped,
with the reason, where docs.pytorch.org cannot be reached.
"""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parents[2] / "book"
LINK = re.compile(r"https://(?:[\w.]*pytorch\.org|github\.com/pytorch)/[^)\s>]*")
VERSIONED = ("https://docs.pytorch.org/docs/2.13/", "https://github.com/pytorch/pytorch/blob/v2.13.0/")


def links() -> set[str]:
    return {link for page in BOOK.glob("*.md") for link in LINK.findall(page.read_text("utf8"))}


def test_every_pytorch_link_names_the_version():
    found = links()
    assert found, "the book cites PyTorch"
    unversioned = sorted(link for link in found if not link.startswith(VERSIONED))
    assert not unversioned, f"PyTorch links without the version the book names: {unversioned}"


def test_no_page_rests_on_an_unpublished_run():
    run = re.compile(r"torch 2\.13\.0 (?:on the CPU|prints)|checked with\s+torch")
    said = [page.name for page in BOOK.glob("*.md") if run.search(page.read_text("utf8"))]
    assert not said, f"pages that cite a run of torch no reader can see: {said}"


def _status(url: str) -> int:
    request = urllib.request.Request(url.split("#")[0], method="HEAD")
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


@pytest.mark.network
@pytest.mark.slow
def test_every_pytorch_link_opens():
    try:
        _status("https://docs.pytorch.org/docs/2.13/")
    except (urllib.error.URLError, OSError) as error:
        pytest.skip(f"docs.pytorch.org cannot be reached: {error}")
    broken = {link: code for link in sorted(links()) if (code := _status(link)) != 200}
    assert not broken, f"PyTorch links that do not open: {broken}"
