"""The condition parser ships its LALR tables (`grammars/condition.tables`, a Python literal read with
`ast.literal_eval`; no pickle, no cache file): they are current for the grammar and this lark, and the
parser loaded from them parses — and fails — exactly as one built from the grammar."""
from __future__ import annotations

import pytest
from lark import Lark
from lark.exceptions import UnexpectedInput

from rulekit.core.resources import builtin_rulesets, resource_dir
from rulekit.engine.compiler import load_ruleset
from rulekit.language import expr

REGENERATE = ('python -c "from rulekit.language.expr import write_parser_tables; write_parser_tables()"')


@pytest.fixture(scope="module")
def parsers():
    grammar = (resource_dir("grammars") / "condition.lark").read_text(encoding="utf-8")
    return expr._parser(), Lark(grammar, **expr._PARSER_OPTIONS)


def test_the_shipped_tables_are_current(parsers):
    shipped, _ = parsers
    assert shipped.source_path == "<deserialized>", f"grammars/condition.tables is stale: {REGENERATE}"


def _conditions() -> set[str]:
    found = set()
    for name in builtin_rulesets():
        rs = load_ruleset(name, cache=False)
        for section in rs.sections.values():
            for step in section.steps:
                found |= {c.source for c in (step.when, step.where) if c is not None}
    return found


BAD = ["words >", "a == == b", "(x", "x $ y", "not", "f(,)", "[1, 2", "'open", "1 2", "a in", "search('x' 'y')"]


def test_loaded_and_built_parsers_agree(parsers):
    shipped, built = parsers
    sources = _conditions() | {"meta.a == -3.5 * (2 + x) % 4", "f()", "[]", "not not true or false and x in [1]",
                               "a not in b", "-(-1) <= 2", "isupper(before(text, '\\n'))"}
    assert len(sources) > 20
    for source in sorted(sources):
        assert shipped.parse(source) == built.parse(source), source
    for source in BAD:
        outcomes = []
        for parser in (shipped, built):
            with pytest.raises(UnexpectedInput) as info:
                parser.parse(source)
            exc = info.value
            outcomes.append((type(exc).__name__, getattr(exc, "column", None), sorted(getattr(exc, "expected", ()) or ()),
                             expr._describe(exc, source)))
        assert outcomes[0] == outcomes[1], source
