"""`rulekit generate`: ask a model every question of a benchmark and write our records.

Backends: the vLLM offline engine in this process (`vllm.LLM(...).generate`, the default) or any
OpenAI-compatible server (`base_url`, e.g. `vllm serve`). Prompts come from a prompt style
(`prompts/`); images go to vLLM as `multi_modal_data` (or as data URLs to a server). Records are
appended in batches of whole lines (`output.OutputFile`), so `--resume` continues a killed run.
"""
from __future__ import annotations

import base64
import io
import os
import stat
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from rulekit.core.errors import InputError, Loc, UsageError
from rulekit.generate.benchmarks import Item, load_items
from rulekit.llm.client import OpenAIClient, Reply
from rulekit.generate.output import OutputFile
from rulekit.llm.prompts import Message, Prompt, load_prompt


@dataclass(frozen=True)
class Sampling:
    """Sampling parameters (greedy by default); written to every record's `meta.generation`."""

    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 128
    seed: int | None = None


@dataclass
class Request:
    """One rendered prompt: the message and the item's images (empty when the style takes none)."""

    message: Message
    images: list


def load_image(image: Any):
    """A PIL RGB image from a PIL image, a path, bytes, or a `datasets` {"bytes", "path"} dict. A path must
    name a regular file (a FIFO or a device would block or never end: E300), opened without waiting;
    a file that cannot be read or is not an image is E300 naming it."""
    try:
        from PIL import Image, UnidentifiedImageError
    except ImportError:  # a base dependency; an environment may still lack it
        raise UsageError("images need Pillow, which is not installed", help="pip install pillow",
                         code="E400") from None

    if isinstance(image, dict):
        image = image.get("bytes") or image.get("path")
    where = "an image given as bytes"
    try:
        if isinstance(image, (str, Path)):
            where = f"image {image}"
            image = read_image_file(image)
        if isinstance(image, (bytes, bytearray)):
            image = Image.open(io.BytesIO(image))
        return image.convert("RGB")
    except (UnidentifiedImageError, Image.DecompressionBombError, OSError, ValueError) as exc:
        raise InputError(f"{where} cannot be read: {exc}", code="E300") from None


def read_image_file(path: str | Path) -> bytes:
    """The bytes of the image file `path`, which must be a regular file: opened with O_NONBLOCK (a FIFO
    opens at once instead of waiting for a writer) and refused, as E300, when it is anything else."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise InputError(f"image {path} cannot be read: {exc.strerror or exc}", code="E300") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = "a FIFO" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) \
            else "a directory" if stat.S_ISDIR(mode) else "not a regular file"
        raise InputError(f"image {path} is {kind}, not an image file", code="E300",
                         help="an image is a file (or the bytes of one in the data)")
    with os.fdopen(fd, "rb") as f:
        return f.read()


def chat_messages(message: Message, images: Sequence, image_part: Callable[[Any], dict]) -> list[dict]:
    """Chat messages for a rendered prompt: the system message, then the user's content with the
    images before or after the text (a plain string when there are no images)."""
    content: Any = message.text
    if images:
        parts = [image_part(img) for img in images]
        text = [{"type": "text", "text": message.text}]
        content = parts + text if message.images == "before" else text + parts
    out = [{"role": "system", "content": message.system}] if message.system else []
    return out + [{"role": "user", "content": content}]


class VLLMBackend:
    """vLLM's offline engine in this process."""

    name = "vllm"

    def __init__(self, model: str, engine_args: dict, chat: bool | None):
        try:
            from vllm import LLM
        except ImportError as exc:
            raise UsageError(f"the vLLM backend needs vllm ({exc})",
                             help="install the `vllm` extra, or use --base-url with a running server",
                             code="E400") from None
        self.llm = LLM(model=model, **engine_args)
        self.tokenizer = self.llm.get_tokenizer()
        has_template = bool(getattr(self.tokenizer, "chat_template", None))
        if chat and not has_template:
            raise UsageError(f"model `{model}` has no chat template", help="use --no-chat", code="E400")
        self.chat = has_template if chat is None else chat

    def prompt_text(self, request: Request) -> str:
        """The text vLLM gets: the chat template applied to the messages, or the plain prompt."""
        if not self.chat:
            m = request.message
            return (m.system + "\n\n" if m.system else "") + m.text
        messages = chat_messages(request.message, request.images, lambda _: {"type": "image"})
        return self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)

    def generate(self, requests: list[Request], sampling: Sampling) -> list[Reply]:
        """Complete a batch in one `LLM.generate` call."""
        from vllm import SamplingParams

        params = SamplingParams(temperature=sampling.temperature, top_p=sampling.top_p,
                                max_tokens=sampling.max_tokens, seed=sampling.seed)
        inputs = []
        for r in requests:
            one: dict = {"prompt": self.prompt_text(r)}
            if r.images:
                one["multi_modal_data"] = {"image": [load_image(i) for i in r.images]}
            inputs.append(one)
        outs = self.llm.generate(inputs, params, use_tqdm=False)
        return [Reply(o.outputs[0].text, len(o.prompt_token_ids or ()), len(o.outputs[0].token_ids),
                      o.outputs[0].finish_reason) for o in outs]

    def close(self) -> None:
        """Free the engine."""
        import gc

        self.llm = None
        gc.collect()


