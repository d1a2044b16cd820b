"""The body of `rulekit generate` (the click command itself is in rulekit/cli.py)."""
from __future__ import annotations

from typing import Any

from rulekit.core.errors import UsageError
from rulekit.llm.prompts import load_prompt
from rulekit.generate.run import Sampling, generate


def parse_engine_args(items: tuple[str, ...]) -> dict[str, Any]:
    """`("dtype=float32", "max_model_len=256")` → {"dtype": "float32", "max_model_len": 256}."""
    import yaml

    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--engine-arg `{item}` is not KEY=VALUE", help="e.g. --engine-arg dtype=float32",
                             code="E400")
        try:
            out[key.strip().replace("-", "_")] = yaml.safe_load(value)
        except yaml.YAMLError:
            out[key.strip().replace("-", "_")] = value
    return out


def run_generate(console, p: dict) -> None:
    """Run `generate` with a rich progress bar (items/s, tokens/s) on a terminal; print a summary."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    style = load_prompt(p["prompt"])
    sampling = Sampling(temperature=p["temperature"], top_p=p["top_p"],
                        max_tokens=p["max_tokens"] or style.style.max_tokens or 128, seed=p["sampling_seed"])
    bar = None
    task = None
    if console.is_terminal:
        bar = Progress(TextColumn("generating"), BarColumn(), MofNCompleteColumn(),
                       TextColumn("{task.fields[items]} items/s"), TextColumn("{task.fields[tokens]} tokens/s"),
                       TimeElapsedColumn(), TimeRemainingColumn(), console=console, transient=True)

    def progress(done: int, total: int, items: float, tokens: float) -> None:
        nonlocal task
        if bar is None:
            return
        if task is None:
            task = bar.add_task("generate", total=total, items="-", tokens="-")
            bar.start()
        bar.update(task, completed=done, items=f"{items:,.2f}", tokens=f"{tokens:,.1f}")

    try:
        summary = generate(model=p["model"], data=p["data"], output=p["output"], prompt=p["prompt"], split=p["split"],
                           config=p["data_config"], layout=p["layout"], sampling=sampling, base_url=p["base_url"],
                           api_key=p["api_key"], resume=p["resume"], overwrite=p["overwrite"],
                           batch_size=p["batch_size"], concurrency=p["concurrency"], limit=p["limit"], chat=p["chat"],
                           engine_args=parse_engine_args(p["engine_args"]), progress=progress)
    finally:
        if bar is not None:
            bar.stop()
    rate = summary.written / summary.generating if summary.generating else 0.0
    tok = summary.completion_tokens / summary.generating if summary.generating else 0.0
    skipped = f" ({summary.skipped} already there)" if summary.skipped else ""
    repaired = f"; cut a torn last line of {summary.repaired} bytes" if summary.repaired else ""
    console.print(f"generated {summary.written} of {summary.total} records{skipped} in {summary.seconds:.1f} s "
                  f"({summary.generating:.1f} s generating: {rate:.2f} items/s, {tok:.1f} tokens/s) → "
                  f"{summary.output}{repaired}", markup=False)
