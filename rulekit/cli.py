"""The `rulekit` command: a thin click layer over evaluate, report, explain, diff and check."""
from __future__ import annotations

import functools
import os
import re
import signal
import stat
import sys
from pathlib import Path

import click

from rulekit.core.errors import ErrorGroup, RulekitError, UsageError


@functools.lru_cache(maxsize=1)
def _err():
    """stderr's console, made on first use: rich is imported only by a command that prints (~15 ms of
    start-up otherwise). Names, ids and texts come from rulesets and input files, so it is a
    `core.terminal.safe_console`: `[bold]` or `:x:` in them is text to show, never styling or an emoji
    (styles are rich Text objects), and control sequences and bidi overrides show as escapes."""
    from rulekit.core.terminal import safe_console

    return safe_console(stderr=True, soft_wrap=True)


def complete_rulesets(ctx, param, incomplete: str) -> list:
    """Shell completion of a ruleset (`-r`, `check`, `test`): the built-in names that start with what is typed,
    then the directories and `*.yaml`/`*.yml` files under the typed path. Enabled with
    `eval "$(_RULEKIT_COMPLETE=bash_source rulekit)"` (zsh_source, fish_source likewise)."""
    from click.shell_completion import CompletionItem

    from rulekit.core.resources import builtin_rulesets

    items = [CompletionItem(name, help="built-in") for name in builtin_rulesets() if name.startswith(incomplete)]
    folder, slash, prefix = incomplete.rpartition("/")
    base = Path(folder + slash or ".")
    try:
        entries = sorted(base.iterdir()) if base.is_dir() else []
    except OSError:
        entries = []
    for entry in entries:
        if not entry.name.startswith(prefix) or (entry.name.startswith(".") and not prefix.startswith(".")):
            continue
        shown = folder + slash + entry.name
        try:
            if entry.is_dir():
                items.append(CompletionItem(shown + "/"))
            elif entry.suffix in (".yaml", ".yml"):
                items.append(CompletionItem(shown))
        except OSError:
            continue
    return items


def _out(wide: bool = False):
    """stdout's console: a terminal's width; piped, COLUMNS when it is set, else 200. `wide` (`--wide`): at
    least 200 columns, so a full table is drawn whole (a terminal then wraps its lines) rather than cut."""
    from rulekit.core.terminal import safe_console

    console = safe_console(soft_wrap=False)
    if not console.is_terminal and not os.environ.get("COLUMNS", "").isdigit():
        console = safe_console(soft_wrap=False, width=200)
    if wide and console.width < 200:
        console = safe_console(soft_wrap=False, width=200)
    return console


def _echo(text: str, nl: bool = True) -> None:
    """`click.echo` of text that holds names, ids or replies from files: through `core.terminal.safe`."""
    from rulekit.core.terminal import safe

    click.echo(safe(text), nl=nl)


def _echo_json(text: str, nl: bool = True) -> None:
    """`click.echo` of JSON that holds names, ids or replies from files: `core.terminal.json_safe`."""
    from rulekit.core.terminal import json_safe

    click.echo(json_safe(text), nl=nl)


class _LazyOut:
    """stdout's console for `eval`, made only when something is drawn: JSON and Markdown go straight
    to `file` (stdout), so those runs never import rich."""

    def __init__(self, wide: bool = False):
        self.wide = wide

    @property
    def file(self):
        return sys.stdout

    def __getattr__(self, name: str):
        return getattr(_out(self.wide), name)


def user_errors(fn):
    """Turn rulekit errors into a rendered message and exit code 2 (no traceback unless --debug)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        ctx = click.get_current_context()
        try:
            return fn(*args, **kwargs)
        except RulekitError as exc:
            if ctx.find_root().params.get("debug"):
                raise
            _err().print(exc.render())
            ctx.exit(2)
        except Terminated as exc:
            _err().print(f"terminated by {exc.args[0]}; no partial output was written")
            ctx.exit(128 + exc.args[1])
        except KeyboardInterrupt:
            _err().print("interrupted; no partial output was written")
            ctx.exit(130)
    return wrapper


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP arrived: unwinds like Ctrl-C, so unfinished decisions files are dropped."""


def _on_signal(signum, frame) -> None:
    raise Terminated(signal.Signals(signum).name, signum)


def catch_termination() -> None:
    """Make SIGTERM and SIGHUP end a command the way Ctrl-C does (temporary files removed, exit 128+N)
    instead of killing the process where it stands."""
    for sig in (signal.SIGTERM, signal.SIGHUP):
        try:
            if signal.getsignal(sig) in (signal.SIG_DFL, None):
                signal.signal(sig, _on_signal)
        except ValueError:  # not the main thread (an embedding program): leave its signals alone
            return


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show Python tracebacks for errors.")
@click.version_option(package_name="rulekit-eval", message="%(prog)s (distribution %(package)s) %(version)s")
def main(debug: bool) -> None:
    """rulekit — answer extraction and scoring for LLM/VLM evaluations, as data."""
    catch_termination()
    from rulekit.core.watchdog import unwatch, watch

    if watch():  # this process is ours: regex time limits by one timer, not a `timeout` per call
        click.get_current_context().call_on_close(unwatch)


