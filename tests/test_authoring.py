"""Ruleset authoring in the author's terms: errors name the step by its id at the file:line:col the author
wrote, with did-you-mean; one error for a tab; and the `extends:` merge rules `rulekit vocabulary` prints
hold for the loader (each rule checked here on real files)."""
from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from rulekit.cli import main
from rulekit.language.loader import MERGE_RULES, load_data, merge_example


def _check(tmp_path: Path, text: str, *command: str, name: str = "bad.yaml") -> str:
    """stderr of `rulekit check FILE` (or `rulekit COMMAND... -r FILE`) run in tmp_path; exit 2, no traceback."""
    (tmp_path / name).write_text(text, encoding="utf-8")
    args = [*command, "-r", name] if command else ["check", name]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    return result.stderr


def test_a_bad_pick_in_an_extending_ruleset_names_the_step_and_the_authors_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = "ruleset: mine\nextends: lmms-eval\nmultiple-choice:\n  steps:\n    - id: letter-space\n      pick: lastt\n"
    for command in ((), ("eval",)):
        err = _check(tmp_path, text, *command)
        assert err.startswith("bad.yaml:6:13: error[E112]: unknown pick `lastt` in step `letter-space`\n"), err
        assert "help: did you mean `last`?" in err
        assert "steps[" not in err and "bare" not in err and "lmms-eval.yaml" not in err


def test_a_new_step_with_a_bad_value_is_located_in_the_authors_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    err = _check(tmp_path, "ruleset: mine\nextends: lmms-eval\nmultiple-choice:\n  steps:\n    - id: mine\n"
                           "      before: letter-space\n      find: {literal: x}\n      enabled: sometimes\n")
    assert err.startswith("bad.yaml:8:16: error[E113]: `enabled` of step `mine`: Input should be a valid boolean"), err


