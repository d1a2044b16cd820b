"""`rulekit diff` streams (issue 32): the same report as the kept-in-full diff, bounded examples, progress on a
TTY; piped `diff` and `explain` keep the matched spans as ⟦ ⟧; `explain --diff` shows the reply and the
candidates' positions."""
from __future__ import annotations

import io
import json
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner
from rich.console import Console

from rulekit.cli import main
from rulekit.data import sample_path
from rulekit.engine.compiler import load_ruleset
from rulekit.readers import read_records
from rulekit.report.diff import DiffStream, diff_results, public, render_diff
from rulekit.report.explain import highlight
from rulekit.run.evaluate import evaluate


def run(*args):
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def _kept_report(names, path, seed=0, show=2, count_unreadable=False):
    """The diff as it was made before it streamed: every decision and record kept, then paired."""
    rulesets = [load_ruleset(n) for n in names]
    results = evaluate(rulesets, read_records([str(path)]), keep=True, count_unreadable=count_unreadable)
    return diff_results(results[0], results[1], seed=seed, show=show, rulesets=tuple(rulesets))


def _json(report) -> str:
    out = io.StringIO()
    render_diff(report, "json", Console(file=out))
    return out.getvalue()


@pytest.mark.parametrize("names", [("vlmevalkit", "lmms-eval"), ("lmms-eval", "mmmu")])
@pytest.mark.parametrize("count_unreadable", [False, True])
def test_streamed_report_equals_the_kept_one(names, count_unreadable):
    rulesets = [load_ruleset(n) for n in names]
    stream = DiffStream(show=3, count_unreadable=count_unreadable)
    results = evaluate(rulesets, read_records([str(sample_path())]), on_decisions=stream.see,
                       count_unreadable=count_unreadable)
    assert results[0].decisions == [] and results[0].records == []  # nothing kept per record
    streamed = stream.report(results[0], results[1], seed=0, rulesets=tuple(rulesets))
    kept = _kept_report(names, sample_path(), show=3, count_unreadable=count_unreadable)
    assert _json(streamed) == _json(kept)
    assert streamed["_examples"] == kept["_examples"]
    assert streamed["summary"]["disagree"] > 0 and streamed["summary"]["skipped"] >= 0


def test_cli_json_is_byte_identical_to_the_kept_diff():
    result = run("diff", "-r", "vlmevalkit", "-r", "lmms-eval", "--format", "json")
    assert result.exit_code == 0
    assert result.stdout == _json(_kept_report(("vlmevalkit", "lmms-eval"), sample_path()))


def test_examples_per_group_are_bounded_and_the_first_in_input_order(tmp_path):
    path = tmp_path / "x3.jsonl"
    rows = [json.loads(line) for line in open(sample_path())]
    with open(path, "w") as f:
        for k in range(3):
            for row in rows:
                f.write(json.dumps({**row, "id": f"{row['id']}#{k}"}) + "\n")
    rulesets = [load_ruleset(n) for n in ("vlmevalkit", "lmms-eval")]
    stream = DiffStream(show=1, list_disagreements=False)
    held = []

    def see(record, decisions):
        stream.see(record, decisions)
        held.append(max(len(g["_items"]) for g in stream.groups.values()) if stream.groups else 0)
    results = evaluate(rulesets, read_records([str(path)]), on_decisions=see)
    assert max(held) == 1 and stream.rows == []
    report = stream.report(results[0], results[1], seed=0, rulesets=tuple(rulesets))
    kept = _kept_report(("vlmevalkit", "lmms-eval"), path, show=1)
    assert report["summary"]["disagree"] == kept["summary"]["disagree"] > 70  # the sample's 70, 3 times (less draws)
    assert public(report)["summary"] == public(kept)["summary"]
    first = {}  # each group's first disagreeing record in input order
    for row in kept["disagree"]:
        first.setdefault((row["a_step"], row["b_step"]), []).append(row["id"])
    for g in report["summary"]["groups"]:
        assert len(g["examples"]) == 1 and g["examples"][0] in first[(g["a_step"], g["b_step"])]


