"""`(?py)` patterns mean what Python's `re` of THIS interpreter means (issues 16 and 29): every class
construct, word boundaries and IGNORECASE proved equal to `re` over every code point 0..0x10FFFF,
whatever `unicodedata.unidata_version` is (the `regex` module's own tables are newer)."""
from __future__ import annotations

import json
import os
import re
import sys
import unicodedata

import pytest
import regex

from rulekit.core import cachefiles, pydialect
from rulekit.core.errors import RulesetError
from rulekit.core.pydialect import TABLES, _program, _written, python_re_pattern
from rulekit.core.regex import compile_regex

# letters and a digit of Unicode 15 / 16 (unassigned in Python 3.11's tables, 14.0.0): the regex module's
# tables know them, Python 3.11's `re` does not
NEW_LETTER, NEW_DIGIT = "\U0001e4d0", "\U0001e4f1"


@pytest.fixture(scope="module")
def everything() -> str:
    """Every code point, in order, as one string."""
    return "".join(map(chr, range(sys.maxunicode + 1)))


def spans(pattern, text: str) -> list[tuple[int, int]]:
    return [m.span() for m in pattern.finditer(text)]


CONSTRUCTS = [r"\w", r"\W", r"\d", r"\D", r"\s", r"\S", r"[\w]", r"[\W]", r"[\S.]", r"[^\w\s]", r"[\W\d]",
              r"[^\W\d_]", r"[a-z\d]", r"[^a]", r"[k-s]", r"[A-Ha-h]", r"[ABCDEFGHIJ]", r"[\u0130-\u0131]", r"k", r"s",
              r"\u00b5", r"[^K]", r"\u00df", r"[^\u00df-\u00ff\d]", r"."]


@pytest.mark.parametrize("flags", ["", "(?i)", "(?a)", "(?ai)"])
@pytest.mark.parametrize("construct", CONSTRUCTS)
def test_a_class_accepts_what_python_re_accepts_on_every_code_point(flags, construct, everything):
    """Runs of accepted code points over the string of all of them: re's and ours, equal."""
    pattern = f"{flags}(?:{construct})+"
    assert spans(compile_regex("(?py)" + pattern, None), everything) == spans(re.compile(pattern), everything)


@pytest.mark.parametrize("flags", ["", "(?a)"])
def test_word_boundaries_are_python_re_s_on_every_code_point(flags, everything):
    """Each code point between spaces (\\b on both sides of it iff re counts it as a word character) and
    between letters (\\B likewise)."""
    spaced, lettered = " ".join(everything), "a".join(everything)
    for construct, text in ((r"\b", spaced), (r"\B", lettered)):
        ours = compile_regex(f"(?py){flags}{construct}", None)
        assert [m.start() for m in ours.finditer(text)] == [m.start() for m in re.finditer(flags + construct, text)]


@pytest.mark.parametrize("text", ["", "a", " ", "a b", "ab", "a\u0301", "\u00b2", NEW_LETTER + "a"])
@pytest.mark.parametrize("construct", [r"\b", r"\B", r"\b\w+\b", r"\B.\B"])
def test_boundaries_at_the_edges(construct, text):
    """The empty string (re finds no \\B there before Python 3.14) and searches from a position."""
    ours, theirs = compile_regex("(?py)" + construct, None), re.compile(construct)
    assert spans(ours, text) == spans(theirs, text)
    for pos in range(len(text) + 1):
        got, want = ours.search(text, pos), theirs.search(text, pos)
        assert (got and got.span()) == (want and want.span())


def _cased() -> list[str]:
    """Every character str.lower/str.upper changes, and all of ASCII."""
    return sorted({chr(c) for c in range(sys.maxunicode + 1) if chr(c).lower() != chr(c) or chr(c).upper() != chr(c)}
                  | {chr(c) for c in range(128)})


