"""Hypothesis generators for the untrusted-ruleset shapes of issue 14: alias graphs, nesting depth,
encodings, huge numbers and names. Every generated ruleset either loads or is refused with a
located `error[CODE]` (never another exception, never a hang or a memory blow-up); every ruleset
name gives a decisions file name that stays one safe path component, unique within a run.

Input-side shapes (FIFOs, stdin, truncated and corrupt files) are in test_fuzz_inputs.py.
"""
from __future__ import annotations

import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulekit.engine.compiler import load_ruleset
from rulekit.core.errors import ErrorGroup, RulekitError
from rulekit.run.evaluate import decisions_file_name, unique_names

pytestmark = pytest.mark.slow  # property-based fuzzing of untrusted rulesets

SCALE = int(os.environ.get("RULEKIT_FUZZ_SCALE", "1"))
_SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
BODY = 'multiple-choice:\n  steps:\n    - id: x\n      find: {literal: "{letter}"}\n'


def _loads_or_is_located(path) -> None:
    """Loading either works or raises RulekitErrors that each render with a file:line:col head."""
    try:
        load_ruleset(str(path))
    except RulekitError as exc:
        for error in (exc.errors if isinstance(exc, ErrorGroup) else [exc]):
            text = error.render()
            assert "error[" in text and "Traceback" not in text
            if error.code in ("E101", "E108", "E204", "E122"):
                assert error.loc is not None and error.loc.line > 0, text


@st.composite
def alias_graphs(draw):
    """A YAML document whose anchors reference earlier anchors, fan-out and depth drawn: some stay
    tiny and some would expand to billions of nodes. The anchors sit where a ruleset allows a list
    (`metrics: breakdown:`) or where it does not (top-level keys, `summary:`)."""
    rng = random.Random(draw(st.integers(0, 2**32)))
    levels, fan = draw(st.integers(1, 12)), draw(st.integers(1, 12))
    nodes = ['&a0 ["x", "y"]'] + [f"&a{i} [{', '.join(f'*a{rng.randrange(i)}' for _ in range(fan))}]"
                                  for i in range(1, levels)]
    where = draw(st.sampled_from(["breakdown", "summary", "top"]))
    if where == "top":
        return "".join(f"k{i}: {n}\n" for i, n in enumerate(nodes)) + "ruleset: g\n" + BODY
    listing = "[" + ", ".join(nodes) + "]"
    if where == "summary":
        return f"ruleset: g\nsummary: {listing}\n" + BODY
    return f"ruleset: g\n{BODY}metrics:\n  breakdown: {listing}\n"


@settings(max_examples=60 * SCALE, **_SETTINGS)
@given(text=alias_graphs())
def test_alias_graphs_load_or_are_refused(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("alias") / "r.yaml"
    path.write_text(text, encoding="utf-8")
    _loads_or_is_located(path)


@settings(max_examples=40 * SCALE, **_SETTINGS)
@given(depth=st.integers(1, 400), kind=st.sampled_from(["flow", "block", "mapping"]))
def test_nesting_depth_loads_or_is_refused(tmp_path_factory, depth, kind):
    if kind == "flow":
        nested = "[" * depth + "]" * depth
        text = f"ruleset: d\nsummary: {nested}\n" + BODY
    elif kind == "block":
        text = "ruleset: d\nsummary:\n" + "".join("  " * i + "-\n" for i in range(1, depth)) + BODY
    else:
        text = "ruleset: d\nsummary:\n" + "".join("  " * i + "k:\n" for i in range(1, depth)) + BODY
    path = tmp_path_factory.mktemp("depth") / "r.yaml"
    path.write_text(text, encoding="utf-8")
    _loads_or_is_located(path)


@settings(max_examples=80 * SCALE, **_SETTINGS)
@given(prefix=st.binary(max_size=40), bad=st.binary(min_size=1, max_size=4),
       encoding=st.sampled_from(["utf-8", "latin-1", "utf-16", "cp1252"]))
def test_any_bytes_in_a_ruleset_are_located(tmp_path_factory, prefix, bad, encoding):
    text = f"ruleset: enc\nsummary: 'caf\u00e9 \u2013 {len(prefix)}'\n" + BODY
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError:
        data = text.encode("utf-8")
    cut = len(data) // 2
    path = tmp_path_factory.mktemp("enc") / "r.yaml"
    path.write_bytes(data[:cut] + prefix + bad + data[cut:])
    _loads_or_is_located(path)


@settings(max_examples=60 * SCALE, **_SETTINGS)
@given(digits=st.integers(1, 6000), op=st.sampled_from([">", "<", "==", "*", "+"]))
def test_huge_number_literals_load_or_are_refused(tmp_path_factory, digits, op):
    number = "9" * digits
    cond = f"words {op} {number}" if op in (">", "<", "==") else f"words {op} {number} > 1"
    path = tmp_path_factory.mktemp("num") / "r.yaml"
    path.write_text(f'ruleset: n\nmultiple-choice:\n  steps:\n    - id: x\n      when: "{cond}"\n'
                    '      find: {literal: "{letter}"}\n', encoding="utf-8")
    _loads_or_is_located(path)


NASTY = ["/", "..", "\\", "\x00", "\n", "\x1b[31m", "[/]", "[bold]", "~", "$HOME", " ", ".", "-", "é", "\u202e", ":"]


@settings(max_examples=300 * SCALE, **_SETTINGS)
@given(names=st.lists(st.lists(st.sampled_from(NASTY) | st.text(max_size=3), max_size=12).map("".join), min_size=1,
                      max_size=6))
def test_decisions_file_names_are_one_safe_component_and_unique(names):
    files = [decisions_file_name(n) for n in names]
    for f in files:
        assert "/" not in f and "\x00" not in f and not f.startswith((".", "-"))
        assert ".." not in f.removesuffix(".decisions.jsonl")
        assert all(c.isalnum() or c in "._@+=-" for c in f) and f.isascii()
        assert len(f) <= 140
    stems = unique_names([f.removesuffix(".decisions.jsonl") for f in files])
    assert len(set(stems)) == len(stems)
