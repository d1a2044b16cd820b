"""The compiled-ruleset cache (rulekit/language/cache.py): a hit gives the same ruleset as a long load
(models, fingerprints, step positions, decisions, metrics), never imports YAML, Lark or rich, and an
entry is untrusted input — a changed file, a tampered or broken entry is a miss, never an error."""
from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from rulekit.core import cachefiles
from rulekit.core.records import Record
from rulekit.core.resources import builtin_rulesets
from rulekit.engine.compiler import load_ruleset
from rulekit.engine.decide import Evaluator
from rulekit.engine.judge import judges_of
from rulekit.language import cache as C
from rulekit.report.cases import check_examples
from rulekit.run.evaluate import evaluate


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    directory = tmp_path / "cache"
    monkeypatch.setenv("RULEKIT_CACHE_DIR", str(directory))
    return directory / "rulesets"


def _entries(directory: Path) -> list[Path]:
    """The compiled-ruleset entries (the `(?py)` dialect's sets, `pydialect-*.json`, live beside them)."""
    return sorted(p for p in directory.glob("*.json") if not p.name.startswith("pydialect-")) if directory.is_dir() \
        else []


def _steps(rs) -> list:
    return [(name, s.id, s.loc, s.describe, s.outcome, s.skip_to) for name, sec in rs.sections.items() for s in sec.steps]


def _sample(labelled_records) -> list[Record]:
    _, records = labelled_records
    return records[::60]  # ~520 real replies of every benchmark and question type


@pytest.mark.slow  # loads every built-in ruleset both roads
@pytest.mark.parametrize("name", sorted(builtin_rulesets()))
def test_a_hit_is_the_same_ruleset(name, cache_dir, labelled_records, tmp_path):
    """Every built-in ruleset, loaded the long way and from its entry: equal models, fingerprints,
    files and step positions; the same examples' results; the same decisions files and metrics on
    real replies (rulesets without a judge) and the same traces (`explain`)."""
    cold = load_ruleset(name, cache=False)
    first = load_ruleset(name)  # long load: writes the entry
    assert len(_entries(cache_dir)) == 1
    hit, _ = C.lookup(name)
    assert hit is not None, "the entry just written is read back"
    warm = load_ruleset(name)
    assert warm.model == cold.model == first.model
    assert all(a.model_fields_set == b.model_fields_set
                                      for a, b in zip(warm.model.examples, cold.model.examples))
    assert (warm.fingerprint, warm.files, warm.seed, warm.stream) == (cold.fingerprint, cold.files, cold.seed, cold.stream)
    assert _steps(warm) == _steps(cold)
    for a, b in zip(check_examples(warm, warm.model.examples), check_examples(cold, cold.model.examples)):
        assert (a.problems, a.pred, a.step, a.outcome) == (b.problems, b.pred, b.step, b.outcome)
    records = _sample(labelled_records)
    if not judges_of(cold):
        out = {}
        for label, rs in (("cold", cold), ("warm", warm)):
            (tmp_path / label).mkdir()
            [result] = evaluate([rs], records, seed=0, output_dir=str(tmp_path / label))
            out[label] = (result.fingerprint, json.dumps(result.metrics, sort_keys=True, default=str),
                          (tmp_path / label / f"{rs.name}.decisions.jsonl").read_bytes())
        assert out["warm"] == out["cold"]
        for record in records[:40]:
            a, b = Evaluator(warm, 0).decide(record, trace=True), Evaluator(cold, 0).decide(record, trace=True)
            assert (dataclasses.asdict(a) if a else None) == (dataclasses.asdict(b) if b else None)
    else:  # judged: the examples above replay their judge replies; the judge specs (cache keys) are the same
        assert [fb.judge.model_dump_json() for _, fb in judges_of(warm)] == \
            [fb.judge.model_dump_json() for _, fb in judges_of(cold)]


