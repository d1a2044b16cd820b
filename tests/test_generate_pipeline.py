"""`rulekit generate`'s pipeline without a real engine: prompts rendered and images decoded by the prefetch thread
ahead of the engine, the engine fed between its steps, replies that finish out of order written in item order,
an error at an item after the items before it, the server kept at --concurrency requests across batches, and the
data URLs a server gets. (The real engine and server: tests/test_tiny_vlm.py.)"""
from __future__ import annotations

import base64
import json
import sys
import threading
import time
import types

import pytest
from click.testing import CliRunner

from rulekit.cli import main
from rulekit.core.errors import InputError
from rulekit.generate import run
from rulekit.llm.client import Reply


def invoke(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def write_items(folder, n, images=True, broken=None):
    from PIL import Image

    rows = []
    for i in range(n):
        row = {"id": f"i{i}", "question": f"Question {i}?", "choices": {"A": "x", "B": "y"}, "answer": "A"}
        if images:
            name = f"img{i}.png"
            if i == broken:
                (folder / name).write_bytes(b"not an image")
            else:
                Image.new("RGB", (20 + i, 10), (i * 7 % 256, 0, 0)).save(folder / name)
            row["images"] = [name]
        rows.append(row)
    path = folder / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


class FakeOutput:
    def __init__(self, rid, payload):
        self.request_id = rid
        self.finished = True
        self.prompt_token_ids = [0] * (10 + 7 * len(payload.get("multi_modal_data", {}).get("image", [])))
        text = payload["prompt"].split("Question ")[1].split("?")[0]
        self.outputs = [types.SimpleNamespace(text=f"reply {text}", token_ids=[1, 2], finish_reason="stop")]


class FakeLLM:
    """What VLLMBackend uses of `vllm.LLM`: a tokenizer with a chat template, `enqueue` (returning the engine's
    "<id>-<random>" ids, as vLLM 0.32 does) and the engine's `step`, which finishes the NEWEST request first."""

    def __init__(self, max_num_seqs=4):
        self.waiting = []
        self.enqueued = []
        self.steps = 0
        self.tokenizer = types.SimpleNamespace(
            chat_template="x", apply_chat_template=lambda m, tokenize, add_generation_prompt: json.dumps(m))
        config = types.SimpleNamespace(scheduler_config=types.SimpleNamespace(max_num_seqs=max_num_seqs))
        self.llm_engine = types.SimpleNamespace(vllm_config=config, step=self.step,
                                                has_unfinished_requests=lambda: bool(self.waiting),
                                                abort_request=lambda ids, internal=False: None)

    def get_tokenizer(self):
        return self.tokenizer

    def enqueue(self, prompts, params, use_tqdm):
        [payload] = prompts
        assert all(img.mode == "RGB" for img in payload.get("multi_modal_data", {}).get("image", []))
        rid = str(len(self.enqueued))
        self.enqueued.append(payload)
        self.waiting.append(rid)
        return [f"{rid}-abcdefgh"]

    def step(self):
        self.steps += 1
        rid = self.waiting.pop()
        return [FakeOutput(rid, self.enqueued[int(rid)])]


@pytest.fixture
def fake_vllm(monkeypatch):
    """A `vllm` module with SamplingParams, and VLLMBackend running on a FakeLLM."""
    monkeypatch.setitem(sys.modules, "vllm", types.SimpleNamespace(SamplingParams=lambda **kw: kw))
    engine = FakeLLM()
    original = run.VLLMBackend

    class Backend(original):
        def __init__(self, model, engine_args, chat, llm=None):
            super().__init__(model, engine_args, chat, llm=engine)

    monkeypatch.setattr(run, "VLLMBackend", Backend)
    return engine


def test_images_are_decoded_by_the_prefetch_thread_and_replies_written_in_item_order(fake_vllm, tmp_path,
                                                                                      monkeypatch):
    decoded_on = []
    load = run.load_image

    def spy(image, keep_mode=False):
        decoded_on.append(threading.current_thread().name)
        return load(image, keep_mode)

    monkeypatch.setattr(run, "load_image", spy)
    data = write_items(tmp_path, 11)
    out = tmp_path / "out.jsonl"
    result = invoke("generate", "--model", "m", "--data", data, "--output", out, "--batch-size", 3)
    assert result.exit_code == 0, result.output
    written = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in written] == [f"i{i}" for i in range(11)]          # the engine finished newest first
    assert [r["response"] for r in written] == [f"reply {i}" for i in range(11)]
    assert all(r["meta"]["generation"]["prompt_tokens"] == 17 for r in written)
    assert decoded_on == ["rulekit-generate-prefetch"] * 11                    # never on the engine's thread
    assert len(fake_vllm.enqueued) == 11 and fake_vllm.steps == 11


def test_an_unreadable_image_is_e300_after_the_items_before_it_are_written(fake_vllm, tmp_path):
    data = write_items(tmp_path, 9, broken=5)
    out = tmp_path / "out.jsonl"
    result = invoke("generate", "--model", "m", "--data", data, "--output", out, "--batch-size", 4)
    assert result.exit_code == 2 and "error[E300]" in result.stderr and "img5.png cannot be read" in result.stderr
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == [f"i{i}" for i in range(5)]
    assert len(fake_vllm.enqueued) == 5, "nothing after the broken item reaches the engine"
    resumed = invoke("generate", "--model", "m", "--data", write_items(tmp_path, 9), "--output", out, "--resume")
    assert resumed.exit_code == 0 and "generated 4 of 9 records (5 already there)" in resumed.stderr


