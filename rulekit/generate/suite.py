"""The seed suite (rulekit/data/suite.yaml): for each benchmark, the layout of its release, each
framework's prompt and ruleset; `rulekit run` drives generate → eval → diff from it."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import yaml

from rulekit.core.errors import UsageError


@dataclass(frozen=True)
class Benchmark:
    """One benchmark of the suite: its layout, each framework's prompt style and ruleset, the field maps
    a ruleset needs (`fields`), and a note on where the frameworks read it differently."""

    name: str
    aliases: tuple[str, ...]
    layout: str
    prompts: dict
    rulesets: dict
    fields: dict = field(default_factory=dict)
    note: str | None = None

    def prompt(self, choice: str | None) -> str:
        """The prompt style for `--prompt` (None: Atropos'; a framework's name: that framework's; else a style)."""
        if choice is None:
            return self.prompts["atropos"]
        return self.prompts.get(choice, choice)


@lru_cache(maxsize=1)
def load_suite() -> dict[str, Benchmark]:
    """Name → Benchmark for every benchmark of the suite, in the file's order."""
    path = Path(__file__).resolve().parent.parent / "data" / "suite.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    out = {}
    for name, entry in data["benchmarks"].items():
        out[name] = Benchmark(name, tuple(entry.get("aliases") or ()), entry["layout"], dict(entry["prompts"]),
                              dict(entry["rulesets"]), dict(entry.get("fields") or {}), entry.get("note"))
    return out


def find_benchmark(name: str) -> Benchmark:
    """The suite's benchmark called `name` or one of its aliases (case ignored); E400 naming the suite when none."""
    wanted = name.strip().lower()
    for bench in load_suite().values():
        if wanted == bench.name.lower() or wanted in (a.lower() for a in bench.aliases):
            return bench
    import difflib

    names = list(load_suite())
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.5)
    raise UsageError(f"`{name}` is not a benchmark of the seed suite",
                     help=(f"did you mean `{close[0]}`? " if close else "") + f"the suite: {', '.join(names)}",
                     code="E400")


# ---------------------------------------------------------------- rulekit run
def folder_name(name: str) -> str:
    """A benchmark's folder under the run's output dir: letters, digits and `._+-` (anything else `_`)."""
    import re

    return re.sub(r"[^A-Za-z0-9._+-]", "_", name).lstrip(".-") or "benchmark"


def parse_data(items: tuple[str, ...] | list[str]) -> dict[str, str]:
    """`--data` values: `NAME=PATH` (NAME a benchmark of the suite) or a bare PATH (key "")."""
    out: dict[str, str] = {}
    for item in items:
        name, sep, path = item.partition("=")
        if sep and name.strip():
            try:
                out[find_benchmark(name).name] = path
                continue
            except UsageError:
                pass
        out[""] = item
    return out


def data_for(bench: Benchmark, data: dict[str, str]) -> tuple[str, str | None, str | None, bool]:
    """(data, split, config, local) for a benchmark: `--data` (NAME=PATH, or the only benchmark's PATH)
    when given, else the hub release its layout names, with the layout's split and config."""
    from rulekit.generate.layouts import load_layout

    given = data.get(bench.name) or data.get("")
    if given is not None:
        return given, None, None, True
    source = load_layout(bench.layout).source
    if source is None:
        raise UsageError(f"{bench.name}: layout `{bench.layout}` names no dataset", help="give --data", code="E400")
    return source.dataset, source.split, source.config, False


