"""axe-core, the standard accessibility engine, on every page of the built book: nothing serious.

axe-core comes from npm, pinned in package.json and package-lock.json (`make
setup` runs `npm ci`), and is injected into each page after it loaded, at a
desktop and at a phone's width (some findings, such as a table that scrolls
sideways without a tab stop, exist only on a phone); a Chinese page at a
phone's (`PAGE_VISITS` in tests/helpers/browser_pages.py says why), the English one at a phone's
leaving colour contrast to the Chinese one (`colours_read_elsewhere`). axe's default rules run
(axe 4.14 leaves 15 of its 105 off unless asked: its experimental rules, the
AAA contrast and target-size among them); a "serious" or "critical" violation
fails the test with what axe says about it.
The interactive pieces are checked again in the states a reader brings them
to. Their scripts change nothing outside their own element, so axe reads that
element alone where the page checks cover the rest of the page (its layout at
that width in English, its words in each edition; a Chinese page's desktop-only
sidebar is read with every rule in the dark end-state check): the explorer showing a run
that raised, a stepper played to its end, and answered questions
(tests/site/test_questions.py), each in the light theme the page checks read as
loaded; a stepper asking for a prediction, in the dark theme, whose page the
dark end-state check reads. That dark end-state check reads the whole
page with the rules a theme can change (`THEME_RULES`: colours, boxes that
scroll), since no page check covers the dark theme, and every rule on the
elements the dark theme shows and the light one did not (the theme switch's
dark-theme icon); a Chinese page at 1280 px, which no page check opens, with
every rule.
"""

from __future__ import annotations

import json

import pytest
from book_outputs import EDITIONS, ROOT, book_build, toc_pages  # noqa: F401 (book_build is a fixture)
from browser_pages import (
    CONTRAST_RULE,
    NARROW,
    NEWLY_SHOWN,
    PAGE_VISIT_IDS,
    PAGE_VISITS,
    THEME_RULES,
    WIDE,
    axe_version,
    colours_read_elsewhere,
    dark_theme_violations,
    show_dark,
    violations,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.usefixtures("book_build")]


def report(found: list[dict]) -> str:
    return "\n".join(f"{v['impact']} {v['id']} ({v['help']}): "
                     + "; ".join(f"{n['target']}: {n['summary']}" for n in v["nodes"]) for v in found)


def test_axe_is_the_pinned_version() -> None:
    lock = json.loads((ROOT / "package-lock.json").read_text())
    pinned = json.loads((ROOT / "package.json").read_text())["devDependencies"]["axe-core"]
    assert axe_version() == pinned == lock["packages"]["node_modules/axe-core"]["version"]


@pytest.mark.parametrize(("language", "width"), PAGE_VISITS, ids=PAGE_VISIT_IDS)
@pytest.mark.parametrize("docname", toc_pages())
def test_no_serious_accessibility_violation(checked_page, docname: str, width: int, language: str) -> None:
    found = checked_page(docname, width, language).violations  # axe on the page as loaded
    assert not found, f"{language}/{docname} at {width} px:\n{report(found)}"


def test_the_explorer_showing_an_error_has_no_serious_violation(visit) -> None:
    opened = visit("book/08a-explorer.html", NARROW)
    opened.page.get_by_label("How it is moved", exact=True).select_option("to_device then train()")
    opened.page.locator("details.explorer-message summary").click()
    found = violations(opened.page, "div.explorer")  # the page around it: as loaded, checked above
    assert not found, report(found)


@pytest.mark.parametrize("width", [WIDE, NARROW], ids=["desktop", "phone"])
@pytest.mark.parametrize("language", EDITIONS)
@pytest.mark.parametrize("docname", ["book/04-step-0", "book/05-step-1"])
def test_a_stepper_played_to_its_end_has_no_serious_violation(visit, docname: str, language: str,
                                                              width: int) -> None:
    """In the light theme, then (one visit: the theme is CSS on the same page) in the dark: the rules a
    theme can change, and every rule on what only the dark theme shows; the whole of a page no page
    check opens (a translation's at 1280 px) with every rule."""
    opened = visit(f"{docname}.html", width, language)
    opened.page.locator(".stepper-player").focus()
    opened.page.keyboard.press("End")
    # in the light theme, the page around the stepper is covered by the page checks above (a Chinese
    # page at 1280 px: its layout in English, its words at 390 px and in the dark check here)
    found = violations(opened.page, "div.stepper")
    assert not found, f"{language}/{docname} at {width} px, light:\n{report(found)}"
    if (language, width) not in PAGE_VISITS:
        show_dark(opened.page)
        found = violations(opened.page)
    else:
        found, newly_shown = dark_theme_violations(opened.page)
        assert newly_shown, "the theme switch's dark-theme icon did not show"
    assert not found, f"{language}/{docname} at {width} px, dark:\n{report(found)}"