def _load(names: tuple[str, ...]):
    from rulekit.engine.compiler import load_ruleset

    loaded, errors = [], []
    for name in names:
        try:
            loaded.append(load_ruleset(name))
        except ErrorGroup as exc:
            errors.extend(exc.errors)
        except RulekitError as exc:
            errors.append(exc)
    if errors:
        raise ErrorGroup(errors) if len(errors) > 1 else errors[0]
    return _unique(loaded)


def _unique(loaded: list) -> list:
    """Rulesets of one run under distinct names: a repeated name gets `-2`, `-3`, ... (and a note), so
    rows, intervals and decisions files never mix two rulesets up."""
    import dataclasses

    from rulekit.run.evaluate import unique_names

    out = []
    for rs, name in zip(loaded, unique_names([rs.name for rs in loaded])):
        if name != rs.name:
            _err().print(f"note: more than one ruleset is named `{rs.name}`; the one from {rs.files[-1]} is "
                       f"reported as `{name}`")
            rs = dataclasses.replace(rs, name=name)
        out.append(rs)
    return out


def _paths(inputs: tuple[str, ...]) -> list[str]:
    from rulekit.data import sample_path

    paths = list(inputs)
    if not paths:
        paths = [str(sample_path())]
        note = f"note: no INPUT given: scoring the bundled sample ({paths[0]})"
        if _stdin_has_data():
            note += "; stdin is not read unless you pass - as INPUT"
        _err().print(note)
    for p in paths:
        if p != "-" and not Path(p).exists():
            raise UsageError(f"input file not found: {p}", code="E401")
    return paths


def _with_breakdowns(loaded: list, by: str | None) -> list:
    """The rulesets with `--by FIELD,...` added to their metrics' breakdowns (reporting only: decisions and
    fingerprints do not change)."""
    if not by:
        return loaded
    import dataclasses

    names = [f.strip() for f in by.split(",") if f.strip()]
    out = []
    for rs in loaded:
        metrics = rs.model.metrics
        have = [b for b in metrics.breakdown if isinstance(b, str)]
        extra = [n for n in names if n not in have]
        model = rs.model.model_copy(update={"metrics": metrics.model_copy(update={"breakdown": [*metrics.breakdown, *extra]})})
        out.append(dataclasses.replace(rs, model=model))
    return out


def _suggest_rulesets(inputs: tuple[str, ...], loaded: list) -> None:
    """A note when an input's file name names a registered benchmark (`<model>_<dataset>.xlsx`) that no
    chosen ruleset scores the way its framework does (rulekit/data/benchmarks.yaml)."""
    stems = [(Path(path).name, Path(path).name.split(".", 1)[0]) for path in inputs]
    if not any("_" in stem for _, stem in stems):  # no `<model>_<dataset>` name: the registry is not read
        return
    from rulekit.report.reproduce import split_name

    chosen = {rs.name for rs in loaded}
    for name, stem in stems:
        model, bench, family = split_name(stem)
        if family is None or chosen & set(family.rulesets + family.judged):
            continue
        _err().print(f"note: {name} looks like {family.framework}'s {bench} output ({model}); {family.framework} scores it "
                   f"with {', '.join(family.rulesets)} (`rulekit reproduce` names the generation)")


def _stdin_has_data() -> bool:
    """True when stdin is a pipe or a non-empty file (data piped in that a bare run would ignore).

    Without INPUT rulekit scores the bundled sample and never reads stdin: a pipe held open by a
    harness would otherwise block the run, and whether a pipe "has data yet" is a race."""
    try:
        st = os.fstat(sys.stdin.fileno())
    except (AttributeError, OSError, ValueError):
        return False
    return stat.S_ISFIFO(st.st_mode) or (stat.S_ISREG(st.st_mode) and st.st_size > 0)


def _records(inputs: tuple[str, ...], fields: tuple[str, ...]):
    from rulekit.readers import parse_field_map, read_records

    return read_records(_paths(inputs), parse_field_map(fields))


_input_options = [
    click.argument("inputs", nargs=-1, type=click.Path(dir_okay=False)),
    click.option("--field", "fields", multiple=True, metavar="NAME=COLUMN",
                 help="Map a record field to an input column, e.g. response=prediction; a|b takes the first "
                      "that holds a value."),
    click.option("--seed", type=click.IntRange(min=0, max=2**63 - 1), default=None, help="Seed of random fallbacks (overrides the ruleset's)."),
    click.option("--max-chars", type=click.IntRange(min=1), default=1_000_000, show_default=True,
                 help="Replies longer than this are not decided (outcome error)."),
    click.option("--strict", is_flag=True,
                 help="Make input and run warnings (W310-W320: repeated ids, missing golds or options, ...) errors."),
    click.option("--count-unreadable", is_flag=True,
                 help="Count records a ruleset cannot read (outcome unreadable: multiple-choice without options) "
                      "in n and accuracy, as wrong; by default they are left out, and the report says how many."),
]


