"""The engine's explanations in Chinese, Burn's words verbatim (mlx_autodiff/explained.py)."""

from __future__ import annotations

import re

import pytest

from mlx_autodiff import Device, Tensor
from mlx_autodiff.errors import AutodiffError
from mlx_autodiff.explained import explained
from mlx_autodiff.scenarios import run
from mlx_autodiff.words import words

HAN = re.compile(r"[\u4e00-\u9fff]")


def burns_words(message: str) -> str:
    return message.split("\n\n")[0]


def op_consumed_message() -> str:
    x = Tensor.ones([2], Device.metal().autodiff()).require_grad()
    y = x.exp()
    y.sum().backward()
    with pytest.raises(AutodiffError) as caught:
        (y.exp()).sum().backward()
    return str(caught.value)


@pytest.mark.parametrize("case", ["ad-to_device", "plain-to_device", "op"])
def test_the_explanation_is_chinese_and_burns_words_stay(case: str) -> None:
    message = op_consumed_message() if case == "op" else run(case, steps=2).error.message
    chinese = explained(message, "zh_CN")
    assert burns_words(chinese) == burns_words(message), "Burn's words must stay verbatim"
    explanation = chinese[len(burns_words(message)):]
    assert "What happened" not in explanation and "Fix:" not in explanation, explanation
    assert HAN.search(explanation), explanation
    assert explained(message, "en") == explained(message, None) == message


def test_a_message_a_chapter_wrapped_is_explained_too() -> None:
    """Chapter 5 prints the message wrapped at 76 columns (textwrap.fill): newlines inside sentences."""
    import textwrap

    message = run("ad-to_device", steps=2).error.message
    wrapped = "\n\n".join(textwrap.fill(paragraph, 76) for paragraph in message.split("\n\n"))
    chinese = explained(wrapped, "zh_CN")
    assert "What happened" not in chinese and "发生了什么" in chinese
    assert chinese.startswith(burns_words(wrapped))


def test_a_message_without_a_known_sentence_is_unchanged() -> None:
    assert explained("Something else entirely.", "zh_CN") == "Something else entirely."


def test_no_sentence_ends_with_a_placeholder() -> None:
    """A sentence is found inside a message: a trailing {name} would match one character. (A phrase
    is matched against a whole value, so it may end with one.)"""
    for language in ("en", "zh_CN"):
        for key, template in words(language, "explained")["sentences"].items():
            assert not template.endswith("}"), f"{language}: {key}"
