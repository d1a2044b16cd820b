"""Real image+text generation: the session's tiny Idefics3 (tests/vllm_support.py) through vLLM's offline engine
and `vllm serve`, raw and through `rulekit generate`. The same question with a different image gets a different
reply; each image adds its known number of prompt tokens. Skipped, with the reason, only without vllm."""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from rulekit.cli import main
from vllm_support import (_load_image, COLORS, ENGINE_ARGS, GEN_PROMPT, IMAGE_CHOICES, IMAGE_QUESTION, IMAGE_REPLIES, IMAGE_TOKENS, SERVED_NAME,
                          color_image, conversations, data_url, requires_vllm, user)

GREEDY = {"temperature": 0.0, "max_tokens": 16}
ENGINE = [x for k, v in ENGINE_ARGS.items() for x in ("--engine-arg", f"{k}={json.dumps(v)}")]


def invoke(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def rows(path):
    return {r["id"]: r for r in map(json.loads, path.read_text(encoding="utf-8").splitlines())}


def mcq_text():
    from rulekit.llm.prompts import load_prompt

    return load_prompt(GEN_PROMPT).render("multiple-choice", IMAGE_QUESTION, IMAGE_CHOICES).text


@requires_vllm
def test_the_offline_engine_sees_the_image_and_every_planned_reply_is_stable(vllm_engine, tiny_model):
    """Raw vLLM: `LLM.generate` with `multi_modal_data` and `LLM.chat` with data URLs give the planned reply per
    image; every planned reply's tokens lead the runner-up by a wide margin (greedy output cannot flip on
    another CPU)."""
    from vllm import SamplingParams

    tok = vllm_engine.get_tokenizer()
    prompt = lambda n: tok.apply_chat_template(user(mcq_text(), n), tokenize=False, add_generation_prompt=True)  # noqa: E731
    inputs = [{"prompt": prompt(1), "multi_modal_data": {"image": color_image(c)}} for c in COLORS]
    inputs += [{"prompt": prompt(0)},
               {"prompt": prompt(2), "multi_modal_data": {"image": [color_image("red"), color_image("blue")]}}]
    outs = vllm_engine.generate(inputs, SamplingParams(**GREEDY), use_tqdm=False)
    assert [o.outputs[0].text for o in outs[:4]] == [IMAGE_REPLIES[c] for c in (*COLORS, "none")]
    tokens = [len(o.prompt_token_ids) for o in outs]
    assert tokens[:3] == [tokens[3] + IMAGE_TOKENS] * 3 and tokens[4] == tokens[3] + 2 * IMAGE_TOKENS

    chats = [[{"role": "user", "content": [{"type": "image_url", "image_url": {"url": data_url(color_image(c, (90, 20)))}},
                                           {"type": "text", "text": mcq_text()}]}] for c in ("blue", "red")]
    outs = vllm_engine.chat(chats, SamplingParams(**GREEDY), use_tqdm=False)
    assert [o.outputs[0].text for o in outs] == [IMAGE_REPLIES["blue"], IMAGE_REPLIES["red"]]

    # every conversation the model was taught, through the engine: the planned reply, with its smallest
    # top-1/top-2 logprob gap (the build's own, teacher-forced, is in training.json)
    convs = conversations()
    chats = [c["messages"] for c in convs]
    # (an image is a colour name or, as add_conversations allows, an [R, G, B] list: the builder's reader)
    images = [[_load_image(i, Path(".")) for i in c["images"]] for c in convs]
    inputs = [{"prompt": tok.apply_chat_template(m, tokenize=False, add_generation_prompt=True),
               **({"multi_modal_data": {"image": i}} if i else {})} for m, i in zip(chats, images)]
    outs = vllm_engine.generate(inputs, SamplingParams(temperature=0.0, max_tokens=32, logprobs=2), use_tqdm=False)
    assert [o.outputs[0].text for o in outs] == [c["reply"] for c in convs]
    gap = min(a - b for o in outs for a, b in (sorted((lp.logprob for lp in step.values()), reverse=True)[:2]
                                               for step in o.outputs[0].logprobs))
    built = json.loads((tiny_model / "training.json").read_text())
    print(f"smallest top-1/top-2 logprob gap through vLLM: {gap:.2f} nats (build: {built['min_logit_gap']})")
    assert gap > 1.0


@requires_vllm
def test_rulekit_generate_offline_sends_the_images(shared_engine, tiny_model, image_items_file, tmp_path):
    out = tmp_path / "out.jsonl"
    result = invoke("generate", "--model", tiny_model, "--data", image_items_file, "--prompt", GEN_PROMPT,
                    "--output", out, "--max-tokens", 16, "--batch-size", 2, *ENGINE)
    assert result.exit_code == 0, result.output
    written = rows(out)
    assert list(written) == ["red", "blue", "green", "none", "two"], "records in item order"
    assert {k: written[k]["response"] for k in IMAGE_REPLIES} == IMAGE_REPLIES
    tokens = {k: r["meta"]["generation"]["prompt_tokens"] for k, r in written.items()}
    assert tokens["red"] == tokens["blue"] == tokens["green"] == tokens["none"] + IMAGE_TOKENS
    assert tokens["two"] == tokens["none"] + 2 * IMAGE_TOKENS

    scored = invoke("eval", "-r", "vlmevalkit", out, "--format", "json")
    [res] = json.loads(scored.stdout)["results"]
    assert res["outcomes"]["rule"] >= 3   # red, blue and green decided right by the rules


@requires_vllm
def test_rulekit_generate_through_vllm_serve_sends_the_images(vllm_server, image_items_file, tmp_path):
    out = tmp_path / "served.jsonl"
    result = invoke("generate", "--base-url", vllm_server.url, "--model", SERVED_NAME, "--data", image_items_file,
                    "--prompt", GEN_PROMPT, "--output", out, "--max-tokens", 16, "--concurrency", 3)
    assert result.exit_code == 0, result.output
    written = rows(out)
    assert list(written) == ["red", "blue", "green", "none", "two"]
    assert {k: written[k]["response"] for k in IMAGE_REPLIES} == IMAGE_REPLIES
    tokens = {k: r["meta"]["generation"]["prompt_tokens"] for k, r in written.items()}
    assert tokens["red"] == tokens["blue"] == tokens["green"] == tokens["none"] + IMAGE_TOKENS
    assert tokens["two"] == tokens["none"] + 2 * IMAGE_TOKENS


@requires_vllm
def test_an_item_the_engine_refuses_is_e409_after_the_items_before_it(shared_engine, tiny_model, image_items_file,
                                                                       tmp_path):
    """Three images where the engine takes two: a located error naming the item, not vLLM's traceback; the items
    before it are answered and written (for --resume), none after it."""
    items = [json.loads(line) for line in image_items_file.read_text().splitlines()]
    red, blue = items[0], items[1]
    three = {**red, "id": "three", "images": ["red.png", "blue.png", "green.png"]}
    data = image_items_file.parent / "three.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in (red, three, blue)), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    result = invoke("generate", "--model", tiny_model, "--data", data, "--output", out, "--max-tokens", 16, *ENGINE)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "error[E409]: the vLLM engine refused item `three`: At most 2 image(s)" in result.stderr
    assert list(rows(out)) == ["red"] and rows(out)["red"]["response"] == IMAGE_REPLIES["red"]