def where_option(fn):
    """`--where EXPR`: keep only the records the condition holds for (`rulekit.run.where`)."""
    from_help = ("Keep only the records this condition holds for (the rulesets' condition language over the "
                 "record's fields: benchmark, id, model, question_type, gold, text, options, meta.NAME), e.g. "
                 "'benchmark == \"MMMU\"'.")
    return click.option("--where", "where", metavar="EXPR", default=None, help=from_help)(fn)


def _where(source: str | None):
    from rulekit.run.where import where_filter

    return where_filter(source)


def _where_note(flt) -> None:
    """The filter's count on stderr (formats whose stdout is data: JSON, HTML)."""
    if flt is not None:
        _err().print(f"note: {flt.headline()}", markup=False)


def input_options(fn):
    """INPUT... (default: the bundled sample), --field, --seed, --max-chars, --strict, --count-unreadable;
    warnings are collected from the start of the command (strict: raised as errors) and printed on stderr at
    its end."""
    @functools.wraps(fn)
    def wrapper(*args, strict: bool = False, **kwargs):
        from rulekit.core.errors import WARNINGS

        WARNINGS.clear()
        WARNINGS.strict = strict
        try:
            return fn(*args, **kwargs)
        finally:
            for line in WARNINGS.lines():
                _err().print(line)
            WARNINGS.clear()
            WARNINGS.strict = False
    for option in reversed(_input_options):
        wrapper = option(wrapper)
    return wrapper


def _progress(enabled: bool, sized: bool):
    """The eval progress bar: over the input's bytes (percent and time left) when their total is known,
    else a count of records."""
    if not enabled:
        return None
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TaskProgressColumn, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)

    if sized:
        return Progress(TextColumn("scoring"), BarColumn(), TaskProgressColumn(),
                        TextColumn("{task.fields[records]:,} records {task.fields[rate]}"), TimeElapsedColumn(),
                        TextColumn("elapsed,"), TimeRemainingColumn(), TextColumn("left"), console=_err(), transient=True)
    return Progress(TextColumn("scoring"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"),
                    TimeElapsedColumn(), console=_err(), transient=True)


@main.command("eval")
@click.option("-r", "--ruleset", "rulesets", multiple=True, required=True, help="Built-in name or YAML path; repeatable.", shell_complete=complete_rulesets)
@input_options
@click.option("--output-dir", type=click.Path(file_okay=False), help="Write DIR/<ruleset>.decisions.jsonl.")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "markdown", "html"]), default="table",
              help="html: one self-contained page (no network, no script) carrying the json as data.")
@click.option("--judge-url", help="Judge endpoint (OpenAI-compatible base URL); overrides the ruleset and RULEKIT_JUDGE_URL.")
@click.option("--judge-model", help="Judge model; overrides the ruleset and RULEKIT_JUDGE_MODEL.")
@click.option("--judge-cache", type=click.Path(dir_okay=False), help="SQLite cache of judge replies (RULEKIT_JUDGE_CACHE).")
@click.option("--judge-dry-run", is_flag=True, help="Print how many records would go to the judge, and stop.")
@click.option("--judge-replay", is_flag=True, help="Use only cached judge replies; a miss is an error.")
@click.option("--judge-concurrency", type=click.IntRange(1, 256), default=8, show_default=True, help="Judge requests in flight.")
@click.option("--by", metavar="FIELD,...", help="Also break results down by these record fields (e.g. benchmark,model "
              "or category: a top-level field, meta.NAME, or a bare meta key).")
@click.option("--workers", type=click.IntRange(0, 256), default=0,
              help="Worker processes (default 0: one per CPU). Inputs under 4 MB, gzip/stdin/non-JSONL input "
                   "and judge rulesets run in one process.")
@where_option
@click.option("--wide", is_flag=True, help="The full table: every outcome and the fingerprint in columns of their own "
              "(default: a compact table that fits 80 columns).")
