"""The regex watchdog (rulekit/core/watchdog.py): a process the command line owns keeps regex time limits
with one SIGALRM timer instead of the `regex` module's per-call `timeout`. The limits must hold exactly
as they do without it: a runaway match is stopped at its own deadline, a later and shorter deadline of
the same record is kept, an alarm between calls does nothing, and the process's signals are left as
they were found."""
from __future__ import annotations

import json
import multiprocessing
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from rulekit import Evaluator, Record, load_ruleset
from rulekit.core import regex as regex_limits
from rulekit.core.watchdog import WATCH, unwatch, watch
from rulekit.engine import decide as engine

pytestmark = pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="no setitimer on this platform")

MC = {"A": "a cat", "B": "a dog"}
EVIL = '(?P<answer>(a|a)+)+c'


def _ruleset(tmp_path: Path, steps: str) -> str:
    path = tmp_path / "r.yaml"
    path.write_text("ruleset: w\nmultiple-choice:\n  steps:\n" + steps)
    return str(path)


@pytest.fixture
def quiet_alarm():
    """SIGALRM as a fresh process has it: the suite's hung-test alarm (conftest.py) is put aside for the
    test and given back, with the time it had left."""
    left = signal.setitimer(signal.ITIMER_REAL, 0)[0]
    theirs = signal.signal(signal.SIGALRM, signal.SIG_DFL)
    try:
        yield
    finally:
        signal.signal(signal.SIGALRM, theirs)
        if left:
            signal.setitimer(signal.ITIMER_REAL, left)


@pytest.fixture
def watched(quiet_alarm):
    assert watch()
    try:
        yield WATCH
    finally:
        unwatch()
    assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_runaway_match_is_stopped_at_its_limit(tmp_path, monkeypatch, watched):
    monkeypatch.setattr(regex_limits, "REGEX_TIMEOUT", 0.1)
    rs = load_ruleset(_ruleset(tmp_path, f'    - id: evil\n      find: {{regex: "{EVIL}"}}\n'))
    ev = Evaluator(rs)
    start = time.process_time()  # the watchdog's limits are CPU time: what a loaded machine cannot stretch
    d = ev.decide(Record("1", "multiple-choice", "a" * 40, "A", MC))
    took = time.process_time() - start
    assert d.outcome == "error" and d.reason == "regex time limit in step `evil`"
    assert 0.1 <= took < 1.0
    assert not WATCH.armed  # the record is decided: its timer is disarmed
    ok = ev.decide(Record("2", "multiple-choice", "ac", "A", MC))  # the next record is not touched
    assert ok.outcome == "rule" and ok.step == "evil"


def test_a_later_shorter_deadline_of_the_record_is_kept(tmp_path, monkeypatch, watched):
    """The first call arms the timer for the per-call limit (10 s); the second may only use what is left
    of the record's budget (0.3 s), so the timer must be brought forward."""
    monkeypatch.setattr(regex_limits, "REGEX_TIMEOUT", 10.0)
    monkeypatch.setattr(engine, "RECORD_BUDGET", 0.3)
    rs = load_ruleset(_ruleset(tmp_path, '    - id: quick\n      find: {regex: "(?P<answer>zzz)"}\n'
                                         f'    - id: evil\n      find: {{regex: "{EVIL}"}}\n'))
    start = time.process_time()
    d = Evaluator(rs).decide(Record("1", "multiple-choice", "a" * 40, "A", MC))
    assert d.outcome == "error" and d.step == "evil" and d.reason == "regex budget in step `evil`"
    assert time.process_time() - start < 2.0


def test_an_alarm_between_calls_does_nothing(watched, monkeypatch):
    monkeypatch.setattr(regex_limits, "REGEX_TIMEOUT", 0.05)
    monkeypatch.setattr(regex_limits.CLOCK, "left", 2.0)  # as while `decide` runs
    pattern = regex_limits.compile_regex("b", None)
    assert regex_limits.timed(pattern.search, "abc").group() == "b"
    assert WATCH.armed
    time.sleep(0.2)  # the timer goes off here, outside any regex call
    assert not WATCH.armed and WATCH.deadline == float("inf")
    assert regex_limits.timed(pattern.search, "abc").group() == "b"  # and the next call arms it again


def test_outside_a_record_the_timer_is_never_armed(watched):
    """A regex call outside `decide` (a judge's prefetch) keeps the per-call timeout: nothing would
    disarm a timer after it, and its alarm could fall on a server call or a local model."""
    pattern = regex_limits.compile_regex("b", None)
    assert regex_limits.timed(pattern.search, "abc").group() == "b"
    assert not WATCH.armed


def test_a_forked_child_starts_with_nothing_armed(watched, monkeypatch):
    monkeypatch.setattr(regex_limits.CLOCK, "left", 2.0)
    pattern = regex_limits.compile_regex("b", None)
    regex_limits.timed(pattern.search, "abc")
    assert WATCH.armed
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.apply(_armed) == (True, False, True)  # watching, nothing armed, and its own main thread


def _armed():
    return WATCH.on, WATCH.armed, threading.get_ident() == WATCH.thread


