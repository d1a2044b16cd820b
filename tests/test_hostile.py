"""The hostile-reply generator (tests/hostile.py) makes what it promises: the same records for the same
arguments, every reply class and shape, loops up to 64k characters, the odd golds and characters
the fidelity tests rely on."""
from __future__ import annotations

import random

import pytest

import hostile


@pytest.mark.parametrize("shape", hostile.SHAPES)
def test_records_are_deterministic_and_corpus_shaped(shape):
    a = list(hostile.records(shape, 120, seed=3))
    assert a == list(hostile.records(shape, 120, seed=3))
    assert a != list(hostile.records(shape, 120, seed=4))
    assert len({r["id"] for r in a}) == 120
    for r in a:
        assert set(r) == {"id", "benchmark", "question_type", "question", "choices", "answer", "response", "meta"}
        assert isinstance(r["response"], str) and len(r["response"]) <= 65536
        assert r["question_type"] in ("multiple-choice", "open")
        assert r["id"].rsplit("/", 1)[1] in hostile.CLASSES


def test_every_class_and_the_hostile_material_occurs():
    rs = [r for shape in hostile.SHAPES for r in hostile.records(shape, 400, seed=0)]
    text = "".join(r["response"] for r in rs)
    assert {r["id"].rsplit("/", 1)[1] for r in rs} == set(hostile.CLASSES)
    assert max(len(r["response"]) for r in rs) == 65536
    assert sum(r["response"].strip() == "" for r in rs) >= 100
    for needle in ["**", "```", "|---|", "<think>", "</think>", "<answer>", "\\boxed{", "ı", "ſ", "\u212a", "\u00a0",
                   "\u200b", "\x1c", "Wait, actually"]:
        assert needle in text, needle
    assert any(ord(c) >= 0xFF21 and ord(c) <= 0xFF5A for c in text)  # fullwidth letters
    assert any(c in text for c in "".join(hostile.NEWER_DIGITS) + "".join(hostile.NEWER_LETTERS))
    golds = [r["answer"] for r in rs]
    for odd in [True, None, 1, "None", "True", "Unknown"]:
        assert any(g == odd and type(g) is type(odd) for g in golds), odd
    assert any(isinstance(g, str) and g.startswith("['") for g in golds)  # list literals
    assert any(isinstance(g, list) for g in golds)
    blank_options = [r for r in rs if r["choices"] and any(not v.strip() for v in r["choices"].values())]
    assert len(blank_options) >= 50


def test_reply_classes_and_lookalikes_on_their_own():
    rng = random.Random(0)
    loops = [hostile.reply(rng, "loop", "mcq", "B", triggers=("The answer is ",)) for _ in range(200)]
    assert any(len(x) == 65536 for x in loops) and any("The answer is The answer is" in x for x in loops)
    changed = {hostile.lookalike(rng, "The answer is B") for _ in range(300)}
    assert "The answer is B" not in changed or len(changed) > 50
    with pytest.raises(ValueError, match="unknown reply class"):
        hostile.reply(rng, "nonsense", "mcq", "A")
    with pytest.raises(ValueError, match="unknown shape"):
        list(hostile.records("nonsense", 1))


def test_meta_callback_adds_benchmark_fields():
    rs = list(hostile.records("number", 20, meta=lambda rng, r: {"task": rng.choice(["Grid", "Circled Letter"])}))
    assert {r["meta"]["task"] for r in rs} == {"Grid", "Circled Letter"}


def test_near_replies_sit_around_the_tolerances():
    rng = random.Random(5)
    values = [hostile.near(rng, "1.25") for _ in range(400)]
    numbers = []
    for v in values:
        try:
            numbers.append(float(v.strip().rstrip("%").lstrip("+")))
        except ValueError:
            pass
    gaps = {abs(x - 1.25) for x in numbers}
    assert any(0 < g < 1e-6 for g in gaps) and any(0.009 < g < 0.011 for g in gaps) and any(g > 0.05 for g in gaps)
    assert hostile.near(rng, "STOP") == "STOP"
    rs = list(hostile.records("number", 30, classes=("near",)))
    assert all(r["id"].endswith("/near") for r in rs)
def test_framework_class_brings_the_framework_scorers_phrases():
    """FRAMEWORK_CLASSES adds "framework" replies (tests/fidelity/frameworks) without changing what the
    default classes draw."""
    kw = dict(classes=hostile.FRAMEWORK_CLASSES, triggers=hostile.FRAMEWORK_TRIGGERS["mcq"])
    rs = list(hostile.records("mcq", 2200, seed=1, **kw))
    assert rs == list(hostile.records("mcq", 2200, seed=1, **kw))
    assert {r["id"].rsplit("/", 1)[1] for r in rs} == set(hostile.FRAMEWORK_CLASSES)
    assert hostile.CLASSES == hostile.FRAMEWORK_CLASSES[:-1] and "framework" not in hostile.CLASSES
    text = "".join(r["response"] for r in rs if r["id"].endswith("/framework"))
    for needle in ["Cannot determine the answer", "Failed to obtain answer via API", "**Output: ", "Final Answer: ",
                   "The correct answer is **", "<answer>", "\\boxed{", "answer\x1cis", "(A)", "\u2028", "ANſWER"]:
        assert needle in text, needle
    for shape in hostile.SHAPES:
        out = [hostile.reply(random.Random(i), "framework", shape, "3") for i in range(60)]
        assert all(isinstance(x, str) and len(x) <= 65536 for x in out)