def run_suite(names: list[str], *, model: str, output_dir: str, data: dict[str, str] | None = None,
              split: str | None = None, config: str | None = None, prompt: str | None = None,
              rulesets: list[str] | None = None, base_url: str | None = None, api_key: str | None = None,
              sampling=None, max_tokens: int | None = None, chat: bool | None = None, batch_size: int = 32,
              concurrency: int = 8, limit: int | None = None, engine_args: dict | None = None, seed: int | None = None,
              judge: dict | None = None, show: int = 20, say=print) -> list[dict]:
    """For each benchmark: generate (resumable: `DIR/<benchmark>/outputs.jsonl`), score with each ruleset
    (`<ruleset>.decisions.jsonl`, `results.json`), diff the first two (`diff.json`); then `DIR/report.html`
    over them all. One engine (or server) serves every benchmark. Returns what the report shows."""
    import orjson

    from rulekit.core.cachefiles import write_atomically
    from rulekit.engine.compiler import load_ruleset
    from rulekit.engine.judge import ENV_URL, judges_of
    from rulekit.generate.run import Sampling, generate, make_backend
    from rulekit.llm.prompts import load_prompt
    from rulekit.readers import parse_field_map, read_records
    from collections import deque

    from rulekit.report.diff import DiffStream, public
    from rulekit.report.html import run_page
    from rulekit.report.table import results_json
    from rulekit.run.evaluate import evaluate
    from rulekit.run.judging import prepare_eval

    benches = [find_benchmark(n) for n in names]
    data = dict(data or {})
    unknown = [k for k in data if k and k not in {b.name for b in benches}]
    if unknown:
        raise UsageError(f"--data names a benchmark this run does not have: {', '.join(unknown)}", code="E400")
    if "" in data and len(benches) > 1:
        raise UsageError("--data PATH with several benchmarks: say which, --data NAME=PATH", code="E400")
    root = Path(output_dir)
    root.mkdir(parents=True, exist_ok=True)
    judge = dict(judge or {})
    have_judge = bool(judge.get("judge_url") or __import__("os").environ.get(ENV_URL))
    engine: list = []

    def shared():  # the engine or server client, made when a benchmark first has items to generate
        if not engine:
            engine.append(make_backend(model, base_url, api_key, chat, concurrency, 300.0, engine_args))
        return engine[0]

    runs: list[dict] = []
    try:
        for bench in benches:
            where = root / folder_name(bench.name)
            where.mkdir(parents=True, exist_ok=True)
            source, default_split, default_config, local = data_for(bench, data)
            style = bench.prompt(prompt)
            p = load_prompt(style)
            samp = sampling or Sampling(max_tokens=max_tokens or p.style.max_tokens or 128)
            out = where / "outputs.jsonl"
            say(f"{bench.name}: generating with prompt `{p.name}` into {out}")
            summary = generate(model=model, data=source, output=str(out), prompt=style,
                               split=split or default_split, config=config or default_config,
                               layout="vlmevalkit-tsv" if source.endswith(".tsv") else bench.layout,
                               sampling=samp, base_url=base_url, api_key=api_key, resume=True,
                               batch_size=batch_size, concurrency=concurrency, limit=limit, chat=chat,
                               engine_args=engine_args, backend=shared)
            generation = {"model": model, "data": source, "layout": bench.layout, "prompt": p.name,
                          "prompt fingerprint": p.fingerprint, "records": summary.total,
                          "generated now": summary.written, "already there": summary.skipped,
                          "outputs": str(out)}
            notes = [bench.note] if bench.note else []
            names_ = list(rulesets) if rulesets else [bench.rulesets["atropos"], bench.rulesets["vlmevalkit"]]
            scored = []  # (ruleset, its field map) of each ruleset scored
            for name in names_:
                rs = load_ruleset(name)
                if judges_of(rs) and not have_judge:
                    notes.append(f"{rs.name} asks a judge and none was given (--judge-url, --judge-model): not scored")
                    say(f"{bench.name}: {notes[-1]}")
                    continue
                scored.append((rs, parse_field_map(f"{k}={v}" for k, v in bench.fields.get(name, {}).items())))
            # the first two are diffed as `rulekit diff` does, streamed (DiffStream): each ruleset reads the
            # outputs with its own field map, so A's decisions are kept (not its records) and, while B is
            # scored, A's records are read again beside B's, in the same order
            stream = DiffStream(show) if len(scored) >= 2 else None
            a_decisions: deque = deque()
            results, loaded = [], []
            for k, (rs, fields) in enumerate(scored):
                records = read_records([str(out)], fields)
                [rs], records = prepare_eval([rs], records, seed, _Quiet(), **judge)
                see = None
                if stream is not None and k == 0:
                    def see(record, decisions):
                        a_decisions.append(decisions[0])
                elif stream is not None and k == 1:
                    a_records = iter(read_records([str(out)], scored[0][1]))

                    def see(record, decisions):
                        stream.see(next(a_records), [a_decisions.popleft(), decisions[0]])
                [result] = evaluate([rs], records, seed=seed, output_dir=str(where), on_decisions=see)
                results.append(result)
                loaded.append(rs)
            write_atomically(where / "results.json", results_json(results).encode() + b"\n", mode=0o644, quiet=False)
            report = None
            if stream is not None:
                report = stream.report(results[0], results[1], seed=seed if seed is not None else 0,
                                       rulesets=(loaded[0], loaded[1]))
                write_atomically(where / "diff.json", orjson.dumps(public(report), option=orjson.OPT_INDENT_2 |
                                                                  orjson.OPT_NON_STR_KEYS) + b"\n",
                                 mode=0o644, quiet=False)
            for r in results:
                say(f"{bench.name}: {r.ruleset} accuracy {100 * (r.metrics.get('accuracy') or 0):.2f} % "
                    f"over {r.n} records")
            if report is not None:
                say(f"{bench.name}: {report['summary']['disagree']} of {report['n']} records decided differently")
            runs.append({"benchmark": bench.name, "generation": generation, "results": results, "diff": report,
                         "notes": notes})
    finally:
        for backend in engine:
            backend.close()
    payload = {"benchmarks": [{"benchmark": r["benchmark"], "generation": r["generation"], "notes": r["notes"],
                               "results": [x.as_json() for x in r["results"]],
                               "diff": public(r["diff"]) if r["diff"] else None} for r in runs]}
    data_json = orjson.loads(orjson.dumps(payload, option=orjson.OPT_NON_STR_KEYS))
    write_atomically(root / "report.html", run_page(runs, data_json).encode(), mode=0o644, quiet=False)
    write_atomically(root / "summary.json", orjson.dumps(data_json, option=orjson.OPT_INDENT_2) + b"\n", mode=0o644, quiet=False)
    return runs


class _Quiet:
    """A console for prepare_eval that prints nothing (run prints its own lines)."""

    def print(self, *args, **kwargs) -> None:
        """Ignore a line."""