def test_someone_elses_alarm_is_left_alone(quiet_alarm):
    def theirs(signum, frame):
        pass

    old = signal.signal(signal.SIGALRM, theirs)
    try:
        assert not watch() and not WATCH.on
        assert signal.getsignal(signal.SIGALRM) is theirs
    finally:
        signal.signal(signal.SIGALRM, old)
    result = []
    thread = threading.Thread(target=lambda: result.append(watch()))
    thread.start()
    thread.join()
    assert result == [False] and not WATCH.on  # signal handlers belong to the main thread
    signal.setitimer(signal.ITIMER_REAL, 100)  # an alarm of someone else's, even with the default handler
    try:
        assert not watch()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def test_off_the_main_thread_the_per_call_timeout_still_holds(tmp_path, monkeypatch, watched):
    monkeypatch.setattr(regex_limits, "REGEX_TIMEOUT", 0.1)
    rs = load_ruleset(_ruleset(tmp_path, f'    - id: evil\n      find: {{regex: "{EVIL}"}}\n'))
    out = []
    record = Record("1", "multiple-choice", "a" * 40, "A", MC)
    thread = threading.Thread(target=lambda: out.append(Evaluator(rs).decide(record)))
    thread.start()
    thread.join(10)
    assert out and out[0].reason == "regex time limit in step `evil`"


