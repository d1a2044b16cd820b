"""rulekit/core/pyliteral.py: literal arithmetic read as Python's eval reads it, and nothing else run.

The oracle is Python's own `eval` on the fixed, trusted expressions of this file: the `arithmetic`
compare must give what MathVista's / MATH-Vision's `eval(text)` gives wherever it gives a value.
"""
from __future__ import annotations

import math

import pytest

from rulekit.core.pyliteral import MAX_INT_BITS, Unreadable, read_literal

SAME_AS_EVAL = ["3", " 3", "\t-3", "3\n", "[1, 2]", "[1-2]", "[--1]", "[1., 2]", "[.5, -0.5]", "(1, 2)", "[1,]", "[ ]",
                "1/2", "7//2", "7 % 3", "10^3", "2**10", "2**-1", "6 & 3", "6 | 3", "1 << 4", "~5", "+4", "not 0",
                "'3'", "'a' + 'b'", "[1] + [2]", "{1, 2}", "{'a': 1}", "True", "None", "1_000", "1e3", "3j",
                "(-8) ** 0.5", "((((1))))", "[[1, [2]], 3]", "0.1 + 0.2"]
NOT_READ = ["", "01", "[01]", "a", "x + 1", "sum([])", "__import__('os')", "().__class__", "[1][0]", "1 < 2",
            "1 and 2", "[x for x in ()]", "lambda: 1", "1/0", "2.0 ** 10000", "[1] * 3", "'%s' % 1", "{**{}}",
            "f'{1}'", "\\frac{1}{2}", "[1..2]", "[1 2]", "1;2", "9 ** 9 ** 9", "1 << 10**7", "'a\x00'", "{[1]: 2}"]


@pytest.mark.parametrize("text", SAME_AS_EVAL)
def test_literal_arithmetic_reads_as_eval_does(text):
    expected = eval(text)  # noqa: S307 - trusted test data: the oracle
    got = read_literal(text)
    assert got == expected or (isinstance(got, complex) and abs(got - expected) < 1e-12)
    assert type(got) is type(expected)


@pytest.mark.parametrize("text", NOT_READ)
def test_anything_but_literal_arithmetic_is_unreadable(text):
    with pytest.raises(Unreadable):
        read_literal(text)


def test_names_are_read_only_when_given():
    assert read_literal("a", {"a": 6}) == 6
    assert read_literal("[a, -a]", {"a": 2}) == [2, -2]
    with pytest.raises(Unreadable):
        read_literal("b", {"a": 6})


def test_size_limits_refuse_before_computing():
    assert read_literal("2 ** 1000") == 2 ** 1000
    with pytest.raises(Unreadable):
        read_literal(f"2 ** {MAX_INT_BITS + 1}")
    with pytest.raises(Unreadable):
        read_literal("[" + "[" * 5000 + "]" * 5000 + "]")
    with pytest.raises(Unreadable):
        read_literal("1" * 20_000)
    assert math.isinf(read_literal("1e400"))
