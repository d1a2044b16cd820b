"""Untrusted input, round 3 (issue 33): each class of attack pinned by a test that fails without its fix.

Loses data: (1) `generate --resume` on a file rulekit did not write, (2) a run in another container
sharing `--output-dir`, (3) a FIFO given as an image. Gives a wrong result or writes/reads where it must
not: (4) a forged compiled-ruleset cache entry, (5) links planted at a writer's temporary name,
(6) `--judge-cache` read as an SQLite URI, (7) a published `inf`/NaN, (8) a None or bytes reply in
`decide_batch`, (9) a work dir's link to a file outside it. And: terminal control sequences from
data, Pillow on a plain install. `benchmarks/attacks.py` measures the same attacks (exit code, time,
peak memory) against any checkout.
"""
from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from rulekit import Evaluator, Record, load_ruleset
from rulekit.cli import main
from rulekit.core.errors import InputError, RulekitError

ROOT = Path(__file__).resolve().parents[1]


def _items(path: Path, n: int = 2, images: list | None = None) -> Path:
    rows = [{"id": f"q{i}", "question": f"{i}+1?", "choices": {"A": str(i + 1), "B": "0"}, "answer": "A",
             **({"images": images} if images else {})} for i in range(n)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


# ---------------------------------------------------------------- 1. --resume on a file that is not ours
NOT_OURS = {
    "json report, no final newline": b'{"results": [{"ruleset": "vlmevalkit", "n": 2, "metrics": {"accuracy": 0.5}}]}',
    "json report, pretty": b'{\n  "results": [\n    {"ruleset": "vlmevalkit"}\n  ]\n}',
    "csv": b"id,response\nq0,A\nq1,B",
    "records without a response": b'{"id": "q0", "pred": "A"}\n{"id": "q1", "pred": "B"}\n',
    "one torn line and nothing else": b'{"id": "q0", "respo',
}


@pytest.mark.parametrize("name", sorted(NOT_OURS))
def test_resume_refuses_a_file_it_did_not_write_and_leaves_it_untouched(name, tmp_path):
    """The torn-line repair used to run first: a JSON report without a final newline was truncated to
    nothing (then rewritten, exit 0). Now the file must be recognised as our JSONL before anything is done
    to it; otherwise E300 at its first line that is not a record, and not one byte changes."""
    from rulekit.generate.output import OutputFile

    out = tmp_path / "m.json"
    out.write_bytes(NOT_OURS[name])
    with pytest.raises(InputError) as info:
        OutputFile(out, resume=True)
    assert info.value.code == "E300" and "is not a record" in info.value.message
    assert out.read_bytes() == NOT_OURS[name]
    result = CliRunner().invoke(main, ["generate", "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
                                       "--data", str(_items(tmp_path / "items.jsonl")), "--output", str(out),
                                       "--resume"])
    assert result.exit_code == 2 and "error[E300]" in result.stderr and "Traceback" not in result.output
    assert out.read_bytes() == NOT_OURS[name]


def test_resume_keeps_a_last_record_without_its_newline(tmp_path):
    """A complete last record that lacks only its newline is a record, not a torn line: kept, and the next
    batch starts on a line of its own."""
    from rulekit.generate.output import OutputFile

    out = tmp_path / "m.jsonl"
    out.write_bytes(b'{"id": "q0", "response": "kept 0"}\n{"id": "q1", "response": "kept 1"}')
    with OutputFile(out, resume=True) as f:
        assert f.done == {"q0", "q1"} and f.repaired == 0
        f.append([{"id": "q2", "response": "new"}])
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["id"], r["response"]) for r in rows] == [("q0", "kept 0"), ("q1", "kept 1"), ("q2", "new")]


def test_output_is_created_at_the_first_batch_and_never_through_a_link(tmp_path):
    """A run that fails before its first batch leaves the file as it was (none; the old one under
    --overwrite), and the outputs file is never written through a link at --output."""
    from rulekit.generate.output import OutputFile

    old = tmp_path / "old.jsonl"
    old.write_bytes(b'{"id": "q0", "response": "old"}\n')
    with pytest.raises(RuntimeError):
        with OutputFile(old, overwrite=True):
            raise RuntimeError("the backend did not start")
    assert old.read_bytes() == b'{"id": "q0", "response": "old"}\n'
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"precious\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(victim)
    with pytest.raises(RulekitError) as info:
        OutputFile(link)
    assert info.value.code == "E406" and "symbolic link" in info.value.message
    with OutputFile(link, overwrite=True) as f:  # --overwrite replaces the link, not what it points to
        f.append([{"id": "q0", "response": "A"}])
    assert victim.read_bytes() == b"precious\n" and not link.is_symlink() and link.is_file()


