"""Issue 33's attacks on untrusted input, run against a checkout: did the defence hold, and what did it cost.

    python benchmarks/attacks.py                       # this checkout
    python benchmarks/attacks.py --checkout DIR        # another one (e.g. `git archive main | tar -x -C DIR`)
    python benchmarks/attacks.py --only s4,s5 --json   # some of them, as JSON

Each attack runs `rulekit` (or a few lines of Python) in a child process whose `PYTHONPATH` is the
checkout, in a fresh temporary directory with its own caches, and reports: the child's exit code, its
wall time, its peak memory (max RSS, from `wait4`), and whether the defence held. Nothing here is a
test (tests/test_untrusted_round3.py pins each class); this is the before/after table of the issue's
closing note. Some attacks need Linux (`/proc`, `unshare` for the second machine of s2).
"""
from __future__ import annotations

import argparse
import http.server
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


class _Reply(http.server.BaseHTTPRequestHandler):
    """A stand-in OpenAI-compatible server: one model, every completion says "A"."""

    def log_message(self, *args):  # quiet
        pass

    def _send(self, body: dict) -> None:
        blob = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(blob)))
        self.end_headers()
        self.wfile.write(blob)

    def do_GET(self):
        self._send({"data": [{"id": "fake"}]})

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._send({"choices": [{"message": {"content": "A"}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 3, "completion_tokens": 1}})


def fake_server() -> str:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Reply)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/v1"


class Child:
    """A child process under `/usr/bin/time` (so its peak memory is its own, not this script's at the fork):
    exit code (negative: the signal that ended it), seconds, peak RSS (MB)."""

    def __init__(self, argv: list[str], env: dict, cwd: Path, stdin=subprocess.DEVNULL):
        self.stats = tempfile.NamedTemporaryFile(prefix="rulekit-attack-time-", delete=False)
        self.stats.close()
        self.start = time.perf_counter()
        self.proc = subprocess.Popen(["/usr/bin/time", "-f", "%M %x", "-o", self.stats.name, *argv], env=env,
                                     cwd=cwd, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.out: list[bytes] = []
        self.err: list[bytes] = []
        self._readers = [threading.Thread(target=lambda s=s, b=b: b.append(s.read()), daemon=True)
                         for s, b in ((self.proc.stdout, self.out), (self.proc.stderr, self.err))]
        for t in self._readers:
            t.start()
        self.code: int | None = None
        self.seconds = 0.0
        self.peak_mb = 0.0

    def _signal(self, sig: int) -> None:
        """Signal the measured command (the child of `time`)."""
        try:
            kids = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text().split()
        except OSError:
            kids = []
        for pid in kids:
            try:
                os.kill(int(pid), sig)
            except OSError:
                pass

    def wait(self, timeout: float | None = None, term_after: float | None = None) -> "Child":
        """Wait for the child; with `term_after`, SIGTERM it then and SIGKILL it 5 s later if still there."""
        deadline = None if timeout is None else self.start + timeout
        termed = None
        while self.proc.poll() is None:
            now = time.perf_counter()
            if term_after is not None and termed is None and now - self.start > term_after:
                self._signal(signal.SIGTERM)
                termed = now
            if (termed is not None and now - termed > 5) or (deadline is not None and now > deadline):
                self._signal(signal.SIGKILL)
            time.sleep(0.02)
        self.seconds = time.perf_counter() - self.start
        lines = Path(self.stats.name).read_text().splitlines()
        os.unlink(self.stats.name)
        peak, code = lines[-1].split()
        self.peak_mb = int(peak) / 1024
        killed = [ln for ln in lines if "terminated by signal" in ln]
        self.code = -int(killed[0].split()[-1]) if killed else int(code)
        for t in self._readers:
            t.join(5)
        return self

    @property
    def stdout(self) -> bytes:
        return b"".join(self.out)

    @property
    def stderr(self) -> bytes:
        return b"".join(self.err)


class Attack:
    """One attack's setting: a temporary directory, an environment pointing at the checkout."""

    def __init__(self, checkout: Path):
        self.dir = Path(tempfile.mkdtemp(prefix="rulekit-attack-"))
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("RULEKIT_", "PYTHON"))}
        self.env.update(PYTHONPATH=str(checkout), RULEKIT_CACHE_DIR=str(self.dir / "cache"),
                        XDG_CACHE_HOME=str(self.dir / "xdg"), COLUMNS="200")

    def rulekit(self, *args, **kw) -> Child:
        return Child([sys.executable, "-m", "rulekit.cli", *map(str, args)], self.env, self.dir, **kw)

    def python(self, code: str) -> Child:
        return Child([sys.executable, "-c", code], self.env, self.dir)

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