class ServerBackend:
    """An OpenAI-compatible server; `concurrency` requests in flight at most."""

    name = "openai"

    def __init__(self, base_url: str, model: str | None, api_key: str | None, chat: bool | None, concurrency: int,
                 timeout: float):
        self.client = OpenAIClient(base_url, api_key, timeout=timeout)
        self.model = model or self._only_model()
        self.chat = True if chat is None else chat
        self.concurrency = max(1, concurrency)

    def _only_model(self) -> str:
        models = self.client.models()
        if len(models) != 1:
            raise UsageError(f"the server serves {len(models)} models: choose one with --model",
                             help=", ".join(models[:10]), code="E400")
        return models[0]

    def _one(self, request: Request, sampling: Sampling) -> Reply:
        params = dict(temperature=sampling.temperature, top_p=sampling.top_p, max_tokens=sampling.max_tokens,
                      seed=sampling.seed)
        if self.chat:
            return self.client.chat(self.model, chat_messages(request.message, request.images, _data_url), **params)
        m = request.message
        return self.client.completion(self.model, (m.system + "\n\n" if m.system else "") + m.text, **params)

    def generate(self, requests: list[Request], sampling: Sampling) -> list[Reply]:
        """Complete a batch, `concurrency` requests at a time, in order."""
        return map_in_threads(lambda r: self._one(r, sampling), requests, self.concurrency)

    def close(self) -> None:
        """Nothing to free."""