def test_a_hit_reads_no_yaml_lark_or_rich(cache_dir, tmp_path):
    """The start-up road: after one run, `eval --format json` on a small file never imports YAML, Lark,
    rich or multiprocessing (the ~0.1 s they and validation cost is what a short run is made of)."""
    from conftest import CORPUS

    data = tmp_path / "replies.jsonl"
    with CORPUS.open("rb") as corpus:
        data.write_bytes(b"".join(next(corpus) for _ in range(200)))
    probe = ("import sys\nfrom rulekit.cli import main\n"
             "try:\n    main(['eval', '-r', 'lmms-eval', sys.argv[1], '--format', 'json'])\nexcept SystemExit:\n    pass\n"
             "print(sorted(m for m in ('yaml', 'lark', 'rich', 'multiprocessing', 'sympy') if m in sys.modules),"
             " file=sys.stderr)")
    env = {**os.environ, "RULEKIT_CACHE_DIR": str(cache_dir.parent)}
    runs = [subprocess.run([sys.executable, "-c", probe, str(data)], env=env, capture_output=True, text=True)
            for _ in range(2)]
    assert all(r.returncode == 0 for r in runs), runs
    assert runs[0].stdout == runs[1].stdout and '"accuracy"' in runs[0].stdout
    assert "'lark'" in runs[0].stderr.splitlines()[-1] and "'yaml'" in runs[0].stderr.splitlines()[-1]
    assert runs[1].stderr.splitlines()[-1] == "[]"


