"""Generation overhead: `rulekit generate` against raw vLLM on the same image prompts, in one run.

    python benchmarks/generation.py                      # 200 image prompts, offline and server, 3 rounds
    python benchmarks/generation.py --n 200 --rounds 5 --modes offline
    python benchmarks/generation.py --model DIR          # a model already built (else the tests' tiny VLM)

Needs the vllm extra. The model is the tests' tiny Idefics3 (tests/vllm_support.py; `RULEKIT_TEST_MODEL_CACHE`
keeps it), on vLLM's CPU build. The prompts: `--n` multiple-choice questions, each with its own image (distinct
pictures, half PNG, half JPEG, `--size` pixels, so every image is decoded and processed: no cache helps), the
`vlmevalkit-mcq` prompt style, greedy, `--max-tokens` tokens.

- offline: ONE engine (`vllm.LLM`, prefix and multi-modal caches off so every round does the full work) for
  both sides. raw = what one writes with vLLM alone: open and decode every image (PIL, RGB), apply the chat
  template, one `LLM.generate` over all prompts. rulekit = `rulekit.generate.run.generate(..., llm=engine)`:
  items read from JSONL, prompts rendered, images decoded, records written (fsync-ed) — everything but the
  engine start, which is the same `LLM(...)` call for both.
- server: ONE `vllm serve` (the same settings). raw = the `openai` client, `--concurrency` threads, each image
  file's bytes as a base64 data URL. rulekit = `generate(..., base_url=...)` with the same concurrency.

Rounds alternate raw and rulekit; printed: the medians of wall time and their ratio (rulekit / raw, goal
<= 1.10), the median of each round's own ratio (its two runs back to back, so the machine's drift cancels),
the medians of CPU time (this process, plus the server's process tree) — steadier than wall time on a shared
machine — and whether both sides got the same replies. Nothing here is a test. With an older checkout first
on sys.path (no `llm=` argument), its VLLMBackend is patched to take the running engine, so before and after
compare like for like.
"""
from __future__ import annotations

import argparse
import base64
import inspect
import json
import os
import random
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

import vllm_support as tiny  # noqa: E402  (the tests' tiny VLM and server)

PROMPT = "vlmevalkit-mcq"