def map_in_threads(fn: Callable[[Any], Any], items: Sequence, workers: int) -> list:
    """`[fn(x) for x in items]`, `workers` calls at a time in daemon threads; the first exception is raised
    once the running calls are over, and no new call starts after it. The threads are daemons and the
    caller waits in `join` (which a signal interrupts): a call that never returns can hold neither
    SIGTERM nor the interpreter's exit (a ThreadPoolExecutor joins its threads at exit)."""
    results: list = [None] * len(items)
    errors: list[BaseException] = []
    lock = threading.Lock()
    at = [0]

    def work() -> None:
        while True:
            with lock:
                if errors or at[0] >= len(items):
                    return
                i = at[0]
                at[0] += 1
            try:
                results[i] = fn(items[i])
            except BaseException as exc:  # noqa: BLE001 - handed to the caller
                with lock:
                    errors.append(exc)
                return

    threads = [threading.Thread(target=work, daemon=True, name=f"rulekit-generate-{n}")
               for n in range(max(1, min(workers, len(items))))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


def _data_url(image: Any) -> dict:
    buf = io.BytesIO()
    load_image(image).save(buf, format="PNG")
    return {"type": "image_url", "image_url": {"url": "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()}}


@dataclass
class Summary:
    """What a run did."""

    total: int
    skipped: int
    written: int
    seconds: float
    prompt_tokens: int
    completion_tokens: int
    output: str
    repaired: int = 0
    generating: float = 0.0   # seconds spent generating (without loading data and starting the engine)


def generate(*, model: str, data: str, output: str, prompt: str = "vlmevalkit-mcq", split: str | None = None,
             config: str | None = None, layout: str = "auto", sampling: Sampling | None = None,
             max_tokens: int | None = None, base_url: str | None = None, api_key: str | None = None,
             resume: bool = False, overwrite: bool = False, batch_size: int = 32, concurrency: int = 8,
             limit: int | None = None, chat: bool | None = None, engine_args: dict | None = None,
             timeout: float = 300.0, progress: Any = None) -> Summary:
    """Generate a reply to every item not already in `output`; returns a Summary.

    `progress(done, total, items_per_s, tokens_per_s)` is called after each batch."""
    style = load_prompt(prompt)
    if sampling is None:
        sampling = Sampling(max_tokens=max_tokens or style.style.max_tokens or 128)
    items = list(load_items(data, split=split, config=config, layout=layout, limit=limit))
    seen: dict[str, int] = {}
    for n, item in enumerate(items):
        if item.id in seen:
            raise InputError(f"id `{item.id}` appears twice (items {seen[item.id] + 1} and {n + 1}); "
                             "ids must be unique to resume", Loc(data, 0, 0), code="E300")
        seen[item.id] = n
    out = OutputFile(output, resume=resume, overwrite=overwrite)
    todo = [it for it in items if it.id not in out.done]
    backend: Any = None
    start = time.perf_counter()
    generating = 0.0
    done = tokens_in = tokens_out = 0
    failed = True
    try:
        if todo:
            backend = (ServerBackend(base_url, model, api_key, chat, concurrency, timeout) if base_url
                       else VLLMBackend(model, dict(engine_args or {}), chat))
        meta = {"model": getattr(backend, "model", None) or model, "backend": backend.name if backend else None,
                "sampling": asdict(sampling), "prompt": style.name, "prompt_fingerprint": style.fingerprint}
        if base_url:
            meta["base_url"] = base_url
        if progress is not None:
            progress(0, len(todo), 0.0, 0.0)
        gen_start = time.perf_counter()
        generating = 0.0
        for i in range(0, len(todo), max(1, batch_size)):
            batch = todo[i:i + batch_size]
            requests = [_request(style, it, data) for it in batch]
            replies = backend.generate(requests, sampling)
            rows = []
            for item, reply in zip(batch, replies):
                row = item.record()
                row["response"] = reply.text
                row["model"] = meta["model"]
                row["meta"]["generation"] = {**meta, "chat": backend.chat, "prompt_tokens": reply.prompt_tokens,
                                             "completion_tokens": reply.completion_tokens,
                                             "finish_reason": reply.finish_reason}
                rows.append(row)
                tokens_in += reply.prompt_tokens
                tokens_out += reply.completion_tokens
            out.append(rows)
            done += len(rows)
            generating = time.perf_counter() - gen_start
            if progress is not None:
                elapsed = max(generating, 1e-9)
                progress(done, len(todo), done / elapsed, tokens_out / elapsed)
        failed = False
    finally:
        out.close(failed)
        if backend is not None:
            backend.close()
    return Summary(len(items), len(items) - len(todo), done, time.perf_counter() - start, tokens_in, tokens_out,
                   str(output), out.repaired, generating)


def _request(style: Prompt, item: Item, source: str = "") -> Request:
    message = style.render(item.question_type, item.question, item.choices, item.hint)
    images = list(item.images) if message.images != "none" else []
    check_images(images, item.id, source)
    return Request(message, images)


def image_size(image: Any) -> tuple[int, int]:
    """(width, height) of an image as `load_image` takes it, read from its header: nothing is decoded."""
    from PIL import Image

    if isinstance(image, dict):
        image = image.get("bytes") or image.get("path")
    if isinstance(image, (bytes, bytearray)):
        with Image.open(io.BytesIO(image)) as opened:
            return opened.size
    if isinstance(image, (str, Path)):  # a regular file only (a FIFO would block): read_image_file's check
        with Image.open(io.BytesIO(read_image_file(image))) as opened:
            return opened.size
    return image.size


def check_images(images: Sequence, item_id: str, source: str = "") -> None:
    """Refuse, before any is decoded, an item whose images are over the `image-pixels` limit one by one or
    together (a decompression bomb, eight 9,000 x 9,000 images): E302 naming the item and the image. An
    image that cannot be opened is E300."""
    import warnings

    from PIL import Image

    from rulekit.core.limits import limit, over

    cap, total = limit("image-pixels"), 0
    where = Loc(source, 0, 0) if source else None
    for n, image in enumerate(images, 1):
        try:
            with warnings.catch_warnings():  # PIL warns past its own MAX_IMAGE_PIXELS: the limit below decides
                warnings.simplefilter("ignore", Image.DecompressionBombWarning)
                width, height = image_size(image)
        except Image.DecompressionBombError:
            raise over("image-pixels", f"item `{item_id}`: image {n} has more pixels than", where) from None
        except (OSError, ValueError, SyntaxError, TypeError, AttributeError) as exc:
            raise InputError(f"item `{item_id}`: image {n} cannot be read: {exc}", where, code="E300") from None
        total += width * height
        if width * height > cap:
            raise over("image-pixels", f"item `{item_id}`: image {n} is {width:,} x {height:,} pixels, more than",
                       where)
        if total > cap:
            raise over("image-pixels", f"item `{item_id}`: its images 1 to {n} have more pixels together than",
                       where)
