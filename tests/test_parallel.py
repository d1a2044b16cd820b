"""Worker processes change nothing: decisions files byte-identical and metrics equal with 1 or N
workers, stream-order random draws included; bad lines are reported at their line in the file."""
from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from rulekit.engine.compiler import load_ruleset
from rulekit.core.errors import InputError
from rulekit.run.parallel import split_jsonl, why_sequential, evaluate_files

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "responses.jsonl"

# lmms-eval: stream-order draws; vmcbench: breakdown + rollup; circular: group metrics;
# omni3dbench: a declared breakdown by computed labels and fractional scores.
RULESETS = ("lmms-eval", "vlmevalkit", "vmcbench", "vlmevalkit+circular", "omni3dbench", "mmmu")


@pytest.fixture(scope="module")
def corpus_slice(tmp_path_factory) -> Path:
    lines = CORPUS.read_bytes().splitlines(keepends=True)[:6000]
    for i in range(0, 6000, 3):  # CircularEval groups of 2 rows (g_index) for the group metrics
        row = orjson.loads(lines[i])
        row["g_index"] = i // 6
        lines[i] = orjson.dumps(row) + b"\n"
    path = tmp_path_factory.mktemp("par") / "slice.jsonl"
    path.write_bytes(b"".join(lines[:3000]) + b"\n" + b"".join(lines[3000:]))  # a blank line inside
    return path


# stream-order draws AND group metrics: the parent's draws must land in the kept rows' places
STREAM_GROUPS = """ruleset: lmms-eval+circular
extends: lmms-eval
metrics:
  groups: {group-by: [g_index, id], key-modulo: 1000000, require: all, report-pending: true}
"""


def _run(path: Path, out: Path, workers: int):
    extra = path.parent / "lmms-eval+circular.yaml"
    extra.write_text(STREAM_GROUPS, encoding="utf-8")
    rulesets = [load_ruleset(name) for name in RULESETS] + [load_ruleset(str(extra))]
    results = evaluate_files(rulesets, [str(path)], seed=0, output_dir=str(out), workers=workers,
                             min_split_bytes=0, chunk_bytes=64 << 10)
    return {r.ruleset: {**r.as_json(), "correct": r.correct} for r in results}  # correct: per-record bytes


@pytest.mark.slow  # forks worker pools over big inputs (seconds)
def test_workers_give_byte_identical_decisions_and_equal_metrics(corpus_slice, tmp_path):
    one = _run(corpus_slice, tmp_path / "one", 1)
    two = _run(corpus_slice, tmp_path / "two", 2)
    three = _run(corpus_slice, tmp_path / "three", 3)
    for name in RULESETS + ("lmms-eval+circular",):
        a = (tmp_path / "one" / f"{name}.decisions.jsonl").read_bytes()
        assert a == (tmp_path / "two" / f"{name}.decisions.jsonl").read_bytes(), name
        assert a == (tmp_path / "three" / f"{name}.decisions.jsonl").read_bytes(), name
        for res in (two, three):
            assert {k: v for k, v in res[name].items() if k != "decisions_file"} == \
                   {k: v for k, v in one[name].items() if k != "decisions_file"}, name
    assert one["lmms-eval"]["outcomes"]["fallback"] > 100  # stream draws really happened in the split run
    assert one["vmcbench"]["metrics"]["by_category_rollup"]  # the merged breakdowns were compared above
    assert one["vlmevalkit+circular"]["metrics"]["n_groups"] > 100
    assert one["lmms-eval+circular"]["metrics"]["n_groups"] > 100
    assert one["lmms-eval+circular"]["outcomes"]["fallback"] > 100


def test_chunks_cover_the_file_at_line_ends(corpus_slice):
    data = corpus_slice.read_bytes()
    chunks = list(split_jsonl(str(corpus_slice), 50_000))
    assert chunks[0].start == 0 and chunks[-1].end == len(data)
    for a, b in zip(chunks, chunks[1:]):
        assert a.end == b.start and data[a.end - 1:a.end] == b"\n"
    assert all(c.end - c.start >= 50_000 for c in chunks[:-1]) and len(chunks) > 5


