"""`(?py)` patterns: Python `re`'s meaning of \\s, \\w, \\b on top of the `regex` module (issue 16)."""
from __future__ import annotations

import re
import sys
import unicodedata

import pytest
import regex

from rulekit.core.errors import RulesetError
from rulekit.core.regex import compile_regex, python_re_classes


def test_word_and_space_classes_equal_python_re_on_every_assigned_code_point():
    """Every code point Python's own Unicode tables know (the `regex` module's tables may be newer)."""
    w = compile_regex(r"(?py)\w", None)
    s = compile_regex(r"(?py)\s", None)
    nw = compile_regex(r"(?py)\W", None)
    differ = []
    for cp in range(sys.maxunicode + 1):
        c = chr(cp)
        if unicodedata.category(c) == "Cn":
            continue
        if (bool(re.match(r"\w", c)) != bool(w.match(c)) or bool(re.match(r"\s", c)) != bool(s.match(c))
                or bool(re.match(r"\W", c)) != bool(nw.match(c))):
            differ.append(hex(cp))
    assert differ == []


@pytest.mark.parametrize("pattern, text", [
    (r"(?i)\b([A-D])\b", "S = a² = 2, so b"),          # "²" is a word character for re, not for regex
    (r"(?i)\b([A-D])\b", "x\u0301 a\u0301 c"),         # combining marks: not word characters for re
    (r"answer\s+(\w)", "answer\x1cB"),                  # \x1c-\x1f are whitespace for re
    (r"[\s.]+(\w)", ".\x1f.C"),                         # \s inside a set
    (r"\B(B)\B", "ABC ²B² B"),
])
def test_py_patterns_find_what_python_re_finds(pattern, text):
    ours = compile_regex("(?py)" + pattern, None)
    assert ours.findall(text) == re.findall(pattern, text)


def test_escapes_sets_and_literals_are_kept():
    assert python_re_classes(r"\\s[]\s]\[\s\]") == r"\\s[]\s\x1c-\x1f]\[[\s\x1c-\x1f]\]"
    assert regex.compile(python_re_classes(r"[^\s]")).match("\x1c") is None


def test_negated_shorthand_inside_a_set_is_refused():
    with pytest.raises(RulesetError, match="inside"):
        compile_regex(r"(?py)[\S.]", None)