def _items(path: Path, n: int = 2, image: str | None = None) -> Path:
    rows = [{"id": f"q{i}", "question": f"{i}+1?", "choices": {"A": str(i + 1), "B": "0"}, "answer": "A",
             **({"images": [image]} if image else {})} for i in range(n)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _verdict(child: Child, held: bool, detail: str) -> dict:
    return {"exit": child.code, "seconds": round(child.seconds, 2), "peak_mb": round(child.peak_mb, 1),
            "held": held, "detail": detail}


# ---------------------------------------------------------------- loses data
def s1_resume_a_json_report(a: Attack) -> dict:
    """generate --resume on a JSON report without a final newline: must be refused, the file untouched."""
    url = fake_server()
    report = a.dir / "m.json"
    original = b'{"results": [{"ruleset": "vlmevalkit", "n": 2, "metrics": {"accuracy": 0.5}}]}'
    report.write_bytes(original)
    child = a.rulekit("generate", "--model", "fake", "--base-url", url, "--data", _items(a.dir / "items.jsonl"),
                      "--output", report, "--resume").wait(120)
    kept = report.read_bytes() == original
    return _verdict(child, kept and child.code != 0, f"file {'untouched' if kept else 'rewritten'}")


def s1b_resume_without_final_newline(a: Attack) -> dict:
    """generate --resume on our JSONL whose last complete record lacks its newline: keep the record."""
    url = fake_server()
    out = a.dir / "m.jsonl"
    rows = [{"id": "q0", "response": "kept answer 0"}, {"id": "q1", "response": "kept answer 1"}]
    out.write_bytes(b"\n".join(json.dumps(r).encode() for r in rows))  # no final newline
    child = a.rulekit("generate", "--model", "fake", "--base-url", url, "--data", _items(a.dir / "items.jsonl", 3),
                      "--output", out, "--resume").wait(120)
    try:
        got = [json.loads(line) for line in out.read_text().splitlines()]
    except ValueError:
        got = []
    kept = [r for r in got if r.get("response", "").startswith("kept")]
    return _verdict(child, len(kept) == 2 and len(got) == 3, f"{len(kept)} of 2 records kept, {len(got)} lines")


def s2_shared_output_dir(a: Attack) -> dict:
    """Run A (another pid namespace: another container) and run B share --output-dir: A must finish."""
    if shutil.which("unshare") is None or subprocess.run(["unshare", "-Urpf", "--mount-proc", "true"],
                                                         capture_output=True).returncode != 0:
        return {"exit": None, "seconds": None, "peak_mb": None, "held": None, "detail": "needs unshare -Urpf"}
    big = a.dir / "big.jsonl"
    line = json.dumps({"id": "x", "response": "A " * 40, "choices": {"A": "a", "B": "b"}, "answer": "A"})
    with big.open("w") as f:
        for i in range(150_000):
            f.write(line.replace('"x"', f'"r{i}"') + "\n")
    out = a.dir / "out"
    # in a new pid namespace A's pid is small; some processes first, so that pid is free out here too
    spin = "i=0; while [ $i -lt 80 ]; do /bin/true; i=$((i+1)); done; "
    cmd = f"{spin} {sys.executable} -m rulekit.cli eval -r vlmevalkit {big} --workers 1 --output-dir {out} --format json"
    run_a = Child(["unshare", "-Urpf", "--mount-proc", "sh", "-c", cmd], a.env, a.dir)
    for _ in range(1200):
        if out.is_dir() and any(p.name.endswith("rulekit-tmp") for p in out.iterdir()):
            break
        time.sleep(0.05)
    temp = [p.name for p in out.iterdir()] if out.is_dir() else []
    run_b = a.rulekit("eval", "-r", "lmms-eval", "--output-dir", out, "--format", "json").wait(300)
    run_a.wait(600)
    done = (out / "vlmevalkit.decisions.jsonl").is_file()
    return _verdict(run_a, run_a.code == 0 and done,
                    f"A's temp {temp[:1]}; B exit {run_b.code}; A's decisions file {'written' if done else 'missing'}")


def s3_fifo_image(a: Attack) -> dict:
    """generate with a FIFO as an image: no hang (SIGTERM at 5 s, SIGKILL 5 s later), no empty --output."""
    url = fake_server()
    fifo = a.dir / "image.png"
    os.mkfifo(fifo)
    out = a.dir / "gen.jsonl"
    child = a.rulekit("generate", "--model", "fake", "--base-url", url, "--data",
                      _items(a.dir / "items.jsonl", 1, str(fifo)), "--output", out).wait(60, term_after=5)
    left = "none" if not out.exists() else f"{out.stat().st_size} bytes"
    return _verdict(child, child.code == 2 and not out.exists(), f"output file: {left}")


# ---------------------------------------------------------------- wrong results, writes elsewhere
FIXED = "ruleset: fixed\nmultiple-choice:\n  steps:\n    - id: always-b\n      answer: B\n  compare: letter\n"


def s4_forged_cache_entry(a: Attack) -> dict:
    """A forged compiled-ruleset cache entry (its unkeyed checksum recomputed) must not change decisions."""
    rs = a.dir / "fixed.yaml"
    rs.write_text(FIXED)
    data = a.dir / "in.jsonl"
    data.write_text("".join(json.dumps({"id": f"r{i}", "response": "B", "choices": {"A": "x", "B": "y"},
                                        "answer": "A"}) + "\n" for i in range(10)))
    first = a.rulekit("eval", "-r", rs, data, "--format", "json").wait(120)
    genuine = json.loads(first.stdout)["results"][0]
    forged = 0
    for entry in (a.dir / "cache").rglob("*.json"):
        forged += _forge(entry)
    child = a.rulekit("eval", "-r", rs, data, "--format", "json").wait(120)
    got = json.loads(child.stdout)["results"][0]
    held = got["metrics"]["accuracy"] == genuine["metrics"]["accuracy"] == 0.0
    return _verdict(child, held, f"{forged} entries forged; accuracy {genuine['metrics']['accuracy']} -> "
                                 f"{got['metrics']['accuracy']} under fingerprint {got['fingerprint']} "
                                 f"(genuine {genuine['fingerprint']})")


def _forge(entry: Path) -> int:
    """The step's fixed answer B made A in the entry's model (not its data: the fingerprint stays), and
    the checksum recomputed where the format has one (the attacker has no key for a keyed one)."""
    import hashlib

    import orjson

    raw = entry.read_bytes()
    trailer = raw.find(b"\n", raw.find(b"{"))
    blob = orjson.loads(raw if trailer < 0 else raw[:trailer])
    text = orjson.dumps(blob["body"]["model"]).replace(b'"B"', b'"A"')
    blob["body"]["model"] = orjson.loads(text)
    if "checksum" in blob:
        blob["checksum"] = hashlib.sha256(orjson.dumps(blob["body"], option=orjson.OPT_SORT_KEYS)).hexdigest()
    entry.write_bytes(orjson.dumps(blob) + (b"" if trailer < 0 else raw[trailer:]))
    return 1


def s5_planted_symlink(a: Attack) -> dict:
    """Links planted at the cache writer's temporary names (every pid) must not let it write a victim file."""
    rs = a.dir / "fixed.yaml"
    rs.write_text(FIXED)
    victim = a.dir / "victim.txt"
    victim.write_bytes(b"precious\n")
    a.rulekit("eval", "-r", rs, "--format", "json").wait(120)  # learn the entry's name
    entries = list((a.dir / "cache").rglob("*.json"))
    for entry in entries:
        entry.unlink()
    last = int(Path("/proc/sys/kernel/ns_last_pid").read_text())
    planted = 0
    for entry in entries:
        for pid in range(last + 1, last + 3000):
            link = entry.with_name(f".{entry.name}.{pid}.tmp")
            try:
                link.symlink_to(victim)
                planted += 1
            except OSError:
                pass
    child = a.rulekit("eval", "-r", rs, "--format", "json").wait(120)
    intact = victim.read_bytes() == b"precious\n"
    return _verdict(child, intact, f"{planted} links planted; victim {'intact' if intact else 'overwritten'}")


def s6_judge_cache_path(a: Attack) -> dict:
    """--judge-cache 'run#1/judge.sqlite' must be that file, not `run`."""
    code = ("from pathlib import Path\nfrom rulekit.llm.cache import JudgeCache\n"
            "c = JudgeCache(Path('run#1/judge.sqlite'))\nc.put('k', 'm', 'p', 1, 'r')\nc.close()\n")
    (a.dir / "run#1").mkdir()
    child = a.python(code).wait(60)
    right = (a.dir / "run#1" / "judge.sqlite").is_file()
    wrong = (a.dir / "run").exists()
    return _verdict(child, right and not wrong, f"run#1/judge.sqlite {'written' if right else 'absent'}; "
                                                f"`run` {'created' if wrong else 'absent'}")


def s7_non_finite_published_number(a: Attack, value: str = "inf") -> dict:
    """A published `inf` (or NaN, sNaN, 1e999999999) is never matched, and never a traceback."""
    rows = ["index\tquestion\tA\tB\tanswer\tprediction"] + [f"{i}\tq\tx\ty\tA\t{'AB'[i % 2]}" for i in range(4)]
    (a.dir / "m_MMStar.tsv").write_text("\n".join(rows) + "\n")
    (a.dir / "m_MMStar_acc.csv").write_text(f"split,Overall\nnone,{value}\n")
    child = a.rulekit("reproduce", a.dir, "--format", "json").wait(120)
    tb = b"Traceback" in child.stderr
    return _verdict(child, child.code != 0 and not tb, "traceback" if tb else f"exit {child.code}")


def s8_none_reply(a: Attack) -> dict:
    """decide_batch: a None reply and a bytes reply earn no reward."""
    code = ("from rulekit import Evaluator, load_ruleset\n"
            "b = Evaluator(load_ruleset('lmms-eval')).decide_batch([None, b'B'], golds=['A', 'B'], "
            "options=[['x', 'y'], ['x', 'y']])\nprint(list(b.rewards), list(b.outcomes), list(b.preds))\n")
    child = a.python(code).wait(60)
    text = child.stdout.decode().strip()
    return _verdict(child, text.startswith("[0.0, 0.0]") and "error" in text, text)


def s9_symlink_out_of_the_work_dir(a: Attack) -> dict:
    """A work dir's link to a file outside it: its content never appears in the output."""
    secret = a.dir / "secret.txt"
    secret.write_text("split,Overall\nnone,s3cr3t-t0ken\n")
    work = a.dir / "work"
    work.mkdir()
    rows = ["index\tquestion\tA\tB\tanswer\tprediction", "1\tq\tx\ty\tA\tA"]
    (work / "m_MMStar.tsv").write_text("\n".join(rows) + "\n")
    (work / "m_MMStar_acc.csv").symlink_to(secret)
    child = a.rulekit("reproduce", work).wait(120)
    leaked = b"s3cr3t" in child.stdout + child.stderr
    return _verdict(child, not leaked, "secret echoed" if leaked else "not read")


def s10_terminal(a: Attack) -> dict:
    """ESC/OSC, C1 and U+202E from replies and file names never reach the terminal raw; no emoji."""
    evil = "\x1b]0;pwned\x07\x1b[2J\u202eevil\x9b31m"
    ex = a.rulekit("explain", "-r", "vlmevalkit", "--response", evil, "--options", "A=x,B=y").wait(120)
    (a.dir / "w").mkdir()
    (a.dir / "w" / f"m{evil}_MMStar.tsv").write_text("index\tquestion\tA\tB\tanswer\tprediction\n1\tq\tx\ty\tA\tA\n")
    rep = a.rulekit("reproduce", a.dir / "w").wait(120)
    emo = a.rulekit("eval", "-r", ":x:.yaml").wait(120)
    raw = [b"\x1b", "\u202e".encode(), "\x9b".encode()]
    bad = [name for name, c in (("explain", ex), ("reproduce", rep), ("eval error", emo))
           if any(r in c.stdout + c.stderr for r in raw)]
    emoji = "\u274c".encode() in emo.stderr
    worst = max((ex, rep, emo), key=lambda c: c.seconds)
    detail = f"raw control text from: {', '.join(bad) or 'none'}; emoji {'shown' if emoji else 'not shown'}"
    return _verdict(worst, not bad and not emoji, detail) | {"exit": f"{ex.code}/{rep.code}/{emo.code}"}


def s11_pillow(a: Attack, checkout: Path) -> dict:
    """Pillow is a base dependency: `generate` with images works on a plain install."""
    import tomllib

    project = tomllib.loads((checkout / "pyproject.toml").read_text())["project"]
    base = any(d.lower().startswith("pillow") for d in project["dependencies"])
    return {"exit": None, "seconds": None, "peak_mb": None, "held": base,
            "detail": "pillow in dependencies" if base else "pillow only in extras: " + ", ".join(
                k for k, v in project["optional-dependencies"].items() if any(d.startswith("pillow") for d in v))}


ATTACKS = {
    "s1": ("1 resume on a JSON report", s1_resume_a_json_report),
    "s1b": ("1 resume, no final newline", s1b_resume_without_final_newline),
    "s2": ("2 shared --output-dir", s2_shared_output_dir),
    "s3": ("3 FIFO image", s3_fifo_image),
    "s4": ("4 forged cache entry", s4_forged_cache_entry),
    "s5": ("5 planted temp-name links", s5_planted_symlink),
    "s6": ("6 judge cache `run#1/`", s6_judge_cache_path),
    "s7": ("7 published inf", s7_non_finite_published_number),
    "s7n": ("7 published NaN", lambda a: s7_non_finite_published_number(a, "NaN")),
    "s7s": ("7 published sNaN", lambda a: s7_non_finite_published_number(a, "sNaN")),
    "s7e": ("7 published 1e999999999", lambda a: s7_non_finite_published_number(a, "1e999999999")),
    "s8": ("8 None/bytes reply", s8_none_reply),
    "s9": ("9 link out of the work dir", s9_symlink_out_of_the_work_dir),
    "s10": ("terminal escapes, emoji", s10_terminal),
    "s11": ("Pillow on a plain install", None),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--checkout", default=str(HERE), help="the source tree to attack (default: this one)")
    ap.add_argument("--only", help="comma-separated attack keys (default: all)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    checkout = Path(args.checkout).resolve()
    keys = args.only.split(",") if args.only else list(ATTACKS)
    out = {}
    for key in keys:
        name, fn = ATTACKS[key]
        a = Attack(checkout)
        try:
            out[key] = {"attack": name, **(s11_pillow(a, checkout) if fn is None else fn(a))}
        finally:
            a.close()
        if not args.json:
            r = out[key]
            print(f"| {name} | {r['exit']} | {r['seconds']} | {r['peak_mb']} | "
                  f"{'held' if r['held'] else 'BROKEN' if r['held'] is not None else '-'} | {r['detail']} |", flush=True)
    if args.json:
        print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
