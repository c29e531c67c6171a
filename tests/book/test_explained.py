"""The engine's explanations in Chinese, Burn's words verbatim (bookkit/words/explained.py)."""

from __future__ import annotations

import re

import mlx.core as mx
import pytest

from bookkit.runs.scenarios import run
from bookkit.words import words
from bookkit.words.explained import explained
from mlx_autodiff import Device, Param, ParamId, Tensor
from mlx_autodiff.errors import AutodiffError

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


# ----- every engine error a chapter shows, and the step-0 guard's messages (issue 40) ------------------

def _raised(make) -> str:
    try:
        make()
    except AutodiffError as error:
        return f"{type(error).__name__}: {error}"
    raise AssertionError("nothing raised")


def _guarded(model, steps: int = 1) -> str:
    from mlx_autodiff import Distribution, MseLoss
    from mlx_autodiff.guard import TrainingGuard

    guard = TrainingGuard(model, check_flags=False)
    if steps > 1:
        guard.check_gradients = lambda *args: None  # let step 0 through to reach step 1's error
    metal = Device.metal().autodiff()
    metal.seed(1)
    x = Tensor.random([8, 4], Distribution.uniform(-1.0, 1.0), metal)

    def loop() -> None:
        for step in range(steps):
            guard.backward(step, MseLoss().forward(model.forward(x), x.sum_dim(1)), model)

    return _raised(loop)


def _guard_off(flex: Device, metal: Device, how: str) -> None:
    """The guard's three messages for a count that is off though no parameter meant to train missed its
    gradient: a bias frozen after the guard was made ("freeze"), a bias flagged frozen whose tensor still
    tracks ("flag", made through the private `Param._with`), another model's gradients too ("other")."""
    from bookkit.runs.methods import initialized
    from mlx_autodiff import GradientsParams, MseLoss
    from mlx_autodiff.guard import TrainingGuard

    model = initialized(flex).fork(metal)
    x = Tensor.ones([8, 4], metal)
    if how == "other":
        other = initialized(flex).fork(metal)
        raw = MseLoss().forward(model.forward(x) + other.forward(x), x.sum_dim(1)).backward()
        grads = GradientsParams.from_grads(raw, model)
        for param in other.params():
            grads._grads[param.id] = raw.get(param.val())
        TrainingGuard(model).check_gradients(0, grads, model)
    bias = {"freeze": lambda param: param.no_grad(),  # after the guard was made
            "flag": lambda param: param._with(param.val(), require_grad=False)}[how]  # before
    changed = model.map_params(lambda param: bias(param) if param.name == "bias" else param)
    guard = TrainingGuard(model if how == "freeze" else changed, check_flags=False)
    guard.backward(0, MseLoss().forward(changed.forward(x), x.sum_dim(1)), changed)


def engine_messages() -> dict[str, str]:
    from bookkit.runs.methods import initialized
    from mlx_autodiff.guard import assert_trainable

    flex, metal = Device.flex().autodiff(), Device.metal().autodiff()

    def twice() -> None:
        loss = Tensor.ones([2], flex).require_grad().exp().sum()
        loss.backward()
        loss.backward()

    return {
        "NonLeafRequireGradError": _raised(lambda: Tensor.ones([2], flex).require_grad().to_device(metal)
                                           .require_grad()),
        "MissingRootStepError": _raised(twice),
        "AlreadyAutodiffError": _raised(lambda: Tensor.from_inner(Tensor.ones([2], metal))),
        "AlreadyAutodiffError (a to_device output)": _raised(lambda: Tensor.from_inner(
            Tensor.ones([2], flex).require_grad().to_device(metal))),
        "AutodiffMoveError": _raised(lambda: Tensor.ones([2], flex).to_device(Device.metal())),
        "NotTrainableError (to_device)": _raised(lambda: assert_trainable(
            initialized(flex).to_device(metal))),
        "NotTrainableError (plain)": _raised(lambda: assert_trainable(
            initialized(Device.flex()).fork(metal))),
        "MissingGradientsError": _guarded(initialized(flex).to_device(metal)),
        "the guard's advice": _guarded(initialized(flex).to_device(metal), steps=2),
        **{f"MissingGradientsError ({why})": _raised(lambda how=how: _guard_off(flex, metal, how))
           for how, why in (("freeze", "a guard made before a freeze"),
                            ("flag", "a tracked tensor flagged frozen"),
                            ("other", "another model's gradients"))},
        "EmptyParamError (a parameter made by hand from a read one's fields, issue 39's third learner)":
            _raised(lambda: Param(ParamId.new(), "weight", metal, (4, 1), True).val()),
    }


MESSAGES = engine_messages()