def make_items(folder: Path, n: int, size: int, seed: int = 0) -> Path:
    """`n` image questions, each with its own picture (random coloured rectangles over a gradient)."""
    from PIL import Image, ImageDraw

    rng = random.Random(seed)
    rows = []
    for i in range(n):
        w, h = size, size * 3 // 4
        img = Image.linear_gradient("L").resize((w, h)).convert("RGB")
        draw = ImageDraw.Draw(img)
        for _ in range(12):
            x, y = rng.randrange(w), rng.randrange(h)
            draw.rectangle([x, y, x + rng.randrange(10, w // 2), y + rng.randrange(10, h // 2)],
                           fill=tuple(rng.randrange(256) for _ in range(3)))
        name = f"img{i:04d}." + ("png" if i % 2 == 0 else "jpg")
        img.save(folder / name, **({"quality": 90} if name.endswith("jpg") else {}))
        rows.append({"id": f"q{i:04d}", "question_type": "multiple-choice", "question": tiny.IMAGE_QUESTION,
                     "choices": tiny.IMAGE_CHOICES, "answer": "A", "benchmark": "bench", "images": [name]})
    path = folder / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def mcq_text() -> str:
    from rulekit.llm.prompts import load_prompt

    return load_prompt(PROMPT).render("multiple-choice", tiny.IMAGE_QUESTION, tiny.IMAGE_CHOICES).text


def rulekit_generate(**kwargs):
    """rulekit's `generate`, handed a running engine (`llm=`); on a checkout without that argument its
    VLLMBackend is patched to take the engine instead of starting one."""
    from rulekit.generate import run

    llm = kwargs.pop("llm", None)
    if llm is None or "llm" in inspect.signature(run.generate).parameters:
        return run.generate(**kwargs, **({"llm": llm} if llm is not None else {}))
    original = run.VLLMBackend.__init__

    def init(self, model, engine_args, chat):
        self.llm = llm
        self.tokenizer = llm.get_tokenizer()
        self.chat = True if chat is None else chat

    run.VLLMBackend.__init__ = init
    closing = run.VLLMBackend.close
    run.VLLMBackend.close = lambda self: None
    try:
        return run.generate(**kwargs)
    finally:
        run.VLLMBackend.__init__ = original
        run.VLLMBackend.close = closing


def offline(model: Path, items: Path, work: Path, rounds: int, max_tokens: int) -> dict:
    from PIL import Image
    from vllm import LLM, SamplingParams

    args = {**tiny.ENGINE_ARGS, "enable_prefix_caching": False, "mm_processor_cache_gb": 0}
    llm = LLM(model=str(model), **args)
    tok = llm.get_tokenizer()
    rows = [json.loads(line) for line in items.read_text().splitlines()]
    text = mcq_text()
    params = SamplingParams(temperature=0.0, top_p=1.0, max_tokens=max_tokens)

    def raw() -> list[str]:
        inputs = []
        for row in rows:
            images = [Image.open(items.parent / p).convert("RGB") for p in row["images"]]
            prompt = tok.apply_chat_template(tiny.user(text, len(images)), tokenize=False, add_generation_prompt=True)
            inputs.append({"prompt": prompt, "multi_modal_data": {"image": images}})
        return [o.outputs[0].text for o in llm.generate(inputs, params, use_tqdm=False)]

    def ours(n: int) -> list[str]:
        out = work / f"offline-{n}.jsonl"
        rulekit_generate(model=str(model), data=str(items), output=str(out), prompt=PROMPT, max_tokens=max_tokens,
                         engine_args=args, llm=llm)
        return [json.loads(line)["response"] for line in out.read_text().splitlines()]

    return _rounds(raw, ours, rounds)


def server(model: Path, items: Path, work: Path, rounds: int, max_tokens: int, concurrency: int) -> dict:
    import openai

    srv = tiny.Server(model, work / "server.log", args={"enable_prefix_caching": False, "mm_processor_cache_gb": 0})
    try:
        client = openai.OpenAI(base_url=srv.url, api_key="EMPTY", max_retries=0, timeout=600)
        rows = [json.loads(line) for line in items.read_text().splitlines()]
        text = mcq_text()

        def one(row: dict) -> str:
            parts = []
            for p in row["images"]:
                mime = "image/png" if p.endswith(".png") else "image/jpeg"
                data = base64.b64encode((items.parent / p).read_bytes()).decode()
                parts.append({"type": "image_url", "image_url": {"url": f"data:{mime};base64,{data}"}})
            reply = client.chat.completions.create(
                model=tiny.SERVED_NAME, temperature=0.0, top_p=1.0, max_tokens=max_tokens,
                messages=[{"role": "user", "content": parts + [{"type": "text", "text": text}]}])
            return reply.choices[0].message.content

        def raw() -> list[str]:
            with ThreadPoolExecutor(concurrency) as pool:
                return list(pool.map(one, rows))

        def ours(n: int) -> list[str]:
            out = work / f"server-{n}.jsonl"
            rulekit_generate(model=tiny.SERVED_NAME, data=str(items), output=str(out), prompt=PROMPT,
                             max_tokens=max_tokens, base_url=srv.url, concurrency=concurrency)
            return [json.loads(line)["response"] for line in out.read_text().splitlines()]

        return _rounds(raw, ours, rounds, srv.proc.pid)
    finally:
        srv.stop()


def _cpu(pid: int | None) -> float:
    """CPU seconds (user + system) of this process, or of process `pid` and all its descendants (Linux /proc)."""
    if pid is None:
        return time.process_time()
    stats = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            stats[int(entry.name)] = (int(fields[1]), int(fields[11]) + int(fields[12]))
    tree, total = {pid}, 0
    for _ in range(8):  # descendants, a few generations deep
        tree |= {p for p, (parent, _) in stats.items() if parent in tree}
    for p in tree:
        total += stats.get(p, (0, 0))[1]
    return total / os.sysconf("SC_CLK_TCK")


def _rounds(raw, ours, rounds: int, server_pid: int | None = None) -> dict:
    """Alternate raw and rulekit `rounds` times each (after one untimed raw run): median wall seconds and median
    CPU seconds (this process, plus the server's when there is one) of each side."""
    raw()  # warm-up: first-call costs (kernels, the processor's imports) out of both
    wall = {"raw": [], "rulekit": []}
    cpu = {"raw": [], "rulekit": []}
    replies = {}
    same = True
    for n in range(rounds):
        for name in (("raw", "rulekit") if n % 2 == 0 else ("rulekit", "raw")):
            c0 = _cpu(None) + (_cpu(server_pid) if server_pid else 0.0)
            start = time.perf_counter()
            replies[name] = raw() if name == "raw" else ours(n)
            wall[name].append(time.perf_counter() - start)
            cpu[name].append(_cpu(None) + (_cpu(server_pid) if server_pid else 0.0) - c0)
        same = same and replies["raw"] == replies["rulekit"]
    med = {k: statistics.median(v) for k, v in wall.items()}
    mcpu = {k: statistics.median(v) for k, v in cpu.items()}
    paired = statistics.median(k / r for k, r in zip(wall["rulekit"], wall["raw"]))  # each round's own ratio
    return {"raw_s": med["raw"], "rulekit_s": med["rulekit"], "ratio": med["rulekit"] / med["raw"], "paired": paired,
            "raw_cpu_s": mcpu["raw"], "rulekit_cpu_s": mcpu["rulekit"], "cpu_ratio": mcpu["rulekit"] / mcpu["raw"],
            "same": same, "wall": wall, "cpu": cpu}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=200, help="image prompts")
    ap.add_argument("--size", type=int, default=480, help="image width in pixels (height 3/4 of it)")
    ap.add_argument("--rounds", type=int, default=5, help="timed runs of each side (the median is reported)")
    ap.add_argument("--max-tokens", type=int, default=16)
    ap.add_argument("--concurrency", type=int, default=8, help="server requests in flight (both sides)")
    ap.add_argument("--modes", default="offline,server")
    ap.add_argument("--model", type=Path, help="the model directory (default: build the tests' tiny VLM)")
    args = ap.parse_args()
    os.environ.update(tiny.VLLM_ENV)
    import vllm  # noqa: F401  (before anything else starts threads)

    with tempfile.TemporaryDirectory(prefix="rulekit-genbench-") as tmp:
        work = Path(tmp)
        model = args.model or tiny.build_model(work / "model")
        (work / "items").mkdir()
        items = make_items(work / "items", args.n, args.size)
        results = {}
        for mode in args.modes.split(","):
            if mode == "offline":
                results[mode] = offline(model, items, work, args.rounds, args.max_tokens)
            elif mode == "server":
                results[mode] = server(model, items, work, args.rounds, args.max_tokens, args.concurrency)
            print(f"{mode}: {json.dumps(results[mode])}", file=sys.stderr, flush=True)
    print(f"\n{args.n} image prompts ({args.size} px, half PNG, half JPEG), {args.max_tokens} tokens, "
          f"median of {args.rounds} rounds\n")
    print("| mode | raw vLLM s | rulekit generate s | wall ratio | median round ratio | raw CPU s | rulekit CPU s | "
          "CPU ratio | same replies |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for mode, r in results.items():
        print(f"| {mode} | {r['raw_s']:.2f} | {r['rulekit_s']:.2f} | **{r['ratio']:.2f}** | {r['paired']:.2f} | "
              f"{r['raw_cpu_s']:.2f} | "
              f"{r['rulekit_cpu_s']:.2f} | {r['cpu_ratio']:.2f} | {'yes' if r['same'] else 'NO'} |")


if __name__ == "__main__":
    main()