@user_errors
def eval_cmd(rulesets, inputs, fields, seed, max_chars, count_unreadable, output_dir, fmt, workers, by, where, wide,
             **judge):
    """Score model outputs with one or more rulesets (no INPUT: the bundled sample)."""
    import time

    from rulekit.run.evaluate import evaluate
    from rulekit.engine.judge import judges_of
    from rulekit.run.judging import prepare_eval
    from rulekit.run.parallel import evaluate_files, why_sequential
    from rulekit.readers import ReadPosition, parse_field_map, read_records
    from rulekit.report.table import print_results

    flt = _where(where)
    loaded = _with_breakdowns(_load(rulesets), by)
    paths, field_map = _paths(inputs), parse_field_map(fields)
    _suggest_rulesets(inputs, loaded)
    position = ReadPosition(paths)
    source = read_records(paths, field_map, position=position)
    prepared = prepare_eval(loaded, flt.filter(source) if flt is not None else source, seed, _LazyOut(),
                            status=_err() if fmt == "table" else None, **judge)  # judge: overrides, dry run, prefetch
    if prepared is None:
        return
    loaded, records = prepared
    judged = any(judges_of(rs) for rs in loaded)  # then `records` is a list, read before the judge was asked
    if not judged:
        position = ReadPosition(paths)  # what evaluate_files reads, below
    total = len(records) if judged else position.total  # records, or the input's bytes (None: a stream)
    progress = _progress(fmt == "table" and _err().is_terminal, bool(total))
    start, task = time.perf_counter(), None

    def on_progress(done: int, read: int | None = None) -> None:
        nonlocal task
        if progress is None:
            return
        if task is None:  # started on the first report: after the worker processes are forked
            task = progress.add_task("scoring", total=total or None, rate="", records=0)
            progress.start()
        rate = f"{done / (time.perf_counter() - start):,.0f}/s"
        if judged or not total:
            progress.update(task, completed=done, records=done, rate=rate)
        else:
            progress.update(task, completed=read if read is not None else position.bytes_read(), records=done, rate=rate)
    try:
        by_fields = [f.strip() for f in by.split(",") if f.strip()] if by else []
        if judged:  # `records` holds the prefetched judge replies' input
            results = evaluate(loaded, records, seed=seed, output_dir=output_dir, on_progress=on_progress,
                               max_chars=max_chars, count_unreadable=count_unreadable, compare_by=by_fields)
        else:
            if workers > 1 and (why := why_sequential(loaded, paths)):
                _err().print(f"note: --workers {workers} ignored, one process: {why}", markup=False)
            results = evaluate_files(loaded, paths, field_map, seed=seed, output_dir=output_dir,
                                     on_progress=on_progress, max_chars=max_chars, workers=workers,
                                     position=position, count_unreadable=count_unreadable, compare_by=by_fields,
                                     where=flt)
    finally:
        if progress is not None:
            progress.stop()
    band = None
    if len(results) > 1:  # every cross-ruleset number on the records all of them scored (rulekit.report.joint)
        from rulekit.report.joint import compare
        band = compare(results, seed if seed is not None else 0)
    from rulekit.core.errors import WARNINGS
    from rulekit.report.model import build_report

    report = build_report(results, band, by=by_fields, seed=seed, inputs=_input_names(inputs, paths),
                          command=_command_line(), headline=flt.headline() if flt is not None else None,
                          warnings=WARNINGS.lines())
    if fmt == "html":
        import orjson

        from rulekit.report.html import eval_page
        from rulekit.report.table import report_extra, results_json

        _where_note(flt)
        _echo_json(eval_page(results, orjson.loads(results_json(results, report_extra(results, band))), report),
                   nl=False)
        return
    if fmt == "json":
        _where_note(flt)
    print_results(results, fmt, _LazyOut(wide), band, headline=report.headline, wide=wide, report=report)


def _input_names(inputs: tuple[str, ...], paths: list[str]) -> list[str]:
    """The inputs as the report names them: the paths given (`-`: stdin), or the bundled sample's."""
    return [("stdin" if p == "-" else p) for p in paths] if inputs else [f"{paths[0]} (the bundled sample)"]


def _command_line() -> str:
    """The running command as a shell line, rebuilt from what click parsed (the same under a test runner as in
    a shell): `rulekit eval -r vlmevalkit --by benchmark file.jsonl`, options left at their default omitted."""
    import shlex

    ctx = click.get_current_context()
    words = ["rulekit", ctx.info_name or ""]
    args = []
    for param in ctx.command.params:
        value = ctx.params.get(param.name)
        if isinstance(param, click.Argument):
            args += [str(v) for v in (value or ())] if param.multiple or param.nargs != 1 else \
                ([str(value)] if value is not None else [])
            continue
        if value is None or value == param.default or value == () or value is False:
            continue
        flag = param.opts[-1] if len(param.opts) > 1 and param.opts[-1].startswith("--") else param.opts[0]
        if param.is_flag if isinstance(param, click.Option) else False:
            words.append(flag)
        elif isinstance(value, (tuple, list)):
            for v in value:
                words += [param.opts[0], str(v)]
        else:
            words += [flag, str(value)]
    return shlex.join([w for w in words if w] + args)


@main.command()
@click.option("-r", "--ruleset", "rulesets", multiple=True, required=True, help="Exactly two rulesets: -r A -r B.", shell_complete=complete_rulesets)
@input_options
@click.option("--format", "fmt", type=click.Choice(["table", "json", "markdown", "html"]), default="table",
              help="html: one self-contained page (no network, no script) carrying the json as data.")
@click.option("--show", type=int, default=None, help="Example replies shown per flip group (default 2; html: 200, "
              "each expandable with both sides' matched spans).")
@where_option
@click.option("--wide", is_flag=True, help="The full flips table: category, both steps and the direction in columns "
              "of their own (default: a compact table that fits 80 columns).")