@pytest.mark.parametrize("case", MESSAGES)
def test_every_error_a_page_shows_is_explained_in_chinese(case: str) -> None:
    """Chapters 3, 5, 8a, 10, 11 and 12 show these: the engine's sentences in Chinese, Burn's verbatim,
    wrapped or not (a chapter may print a message at 76 columns)."""
    import textwrap

    from english_phrases import VERBATIM, english_phrases

    message = MESSAGES[case]
    kept = {"backward", "loss", "tape", "autodiff", "GRAD", "fork", "metal", "flex", "weight", "bias"}  # kept
    for text in (message, "\n".join(textwrap.fill(line, 76) for line in message.splitlines())):
        chinese = explained(text, "zh_CN")
        assert HAN.search(chinese), chinese
        assert english_phrases(re.sub(r"^\w+Error: ", "", chinese), kept) == [], chinese
        for quoted in VERBATIM:
            assert (quoted in re.sub(r"\s+", " ", text)) == (quoted in re.sub(r"\s+", " ", chinese)), quoted


def test_messages_printed_one_after_another_are_each_explained() -> None:
    """Chapter 12 prints three guard messages in one output, wrapped and indented: a sentence of one
    must not be found across two (`{n} of {total} ...` from a word of the message before it)."""
    import textwrap

    from english_phrases import english_phrases

    cases = ["NotTrainableError (to_device)", "NotTrainableError (plain)", "MissingGradientsError"]
    printed = "\n\n".join("\n".join(textwrap.fill(f"{case}: {line}", 76, subsequent_indent="    ")
                                    for line in MESSAGES[case].splitlines()) for case in cases)
    chinese = explained(printed, "zh_CN")
    kept = {"backward", "loss", "autodiff", "fork", "metal", "flex", "weight", "bias", "NotTrainableError",
            "MissingGradientsError", "to_device", "plain"}
    assert english_phrases(re.sub(r"\w+Error: ", "", chinese), kept) == [], chinese


@pytest.mark.parametrize("backend", [None, "metal", "cuda"])
def test_what_a_device_says_it_is_reads_in_chinese(monkeypatch: pytest.MonkeyPatch,
                                                   backend: str | None) -> None:
    """`Device.describe()` is printed on the index page and appendices 1 and 2: the Chinese pages
    write it in Chinese, on a build machine with a GPU or without one."""
    from mlx_autodiff import device

    monkeypatch.setattr(device, "accelerator_backend", lambda: backend)
    for said in (Device.flex().describe(), Device.metal().describe(), Device.metal().autodiff().describe()):
        chinese = explained(f"metal.autodiff | {said}", "zh_CN")
        english = re.search(r"\b(the|backed|through|build)\b", chinese)
        assert chinese != f"metal.autodiff | {said}" and "：" in chinese and not english, chinese


def _shape_and_record_errors() -> list[str]:
    """The engine's ShapeError and RecordError messages, as a verdict quotes them (issue 39's fifth
    learner: a Chinese verdict quoted them in English alone)."""
    from mlx_autodiff import LinearConfig
    from mlx_autodiff.errors import RecordError, ShapeError

    device = Device.metal().autodiff()
    a, b = Tensor.ones([2, 3], device), Tensor.ones([2, 3], device)
    model = LinearConfig(4, 1).init(device)
    tries = [lambda: a.matmul(b), lambda: a + Tensor.ones([2, 4], device), lambda: a.into_scalar(),
             lambda: a.reshape([4, 2]), lambda: model.weight.load(mx.ones([2, 2])),
             lambda: Tensor.ones([3], device).transpose(), lambda: a.sum_dim(2),
             lambda: Tensor.zeros([0, 4], device), lambda: LinearConfig(0, 1),
             lambda: model.load_record({"weight": mx.ones([4, 1]), "extra": mx.ones([1])}),
             lambda: model.load_record({"weight": mx.ones([4, 1]), "bias": mx.ones([1]),
                                        "extra": mx.ones([1])})]
    messages = []
    for attempt in tries:
        with pytest.raises((ShapeError, RecordError)) as caught:
            attempt()
        messages.append(str(caught.value))
    return messages


KEPT_IN_SHAPES = {"dim", "transpose", "reshape", "weight", "bias", "extra"}  # code and parameter names


def test_shape_and_record_errors_are_explained_in_chinese() -> None:
    """Every ShapeError the engine raises (nn.py, shapes.py, tensor.py, module.py) and its RecordError."""
    from english_phrases import english_phrases

    for message in _shape_and_record_errors():
        chinese = explained(message, "zh_CN")
        assert HAN.search(chinese) and english_phrases(chinese, KEPT_IN_SHAPES) == [], chinese
        assert explained(message, "en") == message
    assert "缺少的键：无" in explained(_shape_and_record_errors()[-1], "zh_CN")  # "nothing" is a phrase