def _copy(tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_bytes(builtin_rulesets()[name].read_bytes())
    return path


def test_a_changed_file_is_a_miss(cache_dir, tmp_path):
    """An entry lists every file the ruleset read: editing the ruleset, or a parent it extends, is seen."""
    parent = _copy(tmp_path, "lmms-eval")
    child = tmp_path / "child.yaml"
    child.write_text("ruleset: child\nextends: lmms-eval.yaml\n", encoding="utf-8")
    before = load_ruleset(str(child))
    assert load_ruleset(str(child)).fingerprint == before.fingerprint
    parent.write_text(parent.read_text(encoding="utf-8").replace("when: words > 5", "when: words > 6"), encoding="utf-8")
    after = load_ruleset(str(child))
    assert after.fingerprint != before.fingerprint
    assert after.fingerprint == load_ruleset(str(child), cache=False).fingerprint
    assert any(s.when is not None and s.when.source == "words > 6" for s in after.sections["multiple-choice"].steps)


def test_another_interpreter_s_entry_is_a_miss(cache_dir, tmp_path, monkeypatch):
    """What a `(?py)` pattern means follows the interpreter's Unicode tables: an entry written under another
    Python (its version, its unidata_version) or another regex module is never read."""
    from rulekit.core import pydialect

    path = _copy(tmp_path, "atropos-mmstar")
    load_ruleset(str(path))
    assert len(_entries(cache_dir)) == 1
    monkeypatch.setattr(C, "_CODE_KEY", [])
    monkeypatch.setattr(pydialect, "interpreter_versions", lambda: "python 3.99; unicodedata 99.0.0; regex 1")
    load_ruleset(str(path))
    assert len(_entries(cache_dir)) == 2


def _rewrite(entry: Path, change) -> None:
    """Change an entry's body and seal it again with the user's key: what the checks after the seal see
    (an attacker without the key cannot get this far: test_untrusted_round3.py)."""
    key = cachefiles.cache_key(entry.parent)
    blob = orjson.loads(cachefiles.unseal(entry.read_bytes(), key))
    change(blob["body"])
    entry.write_bytes(cachefiles.seal(orjson.dumps(blob), key))


def _swap_model(body: dict, old: str, new: str) -> None:
    body["model"] = json.loads(json.dumps(body["model"]).replace(json.dumps(old), json.dumps(new)))


@pytest.mark.parametrize("tamper", [
    "truncated", "checksum", "not-json", "foreign-class", "unknown-field", "bad-ast", "bad-value", "format",
    "wrong-type", "device-file"])
def test_a_bad_entry_is_ignored_and_rewritten(tamper, cache_dir, tmp_path):
    """The cache is untrusted input: an entry naming a class outside the vocabulary, a field its model does
    not have, a condition AST of another shape, a broken seal or broken JSON is a miss — the ruleset
    is loaded the long way (same fingerprint and decisions) and the entry written again."""
    path = _copy(tmp_path, "lmms-eval")
    good = load_ruleset(str(path))
    [entry] = _entries(cache_dir)
    if tamper == "truncated":
        entry.write_bytes(entry.read_bytes()[:100])
    elif tamper == "not-json":
        entry.write_bytes(b"\x80\x04\x95pickle?")
    elif tamper == "checksum":
        entry.write_bytes(entry.read_bytes().replace(b"words > 5", b"words > 0"))
    elif tamper == "foreign-class":
        _rewrite(entry, lambda body: _swap_model(body, "rulekit.language.schema:Ruleset", "subprocess:Popen"))
    elif tamper == "unknown-field":
        _rewrite(entry, lambda body: body["model"]["f"].update({"__class__": "x"}))
    elif tamper == "bad-ast":
        _rewrite(entry, lambda body: body["conditions"].update({"words > 5": ["__import__", {"t": "NAME", "v": "os", "c": 1}]}))
    elif tamper == "wrong-type":  # well-formed, but a list where the steps were: it does not compile
        _rewrite(entry, lambda body: body["model"]["f"]["multiple_choice"]["f"].update({"steps": "x"}))
    elif tamper == "device-file":  # an entry that lists a device among its files is never read from
        _rewrite(entry, lambda body: body["hashes"].append(["/dev/zero", "0" * 64]))
    elif tamper == "bad-value":
        _rewrite(entry, lambda body: body["model"]["f"].update({"summary": {"$x": 1}}))
    else:
        key = cachefiles.cache_key(entry.parent)
        blob = orjson.loads(cachefiles.unseal(entry.read_bytes(), key))
        blob["format"] = 99
        entry.write_bytes(cachefiles.seal(orjson.dumps(blob), key))
    if tamper != "wrong-type":  # (that one reads back: it is the compile that refuses it)
        assert C.lookup(str(path))[0] is None
    again = load_ruleset(str(path))
    assert again.fingerprint == good.fingerprint and again.model == good.model
    assert C.lookup(str(path))[0] is not None, "the long load wrote a good entry again"


def test_cache_off_and_unwritable(tmp_path, monkeypatch):
    """RULEKIT_CACHE_DIR=off writes nothing; a directory that cannot be written is skipped silently."""
    monkeypatch.setenv("RULEKIT_CACHE_DIR", "off")
    assert C.cache_dir() is None and C.lookup("lmms-eval") == (None, None)
    assert load_ruleset("lmms-eval").fingerprint == load_ruleset("lmms-eval", cache=False).fingerprint
    blocked = tmp_path / "file"
    blocked.write_text("not a directory", encoding="utf-8")
    monkeypatch.setenv("RULEKIT_CACHE_DIR", str(blocked))
    assert load_ruleset("lmms-eval").fingerprint == load_ruleset("lmms-eval", cache=False).fingerprint


def test_check_reads_positions_from_the_yaml(cache_dir):
    """`rulekit check` lints with every node's position, so it never takes the cached road: with an entry
    present, W302 still points at the step's line and column."""
    from rulekit.report.lint import lint

    path = str(Path(__file__).parent / "fixtures" / "lint" / "W302_unreachable.yaml")
    load_ruleset(path)
    assert load_ruleset(path).fingerprint == load_ruleset(path, cache=False).fingerprint  # a hit
    [finding] = lint(path)
    assert (finding.code, finding.loc.line, finding.loc.col) == ("W302", 4, 7)