def test_a_bad_line_in_a_later_chunk_is_reported_at_its_file_line(corpus_slice, tmp_path):
    lines = corpus_slice.read_bytes().splitlines(keepends=True)
    lines[4500] = b'{"id": "x", "response": \n'
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"".join(lines))
    with pytest.raises(InputError) as info:
        evaluate_files([load_ruleset("vlmevalkit")], [str(bad)], output_dir=str(tmp_path / "out"), workers=2,
                       min_split_bytes=0, chunk_bytes=64 << 10)
    assert (info.value.loc.line, info.value.loc.col) == (4501, 25)  # the column where the line ends
    assert not list((tmp_path / "out").glob("*"))  # nothing half-written is left behind
    with pytest.raises(InputError) as alone:  # one process reads lines with their newline: same place
        evaluate_files([load_ruleset("vlmevalkit")], [str(bad)], workers=1)
    assert (alone.value.loc.line, alone.value.loc.col) == (4501, 25)


def test_a_bad_record_in_the_second_input_is_reported_at_its_own_line(corpus_slice, tmp_path):
    good = corpus_slice.read_bytes()
    lines = good.splitlines(keepends=True)
    lines[10] = b"\n"  # blank lines count as lines
    lines[3000] = b'{"id": "x"}\n'  # valid JSON, no response: the record reader's error, not the JSON parser's
    bad = tmp_path / "second.jsonl"
    bad.write_bytes(b"".join(lines))
    with pytest.raises(InputError) as info:
        evaluate_files([load_ruleset("lmms-eval")], [str(corpus_slice), str(bad)], workers=2,
                       min_split_bytes=0, chunk_bytes=64 << 10)
    assert (info.value.loc.file, info.value.loc.line) == (str(bad), 3001)
    assert "response" in info.value.message


def test_judge_rulesets_and_gzip_stay_in_one_process(tmp_path):
    gz = tmp_path / "x.jsonl.gz"
    import gzip

    gz.write_bytes(gzip.compress(b'{"id": "1", "response": "A"}\n'))
    assert "gzip" in why_sequential([load_ruleset("vlmevalkit")], [str(gz)])
    assert "judge" in why_sequential([load_ruleset("vlmevalkit+judge")], [str(CORPUS)])
    assert why_sequential([load_ruleset("lmms-eval")], [str(CORPUS)]) is None


