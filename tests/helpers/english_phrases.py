"""Where a text of the Chinese edition still speaks English: the phrase finder the zh page check
(tests/site/test_zh_phrases.py) and the explanations' tests (tests/book/test_explained.py) share."""

from __future__ import annotations

import re

IDENTIFIER = re.compile(r"""
    [A-Za-z][\w.-]*(?:\(\S*?\)|::[\w:]+|\[\S*?\])        # a call, a path::name, an index
  | [A-Za-z]+[_.][\w.]*                                   # to_device, model.fork, tape.py
  | [a-z]+[A-Z]\w*                                        # camelCase
  | [A-Z][a-z]+[A-Z]\w*                                   # TapeConsumedError, NodeId, GradInBackward
  | [A-Za-z]*-?\d[\w.-]*                                  # v0.22.1, x86_64, arm64, Linux-6.18
  | \.[A-Za-z]\w*                                         # a file's type: .ipynb
  | \S*/\S*                                               # a path or a URL
  | [A-Z]{2,}s?                                           # GPU, URL, APIs
""", re.VERBOSE)
LATIN_RUN = re.compile(r"[A-Za-z][A-Za-z'’-]*(?:[ ,]+[A-Za-z][A-Za-z'’-]*)*")


VERBATIM = (
    # Burn 0.22.1's messages, as the article quotes them, and its source snapshot's
    "Cannot run backward: graph tape has already been consumed at NodeId",
    "Burn does not support retain_graph. Combine losses before backward or recompute the forward pass. "
    "Use detach() only to intentionally sever gradients through the previous computation.",
    "graph tape has already been consumed",
    "Tensor::backward requires a tracked autodiff tensor; call Tensor::autodiff().require_grad() on the "
    "source leaf before computing the output",
    "Tensor::backward requires a tracked autodiff tensor",
    "Node should have a step registered, did you forget to call `Tensor::register_grad` on the tensor "
    "where you need gradients?",
    "Node should have a step registered",
    "Can’t convert a non leaf tensor into a tracked tensor",
    "Can't convert a non leaf tensor into a tracked tensor",
    "Autodiff should not wrap an autodiff tensor.",
    "Cannot move between autodiff and non-autodiff instances",
    # Burn's doc comments
    "The output model will be an intermediary model, meaning that you can’t optimize it with gradient "
    "descent. If you want to optimize the output network on the target device, use fork instead",
    "This method modifies the module in-place",
    "an intermediary model",
    "This should not be used for inference, use valid when using AD modules. This is mostly useful when "
    "performing partial finetuning, which is updating only a small fraction of the parameters instead of "
    "finetuning all of them.",
    "Reinstate the param’s state",
    # PyTorch's documentation and messages (torch 2.13)
    "If the self Tensor already has the correct torch.dtype and torch.device, then self is returned",
    "b was created by the operation that cast a cpu Tensor into a cuda Tensor",
    "Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call .backward() "
    "or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second "
    "time or if you need to access saved tensors after calling backward.",
    # MLX's documentation
    "rather than moving arrays to devices, you specify the device when you run the operation",
    # English interfaces, pages and files the Chinese prose points at: JupyterLab's solution toggle
    # (jupyterlab-myst), the README's heading (the README is English only), MLX's page's title
    "Solution",
    "Map of the code",
    "Unified Memory",
    # the article's output (Burn's Debug print of a tensor)
    "Matrix of shape",
    # pieces of the messages above that a page quotes around code, or a picture breaks into lines
    "Node should have a step registered, did you forget to call",
    "on the tensor where you need gradients?",
    "Cannot run backward:",
    "graph tape has already been consumed at",
    "Reinstate the param’s",
    "state」",
    "intermediary model",
    # PyTorch's documentation of Module.requires_grad_
    "helpful for freezing part of the module for finetuning",
)
"""Sources' own words, quoted verbatim on a zh page (the glossary: messages stay in their words)."""


def english_phrases(text: str, kept: set[str]) -> list[str]:
    """The English phrases of `text`: runs of Latin words with at least one word that is neither an
    identifier nor a kept term, once the verbatim quotations are taken out."""
    text = re.sub(r"\s+", " ", text)
    for quoted in sorted(VERBATIM, key=len, reverse=True):
        text = text.replace(quoted, " ")
    text = re.sub(r"`[^`]*`", " ", text)  # code in a message, as Markdown writes it
    for term in sorted((term for term in kept if not term.isalpha()), key=len, reverse=True):
        text = re.sub(rf"(?<![\w.-]){re.escape(term)}(?![\w-])", " ", text)  # ad-to_device, Ctrl-C
    text = IDENTIFIER.sub(lambda match: " " if re.fullmatch(IDENTIFIER, match[0]) else match[0], text)
    phrases = []
    for run in LATIN_RUN.findall(text):
        words = [word.strip("'’-") for word in re.split(r"[ ,]+", run) if word.strip("'’-")]
        if any(word not in kept and word.lower() not in kept for word in words) and run.strip() not in kept:
            phrases.append(run.strip(" ,"))
    return phrases
