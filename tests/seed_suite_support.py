"""Tiny local copies of the seed suite's benchmark releases, for the layout, prompt and end-to-end tests
and for the harness that runs the original prompt builders (tests/fidelity/seed_prompts/harness.py).

`tests/fixtures/seed_suite/rows.json` holds, per layout, a few rows in the release's schema, written as
JSON with images as markers: {"__image__": "red"} a decoded image (16x16, one colour), {"__png__": "red"}
its PNG bytes (a `binary` column), {"__b64__": "red"} its PNG bytes as base64 text (a TSV's `image`),
{"__file__": "images/1.png", "color": "red"} a file written beside the data with the path as the value.
`build(layout, folder)` writes them as the release is read — a `save_to_disk` folder with the layout's
Features (Image columns included), a data.jsonl with its image files, or a VLMEvalKit TSV — and
returns what to pass as `--data`.
"""
from __future__ import annotations

import base64
import io
import json
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures" / "seed_suite"
COLORS = {"red": (255, 0, 0), "green": (0, 160, 0), "blue": (0, 0, 255), "yellow": (255, 220, 0),
          "white": (255, 255, 255), "black": (0, 0, 0), "purple": (128, 0, 160), "orange": (255, 140, 0),
          "gray": (128, 128, 128), "cyan": (0, 200, 200)}
SIZE = (16, 16)


def rows_spec() -> dict:
    """Every layout's tiny rows, as written in rows.json."""
    return json.loads((FIXTURES / "rows.json").read_text(encoding="utf-8"))


def image(color: str):
    """The 16x16 image of one colour a marker stands for."""
    from PIL import Image

    return Image.new("RGB", SIZE, COLORS[color])


def png(color: str) -> bytes:
    """Its PNG bytes."""
    buf = io.BytesIO()
    image(color).save(buf, format="PNG")
    return buf.getvalue()


def identity(img) -> str:
    """What a test compares of an image: its size and its (0, 0) pixel as RGB, "16x16 rgb(255,0,0)"."""
    from PIL import Image

    if isinstance(img, (bytes, bytearray)):
        img = Image.open(io.BytesIO(img))
    elif isinstance(img, str):
        img = Image.open(img)
    img = img.convert("RGB")
    return "%dx%d rgb(%d,%d,%d)" % (*img.size, *img.getpixel((0, 0)))


def materialize(value, folder: Path | None = None):
    """A row value with its markers replaced by what they stand for."""
    if isinstance(value, dict):
        if "__image__" in value:
            return image(value["__image__"])
        if "__png__" in value:
            return png(value["__png__"])
        if "__b64__" in value:
            return base64.b64encode(png(value["__b64__"])).decode()
        if "__file__" in value:
            assert folder is not None
            path = folder / value["__file__"]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(png(value["color"]))
            return value["__file__"]
        return {k: materialize(v, folder) for k, v in value.items()}
    if isinstance(value, list):
        return [materialize(v, folder) for v in value]
    return value


def build(layout: str, folder: Path, split: str | None = None) -> str:
    """Write the layout's tiny rows under `folder` as its release is read; the path to give `--data`."""
    import datasets

    from rulekit.generate.layouts import features, load_layout

    spec = rows_spec()[layout]
    folder.mkdir(parents=True, exist_ok=True)
    if spec.get("format") == "jsonl":
        path = folder / "data.jsonl"
        with path.open("w", encoding="utf-8") as f:
            for row in spec["rows"]:
                f.write(json.dumps(materialize(row, folder), ensure_ascii=False) + "\n")
        return str(path)
    if spec.get("format") == "tsv":
        import pandas as pd

        path = folder / f"{spec.get('name', layout)}.tsv"
        pd.DataFrame([materialize(r, folder) for r in spec["rows"]]).to_csv(path, sep="\t", index=False)
        return str(path)
    lay = load_layout(layout)
    rows = [materialize(r, folder) for r in spec["rows"]]
    columns = {k: [r.get(k) for r in rows] for k in lay.features}
    ds = datasets.Dataset.from_dict(columns, features=features(lay))
    split = split or spec.get("split") or (lay.source.split if lay.source else None) or "test"
    out = folder / layout
    datasets.DatasetDict({split: ds}).save_to_disk(str(out))
    return str(out)


class ChatServer:
    """A loopback OpenAI-compatible server for tests that need no model: it keeps every chat request's
    messages (`requests`) and answers each with `reply(messages)` (default: "The answer is A.")."""

    def __init__(self, reply=None, model: str = "scripted"):
        import http.server
        import threading

        outer = self
        self.requests: list[list[dict]] = []
        self.reply = reply or (lambda messages: "The answer is A.")

        class Handler(http.server.BaseHTTPRequestHandler):
            def _send(self, obj):
                body = json.dumps(obj).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):  # noqa: N802 - the stdlib's name
                self._send({"data": [{"id": model}]})

            def do_POST(self):  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                outer.requests.append(body["messages"])
                self._send({"choices": [{"message": {"role": "assistant", "content": outer.reply(body["messages"])},
                                         "finish_reason": "stop"}],
                            "usage": {"prompt_tokens": 5, "completion_tokens": 3}})

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        """Stop serving."""
        self.httpd.shutdown()
        self.httpd.server_close()


def request_content(messages: list[dict]) -> list[dict]:
    """A chat request's user content as the prompt fixtures keep it (image parts by identity, text parts)."""
    content = messages[-1]["content"]
    if isinstance(content, str):
        return [{"text": content}]
    out = []
    for part in content:
        if part["type"] == "text":
            out.append({"text": part["text"]})
        else:
            out.append({"image": identity(base64.b64decode(part["image_url"]["url"].split(",", 1)[1]))})
    return out


# ---------------------------------------------------------------- the tiny VLM's planned replies
# tests/test_seed_suite_vlm.py runs the whole suite on the session's tiny Idefics3 (tests/vllm_support.py,
# branch vision). Most replies are whatever the tiny model says; MMStar's two questions get planned ones,
# so that the test can require exact scores where the frameworks part: "C" is right for both; "<answer>A
# </answer>" is Atropos' answer tag (right) but no letter VLMEvalKit's matcher can read (its judge's case).
PLANNED = {"mmstar": ["C", "<answer>A</answer>"]}


def planned_conversations() -> list[dict]:
    """The planned replies as the tiny model's builder takes them: the message exactly as `rulekit run` sends
    it with Atropos' prompt (the expected prompts of prompts.atropos.json), the image as its RGB colour."""
    expected = json.loads((FIXTURES / "prompts.atropos.json").read_text(encoding="utf-8"))
    rows = rows_spec()
    out = []
    for layout, replies in PLANNED.items():
        for row, content, reply in zip(rows[layout]["rows"], expected[layout], replies):
            colours = [list(COLORS[v["__image__"]]) for v in row.values() if isinstance(v, dict) and "__image__" in v]
            parts = [{"type": "image"} if "image" in p else {"type": "text", "text": p["text"]} for p in content]
            out.append({"messages": [{"role": "user", "content": parts}], "images": colours, "reply": reply})
    return out


try:  # the tiny VLM's support (branch vision): teach it the planned replies before the session builds it
    from vllm_support import add_conversations
except ImportError:  # pragma: no cover - without it tests/test_seed_suite_vlm.py skips
    add_conversations = None
if add_conversations is not None:
    add_conversations(planned_conversations)
