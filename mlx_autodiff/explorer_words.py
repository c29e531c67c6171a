"""The relocation explorer's words, one set per edition of the book (English, Chinese).

The book's prose is translated through gettext catalogs (`locale/`), but the
explorer's form, answers and tables are written by Python while the book is
built, so gettext never sees them: their words live here instead, one `Words`
per language, and tests/test_explorer.py checks that every language fills
every template with the same placeholders as English. Identifiers, error
types and Burn's messages stay English in every language, as in the article.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from .scenarios import OUTCOMES
from .words import NoWordsError


@dataclass(frozen=True)
class Words:
    """Every piece of text the explorer shows; `{name}` fields are filled in by mlx_autodiff.explorer."""

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


ENGLISH = Words(
    form="Relocation explorer",
    built_on="Built on",
    read_first="Parameters read before moving",
    relocation="How it is moved",
    plain="flex (plain)",
    yes="yes",
    no="no",
    seven="The article's seven:",
    others="Also in chapter 8:",
    whole_message="The whole error message",
    no_graph="No graph: this run raised before its first backward pass.",
    graph_caption="The graph after the first backward pass.",
    curve_caption="The loss at each completed step, with its gradient count.",
    noscript="The three choices need JavaScript, which is off: the tables below give every "
             "combination's outcome, with links to its pictures.",
    runs="Every combination, trained with Adam for up to {steps} steps in a fresh process ({runs} runs):",
    steps_or=" or ",
    table_caption="Built on {built_on}",
    heads=("Read before moving", "How it is moved", "Article's method", "require_grad",
           "Gradients per step", "Ends"),
    none="none",
    before_training="before training",
    at_step="at step {step}",
    graph_link="graph",
    curve_link="loss curve",
    article="{label}: the article's method {name}.",
    not_article="{label}: not one of the article's seven methods.",
    flag="require_grad before training: {flag}.",
    flag_none="require_grad before training: none, the model never reached training.",
    grads="Gradients per completed step: {grads} ({done} of {planned} steps completed).",
    grads_none="Gradients per completed step: none, no step completed.",
    ends_trains="Ends: trains.",
    ends_untrained="Ends: no error, but nothing was trained.",
    ends_before="Ends: {error} before training, while building or moving the model: {message}",
    ends_at="Ends: {error} at step {step}: {message}",
    outcome="Outcome: {outcome} ({meaning}).",
    meanings=OUTCOMES,
)

CHINESE = Words(
    form="搬法探索器",
    built_on="建在哪里",
    read_first="搬之前读过参数",
    relocation="怎么搬",
    plain="flex（普通设备）",
    yes="是",
    no="否",
    seven="文章的七种搬法：",
    others="第 8 章另有：",
    whole_message="完整的错误信息",
    no_graph="没有图：这次运行在第一次 backward 之前就出错了。",
    graph_caption="第一次 backward 之后的图。",
    curve_caption="每个完成的步里的 loss，以及它的梯度个数。",
    noscript="这三个选项需要 JavaScript，而它现在是关着的：下面的表格列出了每种组合的结局，"
             "并附有它的图的链接。",
    runs="每种组合都在一个新进程里用 Adam 训练，最多 {steps} 步（共 {runs} 次运行）：",
    steps_or=" 或 ",
    table_caption="建在 {built_on} 上",
    heads=("搬之前读过", "怎么搬", "文章的搬法", "require_grad", "每步的梯度个数", "结局"),
    none="无",
    before_training="训练之前",
    at_step="第 {step} 步",
    graph_link="图",
    curve_link="loss 曲线",
    article="{label}：文章的搬法 {name}。",
    not_article="{label}：不在文章的七种搬法之中。",
    flag="训练前的 require_grad：{flag}。",
    flag_none="训练前的 require_grad：无，模型没能走到训练这一步。",
    grads="每个完成的步的梯度个数：{grads}（{planned} 步里完成了 {done} 步）。",
    grads_none="每个完成的步的梯度个数：无，一步也没完成。",
    ends_trains="结果：能训练。",
    ends_untrained="结果：没有报错，但什么也没训练到。",
    ends_before="结果：训练之前，在建模型或搬模型时就抛出 {error}：{message}",
    ends_at="结果：第 {step} 步抛出 {error}：{message}",
    outcome="结局：{outcome}（{meaning}）。",
    meanings={
        "trains": "每一步都收集到了梯度，没有报错",
        "no-gradients": "没有报错，但有的步收集到 0 个梯度（什么也没训练到）",
        "silent-then-crash": "先是几步 0 个梯度，然后报错",
        "crash-at-step-0": "第 0 步就出错，在前向或 backward 里",
        "crash-later": "先是几步有梯度，然后报错",
        "crash-before-training": "建模型或搬模型时就出错",
    },
)

WORDS: dict[str, Words] = {"en": ENGLISH, "zh_CN": CHINESE}
"""Each language's words, by Sphinx's `language` code."""


def words_for(language: str | None) -> Words:
    """The words of `language` (Sphinx's `language`; None or "en" is English)."""
    found = WORDS.get(language or "en")
    if found is None:
        raise NoWordsError(f"the explorer has no words for language {language!r} "
                           f"(it has {', '.join(WORDS)}): "
                           "add a Words for it to mlx_autodiff/explorer_words.py")
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