def test_unknown_bare_words_get_did_you_mean_across_families(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    err = _check(tmp_path, "ruleset: mine\nmultiple-choice:\n  compare: exactt\n  steps:\n    - id: a\n"
                           "      find: {literal: x}\n      prepare: [lowercas]\n      look-in: orignal\n")
    assert "bad.yaml:3:12: error[E112]: unknown compare `exactt`\n" in err
    assert "help: did you mean `exact`? it takes options: `compare: {exact: {...}}`" in err
    assert "bad.yaml:7:17: error[E112]: unknown prepare op `lowercas` in step `a`\n" in err
    assert "help: did you mean `lowercase`?" in err
    assert "bad.yaml:8:16: error[E113]: `look-in` of step `a`: Input should be" in err
    assert "help: did you mean `original`?" in err
    # in the order they are written
    assert err.index("bad.yaml:3:12") < err.index("bad.yaml:7:17") < err.index("bad.yaml:8:16")


def test_a_word_far_from_every_word_lists_the_family(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    err = _check(tmp_path, "ruleset: mine\nmultiple-choice:\n  steps:\n    - id: a\n      find: {literal: x}\n"
                           "      pick: zzzzzz\n")
    assert "bad.yaml:6:13: error[E112]: unknown pick `zzzzzz` in step `a`" in err
    assert "help: picks: only, single, first, last, rightmost, all; written as a mapping: first-of," in err


def test_a_step_without_an_id_is_named_by_its_place(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    err = _check(tmp_path, "ruleset: mine\nopen:\n  steps:\n    - id: a\n      find: {whole: true}\n"
                           "    - find: {whole: true}\n")
    assert err.startswith("bad.yaml:6:7: error[E111]: missing required key `id` in step 2 of `open`"), err


def test_e106_points_at_the_value_that_names_no_step(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    head = "ruleset: mine\nextends: lmms-eval\nmultiple-choice:\n  steps:\n"
    err = _check(tmp_path, head + "    - id: x\n      before: letter-spcae\n      find: {literal: x}\n")
    assert err.startswith("bad.yaml:6:15: error[E106]: `before: letter-spcae` in step `x` names no step of the parent"), err
    assert "did you mean `letter-space`?" in err
    err = _check(tmp_path, head + "    - {id: letter-spcae, drop: true}\n")
    assert err.startswith("bad.yaml:5:12: error[E106]: cannot drop step `letter-spcae`"), err


def test_placing_a_step_the_parent_has_is_an_error_not_ignored(tmp_path, monkeypatch):
    """`after:` on a step the parent has used to be dropped without a word (the step kept its place)."""
    monkeypatch.chdir(tmp_path)
    err = _check(tmp_path, "ruleset: mine\nextends: lmms-eval\nmultiple-choice:\n  steps:\n"
                           "    - {id: letter-period, after: bracketed-letter}\n")
    assert err.startswith("bad.yaml:5:27: error[E106]: `after:` places a NEW step, and `letter-period` is a step "
                          "of the parent (it keeps its place)"), err
    assert "help: to move it: `{id: letter-period, drop: true}`" in err


def test_a_tab_in_indentation_is_one_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    err = _check(tmp_path, "ruleset: demo\nmultiple-choice:\n\tsteps: []\n")
    assert err.count("error[") == 1, err
    assert err.startswith("bad.yaml:3:1: error[E104]: tab used for indentation\n"), err
    assert "help: YAML indentation uses spaces" in err
    err = _check(tmp_path, "ruleset: demo\nmultiple-choice:\n  compare: letter\n\tsteps:\n\t\t- {id: a}\n")
    assert err.count("error[") == 1 and "error[E104]: tab used for indentation (and on line 5)" in err, err


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


PARENT = """\
ruleset: parent
summary: the parent
metrics: {breakdown: [category]}
examples: [{response: "(A)", answer: A, options: {A: x, B: y}, expect: A}]
multiple-choice:
  compare: letter
  prepare: [strip]
  steps:
    - {id: paren, find: {literal: "({letter})"}, pick: first}
    - {id: bare, find: {token: "{letter}"}, pick: first}
open:
  steps:
    - {id: whole, find: {whole: true}}
"""


def _steps(data: dict, section: str = "multiple-choice") -> list:
    return [s["id"] for s in data[section]["steps"]]


def test_merge_rules_hold_for_the_loader(tmp_path):
    """Each rule MERGE_RULES states, on files (so `rulekit vocabulary` tells the truth)."""
    _write(tmp_path, "parent.yaml", PARENT)
    child = _write(tmp_path, "child.yaml", """\
extends: parent.yaml
metrics: {breakdown: [subject]}
multiple-choice:
  prepare: [lowercase]
  steps:
    - {id: bare, pick: null, find: {token: "{letter}", }}
    - {id: paren, drop: true}
    - {id: one, before: bare, find: {literal: "1"}}
    - {id: two, after: one, find: {literal: "2"}}
    - {id: last, find: {literal: "9"}}
open: null
""")
    data, files = load_data(str(child))
    assert [f.name for f in files] == ["parent.yaml", "child.yaml"]
    assert data["ruleset"] == "child"                               # never inherited: the file's name
    assert data["summary"] == "the parent"                          # not written: inherited
    assert "examples" not in data                                   # not inherited
    assert dict(data["metrics"]) == {"breakdown": ["subject"]}      # replaced whole
    assert data["open"] is None                                     # `open: null` removes the section
    mc = data["multiple-choice"]
    assert mc["prepare"] == ["lowercase"] and mc["compare"] == "letter"   # keys replace; others kept
    assert _steps(data) == ["one", "two", "bare", "last"]           # drop, before, after one added above, append
    bare = mc["steps"][2]
    assert "pick" not in bare                                       # null removes the key


def test_from_replaces_the_extends_parents_section(tmp_path):
    _write(tmp_path, "parent.yaml", PARENT)
    _write(tmp_path, "other.yaml", "ruleset: other\nmultiple-choice:\n  compare: letter\n  steps:\n"
                                   "    - {id: o1, find: {literal: o}}\n    - {id: o2, find: {literal: p}}\n")
    child = _write(tmp_path, "child.yaml", "extends: parent.yaml\nmultiple-choice:\n  from: other.yaml\n  steps:\n"
                                           "    - {id: o2, drop: true}\n    - {id: mine, find: {literal: m}}\n")
    data, _ = load_data(str(child))
    assert _steps(data) == ["o1", "mine"]                           # from other.yaml, not merged into parent's
    assert _steps(data, "open") == ["whole"]


def test_the_printed_example_is_the_loaders_merge(tmp_path):
    merged = merge_example()
    assert [s["id"] for s in merged["multiple-choice"]["steps"]] == ["paren", "answer-is", "bare"]
    assert merged["multiple-choice"]["steps"][2]["pick"] == "last"
    assert merged["ruleset"] == "child" and merged["summary"] == "letters first"
    out = CliRunner().invoke(main, ["vocabulary"]).stdout
    assert "extends: how a ruleset merges into its parent" in out
    assert MERGE_RULES.splitlines()[0] in out
    assert "    - {id: answer-is, find: {phrases: [answer is]}}" in out
    assert "`drop: true`" in out and "`before: ID`" in out


def _complete(args: list[str], incomplete: str) -> list[str]:
    """What click's shell completion offers for `rulekit ARGS INCOMPLETE` (the path a shell takes)."""
    from click.shell_completion import ShellComplete

    return [item.value for item in ShellComplete(main, {}, "rulekit", "_RULEKIT_COMPLETE").get_completions(args, incomplete)]


def test_shell_completion_offers_ruleset_names_and_yaml_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.yaml").write_text("ruleset: mine\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("", encoding="utf-8")
    (tmp_path / "more").mkdir()
    (tmp_path / "more" / "other.yml").write_text("", encoding="utf-8")
    offered = _complete(["eval", "-r"], "vlmevalkit")
    assert "vlmevalkit" in offered and "vlmevalkit+judge" in offered and "lmms-eval" not in offered
    lmms = _complete(["diff", "-r", "a", "-r"], "lmms")
    assert "lmms-eval" in lmms and all(n.startswith("lmms") for n in lmms)
    everything = _complete(["eval", "-r"], "")
    assert "mine.yaml" in everything and "more/" in everything and "notes.txt" not in everything
    assert _complete(["check"], "mo") == ["more/"]
    assert _complete(["explain", "-r"], "more/") == ["more/other.yml"]
    assert _complete(["test"], str(tmp_path / "mi")) == [str(tmp_path / "mine.yaml")]


def test_an_override_that_removes_find_is_located_at_the_authors_null(tmp_path, monkeypatch):
    """E132 for a step of the parent whose `find` the child set to null: at that `null` in the child's file,
    not at the step in the built-in ruleset."""
    monkeypatch.chdir(tmp_path)
    err = _check(tmp_path, "ruleset: mine\nextends: lmms-eval\nmultiple-choice:\n  steps:\n"
                           "    - {id: letter-space, find: null}\n")
    assert err.startswith("bad.yaml:5:32: error[E132]: step `letter-space` has neither `find` nor `answer`"), err
