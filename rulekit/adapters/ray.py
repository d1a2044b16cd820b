"""Ray Data: score a Ray Dataset with a ruleset, spread over a Ray cluster.

    import ray
    from rulekit.adapters.ray import score_dataset

    ds = ray.data.read_json("outputs/*.jsonl")            # rows in rulekit's record schema
    decisions = score_dataset(ds, "vlmevalkit", seed=0)     # id, pred, correct, score, outcome, step, row
    decisions.write_json("decisions/")

Each block of rows goes to `map_batches` as a pyarrow table; a pool of actors compiles the ruleset
once each and decides every row as `rulekit eval` would (the same record reading, the same
decisions-file row in the `row` column). Rows keep their order. A decision depends on the row alone
— per-record random fallbacks are keyed by (seed, id) — so the batch size and the number of actors
change nothing; a ruleset whose random fallback draws in stream order (lmms-eval's single
`random.seed` stream) depends on every row before it, and is refused.
"""
from __future__ import annotations

from typing import Any

from rulekit.core.errors import UsageError
from rulekit.engine.compiler import load_ruleset
from rulekit.engine.decide import Evaluator
from rulekit.language.fallbacks import RandomOption
from rulekit.readers.jsonl import record_from_obj
from rulekit.run.evaluate import row_bytes


def stream_sections(ruleset) -> list[str]:
    """The sections of a compiled ruleset whose random fallback draws in stream order."""
    return [name for name, section in ruleset.sections.items()
            if isinstance(section.fallback, RandomOption) and section.fallback.random_option.order == "stream"]


class _Scorer:
    """A Ray actor's state: the compiled ruleset, deciding one pyarrow batch at a time."""

    def __init__(self, ruleset: str, seed: int | None, fields: dict | None):
        self.evaluator = Evaluator(load_ruleset(ruleset), seed)
        self.fields = fields

    def __call__(self, batch):
        import pyarrow as pa

        cols: dict[str, list] = {k: [] for k in ("id", "pred", "correct", "score", "outcome", "step", "row")}
        for n, obj in enumerate(batch.to_pylist(), 1):
            record = record_from_obj({k: v for k, v in obj.items() if v is not None or k == "response"},
                                     self.fields, "<ray>", n, f"<ray> row {n}")
            d = self.evaluator.decide(record)
            if d is None:  # no section for its question type: `rulekit eval` skips the record too
                continue
            cols["id"].append(d.id)
            cols["pred"].append(None if d.pred is None else str(d.pred))
            cols["correct"].append(d.correct)
            cols["score"].append(d.score)
            cols["outcome"].append(d.outcome)
            cols["step"].append(d.step)
            cols["row"].append(row_bytes(d).decode("utf-8").rstrip("\n"))
        return pa.table(cols)


def score_dataset(ds: Any, ruleset: str = "vlmevalkit", seed: int | None = 0, fields: dict | None = None,
                  batch_size: int = 1024, concurrency: int = 2) -> Any:
    """A Ray Dataset of decisions for `ds` (rows in rulekit's record schema, or mapped with `fields` as
    `--field` maps them), in row order: id, pred, correct, score, outcome, step, and `row` — the line
    `rulekit eval --output-dir` writes for it."""
    compiled = load_ruleset(ruleset)
    streams = stream_sections(compiled)
    if streams:
        raise UsageError(f"`{compiled.name}` draws its random fallback in stream order (section "
                         f"{', '.join(streams)}), so a row's decision depends on the rows before it",
                         help="score it with `rulekit eval`, or use a variant with `random-option: {order: per-item}`")
    import ray
    ray.data.DataContext.get_current().execution_options.preserve_order = True
    out = ds.map_batches(_Scorer, fn_constructor_kwargs={"ruleset": ruleset, "seed": seed, "fields": fields},
                         batch_format="pyarrow", batch_size=batch_size, concurrency=concurrency)
    out.context.execution_options.preserve_order = True  # a Dataset keeps the context it was made with
    return out


def generate_dataset(ds: Any, url: str, model: str, prompt: str = "vlmevalkit-mcq", max_tokens: int = 128,
                     temperature: float = 0.0, top_p: float = 1.0, batch_size: int = 16, concurrency: int = 1) -> Any:
    """Replies for a Ray Dataset of items (rulekit records without `response`: id, question, choices, ...,
    `images`: a list of image file paths — absolute, or relative to the workers' directory — or image bytes)
    through Ray Data's HTTP request processor against an OpenAI-compatible server (`vllm serve --port 8000` →
    url `http://127.0.0.1:8000/v1`). Each prompt is rendered by the prompt style `rulekit generate` uses and
    the images go as data URLs made as `rulekit generate --base-url` makes them (in the Ray workers), so the
    replies are the ones it gets. Returns the rows with `response` added, ready for `score_dataset`."""
    from ray.data.llm import HttpRequestProcessorConfig, build_processor

    from rulekit.generate.benchmarks import map_rows
    from rulekit.generate.run import chat_messages, image_part
    from rulekit.llm.prompts import load_prompt

    style = load_prompt(prompt)

    def payload(row: dict) -> dict:
        [item] = list(map_rows([{k: v for k, v in row.items() if v is not None}], "records", None))
        message = style.render(item.question_type, item.question, item.choices, item.hint)
        images = item.images if message.images != "none" else []
        return {**row, "payload": {"model": model, "messages": chat_messages(message, images, image_part),
                                   "max_tokens": max_tokens, "temperature": temperature, "top_p": top_p}}

    def reply(row: dict) -> dict:
        out = {k: v for k, v in row.items() if k not in ("payload", "http_response")}
        out["response"] = row["http_response"]["choices"][0]["message"]["content"]
        return out

    config = HttpRequestProcessorConfig(url=url.rstrip("/") + "/chat/completions", batch_size=batch_size,
                                        concurrency=concurrency)
    ray_ctx = ds.context
    ray_ctx.execution_options.preserve_order = True
    return build_processor(config, preprocess=payload, postprocess=reply)(ds)
