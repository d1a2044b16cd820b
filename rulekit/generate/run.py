"""`rulekit generate`: ask a model every question of a benchmark and write our records.

Backends: the vLLM offline engine in this process (`vllm.LLM`, the default) or any OpenAI-compatible
server (`base_url`, e.g. `vllm serve`). Prompts come from a prompt style (`prompts/`); images go to
vLLM as `multi_modal_data` (or as data URLs to a server), placed by the chat template — `--no-chat`
with images is E408.

The pipeline: a prefetch thread (`Prefetch`) renders each item's prompt and decodes its images (or
makes its data URLs) ahead of the engine; the offline backend adds requests between engine steps
(`LLM.enqueue`, then the engine's `step`), at most `max_num_seqs` at once, and the server backend
keeps `concurrency` requests in flight; replies come back as they finish. Records are appended in
item order, in batches of whole lines (`output.OutputFile`), so `--resume` continues a killed run.
"""
from __future__ import annotations

import base64
import io
import os
import queue
import stat
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

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


def load_image(image: Any, keep_mode: bool = False):
    """A PIL RGB image from a PIL image, a path, bytes, or a `datasets` {"bytes", "path"} dict. A path must
    name a regular file (a FIFO or a device would block or never end: E300), opened without waiting;
    a file that cannot be read or is not an image is E300 naming it. `keep_mode`: decoded as it is (its
    `format` kept), not converted to RGB."""
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
        if keep_mode:
            image.load()
            return image
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


IMAGE_FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp", "GIF": "image/gif"}