# ---------------------------------------------------------------- 2. a run in another container shares --output-dir
def _unshare_works() -> bool:
    return shutil.which("unshare") is not None and subprocess.run(
        ["unshare", "-Urpf", "--mount-proc", "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(not sys.platform.startswith("linux") or not _unshare_works(),
                    reason="needs Linux user and pid namespaces (unshare -Urpf)")
def test_a_run_in_another_pid_namespace_keeps_its_temporary_file(tmp_path):
    """Run A writes its decisions file from another pid namespace (another container); its pid is not
    running here. Run B's start-up sweep into the same directory used to delete A's file on that pid
    guess (A then ended with E406 and wrote nothing). Now a temporary file whose machine, boot and pid
    namespace are not B's is left alone, with a note."""
    out = tmp_path / "out"
    out.mkdir()
    writer = ("import sys\nfrom pathlib import Path\nfrom rulekit.run.evaluate import AtomicWriter\n"
              f"w = AtomicWriter(Path({str(out / 'vlmevalkit.decisions.jsonl')!r}))\n"
              "w.fh.write(b'{}\\n')\nprint(Path(w.tmp).name, flush=True)\nsys.stdin.readline()\nw.commit()\n")
    spin = "i=0; while [ $i -lt 80 ]; do /bin/true; i=$((i+1)); done; "  # A's pid in its namespace: ~80
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    a = subprocess.Popen(["unshare", "-Urpf", "--mount-proc", "sh", "-c", f"{spin}{sys.executable} -c \"$0\"", writer],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        temp = a.stdout.readline().decode().strip()
        assert temp.endswith(".rulekit-tmp"), a.stderr.read()
        pid = int(temp.split(".decisions.jsonl.", 1)[1].split(".", 1)[0].split("@")[0])
        try:
            os.kill(pid, 0)
            pytest.skip(f"A's pid {pid} is also running out here: nothing to tell apart")
        except ProcessLookupError:
            pass
        b = CliRunner().invoke(main, ["eval", "-r", "lmms-eval", "--output-dir", str(out), "--format", "json"])
        assert b.exit_code == 0, b.output
        assert (out / temp).exists(), "B deleted the temporary file of a run it cannot see"
        assert "holds temporary files of another run" in b.stderr and temp in b.stderr
    finally:
        _, err = a.communicate(b"\n", timeout=60)
    assert a.returncode == 0, err.decode()
    assert (out / "vlmevalkit.decisions.jsonl").read_bytes() == b"{}\n"


# ---------------------------------------------------------------- 3. a FIFO as an image
def test_a_fifo_image_is_an_error_at_once_not_a_hang(tmp_path):
    """`generate` with a FIFO named as an image used to block a worker thread forever (SIGTERM could not end
    it; SIGKILL left an empty --output). Now an image must be a regular file: E300 at once, no output file."""
    fifo = tmp_path / "image.png"
    os.mkfifo(fifo)
    out = tmp_path / "gen.jsonl"
    argv = [sys.executable, "-m", "rulekit.cli", "generate", "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
            "--data", str(_items(tmp_path / "items.jsonl", 1, [str(fifo)])), "--output", str(out)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        run = subprocess.run(argv, capture_output=True, timeout=60, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail("generate hung on a FIFO image")
    assert run.returncode == 2, run.stderr.decode()
    assert b"error[E300]" in run.stderr and b"is a FIFO" in run.stderr and b"Traceback" not in run.stderr
    assert not out.exists()


def test_a_device_or_missing_image_is_e300(tmp_path):
    from rulekit.generate.run import load_image

    for path, says in (("/dev/zero", "is a device"), (str(tmp_path / "none.png"), "cannot be read"),
                       (str(tmp_path), "is a directory")):
        with pytest.raises(InputError, match=says):
            load_image(path)
    junk = tmp_path / "junk.png"
    junk.write_bytes(b"not an image")
    with pytest.raises(InputError, match="cannot be read"):
        load_image(str(junk))


def test_worker_threads_never_hold_the_process(tmp_path):
    """The server backend's requests run in daemon threads: one that never returns does not keep the
    interpreter from exiting once the command has failed or been interrupted (a ThreadPoolExecutor's
    threads are joined at exit)."""
    code = ("import threading, sys\nfrom rulekit.generate.run import Prefetch, Sampling, ServerBackend\n"
            "block = threading.Event()\n"
            "def one(x, sampling):\n    if x == 1:\n        block.wait()\n    raise ValueError(x)\n"
            "backend = ServerBackend.__new__(ServerBackend)\nbackend.concurrency = 2\nbackend._send = one\n"
            "try:\n    list(backend.run(Prefetch([0, 1], lambda x: x, 2), Sampling()))\nexcept ValueError:\n    pass\n"
            "print('exits', flush=True)\n")
    # item 0 fails at once, item 1 never returns: the run still waits for it (the replies in flight come
    # first), so ask for the error while it waits -- by a timer that interrupts the wait like SIGTERM
    code = code.replace("try:\n", "import signal\nsignal.signal(signal.SIGALRM, lambda *a: (_ for _ in ()).throw("
                                  "ValueError('terminated')))\nsignal.alarm(1)\ntry:\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 0 and run.stdout == b"exits\n", run.stderr.decode()


def test_pillow_is_a_base_dependency_and_its_absence_is_a_user_error(monkeypatch):
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert any(d.lower().startswith("pillow") for d in project["dependencies"])
    from rulekit.generate import run as generate_run

    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(RulekitError) as info:
        generate_run.load_image(b"\x89PNG")
    assert info.value.code == "E400" and "Pillow" in info.value.message


# ---------------------------------------------------------------- 4. a forged compiled-ruleset cache entry
FIXED = "ruleset: fixed\nmultiple-choice:\n  steps:\n    - id: always-b\n      answer: B\n  compare: letter\n"


def _forge(entry: Path) -> None:
    """What an attacker who can write the cache can do: change the entry's model (the step answers A) but
    not its data (so the fingerprint stays genuine), and recompute any unkeyed checksum."""
    import hashlib

    raw = entry.read_bytes()
    blob = orjson.loads(raw.split(b"\nrulekit-hmac-sha256:")[0])
    blob["body"]["model"] = orjson.loads(orjson.dumps(blob["body"]["model"]).replace(b'"B"', b'"A"'))
    blob["checksum"] = hashlib.sha256(orjson.dumps(blob["body"], option=orjson.OPT_SORT_KEYS)).hexdigest()
    entry.write_bytes(orjson.dumps(blob))


def test_a_forged_cache_entry_changes_no_decision(tmp_path, monkeypatch):
    """A forged entry used to turn accuracy 0.0 into 1.0 under the genuine fingerprint. An entry is now read
    only when sealed with the user's key, which the attacker does not have."""
    monkeypatch.setenv("RULEKIT_CACHE_DIR", str(tmp_path / "cache"))
    ruleset = tmp_path / "fixed.yaml"
    ruleset.write_text(FIXED, encoding="utf-8")
    record = Record("r1", "multiple-choice", "B", "A", {"A": "x", "B": "y"})
    genuine = load_ruleset(str(ruleset))
    assert Evaluator(genuine).decide(record).correct is False
    [entry] = (tmp_path / "cache" / "rulesets").glob("*.json")
    _forge(entry)
    again = load_ruleset(str(ruleset))
    assert again.fingerprint == genuine.fingerprint
    assert Evaluator(again).decide(record).correct is False, "the forged entry decided"


def test_a_cache_directory_others_can_write_is_not_used(tmp_path, monkeypatch):
    """Group- or world-writable cache directories (and a key file others could read) are refused: no
    entry is read from them, none written."""
    from rulekit.language import cache as C

    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    monkeypatch.setenv("RULEKIT_CACHE_DIR", str(shared))
    (shared / "rulesets").mkdir(mode=0o777)
    os.chmod(shared / "rulesets", 0o777)
    load_ruleset("lmms-eval")
    assert list((shared / "rulesets").iterdir()) == [] and C.lookup("lmms-eval") == (None, None)
    monkeypatch.setenv("RULEKIT_CACHE_DIR", str(tmp_path / "own"))
    load_ruleset("lmms-eval")
    key = tmp_path / "own" / "rulesets" / "key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600 and stat.S_IMODE(key.parent.stat().st_mode) == 0o700
    assert C.lookup("lmms-eval")[0] is not None
    os.chmod(key, 0o644)
    from rulekit.core import cachefiles

    cachefiles._KEYS.clear()
    assert C.lookup("lmms-eval") == (None, None), "a key others can read is no key"


# ---------------------------------------------------------------- 5. links planted at a writer's temporary name
def test_no_writer_writes_through_a_planted_link(tmp_path, monkeypatch):
    """The cache's temporary name was `.<entry>.<pid>.tmp` and was written through a link: a link planted
    there overwrote a victim's file. Now every writer creates its temporary file with O_EXCL|O_NOFOLLOW
    under a random name, and the rename replaces a link at the target instead of following it."""
    from rulekit.core import cachefiles

    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"precious\n")
    target = tmp_path / "entry.json"
    (tmp_path / f".{target.name}.{os.getpid()}.tmp").symlink_to(victim)  # the old, guessable name
    cachefiles.write_atomically(target, b"new")
    assert victim.read_bytes() == b"precious\n" and target.read_bytes() == b"new"
    # even a name that is known in advance is never written through
    monkeypatch.setattr(cachefiles.secrets, "token_hex", lambda n: "0" * (2 * n))
    known = f".{target.name}.{os.getpid()}@{cachefiles.machine_tag()}.{'0' * 32}{cachefiles.TEMP_SUFFIX}"
    (tmp_path / known).symlink_to(victim)
    assert cachefiles.write_atomically(target, b"newer") is False
    assert victim.read_bytes() == b"precious\n"
    monkeypatch.undo()
    out = tmp_path / "out"  # a link at the decisions file itself: replaced, never followed
    out.mkdir()
    (out / "vlmevalkit.decisions.jsonl").symlink_to(victim)
    assert CliRunner().invoke(main, ["eval", "-r", "vlmevalkit", "--output-dir", str(out)]).exit_code == 0
    assert victim.read_bytes() == b"precious\n" and not (out / "vlmevalkit.decisions.jsonl").is_symlink()


def test_the_judge_cache_is_never_created_through_a_link(tmp_path):
    from rulekit.llm.cache import JudgeCache

    victim = tmp_path / "victim.sqlite"
    link = tmp_path / "judge.sqlite"
    link.symlink_to(victim)  # dangling: SQLite would create the victim's file
    cache = JudgeCache(link)
    with pytest.raises(RulekitError) as info:
        cache.put("k", "m", "p", 1, "r")
    assert info.value.code == "E502" and not victim.exists()


def test_a_judge_cache_in_a_directory_others_can_write_is_e407(tmp_path):
    from rulekit.llm.cache import JudgeCache

    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)  # like /tmp: the sticky bit does not stop a planted `judge.sqlite-wal` link
    with pytest.raises(RulekitError) as info:
        JudgeCache(shared / "judge.sqlite")
    assert info.value.code == "E407"
    JudgeCache(shared / "judge.sqlite", readonly=True)  # reading (--judge-replay, --judge-dry-run) writes nothing


# ---------------------------------------------------------------- 6. --judge-cache is a path, not an SQLite URI
@pytest.mark.parametrize("folder", ["run#1", "run?mode=memory", "run%2F2", "a b"])
def test_the_judge_cache_is_the_file_named(folder, tmp_path, monkeypatch):
    """`run#1/judge.sqlite` used to be opened as the URI `file:run#1/judge.sqlite`: the table landed in
    `run`. Now the path is the file, in both modes."""
    from rulekit.llm.cache import JudgeCache

    monkeypatch.chdir(tmp_path)
    (tmp_path / folder).mkdir()
    path = Path(folder) / "judge.sqlite"
    cache = JudgeCache(path)
    cache.put("k", "m", "p", 1, "reply")
    cache.close()
    assert (tmp_path / folder / "judge.sqlite").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == [folder]
    assert JudgeCache(path, readonly=True).get("k") == "reply"


# ---------------------------------------------------------------- 7. a published number that is not finite
@pytest.mark.parametrize("value", ["inf", "-Infinity", "NaN", "sNaN", "1e999999999", "-1E+400"])
def test_a_published_number_that_is_not_finite_is_e300(value, tmp_path):
    """`inf` was "matched" by any value (exit 0); NaN, sNaN, 1e999999999 gave tracebacks."""
    rows = ["index\tquestion\tA\tB\tanswer\tprediction"] + [f"{i}\tq\tx\ty\tA\t{'AB'[i % 2]}" for i in range(4)]
    (tmp_path / "m_MMStar.tsv").write_text("\n".join(rows) + "\n")
    (tmp_path / "m_MMStar_acc.csv").write_text(f"split,Overall\nnone,{value}\n")
    result = CliRunner().invoke(main, ["reproduce", str(tmp_path), "--format", "json"])
    # a report that cannot be read is a located note and exit 1 (issue 30), never "matched"
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    out = json.loads(result.stdout)
    assert out["results"] == [] and [m["file"] for m in out["missed"]] == [str(tmp_path / "m_MMStar_acc.csv")]
    assert f"error[E300]: `Overall` is not a finite number: '{value}'" in out["missed"][0]["why"]


def test_no_figure_agrees_with_a_number_that_is_not_finite():
    from rulekit.report.reproduce import Published

    for text in ("inf", "-inf", "nan", "1e999999999"):
        assert not any(Published("none", "Overall", text).agrees(v, p)
                       for v in (0.5, float("inf"), float("nan"), 1e308) for p in (False, True))
    assert not Published("none", "Overall", "0.5").agrees(float("nan"), False)
    assert Published("none", "Overall", "0.5").agrees(0.5, False)


# ---------------------------------------------------------------- 8. a reply that is None or bytes
@pytest.mark.parametrize("ruleset", ["lmms-eval", "vlmevalkit", "mmmu"])
def test_a_missing_or_non_text_reply_never_earns_a_reward(ruleset):
    """decide_batch read None as the text "None" and bytes as their repr (b'B' decided B, reward 1.0)."""
    batch = Evaluator(load_ruleset(ruleset)).decide_batch(
        [None, b"B", bytearray(b"B"), ["B"], True, "B"], golds=["B"] * 6, options=[["x", "y"]] * 6)
    assert list(batch.rewards)[:5] == [0.0] * 5 and list(batch.outcomes)[:5] == ["error"] * 5
    assert list(batch.preds)[:5] == [None] * 5
    assert batch.rewards[5] == 1.0
    d = Evaluator(load_ruleset(ruleset)).decide(Record("r", "multiple-choice", None, "B", {"A": "x", "B": "y"}))
    assert d.outcome == "error" and d.correct is not True and "None" in d.message


# ---------------------------------------------------------------- 9. a link out of a work dir
def test_a_work_dirs_link_to_a_file_outside_it_is_never_read(tmp_path):
    """A work dir (someone else's files) with `m_MMStar_acc.csv` linking to a secret outside it: the
    secret's line was quoted in the E300 message. Links out of the tree are not followed (a note says
    so); the prediction file beside a report is looked for inside the tree too."""
    secret = tmp_path / "secret.txt"
    secret.write_text("split,Overall\nnone,s3cr3t-t0ken\n")
    outside = tmp_path / "outside.tsv"
    outside.write_text("index\tquestion\tA\tB\tanswer\tprediction\n1\tq\tx\ty\tA\ts3cr3t-pr3d\n")
    work = tmp_path / "work"
    work.mkdir()
    (work / "m_MMStar.tsv").write_text("index\tquestion\tA\tB\tanswer\tprediction\n1\tq\tx\ty\tA\tA\n")
    (work / "m_MMStar_acc.csv").symlink_to(secret)
    (work / "n_MMStar_acc.csv").write_text("split,Overall\nnone,1.0\n")
    (work / "n_MMStar.tsv").symlink_to(outside)
    (work / "inside_MMStar_acc.csv").symlink_to(work / "n_MMStar_acc.csv")  # a link within the tree is fine
    result = CliRunner().invoke(main, ["reproduce", str(work), "--format", "json"])
    assert "s3cr3t" not in result.output
    notes = json.loads(result.stdout)["notes"]
    assert f"{work / 'm_MMStar_acc.csv'}: a symbolic link to a file outside {work}; not read" in notes
    assert f"{work / 'n_MMStar.tsv'}: a symbolic link to a file outside {work}; not read" in notes


# ---------------------------------------------------------------- terminal
EVIL = "\x1b]0;pwned\x07\x1b[2J\u202eevil\x9b31m"
RAW = ("\x1b", "\x07", "\u202e", "\x9b")


def _clean(text: str) -> bool:
    return not any(c in text for c in RAW)


def test_control_sequences_from_data_never_reach_the_terminal(tmp_path):
    """ESC/OSC, BEL, C1 CSI and U+202E in ids, replies, options, ruleset names and file names are shown as
    escapes by every command that prints them (explain, eval, reproduce, errors, check)."""
    data = tmp_path / "in.jsonl"
    data.write_text(json.dumps({"id": f"r{EVIL}", "response": f"The answer is A {EVIL}", "choices": {"A": f"x{EVIL}",
                                "B": "y"}, "answer": "A", "meta": {"category": EVIL}}) + "\n", encoding="utf-8")
    evil_rs = tmp_path / "evil.yaml"
    evil_rs.write_text(f"ruleset: {json.dumps(chr(0x202e) + 'evil')}\nextends: vlmevalkit\n", encoding="utf-8")  # names
    # refuse control characters (E113), not bidi overrides
    runs = {
        "explain": ["explain", "-r", "vlmevalkit", "--id", f"r{EVIL}", str(data)],
        "explain --response": ["explain", "-r", "vlmevalkit", "--response", EVIL, "--options", f"A={EVIL},B=y"],
        "eval table": ["eval", "-r", str(evil_rs), str(data), "--by", "category"],
        "eval json": ["eval", "-r", str(evil_rs), str(data), "--by", "category", "--format", "json"],
        "eval markdown": ["eval", "-r", str(evil_rs), str(data), "--format", "markdown"],
        "check": ["check", str(evil_rs)],
        "error": ["eval", "-r", f"{EVIL}.yaml"],
    }
    (tmp_path / "w").mkdir()
    (tmp_path / "w" / f"m{EVIL}_MMStar.tsv").write_text("index\tquestion\tA\tB\tanswer\tprediction\n1\tq\tx\ty\tA\tA\n")
    runs["reproduce"] = ["reproduce", str(tmp_path / "w")]
    runs["reproduce json"] = ["reproduce", str(tmp_path / "w"), "--format", "json"]
    leaked = []
    for name, args in runs.items():
        result = CliRunner().invoke(main, args)
        assert "Traceback" not in result.output, (name, result.output)
        if not _clean(result.stdout + result.stderr):
            leaked.append(name)
    assert leaked == []
    out = CliRunner().invoke(main, runs["eval json"]).stdout
    assert EVIL in json.loads(out)["results"][0]["metrics"]["by_category"], "the JSON still means the same"


def test_emoji_codes_and_markup_in_messages_are_text():
    result = CliRunner().invoke(main, ["eval", "-r", ":x: [bold]b[/bold].yaml"])
    assert result.exit_code == 2 and "\u274c" not in result.stderr
    assert ":x: [bold]b[/bold].yaml" in result.stderr


def test_the_sanitiser_escapes_what_a_terminal_obeys_and_keeps_text():
    from rulekit.core.terminal import json_safe, safe

    assert safe("plain, ünïcödé, 中文, tabs\tand\nnewlines") == "plain, ünïcödé, 中文, tabs\tand\nnewlines"
    assert safe(EVIL) == "\\x1b]0;pwned\\x07\\x1b[2J\\u202eevil\\x9b31m"
    assert safe("a\rb\x00\u2066c\u2069\ufeff") == "a\\x0db\\x00\\u2066c\\u2069\\ufeff"
    blob = json.dumps({"k": EVIL}, ensure_ascii=False)
    assert _clean(json_safe(blob)) and json.loads(json_safe(blob)) == {"k": EVIL}