def test_the_engine_gets_at_most_max_num_seqs_requests_at_once(fake_vllm, tmp_path):
    seen = []
    step = fake_vllm.step

    def counting_step():
        seen.append(len(fake_vllm.waiting))
        return step()

    fake_vllm.llm_engine.step = counting_step
    result = invoke("generate", "--model", "m", "--data", write_items(tmp_path, 10, images=False),
                    "--output", tmp_path / "out.jsonl")
    assert result.exit_code == 0, result.output
    assert max(seen) == 4 and len(seen) == 10


def test_the_server_keeps_concurrency_requests_in_flight_across_batches(tmp_path, monkeypatch):
    """--batch-size 2, --concurrency 4: four requests in flight (a batch at a time could never have more than
    two); replies that come back out of order are written in item order."""
    in_flight, most = [0], [0]
    lock = threading.Lock()

    def send(self, payload, sampling):
        with lock:
            in_flight[0] += 1
            most[0] = max(most[0], in_flight[0])
        text = payload[-1]["content"][-1]["text"]
        n = int(text.split("Question ")[1].split("?")[0])
        time.sleep(0.05 * (1 + (7 * n) % 3))
        with lock:
            in_flight[0] -= 1
        return Reply(f"reply {n}", 3, 2, "stop")

    monkeypatch.setattr(run.ServerBackend, "_send", send)
    out = tmp_path / "out.jsonl"
    result = invoke("generate", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--data",
                    write_items(tmp_path, 12), "--output", out, "--batch-size", 2, "--concurrency", 4)
    assert result.exit_code == 0, result.output
    assert [json.loads(line)["response"] for line in out.read_text().splitlines()] == [f"reply {i}" for i in range(12)]
    assert most[0] == 4


def test_a_failed_server_request_keeps_the_replies_before_it(tmp_path, monkeypatch):
    from rulekit.llm.client import ServerError

    def send(self, payload, sampling):
        n = int(payload[-1]["content"][-1]["text"].split("Question ")[1].split("?")[0])
        if n == 6:
            raise ServerError("no answer from the server", code="E500")
        return Reply(f"reply {n}", 3, 2, "stop")

    monkeypatch.setattr(run.ServerBackend, "_send", send)
    out = tmp_path / "out.jsonl"
    result = invoke("generate", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--data",
                    write_items(tmp_path, 10), "--output", out, "--concurrency", 3)
    assert result.exit_code == 2 and "error[E500]" in result.stderr
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == [f"i{i}" for i in range(6)]


def test_image_files_go_to_a_server_as_their_own_bytes(tmp_path):
    from PIL import Image

    Image.new("RGB", (30, 20), (1, 2, 3)).save(tmp_path / "a.png")
    Image.new("RGB", (30, 20), (1, 2, 3)).save(tmp_path / "a.jpg", quality=90)
    Image.new("RGB", (30, 20), (1, 2, 3)).save(tmp_path / "a.bmp")
    (tmp_path / "bad.png").write_bytes((tmp_path / "a.png").read_bytes()[:40])  # a PNG cut short

    def url(x):
        return run.image_part(x)["image_url"]["url"]

    png = (tmp_path / "a.png").read_bytes()
    assert url(str(tmp_path / "a.png")) == "data:image/png;base64," + base64.b64encode(png).decode()
    assert url({"bytes": png, "path": None}) == url(png) == url(str(tmp_path / "a.png"))
    jpg = (tmp_path / "a.jpg").read_bytes()
    assert url(str(tmp_path / "a.jpg")) == "data:image/jpeg;base64," + base64.b64encode(jpg).decode()
    bmp = url(str(tmp_path / "a.bmp"))                        # not a format every server takes: sent as PNG
    assert bmp.startswith("data:image/png;base64,")
    from io import BytesIO

    again = Image.open(BytesIO(base64.b64decode(bmp.split(",", 1)[1])))
    assert again.format == "PNG" and again.size == (30, 20) and again.getpixel((0, 0)) == (1, 2, 3)
    assert url(Image.new("RGB", (5, 5))).startswith("data:image/png;base64,")
    with pytest.raises(InputError, match="cannot be read"):
        run.image_part(str(tmp_path / "bad.png"))


def test_no_chat_with_images_is_e408_before_an_engine_or_server_is_asked(tmp_path, monkeypatch):
    def never(*a, **k):
        raise AssertionError("no engine may start")

    monkeypatch.setattr(run, "VLLMBackend", never)
    monkeypatch.setattr(run, "ServerBackend", never)
    data = write_items(tmp_path, 3)
    for extra in ([], ["--base-url", "http://127.0.0.1:9/v1"]):
        result = invoke("generate", "--model", "m", "--data", data, "--output", tmp_path / "o.jsonl", "--no-chat",
                        *extra)
        assert result.exit_code == 2 and "error[E408]: item `i0` has 1 image" in result.stderr
        assert f"{data}:1" in result.stderr and not (tmp_path / "o.jsonl").exists()
    # a text-only style sends no image: nothing to refuse
    from rulekit.generate.benchmarks import load_items
    from rulekit.llm.prompts import load_prompt

    items = list(load_items(str(data)))
    assert run.refuse_images_without_chat(items, load_prompt("mmevalpro-llm"), str(data)) is None
    with pytest.raises(run.ImagesNeedChat):
        run.refuse_images_without_chat(items, load_prompt("vlmevalkit-mcq"), str(data))


def test_a_model_without_a_chat_template_and_images_is_e408(fake_vllm, tmp_path):
    fake_vllm.tokenizer.chat_template = None
    result = invoke("generate", "--model", "m", "--data", write_items(tmp_path, 2), "--output", tmp_path / "o.jsonl")
    assert result.exit_code == 2 and "error[E408]" in result.stderr and fake_vllm.enqueued == []