def image_part(image: Any) -> dict:
    """An OpenAI `image_url` content part for `image` (a PIL image, a path, bytes or a `datasets` {"bytes",
    "path"} dict): a data URL. The image is decoded first (an unreadable one is E300, as in `load_image`); a
    PNG, JPEG, WebP or GIF file goes as its own bytes, anything else (and a PIL image) as a PNG made from it —
    no re-encoding for the formats every OpenAI-compatible server takes."""
    raw = image
    if isinstance(raw, dict):
        raw = raw.get("bytes") or raw.get("path")
    if isinstance(raw, (str, Path)):
        raw = read_image_file(raw)
    if isinstance(raw, (bytes, bytearray)):
        decoded, fmt = _decode(bytes(raw))
        mime = IMAGE_FORMATS.get(fmt or "")
        if mime:
            return {"type": "image_url", "image_url": {"url": f"data:{mime};base64," + base64.b64encode(raw).decode()}}
        image = decoded
    buf = io.BytesIO()
    load_image(image).save(buf, format="PNG")
    return {"type": "image_url", "image_url": {"url": "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()}}


def _decode(data: bytes) -> tuple[Any, str | None]:
    """(the decoded image, its file format) of image bytes, or E300 (as `load_image`)."""
    image = load_image(data, keep_mode=True)
    return image, image.format


_data_url = image_part  # the name earlier versions had


class ImagesNeedChat(UsageError):
    """E408: items with images, but the prompt sent is plain text (`--no-chat`), which has no place for them."""

    code = "E408"


def refuse_images_without_chat(items: Sequence[Item], style: Prompt, source: str) -> None:
    """E408, located at the first item with images (its line in a records file), when the items have images the
    style would send (`images` is not `none`) and the prompt is plain text: vLLM finds no image placeholder in
    it (offline), a server's `/completions` takes no images. Never a traceback, never a dropped image."""
    if style.style.images == "none":
        return
    for item in items:
        if item.images:
            n = len(item.images)
            raise ImagesNeedChat(
                f"item `{item.id}` has {n} image{'s' * (n != 1)}, but --no-chat sends a plain prompt, which has no "
                "place for an image (vLLM finds no image placeholder in it; a server's /completions takes none)",
                Loc(source, item.line, 0) if item.line else Loc(source, 0, 0),
                help="leave out --no-chat: the chat template places the images (or use a prompt style with "
                     "`images: none` to send the text alone)")


class EngineRefused(UsageError):
    """E409: the vLLM engine refused an item's request (a prompt longer than the context, more images than
    `limit_mm_per_prompt`, a prompt without the image placeholders its images need)."""

    code = "E409"


class VLLMBackend:
    """vLLM's offline engine in this process. Requests are added as they are prepared, at most `window` in the
    engine at once, and their replies taken as they finish (`run`), so the engine always has work and never
    waits for a batch's slowest reply or for an image to be decoded."""

    name = "vllm"

    def __init__(self, model: str, engine_args: dict, chat: bool | None, llm: Any = None):
        """`llm`: a running `vllm.LLM` to use (and leave running) instead of starting one."""
        if llm is None:
            try:
                from vllm import LLM
            except ImportError as exc:
                raise UsageError(f"the vLLM backend needs vllm ({exc})",
                                 help="install the `vllm` extra, or use --base-url with a running server",
                                 code="E400") from None
        self.owned = llm is None
        self.llm = LLM(model=model, **engine_args) if llm is None else llm
        self.tokenizer = self.llm.get_tokenizer()
        has_template = bool(getattr(self.tokenizer, "chat_template", None))
        if chat and not has_template:
            raise UsageError(f"model `{model}` has no chat template", help="use --no-chat", code="E400")
        self.chat = has_template if chat is None else chat
        try:
            seqs = int(self.llm.llm_engine.vllm_config.scheduler_config.max_num_seqs)
        except (AttributeError, TypeError, ValueError):
            seqs = 256
        self.window = max(1, seqs)

    def prompt_text(self, request: Request) -> str:
        """The text vLLM gets: the chat template applied to the messages, or the plain prompt."""
        if not self.chat:
            m = request.message
            return (m.system + "\n\n" if m.system else "") + m.text
        messages = chat_messages(request.message, request.images, lambda _: {"type": "image"})
        return self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)

    def prepare(self, request: Request) -> dict:
        """The engine's input for a request: its prompt text and its images, decoded (run ahead of the engine,
        in the prefetch thread)."""
        one: dict = {"prompt": self.prompt_text(request)}
        if request.images:
            one["multi_modal_data"] = {"image": [load_image(i) for i in request.images]}
        return one

    def run(self, source: "Prefetch", sampling: Sampling) -> Iterator[tuple[int, Reply]]:
        """(index, reply) of every prepared request of `source`, as the engine finishes them. The engine is fed
        whatever `source` has ready between its steps and waited for only when it has nothing to do. An error
        at a request (E409 when the engine refuses it, or the source's own) comes after the replies of the
        requests already in the engine."""
        from vllm import SamplingParams

        params = SamplingParams(temperature=sampling.temperature, top_p=sampling.top_p,
                                max_tokens=sampling.max_tokens, seed=sampling.seed)
        if not hasattr(self.llm, "enqueue"):  # a vLLM without enqueue: whole windows through generate
            yield from self._run_in_windows(source, params)
            return
        engine = self.llm.llm_engine
        pending: dict[str, int] = {}   # the engine's request id → the item's index
        names: dict[str, str] = {}     # the id an output carries → the engine's request id
        error: BaseException | None = None
        try:
            while True:
                while error is None and len(pending) < self.window:
                    got = source.get(block=not pending)
                    if got is Prefetch.WAIT or got is Prefetch.END:
                        break
                    index, payload = got
                    if isinstance(payload, BaseException):
                        error = payload
                        break
                    try:
                        [rid] = self.llm.enqueue([payload], params, use_tqdm=False)
                    except Exception as exc:  # noqa: BLE001 - vLLM's validation errors have no common base
                        error = self._refused(source.items[index], exc)
                        break
                    pending[rid] = index
                    # enqueue returns the engine's id, "<id>-<8 random characters>"; outputs carry "<id>"
                    names[rid] = names[rid.rsplit("-", 1)[0]] = rid
                if not pending:
                    if error is not None:
                        raise error
                    if source.get(block=True, peek=True) is Prefetch.END:
                        return
                    continue
                if not engine.has_unfinished_requests():
                    raise RuntimeError(f"vLLM finished without answering requests {sorted(pending)}")
                for out in engine.step():
                    rid = names.get(out.request_id)
                    if out.finished and rid in pending:
                        yield pending.pop(rid), _vllm_reply(out)
        finally:
            if pending:  # an interrupted run leaves nothing behind in an engine that outlives it
                try:
                    engine.abort_request(list(pending), internal=True)
                except TypeError:
                    engine.abort_request(list(pending))

    def _run_in_windows(self, source: "Prefetch", params: Any) -> Iterator[tuple[int, Reply]]:
        while True:
            batch, error = [], None
            while len(batch) < self.window:
                got = source.get(block=True)
                if got is Prefetch.END:
                    break
                if isinstance(got[1], BaseException):
                    error = got[1]
                    break
                batch.append(got)
            if batch:
                try:
                    outs = self.llm.generate([p for _, p in batch], params, use_tqdm=False)
                except Exception as exc:  # noqa: BLE001
                    raise self._refused(None, exc) from None
                for (index, _), out in zip(batch, outs):
                    yield index, _vllm_reply(out)
            if error is not None:
                raise error
            if len(batch) < self.window:
                return

    @staticmethod
    def _refused(item: Item | None, exc: Exception) -> EngineRefused:
        what = f"item `{item.id}`" if item is not None else "a request"
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return EngineRefused(f"the vLLM engine refused {what}: {message}",
                             help="raise --engine-arg max_model_len or limit_mm_per_prompt, or check the model's "
                                  "chat template places every image")

    def close(self) -> None:
        """Free the engine (one handed in by the caller is left running)."""
        import gc

        if self.owned:
            self.llm = None
            gc.collect()


def _vllm_reply(out: Any) -> Reply:
    return Reply(out.outputs[0].text, len(out.prompt_token_ids or ()), len(out.outputs[0].token_ids),
                 out.outputs[0].finish_reason)


class ServerBackend:
    """An OpenAI-compatible server; `concurrency` requests in flight at all times (not per batch)."""

    name = "openai"

    def __init__(self, base_url: str, model: str | None, api_key: str | None, chat: bool | None, concurrency: int,
                 timeout: float):
        self.client = OpenAIClient(base_url, api_key, timeout=timeout)
        self.model = model or self._only_model()
        self.chat = True if chat is None else chat
        self.concurrency = max(1, concurrency)
        self.window = self.concurrency

    def _only_model(self) -> str:
        models = self.client.models()
        if len(models) != 1:
            raise UsageError(f"the server serves {len(models)} models: choose one with --model",
                             help=", ".join(models[:10]), code="E400")
        return models[0]

    def prepare(self, request: Request) -> Any:
        """What is sent for a request: chat messages with the images as data URLs (made here, in the prefetch
        thread), or the plain prompt."""
        if self.chat:
            return chat_messages(request.message, request.images, image_part)
        if request.images:  # refused before the run (refuse_images_without_chat); never dropped
            raise ImagesNeedChat("a plain prompt has no place for an image")
        m = request.message
        return (m.system + "\n\n" if m.system else "") + m.text

    def _send(self, payload: Any, sampling: Sampling) -> Reply:
        params = dict(temperature=sampling.temperature, top_p=sampling.top_p, max_tokens=sampling.max_tokens,
                      seed=sampling.seed)
        if isinstance(payload, list):
            return self.client.chat(self.model, payload, **params)
        return self.client.completion(self.model, payload, **params)

    def run(self, source: "Prefetch", sampling: Sampling) -> Iterator[tuple[int, Reply]]:
        """(index, reply) of every prepared request of `source` as the server answers, `concurrency` requests
        in flight (daemon threads, each taking the next prepared request as soon as its last one is answered).
        An error (a failed request, or the source's own) stops new requests; the replies of those in flight
        still come, then the error."""
        results: queue.Queue = queue.Queue()
        stop = threading.Event()

        def work() -> None:
            try:
                while not stop.is_set():
                    got = source.get(block=True)
                    if got is Prefetch.END or stop.is_set():
                        return
                    index, payload = got
                    if isinstance(payload, BaseException):
                        results.put((index, payload))
                        return
                    try:
                        results.put((index, self._send(payload, sampling)))
                    except BaseException as exc:  # noqa: BLE001 - handed to the caller
                        results.put((index, exc))
                        return
            finally:
                results.put(None)

        threads = [threading.Thread(target=work, daemon=True, name=f"rulekit-generate-{n}")
                   for n in range(self.concurrency)]
        for t in threads:
            t.start()
        running, errors = len(threads), []
        try:
            while running:
                got = results.get()
                if got is None:
                    running -= 1
                elif isinstance(got[1], BaseException):
                    stop.set()
                    errors.append(got)
                else:
                    yield got
        finally:
            stop.set()
        if errors:
            raise min(errors, key=lambda e: e[0])[1]

    def close(self) -> None:
        """Nothing to free."""


class Prefetch:
    """Prepared requests, in order, made ahead by a daemon thread: `prepare(item)` for each item, at most
    `depth` waiting. `get()` gives `(index, payload)` — the payload is the exception `prepare` raised for that
    item, after which nothing more comes — `Prefetch.END` after the last, or `Prefetch.WAIT` when nothing is
    ready and `block` is false. Safe to call from several threads; `close()` stops the thread."""

    END = object()
    WAIT = object()

    def __init__(self, items: Sequence, prepare: Callable[[Any], Any], depth: int):
        self.items = items
        self._prepare = prepare
        self._queue: queue.Queue = queue.Queue(maxsize=max(1, depth))
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._ended = False
        self._head: Any = None
        self._thread = threading.Thread(target=self._fill, daemon=True, name="rulekit-generate-prefetch")
        self._thread.start()

    def _put(self, value: Any) -> bool:
        while not self._stop.is_set():
            try:
                self._queue.put(value, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _fill(self) -> None:
        for index, item in enumerate(self.items):
            if self._stop.is_set():
                return
            try:
                value = (index, self._prepare(item))
            except BaseException as exc:  # noqa: BLE001 - handed to the consumer, at its item
                self._put((index, exc))
                break
            if not self._put(value):
                return
        self._put(Prefetch.END)

    def get(self, block: bool = True, peek: bool = False) -> Any:
        """The next prepared request (see the class doc); with `peek`, only look (END or not)."""
        with self._lock:
            if self._ended:
                return Prefetch.END
            if self._head is None:
                try:
                    self._head = self._queue.get(block=block)
                except queue.Empty:
                    return Prefetch.WAIT
            value = self._head
            if value is Prefetch.END:
                self._ended = True
            elif not peek:
                self._head = None
                if isinstance(value[1], BaseException):
                    self._ended = True
            return value

    def close(self) -> None:
        """Stop preparing."""
        self._stop.set()


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
             timeout: float = 300.0, progress: Any = None, llm: Any = None, backend: Any = None) -> Summary:
    """Generate a reply to every item not already in `output`; returns a Summary.

    Prompts are rendered and images decoded (offline) or made data URLs (server) by a prefetch thread ahead of
    the engine; the engine (or the server, `concurrency` requests in flight) is fed continuously, and records
    are appended in item order, `batch_size` at a time, as soon as all the items before them are answered.
    `llm`: a running `vllm.LLM` to use instead of starting one (it is left running). `backend`: an engine or
    server backend to use (and leave open), or a callable that makes one when there is work (`rulekit run`
    starts one engine for a list of benchmarks); None: one is made here and closed at the end.
    `progress(done, total, items_per_s, tokens_per_s)` is called after each batch written."""
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
    if chat is False:  # known before any engine starts or request goes out
        refuse_images_without_chat(items, style, data)
    out = OutputFile(output, resume=resume, overwrite=overwrite)
    todo = [it for it in items if it.id not in out.done]
    shared, backend = backend, None
    source: Prefetch | None = None
    start = time.perf_counter()
    generating = 0.0
    done = tokens_in = tokens_out = 0
    failed = True
    try:
        if todo:
            backend = ((shared() if callable(shared) else shared) if shared is not None
                       else make_backend(model, base_url, api_key, chat, concurrency, timeout, engine_args, llm=llm))
            if not backend.chat:  # the model has no chat template
                refuse_images_without_chat(todo, style, data)
        meta = {"model": getattr(backend, "model", None) or model, "backend": backend.name if backend else None,
                "sampling": asdict(sampling), "prompt": style.name, "prompt_fingerprint": style.fingerprint}
        if base_url:
            meta["base_url"] = base_url
        if progress is not None:
            progress(0, len(todo), 0.0, 0.0)
        gen_start = time.perf_counter()
        ready: dict[int, dict] = {}

        def flush(least: int) -> None:
            """Append the answered items that follow the written ones, when there are `least` of them."""
            nonlocal done, generating
            run_ = []
            while done + len(run_) in ready:
                run_.append(ready[done + len(run_)])
            if run_ and len(run_) >= least:
                out.append(run_)
                for k in range(done, done + len(run_)):
                    del ready[k]
                done += len(run_)
                generating = time.perf_counter() - gen_start
                if progress is not None:
                    elapsed = max(generating, 1e-9)
                    progress(done, len(todo), done / elapsed, tokens_out / elapsed)

        if todo:
            source = Prefetch(todo, lambda it: backend.prepare(_request(style, it, data)),
                              depth=max(batch_size, min(backend.window * 2, 64)))
            try:
                for index, reply in backend.run(source, sampling):
                    row = todo[index].record()
                    row["response"] = reply.text
                    row["model"] = meta["model"]
                    row["meta"]["generation"] = {**meta, "chat": backend.chat, "prompt_tokens": reply.prompt_tokens,
                                                 "completion_tokens": reply.completion_tokens,
                                                 "finish_reason": reply.finish_reason}
                    ready[index] = row
                    tokens_in += reply.prompt_tokens
                    tokens_out += reply.completion_tokens
                    flush(max(1, batch_size))
            except Exception:
                flush(1)  # every item before the failing one is answered: kept for --resume
                raise
            flush(1)
        failed = False
    finally:
        if source is not None:
            source.close()
        out.close(failed)
        if backend is not None and shared is None:
            backend.close()
    return Summary(len(items), len(items) - len(todo), done, time.perf_counter() - start, tokens_in, tokens_out,
                   str(output), out.repaired, generating)


def make_backend(model: str, base_url: str | None = None, api_key: str | None = None, chat: bool | None = None,
                 concurrency: int = 8, timeout: float = 300.0, engine_args: dict | None = None, llm: Any = None):
    """The server backend for `base_url`, else vLLM's offline engine for `model` (`llm`: a running one)."""
    if base_url:
        return ServerBackend(base_url, model, api_key, chat, concurrency, timeout)
    return VLLMBackend(model, dict(engine_args or {}), chat, llm=llm)


def _request(style: Prompt, item: Item, source: str = "") -> Request:
    message = style.render(item.question_type, item.question, item.choices, item.hint, meta=item.meta,
                           options_source=item.options_source)
    names = item.image_names or [f"image[{n}]" for n in range(len(item.images))]
    images = [item.images[i] for i in style.pick_images(names, item.question, item.choices)]
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
            named = image.get("path") if isinstance(image, dict) else image
            label = f"image {n}, {named}" if isinstance(named, (str, Path)) else f"image {n}"
            why = "not an image format Pillow can identify" if isinstance(exc, Image.UnidentifiedImageError) else exc
            raise InputError(f"item `{item_id}`: {label} cannot be read: {why}", where, code="E300") from None
        total += width * height
        if width * height > cap:
            raise over("image-pixels", f"item `{item_id}`: image {n} is {width:,} x {height:,} pixels, more than",
                       where)
        if total > cap:
            raise over("image-pixels", f"item `{item_id}`: its images 1 to {n} have more pixels together than",
                       where)
