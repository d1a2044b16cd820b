"""The condition parser's LALR tables are kept as a Python literal (read with `ast.literal_eval`; no pickle):
shipped in `grammars/condition.tables` for the grammar as it is, or — under another lark version — made
once and kept in the cache directory. A parser loaded from them parses, and fails, exactly as one built
from the grammar; a damaged tables file is never used."""
from __future__ import annotations

import lark
import pytest
from lark import Lark
from lark.exceptions import UnexpectedInput

from rulekit.core.cachefiles import seal, unseal
from rulekit.core.resources import builtin_rulesets, resource_dir
from rulekit.engine.compiler import load_ruleset
from rulekit.language import expr

REGENERATE = 'python -c "from rulekit.language.expr import write_parser_tables; write_parser_tables()"'
GRAMMAR = (resource_dir("grammars") / "condition.lark").read_text(encoding="utf-8")


@pytest.fixture
def fresh_parser(tmp_path, monkeypatch):
    """`expr._parser` forgotten, with a cache directory of the test's own; forgotten again afterwards."""
    monkeypatch.setenv("RULEKIT_CACHE_DIR", str(tmp_path / "cache"))
    expr._parser.cache_clear()
    yield tmp_path / "cache" / "rulesets"
    expr._parser.cache_clear()


def _shipped_header() -> str:
    return (resource_dir("grammars") / expr._TABLES).read_text(encoding="utf-8").partition("\n")[0]


def test_the_shipped_tables_match_the_grammar():
    grammar_part = expr._tables_header(GRAMMAR).split(", lark ")[0]
    assert _shipped_header().split(", lark ")[0] == grammar_part, f"grammars/condition.tables is stale: {REGENERATE}"


def test_tables_come_from_the_wheel_or_from_the_one_build_kept(fresh_parser):
    """With the lark that made the shipped tables they are used as they are; with another lark the parser
    is built once, its tables kept, and the next process loads those."""
    first = expr._parser()
    kept = list(fresh_parser.glob("parser-*.tables"))
    if _shipped_header() == expr._tables_header(GRAMMAR):
        assert first.source_path == "<deserialized>" and kept == []
    else:  # e.g. the [vllm] extra pins another lark
        assert first.source_path != "<deserialized>" and len(kept) == 1
        assert kept[0].read_bytes().startswith(f"{expr._tables_header(GRAMMAR)}\n".encode())
    expr._parser.cache_clear()
    assert expr._parser().source_path == "<deserialized>"


def test_damaged_kept_tables_are_not_used(fresh_parser, monkeypatch):
    """Kept tables are untrusted: a file that is not a literal (here, code) or does not load is rebuilt."""
    header = expr._tables_header(GRAMMAR)
    kept, key = expr._kept_tables(header)
    kept.write_bytes(seal(f"{header}\n__import__('os').system('touch PWNED')\n".encode(), key))
    monkeypatch.setattr(expr, "_TABLES", "no-such-file.tables")  # the kept file is the only one there
    assert expr._parser().source_path != "<deserialized>"
    assert not (fresh_parser.parent.parent / "PWNED").exists()
    assert kept.read_text(encoding="utf-8").startswith(header + "\n{")  # rewritten from the build
    expr._parser.cache_clear()
    assert expr._parser().source_path == "<deserialized>"


def test_kept_tables_not_sealed_with_the_users_key_are_not_used(fresh_parser, monkeypatch):
    """Kept tables change how every condition parses: a file there that this user's rulekit did not write
    (well-formed tables without the HMAC of the user's key, or sealed with another key) is never loaded."""
    header = expr._tables_header(GRAMMAR)
    kept, key = expr._kept_tables(header)
    text = expr._tables_text(Lark(GRAMMAR, **expr._PARSER_OPTIONS), header).encode()
    monkeypatch.setattr(expr, "_TABLES", "no-such-file.tables")
    for forged in (text, seal(text, b"k" * 32)):
        kept.write_bytes(forged)
        expr._parser.cache_clear()
        assert expr._parser().source_path != "<deserialized>", "tables without the user's seal were loaded"
        assert unseal(kept.read_bytes(), key).startswith(header.encode() + b"\n{")  # rebuilt, and sealed
    expr._parser.cache_clear()
    assert expr._parser().source_path == "<deserialized>"


def _conditions() -> set[str]:
    found = set()
    for name in builtin_rulesets():
        rs = load_ruleset(name, cache=False)
        for section in rs.sections.values():
            for step in section.steps:
                found |= {c.source for c in (step.when, step.where) if c is not None}
    return found


BAD = ["words >", "a == == b", "(x", "x $ y", "not", "f(,)", "[1, 2", "'open", "1 2", "a in", "search('x' 'y')"]


def test_loaded_and_built_parsers_agree(fresh_parser):
    expr._parser()
    expr._parser.cache_clear()
    loaded, built = expr._parser(), Lark(GRAMMAR, **expr._PARSER_OPTIONS)
    assert loaded.source_path == "<deserialized>", lark.__version__
    sources = _conditions() | {"meta.a == -3.5 * (2 + x) % 4", "f()", "[]", "not not true or false and x in [1]",
                               "a not in b", "-(-1) <= 2", "isupper(before(text, '\\n'))"}
    assert len(sources) > 20
    for source in sorted(sources):
        assert loaded.parse(source) == built.parse(source), source
    for source in BAD:
        outcomes = []
        for parser in (loaded, built):
            with pytest.raises(UnexpectedInput) as info:
                parser.parse(source)
            exc = info.value
            outcomes.append((type(exc).__name__, getattr(exc, "column", None), sorted(getattr(exc, "expected", ()) or ()),
                             expr._describe(exc, source)))
        assert outcomes[0] == outcomes[1], source
