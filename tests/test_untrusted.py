"""Untrusted rulesets and inputs, round 2 (issue 14): no path escapes, no bombs, no unbounded runs,
nothing silent. Each test pins one attack that broke a README promise before (main 826405d).

Input readers (FIFOs, corrupt files, excerpts) are pinned in test_untrusted_inputs.py, the judge and
server limits in test_untrusted_net.py and SymPy's CPU-time limits in test_math_limits.py.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner

from rulekit import Evaluator, Record, load_ruleset
from rulekit.core import regex as regex_limits
from rulekit.cli import main
from rulekit.core.cachefiles import machine_tag
from rulekit.core.errors import RulekitError

MC = {"A": "a cat", "B": "a dog"}


def _ruleset(tmp_path: Path, text: str, name: str = "r.yaml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _records(path: Path, rows: list[dict]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def _row(i, response="A", **extra) -> dict:
    return {"id": str(i), "response": response, "choices": MC, "answer": "A", **extra}


LETTER = 'multiple-choice:\n  steps:\n    - id: x\n      find: {literal: "{letter}"}\n'


def _load_error(path: str) -> RulekitError:
    """The one error loading `path` raises (unwrapped from a group of one)."""
    from rulekit.core.errors import ErrorGroup

    with pytest.raises(RulekitError) as info:
        load_ruleset(path)
    error = info.value
    if isinstance(error, ErrorGroup):
        assert len(error.errors) == 1, error.render()[:2000]
        error = error.errors[0]
    assert "Traceback" not in error.render()
    return error


# ---------------------------------------------------------------- 1. decisions file names
@pytest.mark.parametrize("name", ["../../escaped/pwn", "ABSOLUTE/abs-pwn", "..", "a/../../b"])
def test_a_ruleset_name_never_leaves_the_output_dir(tmp_path, name):
    # An absolute name points into this test's own directory, so a file left by another run
    # elsewhere cannot make the test fail (or pass).
    name = name.replace("ABSOLUTE", str(tmp_path / "abs"))
    rs = _ruleset(tmp_path, f"ruleset: {json.dumps(name)}\n{LETTER}")
    data = _records(tmp_path / "in.jsonl", [_row(1)])
    out = tmp_path / "deep" / "out"
    result = CliRunner().invoke(main, ["eval", "-r", rs, data, "--output-dir", str(out)])
    assert result.exit_code == 0, result.output
    written = [p for p in tmp_path.rglob("*.decisions.jsonl")]
    assert len(written) == 1 and written[0].parent == out, written
    assert "/" not in written[0].name and not written[0].name.startswith(".")
    assert not (tmp_path / "abs").exists()


def test_two_rulesets_with_one_name_get_two_files_and_two_rows(tmp_path):
    a = _ruleset(tmp_path, f"ruleset: mine\n{LETTER}", "a.yaml")
    b = _ruleset(tmp_path, "ruleset: mine\nmultiple-choice:\n  steps:\n    - id: y\n      find: {literal: 'zzz'}\n"
                           "      answer: B\n", "b.yaml")
    data = _records(tmp_path / "in.jsonl", [_row(i) for i in range(20)])
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["eval", "-r", a, "-r", b, data, "--output-dir", str(out), "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["results"]
    assert [r["ruleset"] for r in rows] == ["mine", "mine-2"]
    assert sorted(p.name for p in out.iterdir()) == ["mine-2.decisions.jsonl", "mine.decisions.jsonl"]
    assert rows[0]["metrics"]["accuracy"] == 1.0 and rows[1]["metrics"]["accuracy"] == 0.0
    assert set(json.loads(result.stdout)["band"]["ci"]) == {"mine", "mine-2"}  # one interval per row
    assert "more than one ruleset is named `mine`" in result.stderr


def test_markup_in_a_ruleset_name_is_shown_as_text(tmp_path):
    rs = _ruleset(tmp_path, f"ruleset: '[/]bad[bold]x'\n{LETTER}")
    data = _records(tmp_path / "in.jsonl", [_row(1)])
    result = CliRunner().invoke(main, ["eval", "-r", rs, data])
    assert result.exit_code == 0, result.output
    assert "[/]bad[bold]x" in result.stdout
    explained = CliRunner().invoke(main, ["explain", "-r", rs, "--response", "A", "--options", "A=x,B=y"])
    assert explained.exit_code == 0 and "[/]bad[bold]x" in explained.stdout


def test_control_characters_in_a_ruleset_name_are_refused(tmp_path):
    error = _load_error(_ruleset(tmp_path, f'ruleset: "a\\x1b[31mb"\n{LETTER}'))
    assert error.code == "E113" and "control characters" in error.render()


# ---------------------------------------------------------------- 2. YAML bombs and depth
def _laughs(levels: int) -> str:
    lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x","x"]']
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 10) + "]")
    return "\n".join(lines) + "\nruleset: bomb\n" + LETTER


def test_a_billion_laughs_ruleset_is_refused_at_the_alias(tmp_path):
    error = _load_error(_ruleset(tmp_path, _laughs(9)))  # 10^9 nodes if expanded (it would never end)
    assert error.code == "E101" and "aliases expand to more than" in error.render()
    assert error.loc is not None and error.loc.line == 4  # the first alias past the budget (a3: 10 × 111 nodes)


def test_a_few_aliases_still_work(tmp_path):
    rs = load_ruleset(_ruleset(tmp_path, 'ruleset: ok\nmultiple-choice:\n  steps:\n    - id: p\n'
                                         '      find: {phrases: &words ["cannot", "unable"]}\n      answer: Z\n'
                                         '    - id: q\n      find: {phrases: *words}\n      answer: Z\n'))
    assert [s.id for s in rs.sections["multiple-choice"].steps] == ["p", "q"]


@pytest.mark.parametrize("text", ["summary: " + "[" * 700 + "]" * 700,
                                  "summary:\n" + "".join("  " * i + "- \n" for i in range(1, 300)),
                                  "summary: &a [*a]"])
def test_deep_or_recursive_yaml_is_a_located_error(tmp_path, text):
    error = _load_error(_ruleset(tmp_path, "ruleset: deep\n" + text + "\n"))
    assert error.code == "E101" and error.loc is not None and error.loc.line >= 2


def test_nul_and_bytes_that_are_not_utf8_are_located(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_bytes(b"ruleset: a\nsummary: x\x00y\n")
    error = _load_error(str(path))
    assert error.code == "E101" and (error.loc.line, error.loc.col) == (2, 11)
    path.write_bytes("ruleset: a\nsummary: caf\xe9\n".encode("latin-1"))
    error = _load_error(str(path))
    assert error.code == "E101" and (error.loc.line, error.loc.col) == (2, 13) and "not UTF-8" in error.message


def test_a_prompt_style_that_is_not_utf8_is_a_located_error(tmp_path):
    from rulekit.llm.prompts import load_prompt

    path = tmp_path / "style.yaml"
    path.write_bytes("name: x\nuser: \"caf\xe9 {question}\"\n".encode("latin-1"))
    with pytest.raises(RulekitError) as info:
        load_prompt(str(path))
    assert info.value.code == "E101" and info.value.loc.line == 2


def test_a_long_extends_chain_is_refused(tmp_path):
    for i in range(1500):
        body = f"extends: r{i + 1}.yaml\n" if i < 1499 else LETTER
        (tmp_path / f"r{i}.yaml").write_text(f"ruleset: r{i}\n{body}", encoding="utf-8")
    error = _load_error(str(tmp_path / "r0.yaml"))
    assert error.code == "E108" and error.loc is not None and "extends" in Path(error.loc.file).read_text()


def test_fan_out_through_from_is_refused(tmp_path):
    for i in range(12):  # each level names the next twice: 2^12 reads if nothing stopped it
        body = (f"multiple-choice:\n  from: d{i + 1}.yaml\nopen:\n  from: d{i + 1}.yaml\n" if i < 11 else
                LETTER + "open:\n  steps:\n    - id: w\n      find: {whole: true}\n")
        (tmp_path / f"d{i}.yaml").write_text(f"ruleset: d{i}\n{body}", encoding="utf-8")
    assert _load_error(str(tmp_path / "d0.yaml")).code == "E108"


# ---------------------------------------------------------------- 4. interrupted runs leave nothing
def test_sigterm_removes_the_unfinished_decisions_file(tmp_path):
    data = _records(tmp_path / "in.jsonl", [_row(i, "A " * 50) for i in range(400_000)])
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "rulekit.cli", "eval", "-r", "vlmevalkit", data, "--workers", "1",
                             "--output-dir", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    for _ in range(600):  # until the temporary file exists
        if out.is_dir() and any(out.iterdir()):
            break
        time.sleep(0.05)
    assert any(out.iterdir()), "the run never started writing"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM
    assert b"terminated by SIGTERM" in err and b"Traceback" not in err
    assert list(out.iterdir()) == []


def test_temp_files_of_a_killed_run_are_swept_by_the_next(tmp_path):
    dead = subprocess.Popen(["true"])
    dead.wait()
    out = tmp_path / "out"
    out.mkdir()
    here = machine_tag()
    stale = out / f".vlmevalkit.decisions.jsonl.{dead.pid}@{here}.abcd1234.rulekit-tmp"
    alive = out / f".vlmevalkit.decisions.jsonl.{os.getpid()}@{here}.efgh5678.rulekit-tmp"
    elsewhere = out / f".vlmevalkit.decisions.jsonl.{dead.pid}@{'0' * 12}.ijkl9012.rulekit-tmp"  # another container
    foreign = out / ".notes.tmp"
    for p in (stale, alive, elsewhere, foreign):
        p.write_bytes(b"x" * 1000)
    result = CliRunner().invoke(main, ["eval", "-r", "vlmevalkit", "--output-dir", str(out)])
    assert result.exit_code == 0
    assert not stale.exists() and alive.exists() and foreign.exists() and elsewhere.exists()
    assert f"holds temporary files of another run (another machine or container, or an older rulekit): " \
           f"{elsewhere.name}; left alone" in result.stderr
    assert (out / "vlmevalkit.decisions.jsonl").is_file()


# ---------------------------------------------------------------- 5. unbounded regex and condition cost
EVIL = 'ruleset: evil\nmultiple-choice:\n  steps:\n    - id: evil\n      find: {regex: "(?P<answer>(a|a)+)+c"}\n'


def test_a_step_that_keeps_timing_out_is_error_on_each_record_and_never_cut_off(tmp_path, monkeypatch):
    monkeypatch.setattr(regex_limits, "REGEX_TIMEOUT", 0.05)
    rs = _ruleset(tmp_path, EVIL)
    rows = [_row(i, "a" * 40) for i in range(20)] + [_row(20 + i, "c") for i in range(5)]  # "c": no time-out
    data = _records(tmp_path / "in.jsonl", rows)
    result = CliRunner().invoke(main, ["eval", "-r", rs, data, "--format", "json", "--output-dir", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    res = json.loads(result.stdout)["results"][0]
    assert res["outcomes"]["error"] == 20
    assert res["errors"] == {"regex time limit in step `evil`": 20}  # each record on its own: no "step cut off"
    assert "warning[W320]: 20 record(s) stopped by a regex time limit" in result.stderr
    assert "evil: step `evil` 20" in result.stderr
    decided = [json.loads(line) for line in (tmp_path / "o" / "evil.decisions.jsonl").open()]
    assert all(r["step"] == "evil" and r["outcome"] == "error" for r in decided[:20])
    assert [r["outcome"] for r in decided[20:]] == ["unresolved"] * 5  # later records are still tried


def test_many_slow_steps_exhaust_each_records_budget_and_nothing_more(tmp_path, monkeypatch):
    monkeypatch.setattr(regex_limits, "REGEX_TIMEOUT", 10.0)
    monkeypatch.setattr(regex_limits, "RECORD_BUDGET", 0.3)
    from rulekit.engine import decide as engine
    monkeypatch.setattr(engine, "RECORD_BUDGET", 0.3)
    steps = "".join(f'    - id: s{i}\n      find: {{regex: "(?P<answer>(a|a)+)+c"}}\n' for i in range(10))
    steps += '    - id: last\n      find: {literal: "{letter}"}\n'
    rs = load_ruleset(_ruleset(tmp_path, "ruleset: slow\nmultiple-choice:\n  steps:\n" + steps))
    ev = Evaluator(rs)
    decisions = [ev.decide(Record(str(i), "multiple-choice", "a" * 40, "A", MC)) for i in range(6)]
    assert all(d.outcome == "error" for d in decisions)
    assert all(d.reason.startswith(("regex budget", "regex time limit")) for d in decisions)
    after = ev.decide(Record("ok", "multiple-choice", "B", "B", MC))  # the slow records left nothing behind
    assert after.outcome == "rule" and after.step == "last" and after.correct is True


def test_a_prepare_time_out_names_the_section_not_the_previous_records_step(tmp_path, monkeypatch):
    monkeypatch.setattr(regex_limits, "REGEX_TIMEOUT", 0.05)
    rs = load_ruleset(_ruleset(tmp_path, 'ruleset: p\nmultiple-choice:\n  prepare:\n    - remove-regex: "(a|a)+c"\n'
                                         '  steps:\n    - id: first\n      find: {literal: "{letter}"}\n'))
    ev = Evaluator(rs)
    ok = ev.decide(Record("1", "multiple-choice", "B", "B", MC))
    assert ok.step == "first"
    slow = ev.decide(Record("2", "multiple-choice", "a" * 40, "A", MC))
    assert slow.outcome == "error" and slow.step is None
    assert "multiple-choice` section's prepare" in slow.message


def test_nested_counted_repetition_is_refused_at_load(tmp_path):
    error = _load_error(_ruleset(tmp_path, 'ruleset: big\nmultiple-choice:\n  steps:\n    - id: x\n'
                                           '      find: {regex: "(?P<answer>(?:a{1000}){1000})"}\n'))
    assert error.code == "E122" and error.loc.line == 5


@pytest.mark.parametrize("condition,code", [
    ("words > " + "1" * 5000, "E204"),
    (" + ".join(["'x'*100000"] * 20) + " == 'y'", "E204"),
    ("words > 0 and " + "length" * 0 + "x" * 10_001 + " > 1", "E204"),
])
def test_oversized_conditions_are_refused_at_load(tmp_path, condition, code):
    error = _load_error(_ruleset(tmp_path, f'ruleset: c\nmultiple-choice:\n  steps:\n    - id: x\n'
                                           f'      when: "{condition}"\n      find: {{literal: "{{letter}}"}}\n'))
    assert error.code == code and error.loc.line == 5


def test_huge_values_inside_a_condition_are_a_per_record_error(tmp_path):
    product = "length"
    for _ in range(10):  # a balanced product of 1,024 factors: shallow, and far over 4,096 bits
        product = f"({product}*{product})"
    rs = load_ruleset(_ruleset(tmp_path, f'ruleset: c\nmultiple-choice:\n  steps:\n    - id: x\n'
                                         f'      when: "{product} > 1"\n      find: {{literal: "{{letter}}"}}\n'))
    d = Evaluator(rs).decide(Record("1", "multiple-choice", "A" + " and more text" * 8, "A", MC))
    assert d.outcome == "error" and "bits" in d.message


def test_comparing_words_with_a_huge_number_decides_normally(tmp_path):
    rs = load_ruleset(_ruleset(tmp_path, 'ruleset: c\nmultiple-choice:\n  steps:\n    - id: x\n'
                                         f'      when: "words < {10 ** 40}"\n      find: {{literal: "{{letter}}"}}\n'))
    assert Evaluator(rs).decide(Record("1", "multiple-choice", "A", "A", MC)).outcome == "rule"


def test_a_huge_seed_is_refused_before_it_breaks_json_output(tmp_path):
    error = _load_error(_ruleset(tmp_path, "ruleset: s\n" + LETTER + "  fallback: {random-option: {seed: " + "9" * 30 + "}}\n"))
    assert error.code == "E113" and error.loc.line == 6


# ---------------------------------------------------------------- 7. workers hold bounded buffers
def test_a_worker_holds_little_per_record(tmp_path):
    from rulekit.run import parallel

    path = tmp_path / "tiny.jsonl"
    _records(path, [_row(i) for i in range(20_000)])
    parallel._JOB = ([load_ruleset("vlmevalkit")], None, 1_000_000, None, True, False, [])
    try:
        tracemalloc.start()
        part = parallel._decide_chunk(parallel.Chunk(str(path), 0, path.stat().st_size))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        parallel._JOB = None
    assert part.records == 20_000
    assert peak / part.records < 1000, f"{peak / part.records:.0f} bytes per record"  # was ~4,100 (orjson rows kept)


# ---------------------------------------------------------------- 8. output-dir problems
def test_output_dir_problems_are_usage_errors_and_write_nothing(tmp_path):
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    dangling = tmp_path / "link"
    dangling.symlink_to(tmp_path / "nowhere")
    taken = tmp_path / "taken"
    (taken / "lmms-eval.decisions.jsonl").mkdir(parents=True)
    for out in (blocker / "out", dangling, taken):
        result = CliRunner().invoke(main, ["eval", "-r", "vlmevalkit", "-r", "lmms-eval", "--output-dir", str(out)])
        assert result.exit_code == 2, (out, result.output)
        assert "error[E406]" in result.stderr and "Traceback" not in result.stderr
    assert not (taken / "vlmevalkit.decisions.jsonl").exists(), "nothing committed before the failure"
    assert not (tmp_path / "nowhere").exists()


# ---------------------------------------------------------------- 9. nothing silent
def _warning_rows() -> list[dict]:
    rows = [_row(i) for i in range(6)]
    rows[4]["id"] = "1"                      # a repeated id
    rows[5].pop("answer")                    # no gold
    rows.append({"id": "q", "response": "A", "question_type": "multiple-choice", "answer": "A"})  # no options
    return rows


@pytest.mark.parametrize("workers", [1, 2])
def test_input_problems_are_warned_with_counts(tmp_path, workers):
    data = _records(tmp_path / "in.jsonl", _warning_rows())
    args = ["eval", "-r", "vlmevalkit", data, "--workers", str(workers)]
    if workers > 1:  # split even this small file over two workers
        from rulekit.run import parallel
        args = args  # noqa: PLW0127 - the split threshold is lowered below
        old = parallel.MIN_SPLIT_BYTES
        parallel.MIN_SPLIT_BYTES = 0
    try:
        result = CliRunner().invoke(main, args)
    finally:
        if workers > 1:
            parallel.MIN_SPLIT_BYTES = old
    assert result.exit_code == 0, result.output
    assert f"warning[W310]: 1 repeated record id(s) (every occurrence is scored) (first: `1`, {data}:5)" in result.stderr
    assert f"warning[W311]: 1 record(s) without a gold answer (scored wrong) (first: {data}:6)" in result.stderr
    assert f"warning[W312]: 1 multiple-choice record(s) without options" in result.stderr
    assert "errors by reason: 1 no options to draw from" not in result.stdout  # vlmevalkit: unresolved, not error


def test_strict_makes_a_warning_an_error_and_writes_nothing(tmp_path):
    data = _records(tmp_path / "in.jsonl", _warning_rows())
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["eval", "-r", "vlmevalkit", data, "--strict", "--output-dir", str(out)])
    assert result.exit_code == 2
    assert "error[W310]" in result.stderr and "--strict" in result.stderr
    assert not any(out.glob("*.decisions.jsonl"))


def test_errors_are_summarized_by_reason(tmp_path):
    long = dict(_row(3), response="x" * 50)
    data = _records(tmp_path / "in.jsonl", [_row(1), {"id": "2", "response": "x", "question_type": "multiple-choice",
                                                      "answer": "A"}, long])
    result = CliRunner().invoke(main, ["eval", "-r", "lmms-eval", data, "--max-chars", "40"])
    assert result.exit_code == 0
    assert "lmms-eval: errors by reason: 1 reply over --max-chars" in result.stdout
    # a record without options is not an error: lmms-eval cannot read it (outcome unreadable, left out)
    assert "lmms-eval: 1 unreadable (multiple-choice without options), left out of n and accuracy" in result.stdout