@user_errors
def diff(rulesets, inputs, fields, seed, max_chars, count_unreadable, fmt, show, where, wide):
    """Every record two rulesets decide differently, grouped by deciding steps, with a paired test."""
    import time

    from rulekit.readers import ReadPosition, parse_field_map, read_records
    from rulekit.report.diff import DiffStream, render_diff
    from rulekit.run.evaluate import evaluate

    if len(rulesets) != 2:
        raise UsageError(f"diff compares exactly two rulesets, got {len(rulesets)}", help="rulekit diff -r A -r B [INPUT]", code="E405")
    flt = _where(where)
    loaded = _load(rulesets)
    paths = _paths(inputs)
    position = ReadPosition(paths)
    records = read_records(paths, parse_field_map(fields), position=position)
    if show is None:
        show = 200 if fmt == "html" else 2
    # streamed: per record only the counts, the disagreeing rows (listed by json and html only) and the
    # first `show` examples of each flip group are kept (rulekit.report.diff.DiffStream)
    stream = DiffStream(show, list_disagreements=fmt in ("json", "html"), count_unreadable=count_unreadable)
    progress = _progress(fmt == "table" and _err().is_terminal, bool(position.total))
    start, task = time.perf_counter(), None

    def on_progress(done: int) -> None:
        nonlocal task
        if progress is None:
            return
        if task is None:
            task = progress.add_task("scoring", total=position.total or None, rate="", records=0)
            progress.start()
        rate = f"{done / (time.perf_counter() - start):,.0f}/s"
        progress.update(task, completed=position.bytes_read() if position.total else done, records=done, rate=rate)
    try:
        results = evaluate(loaded, flt.filter(records) if flt is not None else records, seed=seed,
                           max_chars=max_chars, count_unreadable=count_unreadable, on_decisions=stream.see,
                           on_progress=on_progress)
    finally:
        if progress is not None:
            progress.stop()
    report = stream.report(results[0], results[1], seed=seed if seed is not None else 0, rulesets=tuple(loaded))
    if flt is not None:
        report["_where"] = flt.headline()  # rendering only: `--format json` stays as it was
        if fmt in ("json", "html"):
            _where_note(flt)
    if fmt == "html":
        import orjson

        from rulekit.report.diff import public
        from rulekit.report.html import diff_page

        data = orjson.loads(orjson.dumps(public(report), option=orjson.OPT_NON_STR_KEYS))  # what --format json prints
        _echo_json(diff_page(report, data), nl=False)
        return
    render_diff(report, fmt, _out(wide), wide=wide)


@main.command()
@click.argument("files", nargs=-1, required=True, shell_complete=complete_rulesets)
@user_errors
def check(files):
    """Validate and lint rulesets; every problem as file:line:col. Exit 2 on errors, 1 on lint findings."""
    from rulekit.report.lint import lint

    problems, any_warnings = 0, False
    for name in files:
        try:
            warnings = lint(name)
        except ErrorGroup as exc:
            _err().print(exc.render(), markup=False)
            problems += len(exc.errors)
            continue
        except RulekitError as exc:
            _err().print(exc.render(), markup=False)
            problems += 1
            continue
        any_warnings = any_warnings or bool(warnings)
        for w in warnings:
            _err().print(w.render().replace("error[", "warning[", 1), markup=False)
        _echo(f"{name}: ok" + (f" ({len(warnings)} warning(s))" if warnings else ""))
    if problems:
        click.get_current_context().exit(2)
    if any_warnings:
        click.get_current_context().exit(1)


@main.command("list")
@click.option("--benchmark", help="Only the rulesets that score this benchmark (a framework's dataset name, e.g. MMStar).")
@click.option("--format", "fmt", type=click.Choice(["table", "markdown"]), default="table", show_default=True,
              help="markdown: the docs page docs/rulesets.md (every built-in ruleset with its generation's dates).")
@user_errors
def list_cmd(benchmark, fmt):
    """Built-in rulesets with what they reproduce."""
    if fmt == "markdown":
        if benchmark:
            raise UsageError("--format markdown lists every built-in ruleset; it takes no --benchmark", code="E400",
                             help="rulekit list --format markdown > docs/rulesets.md")
        from rulekit.report.docs_pages import rulesets_markdown

        click.echo(rulesets_markdown(), nl=False)
        return
    from rich.table import Table

    from rulekit.core.resources import builtin_rulesets
    from rulekit.engine.compiler import load_ruleset

    if benchmark:
        from rulekit.report.reproduce import families_for

        families = families_for(benchmark)
        if not families:
            raise UsageError(f"no built-in ruleset is registered for benchmark `{benchmark}`", code="E400",
                             help="the registry is rulekit/data/benchmarks.yaml; a new dataset name is one line there")
        table = Table(title=f"rulesets for {benchmark}", title_justify="left")
        for col in ("framework", "family", "rulesets (tried in this order)", "how it scores"):
            table.add_column(col)
        for f in families:  # the judged generations replay a run's judge replies (`reproduce`), or ask a judge
            judged = [name for name in f.judged if name not in f.rulesets]  # LogicVista's is its only one
            table.add_row(f.framework, f.name, ", ".join(f.rulesets) + (f"\nwith a judge: {', '.join(judged)}"
                                                                         if judged else ""), f.summary)
        _out().print(table)
        from rulekit.generate.suite import find_benchmark

        try:  # a seed-suite benchmark: what `rulekit run` reads it with
            bench = find_benchmark(benchmark)
        except UsageError:
            return
        _echo(f"seed suite ({bench.name}): layout {bench.layout}; prompts atropos {bench.prompts['atropos']}, "
              f"vlmevalkit {bench.prompts['vlmevalkit']}; rulesets {bench.rulesets['atropos']} and "
              f"{bench.rulesets['vlmevalkit']} (`rulekit run {bench.name} --model M -o DIR`)")
        return
    table = Table(title="built-in rulesets", title_justify="left", show_lines=False)
    table.add_column("name", style="bold")
    table.add_column("summary")
    table.add_column("reproduces", style="dim")
    for name in builtin_rulesets():
        rs = load_ruleset(name)
        rep = rs.model.reproduces
        reps = rep if isinstance(rep, list) else [rep] if rep else []
        table.add_row(name, rs.model.summary, "\n".join(f"{r.repo} {r.path} @ {r.commit[:8]}" for r in reps))
    _out().print(table)


