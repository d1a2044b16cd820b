"""Untrusted input files (issue 14, items 3, 7, 8, 9): streams read once and whole, corrupt files
named (E301), excerpts cut to a window, spreadsheet formulas without values flagged (W313).

Streams are real: a FIFO made with os.mkfifo, the stdin of a `rulekit` subprocess, `/dev/stdin`.
"""
from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import threading
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulekit.cli import main
from rulekit.core.errors import InputError, Loc, RulekitError, WARNINGS, _excerpt
from rulekit.readers import read_records

CLI = Path(__file__).parent / "fixtures" / "cli"
MC = {"A": "a cat", "B": "a dog"}
ROWS = [{"id": str(i), "response": "The answer is " + "AB"[i % 3 == 0], "choices": MC, "answer": "A"}
        for i in range(50)]
JSONL = "".join(json.dumps(r) + "\n" for r in ROWS).encode()


def _rulekit(*args, stdin=None, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rulekit", *args], input=stdin, capture_output=True,
                          cwd=cwd, timeout=120)


def _tables(tmp_path: Path) -> dict[str, bytes]:
    """The same 50 records in every format a stream can carry."""
    import pandas as pd

    frame = pd.DataFrame([{"index": r["id"], "prediction": r["response"], "A": MC["A"], "B": MC["B"],
                           "answer": r["answer"]} for r in ROWS])
    frame.to_parquet(tmp_path / "t.parquet")
    frame.to_excel(tmp_path / "t.xlsx", index=False)
    return {"jsonl": JSONL, "jsonl.gz": gzip.compress(JSONL), "json": json.dumps(ROWS).encode(),
            "csv": frame.to_csv(index=False).encode(), "tsv": frame.to_csv(index=False, sep="\t").encode(),
            "parquet": (tmp_path / "t.parquet").read_bytes(), "xlsx": (tmp_path / "t.xlsx").read_bytes()}


# ---------------------------------------------------------------- 3. streams
@pytest.mark.slow  # a subprocess per input (seconds)
@pytest.mark.parametrize("kind", ["jsonl", "jsonl.gz", "json", "csv", "tsv", "parquet", "xlsx"])
def test_stdin_is_read_whole_in_every_format(tmp_path, kind):
    data = _tables(tmp_path)[kind]
    for arg in ("-", "/dev/stdin"):  # before: format detection read the stream, n=0, exit 0
        result = _rulekit("eval", "-r", "vlmevalkit", arg, "--format", "json", stdin=data)
        assert result.returncode == 0, result.stderr.decode()
        row = json.loads(result.stdout)["results"][0]
        assert row["n"] == 50 and round(row["metrics"]["accuracy"] * 50) == 33, (kind, arg)


def test_a_fifo_is_read_whole_and_once(tmp_path):
    fifo = tmp_path / "replies"
    os.mkfifo(fifo)

    def feed():
        with open(fifo, "wb") as f:
            f.write(JSONL)

    writer = threading.Thread(target=feed)
    writer.start()
    result = CliRunner().invoke(main, ["eval", "-r", "vlmevalkit", str(fifo), "--format", "json"])
    writer.join(10)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["results"][0]["n"] == 50