SPECIAL = "\u0131\u0130\u017f\u212a\u212b\u00b5\u03bc\u00df\u1e9e\u03c2\u03c3\u0345\u1fbe\u0390\u1fd3\ufb05\ufb06\u0264"
EVERY_LITERAL = os.environ.get("RULEKIT_TEST_EVERY_LITERAL") == "1"


def _literals(flags) -> list[str]:
    """The cased characters to prove (all of them with RULEKIT_TEST_EVERY_LITERAL=1: ~1,500 programs, two
    scans of every code point each, minutes on a busy machine): else all of ASCII, the characters `re`
    folds specially, every character whose program it shares with two or more others, and every
    tenth program's characters."""
    if flags & re.ASCII:
        return [chr(c) for c in range(128)] + list(SPECIAL)  # ASCII mode folds ASCII letters only
    cased = _cased()
    if EVERY_LITERAL:
        return cased
    groups: dict = {}
    for c in cased:
        groups.setdefault(_program(re.escape(c), flags) or c, []).append(c)
    keep = {chr(c) for c in range(128)} | set(SPECIAL)
    for i, members in enumerate(groups.values()):
        if len(members) > 2 or i % 10 == 0:
            keep.update(members)
    return sorted(keep)


@pytest.mark.parametrize("flags", [re.IGNORECASE, re.IGNORECASE | re.ASCII])
def test_cased_literals_under_ignorecase_are_python_re_s_sets(flags, everything):
    """For each cased character c: the code points `re` accepts for c under IGNORECASE (scanned over
    every code point, once per program `re` compiles, since equal programs accept equally) are those our
    pattern for c lists; the regex module reads such a class as written
    (test_a_written_class_is_read_as_its_code_points)."""
    prefix = "(?i)" if flags == re.IGNORECASE else "(?ai)"
    scanned: dict = {}
    wrong = []
    for c in _literals(flags):
        text = re.escape(c)
        program = _program(text, flags) or text
        if program not in scanned:
            scanned[program] = [(a, b - 1) for a, b in spans(re.compile(f"(?:{text})+", flags), everything)]
        want = _written(["set", False, scanned[program]], ())
        got = python_re_pattern(prefix + text)
        if got != want:
            wrong.append((hex(ord(c)), got, want))
    assert len(scanned) > (1400 if EVERY_LITERAL and flags == re.IGNORECASE else 100)
    assert wrong == []


def test_a_written_class_is_read_as_its_code_points(everything):
    """The regex module reads what we write as the code points it names — every code point of the BMP
    (controls, surrogates, unassigned, private use, the set's own metacharacters) and every 16th block
    of 4,096 above it, 4,096 at a time: as literals in a row, in a set of the even ones, negated; and a
    long list over all code points."""
    for start in [*range(0, 0x10000, 4096), *range(0x10000, sys.maxunicode + 1, 16 * 4096), sys.maxunicode + 1 - 4096]:
        window = everything[start:start + 4096]
        end = start + len(window)
        assert regex.fullmatch("".join(pydialect._char(c) for c in range(start, end)), window)
        evens = [(c, c) for c in range(start, end, 2)]
        assert [m.start() for m in regex.finditer(f"(?:{pydialect._flat(evens)})+", window)] == list(range(0, end - start, 2))
        assert [m.start() for m in regex.finditer(pydialect._flat(evens, negate=True), window)] == list(range(1, end - start, 2))
    spread = [(c, c + 2) for c in range(0x300, sys.maxunicode - 3, 3001)]
    member = regex.compile(f"(?:{pydialect._flat(spread)})+")
    assert [(m.start(), m.end() - 1) for m in member.finditer(everything)] == spread