def test_the_command_line_keeps_the_limits_in_its_workers(tmp_path):
    """`rulekit eval` watches its own process and forks its workers watched: every record of a runaway
    step ends as an error, and the whole run stays bounded."""
    rs = _ruleset(tmp_path, f'    - id: evil\n      find: {{regex: "{EVIL}"}}\n')
    data = tmp_path / "in.jsonl"
    with data.open("w") as f:
        for i in range(40_000):
            response = "a" * 40 if i in (0, 20_000) else "B"
            f.write(json.dumps({"id": str(i), "question_type": "multiple-choice", "response": response,
                                "answer": "A", "choices": MC}) + "\n")
    start = time.monotonic()
    run = subprocess.run([sys.executable, "-m", "rulekit.cli", "eval", "-r", rs, str(data), "--workers", "2",
                          "--format", "json", "--output-dir", str(tmp_path / "o")],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    res = json.loads(run.stdout)["results"][0]
    assert res["outcomes"]["error"] == 2 and res["errors"] == {"regex time limit in step `evil`": 2}
    assert time.monotonic() - start < 60


def test_the_command_line_watches_while_it_runs_and_gives_sigalrm_back(tmp_path, monkeypatch, quiet_alarm):
    from click.testing import CliRunner

    from rulekit.cli import main
    from rulekit.core import watchdog

    seen = []

    def recording_watch():
        seen.append(watchdog.watch.__wrapped__())
        return seen[-1]

    recording_watch.__wrapped__ = watchdog.watch
    monkeypatch.setattr(watchdog, "watch", recording_watch)
    monkeypatch.setattr(regex_limits, "REGEX_TIMEOUT", 0.1)
    rs = _ruleset(tmp_path, f'    - id: evil\n      find: {{regex: "{EVIL}"}}\n')
    data = tmp_path / "in.jsonl"
    data.write_text(json.dumps({"id": "1", "question_type": "multiple-choice", "response": "a" * 40,
                                "answer": "A", "choices": MC}) + "\n")
    result = CliRunner().invoke(main, ["eval", "-r", rs, str(data), "--format", "json", "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["results"][0]["errors"] == {"regex time limit in step `evil`": 1}
    assert seen == [True] and not WATCH.on
    assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_judge_is_asked_with_the_timer_disarmed(tmp_path, monkeypatch, watched):
    """Between a record's regex calls and the judge's answer nothing may go off: the client disarms the
    timer before it asks (here a replayed judge with nothing cached, which refuses after that)."""
    from rulekit.engine import judge
    from rulekit.engine.judge import JudgeError, client_for

    monkeypatch.setattr(regex_limits.CLOCK, "left", 2.0)
    regex_limits.timed(regex_limits.compile_regex("b", None).search, "abc")
    assert WATCH.armed
    judge.configure(base_url="http://judge.invalid/v1", model="m", cache=str(tmp_path / "j.sqlite"), replay=True)
    try:
        spec = load_ruleset("vlmevalkit+judge").sections["multiple-choice"].fallback.judge
        with pytest.raises(JudgeError):
            client_for(spec).ask("which letter?", 1, "r1")
        assert not WATCH.armed
    finally:
        judge.configure()


def test_a_reward_batch_runs_watched_and_gives_sigalrm_back(tmp_path, monkeypatch, quiet_alarm):
    """`decide_batch` (an RL reward's call) turns the watchdog on for the batch where SIGALRM is free,
    keeps the limits, and leaves the process as it found it; where SIGALRM is taken it keeps the
    per-call timeout and touches nothing."""
    from rulekit.core import watchdog

    monkeypatch.setattr(regex_limits, "REGEX_TIMEOUT", 0.1)
    rs = load_ruleset(_ruleset(tmp_path, f'    - id: evil\n      find: {{regex: "{EVIL}"}}\n'))
    seen = []
    real = watchdog.watch
    monkeypatch.setattr(watchdog, "watch", lambda: seen.append(real()) or seen[-1])
    batch = Evaluator(rs).decide_batch(["a" * 40, "ac"], ["A", "A"], [MC, MC])
    assert batch.outcomes == ["error", "rule"] and seen == [True]
    assert not WATCH.on and signal.getsignal(signal.SIGALRM) is signal.SIG_DFL
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)

    def theirs(signum, frame):
        pass

    signal.signal(signal.SIGALRM, theirs)
    batch = Evaluator(rs).decide_batch(["a" * 40], ["A"], [MC])
    assert batch.outcomes == ["error"] and seen == [True, False]
    assert signal.getsignal(signal.SIGALRM) is theirs


def test_another_threads_record_never_disarms_the_main_threads_timer(tmp_path, monkeypatch, watched):
    """Issue 33: a thread that decides a record (and so calls `rest()` at its end) while the main thread
    is inside a watched regex call must leave the main thread's timer armed: that call is still stopped
    at its limit. The other thread's record is decided in a SIGUSR1 handler, which the `regex` module
    runs in the main thread in the middle of its match."""
    monkeypatch.setattr(regex_limits, "REGEX_TIMEOUT", 1.0)
    evil = Evaluator(load_ruleset(_ruleset(tmp_path, f'    - id: evil\n      find: {{regex: "{EVIL}"}}\n')))
    (tmp_path / "plain.yaml").write_text('ruleset: p\nmultiple-choice:\n  steps:\n'
                                         '    - id: letter\n      find: {literal: "{letter}"}\n')
    plain = Evaluator(load_ruleset(str(tmp_path / "plain.yaml")))
    seen = []

    def other_thread_decides(signum, frame):
        inside = WATCH.deadline != float("inf")  # the main thread is inside its regex call
        thread = threading.Thread(target=lambda: seen.append(
            (inside, plain.decide(Record("b", "multiple-choice", "B", "B", MC)))))
        thread.start()
        thread.join()

    old = signal.signal(signal.SIGUSR1, other_thread_decides)
    try:
        for _ in range(3):  # on a loaded machine the poke may come too late; it must land inside the call
            seen.clear()
            poke = threading.Timer(0.05, signal.pthread_kill, (threading.get_ident(), signal.SIGUSR1))
            poke.start()
            d = evil.decide(Record("1", "multiple-choice", "a" * 20, "A", MC))  # ~3-10 s unbounded
            poke.join()
            if seen and seen[0][0]:
                break
    finally:
        signal.signal(signal.SIGUSR1, old)
    assert seen and seen[0][0], "the other thread's record was never decided inside the main thread's call"
    assert seen[0][1].outcome == "rule" and seen[0][1].step == "letter"
    assert d.outcome == "error" and d.reason == "regex time limit in step `evil`"


def test_a_call_waiting_for_the_processor_keeps_its_limit_in_cpu_time(watched, monkeypatch):
    """Issue 29: a record's decision must not depend on machine load. The watchdog counts CPU time: a
    call that used little of the processor is not stopped however long the wall clock ran (here a
    regex call that sleeps in Python for three times its limit: its CPU time stays far below it)."""
    monkeypatch.setattr(regex_limits, "REGEX_TIMEOUT", 0.2)
    monkeypatch.setattr(regex_limits.CLOCK, "left", 2.0)  # as while `decide` runs

    def search(text):  # stands for a match descheduled by a busy machine
        time.sleep(0.6)
        return "found"
    assert regex_limits.timed(search, "abc") == "found"
    assert regex_limits.CLOCK.left > 1.9  # and the record's budget spent only the CPU time


def test_each_thread_has_its_own_record_clock(tmp_path, watched, monkeypatch):
    """The main thread is inside a record whose regex budget is spent: another thread's regex call
    outside any record (a metric, a judge prefetch) still runs, and a record another thread decides
    leaves the main thread's clock where it was (and vice versa)."""
    monkeypatch.setattr(regex_limits.CLOCK, "left", 0.0)  # the main thread's record: budget spent
    pattern = regex_limits.compile_regex("b", None)
    plain = Evaluator(load_ruleset(_ruleset(tmp_path, '    - id: letter\n      find: {regex: "(?P<answer>[AB])"}\n')))
    out = []

    def elsewhere():
        out.append(regex_limits.timed(pattern.search, "abc").group())
        out.append(regex_limits.CLOCK.left)
        out.append(plain.decide(Record("b", "multiple-choice", "B", "B", MC)).step)
        out.append(regex_limits.CLOCK.left)

    thread = threading.Thread(target=elsewhere)
    thread.start()
    thread.join(10)
    assert out == ["b", float("inf"), "letter", float("inf")]
    assert regex_limits.CLOCK.left == 0.0  # the other thread's record did not reset the main thread's budget
    with pytest.raises(regex_limits.RegexTimeout):
        regex_limits.timed(pattern.search, "abc")