def test_records_read_from_a_stream_equal_those_read_from_the_file(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_bytes(JSONL)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    threading.Thread(target=lambda: Path(fifo).write_bytes(JSONL)).start()
    from_stream = list(read_records([str(fifo)]))
    assert [(r.id, r.response, r.where.split(":")[-1]) for r in from_stream] == \
           [(r.id, r.response, r.where.split(":")[-1]) for r in read_records([str(path)])]


def test_no_input_names_the_bundled_sample_and_says_stdin_is_not_read(tmp_path):
    result = _rulekit("eval", "-r", "vlmevalkit", "--format", "json", stdin=JSONL)
    assert result.returncode == 0
    err = result.stderr.decode()
    assert "scoring the bundled sample" in err and "stdin is not read unless you pass -" in err
    assert json.loads(result.stdout)["results"][0]["n"] == 307  # the sample's multiple-choice records
    quiet = subprocess.run([sys.executable, "-m", "rulekit", "eval", "-r", "vlmevalkit"], stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=120)
    assert "scoring the bundled sample" in quiet.stderr.decode() and "stdin" not in quiet.stderr.decode()


def test_bad_json_on_stdin_names_stdin_line_and_column():
    result = _rulekit("eval", "-r", "vlmevalkit", "-", stdin=JSONL + b'{"id": oops}\n')
    assert result.returncode == 2
    assert result.stderr.decode().startswith("<stdin>:51:8: error[E300]: invalid JSON")


# ---------------------------------------------------------------- 8. corrupt files → E301, located
def _corrupt_files(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """name -> (file, what its E301 message must contain)."""
    import zipfile

    tables = _tables(tmp_path)
    big = "".join(json.dumps({**ROWS[0], "id": str(i)}) + "\n" for i in range(3000)).encode()
    out: dict[str, tuple[Path, str]] = {}
    z = gzip.compress(big)
    (tmp_path / "cut.jsonl.gz").write_bytes(z[: len(z) // 2])
    out["jsonl.gz"] = (tmp_path / "cut.jsonl.gz", "after line ")
    z = gzip.compress(tables["csv"] * 1)
    (tmp_path / "cut.csv.gz").write_bytes(z[:-12])
    out["csv.gz"] = (tmp_path / "cut.csv.gz", "truncated or corrupt")  # before: "Aborted!"
    z = gzip.compress(tables["json"])
    (tmp_path / "cut.json.gz").write_bytes(z[:-12])
    out["json.gz"] = (tmp_path / "cut.json.gz", "truncated or corrupt")
    p = tables["parquet"]
    (tmp_path / "cut.parquet").write_bytes(p[: len(p) // 2])
    out["parquet"] = (tmp_path / "cut.parquet", "Parquet")
    mid = bytearray(p)  # a damaged data page, footer intact
    start = p.index(b"PAR1") + 4
    mid[start + 8:start + 200] = b"\xff" * 192
    (tmp_path / "page.parquet").write_bytes(bytes(mid))
    out["parquet page"] = (tmp_path / "page.parquet", "truncated or corrupt")
    src = zipfile.ZipFile(tmp_path / "t.xlsx")
    with zipfile.ZipFile(tmp_path / "xml.xlsx", "w") as dst:
        for info in src.infolist():
            body = src.read(info.filename)
            if info.filename.endswith("sheet1.xml"):
                body = body[: len(body) // 2]
            dst.writestr(info, body)
    out["xlsx xml"] = (tmp_path / "xml.xlsx", "truncated or corrupt")
    (tmp_path / "cut.xlsx").write_bytes(tables["xlsx"][:500])
    out["xlsx zip"] = (tmp_path / "cut.xlsx", "truncated or corrupt")
    return out


def test_corrupt_and_truncated_files_are_E301_naming_the_file(tmp_path):
    for name, (path, words) in _corrupt_files(tmp_path).items():
        result = CliRunner().invoke(main, ["eval", "-r", "vlmevalkit", str(path)])
        assert result.exit_code == 2, (name, result.output)
        assert "Traceback" not in result.output and "Aborted" not in result.output, name
        first = result.stderr.splitlines()[0]
        assert first.startswith(f"{path}") and "error[E301]" in first and words in first, (name, first)
        assert "\ufffd" not in result.stderr, name  # no binary excerpt


def test_a_truncated_gzip_is_located_after_the_last_whole_line(tmp_path):
    path, _ = _corrupt_files(tmp_path)["jsonl.gz"]
    with pytest.raises(InputError) as info:
        list(read_records([str(path)]))
    error = info.value
    assert error.code == "E301" and error.loc.line > 0
    assert f"after line {error.loc.line}" in error.message
    read = 0
    with gzip.open(path, "rb") as f:
        try:
            for _ in f:
                read += 1
        except EOFError:
            pass
    assert error.loc.line == read  # every whole line before the break was read


# ---------------------------------------------------------------- 7. excerpts
def test_an_excerpt_is_a_window_of_the_line_not_the_line(tmp_path):
    path = tmp_path / "huge.jsonl"
    with open(path, "wb") as f:
        f.write(JSONL)
        f.write(b'{"id": "x", "response": "' + b"\x1b[2J" + b"a" * 20_000_000 + b'", broken}\n')
    tracemalloc.start()
    lines = _excerpt(Loc(str(path), 51, 25 + 4 + 20_000_000 + 2))  # at the comma after the string
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 4 << 20  # before: the whole line, twice
    assert len(lines[1]) < 200 and lines[1].endswith('a", broken}') and "…" in lines[1]
    assert lines[2].index("^") - lines[1].index("|") == lines[1].index(",") - lines[1].index("|")
    head = _excerpt(Loc(str(path), 51, 26))
    assert "\x1b" not in head[1] and "\ufffd[2J" in head[1]  # a control character cannot reach the terminal


def test_a_500_mb_line_error_prints_a_bounded_message(tmp_path):
    path = tmp_path / "long.jsonl"
    with open(path, "wb") as f:
        f.write(b'{"id": "1", "response": "' + b"b" * 50_000_000 + b'" oops}\n')
    result = _rulekit("eval", "-r", "vlmevalkit", str(path), "--workers", "1")
    assert result.returncode == 2
    assert len(result.stderr) < 1000  # before: the whole line plus its caret line (100 MB)
    assert result.stderr.decode().startswith(f"{path}:1:50000028: error[E300]")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=300), st.integers(1, 4), st.integers(0, 400))
def test_excerpts_of_any_bytes_are_single_lines_without_control_characters(tmp_path, data, line, col):
    path = tmp_path / "any.bin"
    path.write_bytes(data)
    for text in _excerpt(Loc(str(path), line, col)):
        assert "\n" not in text and "\r" not in text
        assert not any(ord(c) < 32 and c != "\t" for c in text)


@pytest.mark.slow  # a subprocess per input (seconds)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from([b"\n", b"\r\n", b" ", b"{", b"}", b'"', b"\xff", b"\x00", b"\x1f\x8b", b"[",
                                 b'{"id": "1", "response": "A", "answer": "A"}']), max_size=12),
       st.sampled_from(["-", "file"]))
def test_any_bytes_on_stdin_or_in_a_file_give_records_or_a_located_error(tmp_path, parts, how):
    data = b"".join(parts)
    path = tmp_path / "in"
    path.write_bytes(data)
    result = _rulekit("eval", "-r", "vlmevalkit", "-" if how == "-" else str(path), "--format", "json",
                      stdin=data)
    err = result.stderr.decode("utf-8", "replace")
    assert result.returncode in (0, 2) and "Traceback" not in err, err
    if result.returncode == 2:
        assert "error[E3" in err or "error[E4" in err, err


# ---------------------------------------------------------------- 9. spreadsheet formulas
def test_formula_cells_without_a_cached_value_are_a_warning_with_a_count(monkeypatch):
    monkeypatch.chdir(CLI)
    WARNINGS.clear()
    result = CliRunner().invoke(main, ["eval", "-r", "vlmevalkit", "formula_predictions.xlsx"])
    assert result.exit_code == 0
    assert ("formula_predictions.xlsx:3: warning[W313]: 2 formula cells without a cached value, read as empty "
            "(first: cell F3)") in result.stderr
    strict = CliRunner().invoke(main, ["eval", "-r", "vlmevalkit", "formula_predictions.xlsx", "--strict"])
    assert strict.exit_code == 2 and "error[W313]" in strict.stderr


def test_a_sheet_saved_with_values_has_no_warning(tmp_path):
    _tables(tmp_path)
    result = CliRunner().invoke(main, ["eval", "-r", "vlmevalkit", str(tmp_path / "t.xlsx"), "--strict"])
    assert result.exit_code == 0 and "W313" not in result.stderr


def test_generate_that_cannot_start_leaves_no_output_file(tmp_path):
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps({"id": "q1", "question": "2+2?", "choices": {"A": "3", "B": "4"}, "answer": "B"})
                     + "\n")
    out = tmp_path / "gen.jsonl"
    result = CliRunner().invoke(main, ["generate", "--model", "tiny", "--data", str(items), "--output", str(out),
                                       "--base-url", "http://127.0.0.1:9/v1"])
    assert result.exit_code == 2 and "error[E500]" in result.stderr
    assert not out.exists()  # before: an empty file that made the next run ask for --resume or --overwrite
    script = ("import sys; sys.modules['vllm'] = None\nfrom rulekit.cli import main\n"
              f"main(['generate', '--model', 'tiny', '--data', {str(items)!r}, '--output', {str(out)!r}])")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=120)
    assert run.returncode == 2 and b"needs vllm" in run.stderr
    assert not out.exists()