# ---------------------------------------------------------------- what it changes, on replies
@pytest.mark.parametrize("pattern, text", [
    (r"(?i)\b([A-D])\b", "S = a² = 2, so b"),                # "²" is a word character for re, not for regex
    (r"(?i)\b([A-D])\b", "x\u0301 a\u0301 c"),               # combining marks: not word characters for re
    (r"answer\s+(\w)", "answer\x1cB"),                        # \x1c-\x1f are whitespace for re
    (r"[\s.]+(\w)", ".\x1f.C"),                               # \s inside a set
    (r"\B(B)\B", "ABC ²B² B"),
    (r"(?i)final\s+answer\s+is\s*([A-J])", "fınal answer ıs B"),  # ı matches i under re's IGNORECASE
    (r"(?i)final\s+answer", "FİNAL ANSWER"),                 # so does İ
    (r"(?i)the\s+answer\s+is\s*([A-J])", "the answer is ı"),  # and [A-J] takes ı and İ
    (r"(?i)the\s+answer\s+is\s*([A-J])", "THE ANSWER İS İ"),
    (r"(?i)\bk\b", "\u212a"),                                 # the Kelvin sign is k
    (r"(?i)answer", "anſwer"),                                # the long s is s
    (r"(?i)[a-z]+", "straße ẞ µ"),
    (r"(?i)\u00b5", "\u03bc\u039c"),                          # micro sign and mu
    (r"\b(\w+)\b", f"{NEW_LETTER}A{NEW_LETTER}"),            # a Unicode 15 letter: not \w for Python 3.11
    (r"-?\d+\.?\d*", f"1{NEW_DIGIT}2 and 3"),                # a Unicode 15 digit: not \d for Python 3.11
    (r"(?i:ı)N(?-i:ı)", "INı iNI"),                          # flag groups
    (r"(?x) a \s b  # comment", "a b"),                       # verbose mode, as re parses it
    (r"[[:alpha:]]+", "[:alph]]"),                            # a POSIX class is a set of characters for re
])
def test_py_patterns_find_what_python_re_finds(pattern, text):
    ours = compile_regex("(?py)" + pattern, None)
    assert ours.findall(text) == re.findall(pattern, text)


def test_groups_keep_their_names_and_numbers():
    ours = compile_regex(r"(?py)(a)(?P<x>b)(?:c)(d)\1(?P=x)(?(3)e|f)", None)
    theirs = re.compile(r"(a)(?P<x>b)(?:c)(d)\1(?P=x)(?(3)e|f)")
    assert ours.groupindex == dict(theirs.groupindex) and ours.groups == theirs.groups
    assert ours.match("abcdabe").groups() == theirs.match("abcdabe").groups()


def test_a_group_name_used_twice_is_the_regex_module_s_shared_group():
    """The built-in rulesets write "(X)" or "X" with one name: `re` refuses a name twice, the regex module
    makes it one group."""
    ours = compile_regex(r"(?py)(?i)(?:(?P<answer>[ABCD])|\((?P<answer>[ABCD])\))\b", None)
    assert ours.groupindex == {"answer": 1}
    assert [m.group("answer") for m in ours.finditer("(b) then ı c")] == ["b", "c"]


# ---------------------------------------------------------------- what the linear rewrites use
@pytest.mark.parametrize("pattern, text", [
    (r"(?i)\s*+:\s*+(\w)", " \x1c : \x1dB"),                   # possessive quantifiers (re has them since 3.11)
    (r"(?>\d+)\d", "123"),                                     # an atomic group gives nothing back
    (r"(?i)(?>[a-k]+)\b", "K\u212aı x"),
    (r"\s++x|\s", " \x1c\x1fy"),
])
def test_possessive_and_atomic_as_python_re(pattern, text):
    if sys.version_info < (3, 11):
        pytest.skip("Python's re reads possessive quantifiers and atomic groups from 3.11")
    ours = compile_regex("(?py)" + pattern, None)
    assert ours.findall(text) == re.findall(pattern, text)