def _parse_options(text: str | None) -> dict | None:
    if not text:
        return None
    parts = re.split(r",(?=\s*[A-Za-z]=)", text)
    out = {}
    for part in parts:
        if "=" not in part:
            raise UsageError(f"--options: `{part}` is not LETTER=TEXT", help="e.g. --options 'A=cat,B=dog'", code="E402")
        k, v = part.split("=", 1)
        out[k.strip()] = v
    return out


@main.command()
@click.option("-r", "--ruleset", "ruleset", required=False, help="Built-in name or YAML path.", shell_complete=complete_rulesets)
@click.option("--id", "record_id", help="Record id to explain (needs INPUT).")
@click.argument("inputs", nargs=-1, type=click.Path(dir_okay=False))
@click.option("--response", help="Explain this reply instead of a record from INPUT.")
@click.option("--options", "options_text", help="Options for --response: 'A=cat,B=dog'.")
@click.option("--answer", help="Gold answer for --response.")
@click.option("--question-type", type=click.Choice(["multiple-choice", "open"]), default=None)
@click.option("--field", "fields", multiple=True, metavar="NAME=COLUMN")
@click.option("--seed", type=click.IntRange(min=0, max=2**63 - 1), default=None)
@click.option("--diff", "other", help="A second ruleset: show both traces side by side.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@click.option("--vocabulary", is_flag=True, help="Print every vocabulary word with its documentation.")
@where_option
@user_errors
def explain(ruleset, record_id, inputs, response, options_text, answer, question_type, fields, seed, other, fmt, vocabulary,
            where):
    """Show how a ruleset decides one record: every step, its candidates and spans, the pick."""
    import orjson

    from rulekit.report.explain import explain_json, explain_record, render_explain, side_by_side
    from rulekit.core.records import Record

    if vocabulary:
        from rulekit.report.vocabulary import print_vocabulary
        print_vocabulary(_out())
        return
    if not ruleset:
        raise UsageError("explain needs -r RULESET (or --vocabulary)", code="E403")
    if response is None and not record_id:
        raise UsageError("give --id ID INPUT, or --response TEXT [--options A=..,B=..]", code="E403")
    flt = _where(where)
    if response is not None:
        choices = _parse_options(options_text)
        qtype = question_type or ("multiple-choice" if choices else "open")
        record = Record("cli", qtype, response, answer, choices)
        if flt is not None and not flt(record):
            raise UsageError(f"the --response record does not satisfy --where {where}", code="E404")
    else:
        record = None
        records = _records(inputs, fields)
        for r in flt.filter(records) if flt is not None else records:
            if r.id == record_id:
                record = r
                break
        if record is None:
            among = f" among the {flt.kept:,} of {flt.read:,} records --where {where} kept" if flt is not None else ""
            raise UsageError(f"no record with id `{record_id}` in the input{among}", code="E404")
    rulesets = _load((ruleset,) + ((other,) if other else ()))
    decisions = [explain_record(rs, record, seed) for rs in rulesets]
    if fmt == "json":
        payload = [explain_json(rs, record, d, seed) for rs, d in zip(rulesets, decisions)]
        _echo_json(orjson.dumps(payload[0] if len(payload) == 1 else {"a": payload[0], "b": payload[1]},
                                option=orjson.OPT_INDENT_2).decode())
        return
    console = _out()
    if other:
        side_by_side(console, (rulesets[0], record, decisions[0]), (rulesets[1], record, decisions[1]), seed)
        return
    render_explain(console, rulesets[0], record, decisions[0], seed)


@main.command()
@click.argument("rulesets", nargs=-1, shell_complete=complete_rulesets)
@click.option("--cases", "case_files", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="Golden case files (ruleset: NAME, cases: [...]) to run as well.")
@user_errors
def test(rulesets, case_files):
    """Run the rulesets' embedded `examples:` (default: every built-in ruleset). Exit 1 on failures."""
    from rulekit.engine.compiler import load_ruleset
    from rulekit.report.cases import check_examples, load_cases
    from rulekit.core.resources import builtin_rulesets

    jobs = []
    for name in rulesets or tuple(builtin_rulesets()):
        rs = load_ruleset(name)
        jobs.append((rs, rs.model.examples, name))
    for path in case_files:
        name, cases = load_cases(Path(path))
        jobs.append((load_ruleset(name), cases, path))
    failed = total = 0
    for rs, examples, label in jobs:
        for res in check_examples(rs, examples):
            total += 1
            if res.problems:
                failed += 1
                _echo(f"FAIL {label} example {res.number} ({res.example.response[:50]!r}): " + "; ".join(res.problems))
    click.echo(f"{total - failed} passed, {failed} failed")
    if failed:
        click.get_current_context().exit(1)


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--format", "fmt", type=click.Choice(["table", "json", "markdown", "html"]), default="table",
              show_default=True, help="html: one self-contained page (no network, no script) carrying the json as data.")
