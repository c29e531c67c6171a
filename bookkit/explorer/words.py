"""The relocation explorer's words, one set per edition of the book (English, Chinese).

The book's prose is translated through gettext catalogs (`locale/`), but the
explorer's form, answers and tables are written by Python while the book is
built, so gettext never sees them: their words are the part "explorer" of
bookkit/words/<language>.json, read here into a `Words` per language, and
tests/book/test_explorer.py checks that every language fills every template with the
same placeholders as English. Identifiers, error types and Burn's messages stay
English in every language, as in the article.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from bookkit.words import NoWordsError, languages, words


@dataclass(frozen=True)
class Words:
    """Every piece of text the explorer shows; `{name}` fields are filled in by bookkit.explorer."""

    form: str  # the form's accessible name
    built_on: str
    read_first: str
    relocation: str
    plain: str  # the "Built on" choice `flex`, a plain device
    yes: str
    no: str
    seven: str  # before the buttons of the article's seven
    others: str  # before the buttons of chapter 8's methods that are not the article's (if any)
    whole_message: str
    no_graph: str
    graph_caption: str
    curve_caption: str
    noscript: str
    runs: str  # {steps} {runs}
    steps_or: str  # between two step counts in `runs`
    table_caption: str  # {built_on}
    heads: tuple[str, str, str, str, str, str]
    none: str
    before_training: str
    at_step: str  # {step}
    graph_link: str
    curve_link: str
    article: str  # {label} {name}
    not_article: str  # {label}
    flag: str  # {flag}
    flag_none: str
    grads: str  # {grads} {done} {planned}
    grads_none: str
    ends_trains: str
    ends_untrained: str
    ends_before: str  # {error} {message}
    ends_at: str  # {error} {step} {message}
    outcome: str  # {outcome} {meaning}
    meanings: dict[str, str]  # what each of scenarios.OUTCOMES means, in this language
    relocations: dict[str, str]  # each `scenarios.Relocation.choice` as the form offers it
    sequence_first: str  # {move}: the first move of a relocation `relocations` has no words for
    sequence_next: str  # {move}: each move after it
    links_between: str  # between the items of a list: a row's links to its pictures, the gradient counts
    lazy_origin: str  # {built_on}: a combination's label, for a model never read before moving
    moved_label: str  # {origin} {written}
    unmoved_label: str  # {origin}
    labels: dict[str, str]  # the methods' labels that have words of their own (the part "labels")
    outcome_names: dict[str, str]  # each of scenarios.OUTCOMES in this language (part "outcome_names")

    def relocation_label(self, choice: str, written: str) -> str:
        """A relocation as the form offers it (`combinations.Relocation`'s `choice` and `written`):
        its own words, or, for a method added since that no words file names yet, its moves in this
        language's order."""
        if choice in self.relocations or not written:
            return self.relocations.get(choice, choice)
        first, *rest = written.split(".")
        return self.sequence_first.format(move=first) + "".join(
            self.sequence_next.format(move=move) for move in rest)

    def combination_label(self, built_on: str, read_first: bool, written: str) -> str:
        """A combination's label in this language from its three choices (`written`: its moves as
        `combinations.Relocation` writes them, empty when not moved)."""
        origin = built_on if read_first else self.lazy_origin.format(built_on=built_on)
        return self.moved_label.format(origin=origin, written=written) if written else (
            self.unmoved_label.format(origin=origin))

    @staticmethod
    def of(language: str) -> Words:
        """The words of `language`'s file."""
        table = dict(words(language, "explorer"))
        return Words(**{**table, "heads": tuple(table["heads"]), "labels": dict(words(language, "labels")),
                        "outcome_names": dict(words(language, "outcome_names"))})


WORDS: dict[str, Words] = {code: Words.of(code) for code in languages()}
"""Each language's words, by Sphinx's `language` code."""
ENGLISH, CHINESE = WORDS["en"], WORDS["zh_CN"]


def words_for(language: str | None) -> Words:
    """The words of `language` (Sphinx's `language`; None or "en" is English)."""
    found = WORDS.get(language or "en")
    if found is None:
        raise NoWordsError(f"the explorer has no words for language {language!r} "
                           f"(it has {', '.join(WORDS)}): "
                           "add its words to bookkit/words/<language>.json "
                           "(explorer_words.py reads them)")
    return found


def templates(words: Words) -> dict[str, str]:
    """Every text of `words` by field name (a tuple's or a dict's items numbered or named)."""
    found: dict[str, str] = {}
    for field in fields(words):
        value = getattr(words, field.name)
        if isinstance(value, tuple):
            found.update({f"{field.name}[{at}]": text for at, text in enumerate(value)})
        elif isinstance(value, dict):
            found.update({f"{field.name}[{name}]": text for name, text in value.items()})
        else:
            found[field.name] = value
    return found