@pytest.mark.parametrize("pattern, text, found", [
    (r"\{(?:(?P<answer>.*?)\}|.*+(*SKIP)(*F))", "{a} {b {c}", ["a", "b {c"]),
    (r"(?i)\n\s*+(?:(?P<answer>[a-d])\b|(*SKIP)(*FAIL))", "\n \x1cx\n\x1f b", ["b"]),
    (r"a+(*PRUNE)b|a", "aaac", []),                                 # PRUNE: nothing else is tried at that start
    (r"(?x) \d+ (*SKIP) x | \d", "12y", []),                        # verbose mode: the verb as re's parser stands on it
    (r"[(*F)]+|\((*F)", "(*F)", ["(*F)"]),                          # in a set, or after an escaped "(", no verb
])
def test_the_regex_module_s_verbs_in_py_patterns(pattern, text, found):
    """`(*SKIP)`, `(*PRUNE)`, `(*F)`/`(*FAIL)` (the built-in rulesets' linear rewrites end a
    hopeless search with them): kept as the regex module's verbs; everything around them is re's."""
    ours = compile_regex("(?py)" + pattern, None)
    got = [m.group("answer") if "answer" in ours.groupindex else m.group() for m in ours.finditer(text)]
    assert got == found
    plain = regex.compile(pattern)  # the regex module's own reading agrees where no class differs
    if "\\s" not in pattern and "(?i)" not in pattern:
        assert [m.span() for m in plain.finditer(text)] == [m.span() for m in ours.finditer(text)]


def test_a_verb_mark_is_never_the_pattern_s_own_text():
    """A verb is read as a marked lookbehind while re's parser reads the pattern: the mark is a noncharacter
    the pattern does not hold, so a pattern's own lookbehind is never taken for a verb."""
    ours = compile_regex("(?py)a(?<!\ufdd0SKIP)b(*SKIP)c", None)
    assert "(?<!" in ours.pattern and ours.pattern.count("(*SKIP)") == 1
    assert ours.search("abc") and not ours.search("a\ufdd0SKIPbc")


@pytest.mark.parametrize("pattern, why", [
    (r"(?i)(a)\1", "backreference under IGNORECASE"),
    (r"\p{L}", "bad escape"),
    (r"a(*COMMIT)b", "nothing to repeat"),  # a verb the regex module does not know either
    (r"(?L)a", "with a str pattern"),
    (r"a{2,1}", "min repeat greater than max repeat"),
])
def test_what_python_re_refuses_or_rulekit_cannot_say_is_refused(pattern, why):
    with pytest.raises(RulesetError, match=re.escape(why)) as err:
        compile_regex("(?py)" + pattern, None)
    assert err.value.code == "E120"


def test_global_flags_mid_pattern_as_this_python_reads_them():
    if sys.version_info >= (3, 11):
        with pytest.raises(RulesetError, match="global flags"):
            compile_regex(r"(?py)a(?i)b", None)
    else:
        assert compile_regex(r"(?py)a(?i)b", None).match("AB")


@pytest.mark.parametrize("pattern", [r"\b" * 2000, r"\w{10000}", r"(?:\d\s){8000}"])
def test_a_pattern_too_long_once_written_out_is_refused(pattern):
    """Each class becomes an explicit set, which the regex module compiles slowly: the written-out
    pattern's length and its repetitions written out are limited (E122), not just the pattern's."""
    with pytest.raises(RulesetError) as err:
        compile_regex("(?py)" + pattern, None)
    assert err.value.code == "E122"
    assert compile_regex(r"\w{10000}", None)  # the regex module's own \w is one item


def test_negated_shorthand_inside_a_set_is_exact():
    """`\\S` and `\\W` inside a set were refused before; now the set is re's."""
    ours = compile_regex(r"(?py)[\S.]+", None)
    assert ours.findall("a.b\x1cc d") == re.findall(r"[\S.]+", "a.b\x1cc d") == ["a.b", "c", "d"]


def test_sets_are_kept_when_nothing_differs():
    assert python_re_pattern(r"[A-D]x[^.]") == r"[A-D]x[^\.]"
    assert python_re_pattern(r"(?sm).^$") == "(?s:.)(?m:^)(?m:$)"