@click.option("--workers", type=click.IntRange(0, 256), default=0,
              help="Worker processes, each reading and scoring whole files (default 0: one per CPU); the output is "
                   "the same with any number.")
@click.option("--wide", is_flag=True, help="The full table: model, benchmark, ruleset and delta in columns of their own "
                                        "(200 columns) instead of a heading per report.")
@where_option
@user_errors
def reproduce(paths, fmt, workers, where, wide):
    """Give back the numbers a framework published, from its own files.

    PATHS are work dirs (or report/prediction files) of VLMEvalKit, lmms-eval and MMEvalPro, any
    number at once: every `<model>_<dataset>_acc.csv` (and the other reports) is scored again from
    `<model>_<dataset>.xlsx` with each generation of the framework's rules, and the one that gives
    back every printed digit is named. A file that cannot be read is a note (file, line, why); the
    other files' results are kept. Exit 0 when all numbers are reproduced, 1 when one is not (or a
    report could not be read, or nothing was found), 2 when a PATH does not exist. --where keeps the
    prediction files it holds for, each read as a record (id: the file name; model; benchmark;
    meta.framework)."""
    import json

    from rulekit.report.reproduce import as_json, exit_code, render_markdown, render_table
    from rulekit.report.reproduce import reproduce as run_reproduce

    flt = _where(where)
    if not workers:
        from rulekit.run.parallel import default_workers

        workers = default_workers()
    rows, notes = run_reproduce(list(paths), where=flt, workers=workers)
    if flt is not None:
        notes = [f"--where {where}: kept {flt.kept:,} of {flt.read:,} prediction files"] + notes
    if not rows:
        notes = notes + ["nothing to reproduce: no `<model>_<dataset>_acc.csv` with its prediction file was found"]
    if fmt == "json":
        _echo_json(json.dumps(as_json(rows, notes), indent=2, ensure_ascii=False))
    elif fmt == "html":
        from rulekit.report.html import reproduce_page

        _echo_json(reproduce_page(rows, notes, json.loads(json.dumps(as_json(rows, notes)))), nl=False)
    elif fmt == "markdown":
        _echo(render_markdown(rows, notes), nl=False)
    else:
        render_table(rows, notes, _out(wide), wide=wide)
    click.get_current_context().exit(exit_code(rows, notes))


@main.command()
def schema():
    """JSON Schema of the ruleset format (for editors)."""
    import json

    from rulekit.language.schema import ruleset_json_schema

    click.echo(json.dumps(ruleset_json_schema(), indent=2))


@main.command()
@click.option("--model", required=True, help="Model path or name (with --base-url: the served model; default: the only one).")
@click.option("--data", required=True, help="Our JSONL records, a save_to_disk folder, a data file, or a `datasets` name.")
@click.option("--split", help="Dataset split (e.g. validation).")
@click.option("--config", "data_config", help="Dataset configuration (e.g. an MMMU subject).")
@click.option("--layout", default="auto", show_default=True,
              help="How dataset rows map to records: auto, records, a built-in layout (layouts/) or a YAML file.")
@click.option("--prompt", default="vlmevalkit-mcq", show_default=True, help="Prompt style: built-in name or YAML path.")
@click.option("--output", "-o", required=True, type=click.Path(dir_okay=False), help="Outputs JSONL (our record schema).")
@click.option("--resume", is_flag=True, help="Skip ids already in --output and append.")
@click.option("--overwrite", is_flag=True, help="Replace an existing --output.")
@click.option("--max-tokens", type=click.IntRange(min=1), help="Tokens per reply (default: the prompt style's, else 128).")
@click.option("--temperature", type=click.FloatRange(min=0), default=0.0, show_default=True, help="0 is greedy.")
@click.option("--top-p", type=click.FloatRange(0, 1, min_open=True), default=1.0, show_default=True)
@click.option("--sampling-seed", type=int, help="Sampling seed (for --temperature > 0).")
@click.option("--base-url", help="Use this OpenAI-compatible server (e.g. `vllm serve`) instead of the offline engine.")
@click.option("--api-key", help="Server API key (default: OPENAI_API_KEY, else none).")
@click.option("--chat/--no-chat", default=None, help="Apply the chat template (default: when the model has one); "
              "images need it: --no-chat with items that have images is E408.")