@pytest.mark.slow  # forks worker pools over big inputs (seconds)
def test_ctrl_c_stops_workers_cleanly(tmp_path):
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) during a split run: exit
    130, one line on stderr, no worker tracebacks, nothing left in the output directory."""
    import os
    import signal
    import subprocess
    import sys
    import time

    lines = CORPUS.read_bytes().splitlines(keepends=True)
    big = tmp_path / "big.jsonl"
    with big.open("wb") as f:
        for n in range(3):  # ~93k records: several seconds of work, so the interrupt lands mid-run
            for line in lines:
                row = orjson.loads(line)
                row["id"] = f"{n}/{row['id']}"
                f.write(orjson.dumps(row) + b"\n")
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "rulekit.cli", "eval", "-r", "vlmevalkit", str(big),
                             "--output-dir", str(out), "--workers", "2", "--format", "json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while not (out.exists() and any(out.iterdir())) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err.decode()
    assert err.decode().strip() == "interrupted; no partial output was written"
    assert not list(out.iterdir())


@pytest.mark.slow  # forks worker pools over big inputs (seconds)
def test_field_mapping_and_lmms_log_lines_split_like_one_process(tmp_path):
    """Workers read with the same field map and the same per-line format detection."""
    rows = [orjson.loads(line) for line in CORPUS.read_bytes().splitlines()[:3000]]
    mapped = tmp_path / "mapped.jsonl"
    mapped.write_bytes(b"".join(orjson.dumps({**{k: v for k, v in r.items() if k != "response"},
                                             "prediction": r["response"]}) + b"\n" for r in rows))
    lmms = tmp_path / "lmms.jsonl"
    lmms.write_bytes(b"".join(orjson.dumps({"doc_id": i, "doc": {"id": r["id"], "options": list((r["choices"] or {}).values()),
                                                                  "question": r.get("question")},
                                            "target": r["answer"], "resps": [[r["response"]]],
                                            "filtered_resps": [r["response"]]}) + b"\n"
                             for i, r in enumerate(rows) if r["choices"]))
    for path, fields in ((mapped, {"response": "prediction"}), (lmms, None)):
        outs = []
        for workers in (1, 2):
            out = tmp_path / f"{path.stem}-{workers}"
            [res] = evaluate_files([load_ruleset("vlmevalkit")], [str(path)], fields, output_dir=str(out),
                                   workers=workers, min_split_bytes=0, chunk_bytes=32 << 10)
            outs.append(((out / "vlmevalkit.decisions.jsonl").read_bytes(), res.n))
        assert outs[0] == outs[1] and outs[0][1] > 1000, path.name


def test_cli_says_when_workers_cannot_be_used(tmp_path):
    import gzip
    import subprocess
    import sys

    gz = tmp_path / "x.jsonl.gz"
    gz.write_bytes(gzip.compress(b'{"id": "1", "response": "A", "choices": {"A": "x", "B": "y"}, "answer": "A"}\n'))
    run = subprocess.run([sys.executable, "-m", "rulekit.cli", "eval", "-r", "vlmevalkit", str(gz), "--workers", "2",
                          "--format", "json"], capture_output=True, text=True)
    assert run.returncode == 0
    assert run.stderr.strip() == f"note: --workers 2 ignored, one process: {gz} is gzipped"


@pytest.mark.slow  # forks worker pools over big inputs (seconds)
def test_a_run_stopped_by_a_bad_line_never_waits_on_its_workers(corpus_slice, tmp_path):
    """Stopping on an error kills the workers wherever they stand (idle in a read, mid-chunk, sending):
    repeated with every window position of the bad line, each run ends with the error."""
    import time

    lines = corpus_slice.read_bytes().splitlines(keepends=True)
    for n, at in enumerate((5, 900, 2500, 4100, 5990)):
        bad = lines.copy()
        bad[at] = b'{"id": \n'
        path = tmp_path / f"bad{n}.jsonl"
        path.write_bytes(b"".join(bad))
        started = time.monotonic()
        with pytest.raises(InputError) as info:
            evaluate_files([load_ruleset("lmms-eval")], [str(path)], workers=3, min_split_bytes=0,
                           chunk_bytes=16 << 10)
        assert info.value.loc.line == at + 1
        assert time.monotonic() - started < 120  # a hang here is what this test is for


def test_a_worker_killed_by_the_system_is_an_error_not_a_hang(corpus_slice, tmp_path, monkeypatch):
    """A worker that dies (the OOM killer) ends the run with E510 naming it; nothing is written."""
    import os

    from rulekit.run import parallel

    real = parallel._decide_chunk

    def dies_on_a_later_chunk(chunk):
        if chunk.start > 200_000:
            os._exit(137)
        return real(chunk)

    monkeypatch.setattr(parallel, "_decide_chunk", dies_on_a_later_chunk)  # the forked workers inherit it
    with pytest.raises(parallel.WorkerDied) as info:
        evaluate_files([load_ruleset("vlmevalkit")], [str(corpus_slice)], output_dir=str(tmp_path / "out"),
                       workers=2, min_split_bytes=0, chunk_bytes=64 << 10)
    assert info.value.render() == ("error[E510]: worker process 1 ended without its results (exit code 137; "
                                   "killed by the system, e.g. out of memory?)\n"
                                   "  help: rerun with `--workers 1`, or with fewer workers")
    assert not list((tmp_path / "out").glob("*"))


def test_an_exception_in_a_worker_is_raised_in_the_parent(corpus_slice, monkeypatch):
    from rulekit.run import parallel

    def broken(chunk):
        raise ZeroDivisionError("a bug in a worker")

    monkeypatch.setattr(parallel, "_decide_chunk", broken)
    with pytest.raises(ZeroDivisionError, match="a bug in a worker"):
        evaluate_files([load_ruleset("vlmevalkit")], [str(corpus_slice)], workers=2, min_split_bytes=0,
                       chunk_bytes=64 << 10)