# ---------------------------------------------------------------- the tables: per interpreter, on disk
def test_tables_are_kept_per_interpreter_and_a_bad_file_is_ignored(tmp_path, monkeypatch):
    monkeypatch.setenv("RULEKIT_CACHE_DIR", str(tmp_path))
    tables = pydialect._Tables()
    monkeypatch.setattr(pydialect, "TABLES", tables)
    first = python_re_pattern(r"(?i)k\d")
    kept = list(tmp_path.glob("rulesets/pydialect-*.json"))
    assert len(kept) == 1 and pydialect.interpreter_key()[:16] in kept[0].name
    key = cachefiles.cache_key(tmp_path / "rulesets")
    data = json.loads(cachefiles.unseal(kept[0].read_bytes(), key))
    assert data["key"] == pydialect.interpreter_key() and "2:k" in data["forms"]
    fresh = pydialect._Tables()
    monkeypatch.setattr(pydialect, "TABLES", fresh)
    fresh.accepted = None  # a kept table is read, never recomputed
    assert python_re_pattern(r"(?i)k\d") == first
    # a poisoned file: ranges out of order, a form of another shape, regex text — ignored, recomputed
    data["forms"]["2:k"] = ["set", False, [[5, 1]]]
    data["forms"]["0:[\\d]"] = ["base", 0, "(?:x)", [], [], False]
    kept[0].write_bytes(cachefiles.seal(json.dumps(data).encode(), key))
    again = pydialect._Tables()
    monkeypatch.setattr(pydialect, "TABLES", again)
    assert python_re_pattern(r"(?i)k\d") == first


def test_tables_not_sealed_with_this_user_s_key_are_ignored(tmp_path, monkeypatch):
    """Like the compiled-ruleset cache's entries: a kept file is read only if this user's rulekit sealed it,
    so a forged one (the right shape, another set of code points) cannot change what a class accepts."""
    monkeypatch.setenv("RULEKIT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(pydialect, "TABLES", pydialect._Tables())
    first = python_re_pattern(r"(?i)k\d")
    kept = next(tmp_path.glob("rulesets/pydialect-*.json"))
    data = json.loads(cachefiles.unseal(kept.read_bytes(), cachefiles.cache_key(tmp_path / "rulesets")))
    data["forms"]["2:k"] = ["set", False, [[0x61, 0x61]]]  # "k" would read as "a"
    forged = json.dumps(data).encode()
    for raw in (forged, cachefiles.seal(forged, b"\0" * cachefiles.KEY_BYTES)):
        kept.write_bytes(raw)
        fresh = pydialect._Tables()
        monkeypatch.setattr(pydialect, "TABLES", fresh)
        assert python_re_pattern(r"(?i)k\d") == first
    # a directory other users can write is not used at all: nothing kept, the sets still exact
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)
    monkeypatch.setenv("RULEKIT_CACHE_DIR", str(shared))
    monkeypatch.setattr(pydialect, "TABLES", pydialect._Tables())
    (shared / "rulesets").mkdir(mode=0o777)
    (shared / "rulesets").chmod(0o777)
    assert python_re_pattern(r"(?i)k\d") == first
    assert not list(shared.glob("rulesets/pydialect-*.json"))


def test_import_rulekit_does_not_load_the_dialect(tmp_path):
    """Start-up: nothing compiles a (?py) pattern at import (the dialect, its tables and the cache directory
    are touched on the first (?py) pattern a ruleset or a reader really uses)."""
    import subprocess

    code = "import sys, rulekit; print('rulekit.core.pydialect' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "RULEKIT_CACHE_DIR": str(tmp_path / "c")})
    assert out.stdout.strip() == "False"
    assert not (tmp_path / "c").exists()


def test_the_interpreter_key_names_this_python_s_unicode():
    assert f"unicodedata {unicodedata.unidata_version};" in pydialect.interpreter_versions()