@click.option("--batch-size", type=click.IntRange(min=1), default=32, show_default=True,
              help="Records written (in item order) per batch; the engine is fed continuously regardless.")
@click.option("--concurrency", type=click.IntRange(min=1), default=8, show_default=True, help="Server requests in flight.")
@click.option("--limit", type=click.IntRange(min=1), help="Only the first N items.")
@click.option("--engine-arg", "engine_args", multiple=True, metavar="KEY=VALUE",
              help="vllm.LLM argument, e.g. dtype=float32 max_model_len=4096 (value read as YAML); repeatable.")
@user_errors
def generate(model, data, split, data_config, layout, prompt, output, resume, overwrite, max_tokens, temperature, top_p,
             sampling_seed, base_url, api_key, chat, batch_size, concurrency, limit, engine_args):
    """Generate model replies with vLLM (offline engine, or a server with --base-url) into our records."""
    from rulekit.generate.cli import run_generate

    run_generate(_err(), locals())


@main.command("run")
@click.argument("benchmarks", nargs=-1, required=True)
@click.option("--model", required=True, help="Model path or name (with --base-url: the served model).")
@click.option("--base-url", help="An OpenAI-compatible server (e.g. `vllm serve`) instead of vLLM's offline engine.")
@click.option("--api-key", help="Server API key (default: OPENAI_API_KEY, else none).")
@click.option("-r", "--ruleset", "rulesets", multiple=True, shell_complete=complete_rulesets,
              help="Rulesets to score with (default: the benchmark's Atropos and VLMEvalKit rulesets); repeatable.")
@click.option("--data", "data", multiple=True, metavar="[NAME=]PATH",
              help="A local copy of a benchmark's release (default: the hub dataset its layout names); repeatable.")
@click.option("--split", help="Dataset split (default: the layout's, for a hub dataset).")
@click.option("--config", "data_config", help="Dataset configuration (default: the layout's).")
@click.option("--prompt", help="atropos (default), vlmevalkit, or a prompt style's name or YAML path.")
@click.option("--output-dir", "-o", required=True, type=click.Path(file_okay=False),
              help="DIR/<benchmark>/outputs.jsonl, decisions, results.json, diff.json; DIR/report.html.")
@click.option("--limit", type=click.IntRange(min=1), help="Only the first N items of each benchmark.")
@click.option("--max-tokens", type=click.IntRange(min=1), help="Tokens per reply (default: the prompt style's).")
@click.option("--chat/--no-chat", default=None, help="Apply the chat template (default: when the model has one).")
@click.option("--batch-size", type=click.IntRange(min=1), default=32, show_default=True)
@click.option("--concurrency", type=click.IntRange(min=1), default=8, show_default=True, help="Server requests in flight.")
@click.option("--engine-arg", "engine_args", multiple=True, metavar="KEY=VALUE", help="vllm.LLM argument; repeatable.")
@click.option("--seed", type=click.IntRange(min=0, max=2**63 - 1), default=None, help="Seed of random fallbacks.")
@click.option("--judge-url", help="Judge endpoint for rulesets that ask one (without it they are not scored).")
@click.option("--judge-model", help="Judge model.")
@click.option("--judge-cache", type=click.Path(dir_okay=False), help="SQLite cache of judge replies.")
@user_errors
def run_cmd(benchmarks, model, base_url, api_key, rulesets, data, split, data_config, prompt, output_dir, limit,
            max_tokens, chat, batch_size, concurrency, engine_args, seed, judge_url, judge_model, judge_cache):
    """From a model to both frameworks' scores: generate each seed-suite BENCHMARK (resumable), score it with
    its Atropos and VLMEvalKit rulesets (or -r), diff them; DIR/report.html shows where they part."""
    from rulekit.generate.cli import parse_engine_args
    from rulekit.generate.suite import parse_data, run_suite

    run_suite(list(benchmarks), model=model, output_dir=output_dir, data=parse_data(data), split=split,
              config=data_config, prompt=prompt, rulesets=list(rulesets) or None, base_url=base_url, api_key=api_key,
              max_tokens=max_tokens, chat=chat, batch_size=batch_size, concurrency=concurrency, limit=limit,
              engine_args=parse_engine_args(engine_args), seed=seed,
              judge={"judge_url": judge_url, "judge_model": judge_model, "judge_cache": judge_cache},
              say=lambda line: _err().print(line, markup=False))
    _echo(f"report: {Path(output_dir) / 'report.html'}")


@main.command()
@click.option("--format", "fmt", type=click.Choice(["text", "markdown"]), default="text", show_default=True,
              help="markdown: the docs page docs/vocabulary.md.")
def vocabulary(fmt):
    """Every vocabulary word of the ruleset language, with its documentation, and how `extends:` merges."""
    if fmt == "markdown":
        from rulekit.report.docs_pages import vocabulary_markdown

        click.echo(vocabulary_markdown(), nl=False)
        return
    from rulekit.report.vocabulary import print_vocabulary

    print_vocabulary(_out())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