def test_progress_on_a_terminal(tmp_path, monkeypatch):
    import rulekit.cli as cli

    path = tmp_path / "big.jsonl"
    lines = open(sample_path()).read().splitlines()
    with open(path, "w") as f:
        for k in range(6):  # 2,400 records: past the first progress report (every 2,000)
            for line in lines:
                row = json.loads(line)
                f.write(json.dumps({**row, "id": f"{row['id']}#{k}"}) + "\n")
    err = io.StringIO()
    tty = Console(file=err, force_terminal=True, width=100)
    monkeypatch.setattr(cli, "_err", lambda: tty)
    result = run("diff", "-r", "vlmevalkit", "-r", "lmms-eval", str(path))
    assert result.exit_code == 0 and "scoring" in err.getvalue() and "records" in err.getvalue()
    err2 = io.StringIO()
    monkeypatch.setattr(cli, "_err", lambda: Console(file=err2, force_terminal=False))
    assert run("diff", "-r", "vlmevalkit", "-r", "lmms-eval", str(path)).exit_code == 0
    assert "scoring" not in err2.getvalue()  # not a terminal: no bar


def test_piped_diff_marks_the_matched_spans():
    out = run("diff", "-r", "vlmevalkit", "-r", "lmms-eval").stdout
    assert "⟦" in out and "⟧" in out


def test_highlight_marks_in_plain_text():
    text = "x" * 50 + "the answer is (B)" + "y" * 50
    start = text.index("(B)")
    plain = highlight(text, [(start, start + 3), (start + 1, start + 2)], limit=40, marks=True).plain
    assert plain.startswith("…") and plain.endswith("…") and "is ⟦(B)⟧" in plain
    styled = highlight(text, [(start, start + 3)], limit=40)
    assert "⟦" not in styled.plain and any(str(span.style) == "bold reverse" and styled.plain[span.start:span.end] == "(B)"
                                           for span in styled.spans)


def test_piped_explain_marks_the_fired_span():
    out = run("explain", "-r", "lmms-eval", "--response", "DNA is the key, so the answer is (B)",
              "--options", "A=RNA,B=DNA").stdout
    assert "⟦(B)⟧" in out


def test_explain_diff_shows_the_reply_and_candidate_positions():
    out = run("explain", "-r", "lmms-eval", "--diff", "vlmevalkit", "--response", "DNA is the key, so the answer is (B)",
              "--options", "A=RNA,B=DNA").stdout
    assert "reply:    'DNA is the key, so the answer is (B)'" in out
    assert "options: A='RNA', B='DNA'" in out
    assert out.count("candidates: 'B'@34") == 2 and "⟦(B)⟧" in out and "(⟦B⟧)" in out


def test_explain_diff_json_keeps_the_reply_and_the_spans():
    payload = json.loads(run("explain", "-r", "lmms-eval", "--diff", "vlmevalkit", "--response", "the answer is (B)",
                             "--options", "A=RNA,B=DNA", "--format", "json").stdout)
    for side in ("a", "b"):
        assert payload[side]["response"] == "the answer is (B)"
        fired = [s for s in payload[side]["trace"] if s["status"] == "fired"][-1]
        assert fired["candidates"] and all(len(c["span"]) == 2 for c in fired["candidates"])


def test_explain_diff_and_marks_keep_control_sequences_from_replies_off_the_terminal():
    evil = "\x1b]0;pwned\x07\x1b[2J\u202eevil\x9b31m"
    for extra in ((), ("--format", "json")):
        result = run("explain", "-r", "lmms-eval", "--diff", "vlmevalkit", "--response", f"(B) {evil}",
                     "--options", f"A={evil},B=y", *extra)
        assert result.exit_code == 0
        assert not any(c in result.stdout for c in ("\x1b", "\x07", "\u202e", "\x9b"))