def test_a_stepper_asking_a_prediction_has_no_serious_violation(visit) -> None:
    opened = visit("book/05-step-1.html", NARROW)
    show_dark(opened.page)
    stepper = opened.page.locator("div.stepper")
    stepper.locator(".stepper-predict input").check()
    for _ in range(6):
        if stepper.locator(".stepper-question").is_visible():
            break
        stepper.get_by_role("button", name="Next step").click()
    assert stepper.locator(".stepper-question").is_visible()
    found = violations(opened.page, "div.stepper")  # the dark page around it: checked at the end state
    assert not found, report(found)


def test_axe_within_an_element_reads_that_element_and_only_it(visit) -> None:
    """What the end-state checks above rely on: a nameless button (axe: button-name, critical) put in
    the stepper is found when axe reads the stepper, and one put beside it is not."""
    opened = visit("book/04-step-0.html", WIDE)
    opened.page.evaluate("""() => {
      const inside = document.createElement('button'), outside = document.createElement('button');
      inside.id = 'axe-probe-inside'; outside.id = 'axe-probe-outside';
      document.querySelector('div.stepper').append(inside);
      document.querySelector('div.stepper').before(outside);
    }""")
    found = [node["target"] for v in violations(opened.page, "div.stepper") if v["id"] == "button-name"
             for node in v["nodes"]]
    assert found == ["#axe-probe-inside"], found


def test_axe_within_a_selector_of_many_elements_reads_each(visit) -> None:
    """What the answered-questions check relies on: axe reads every element a selector matches, the
    first `div.question` of a page and the last, and nothing between them."""
    opened = visit("book/04-step-0.html", WIDE)
    count = opened.page.evaluate("""() => {
      const questions = document.querySelectorAll('div.question'), last = questions[questions.length - 1];
      const button = id => Object.assign(document.createElement('button'), {id});
      questions[0].append(button('axe-probe-first'));
      last.append(button('axe-probe-last'));
      last.before(button('axe-probe-between'));
      return questions.length;
    }""")
    assert count > 1, "the probe needs a page with more than one question"
    found = [node["target"] for v in violations(opened.page, "div.question") if v["id"] == "button-name"
             for node in v["nodes"]]
    assert sorted(found) == ["#axe-probe-first", "#axe-probe-last"], found


def test_every_width_a_page_is_opened_at_has_its_colours_read_by_one_visit() -> None:
    widths = {width for _, width in PAGE_VISITS}
    assert {width for language, width in PAGE_VISITS if not colours_read_elsewhere(language, width)} == widths


def test_a_skipped_rule_finds_nothing_and_every_other_rule_still_runs(visit) -> None:
    """What the English phone visit relies on: with colour contrast skipped, faint text is not found,
    and a nameless button beside it still is; without the skip, both are; with the colour rules only,
    only the faint text is (what the dark end-state check relies on)."""
    opened = visit("book/04-step-0.html", NARROW)
    opened.page.evaluate("""() => {
      const probes = Object.assign(document.createElement('div'), {id: 'axe-probes'});
      const faint = Object.assign(document.createElement('p'), {id: 'axe-probe-faint', textContent: 'faint'});
      faint.style.cssText = 'color: #eeeeee; background: #ffffff';
      probes.append(faint, Object.assign(document.createElement('button'), {id: 'axe-probe-nameless'}));
      document.querySelector('article').prepend(probes);
    }""")
    found = {v["id"] for v in violations(opened.page, "#axe-probes")}
    assert found == {CONTRAST_RULE, "button-name"}, found
    found = {v["id"] for v in violations(opened.page, "#axe-probes", skipped=(CONTRAST_RULE,))}
    assert found == {"button-name"}, found
    found = {v["id"] for v in violations(opened.page, "#axe-probes", only=THEME_RULES)}
    assert found == {CONTRAST_RULE}, found
    with pytest.raises(ValueError, match="not both"):
        violations(opened.page, skipped=(CONTRAST_RULE,), only=THEME_RULES)


def test_what_only_the_dark_theme_shows_is_read_with_every_rule(visit) -> None:
    """What the dark end-state check relies on (`dark_theme_violations`): a nameless button the dark
    theme alone shows is marked as newly shown, and found; the stepper, shown in both, is not marked."""
    opened = visit("book/04-step-0.html", WIDE)
    opened.page.evaluate("""() => {
      const button = Object.assign(document.createElement('button'), {id: 'axe-probe-dark'});
      document.querySelector('article').prepend(button);
    }""")
    opened.page.add_style_tag(content="#axe-probe-dark { display: none; } "
                                      "html[data-theme='dark'] #axe-probe-dark { display: inline-block; }")
    found, newly_shown = dark_theme_violations(opened.page)
    assert newly_shown >= 1
    assert opened.page.locator("div.stepper" + NEWLY_SHOWN).count() == 0
    assert opened.page.locator(".theme-switch-button" + NEWLY_SHOWN).count() == 1
    found = [node["target"] for v in found if v["id"] == "button-name" for node in v["nodes"]]
    assert found == ["#axe-probe-dark"], found
