"""Run the ORIGINAL Atropos run_item on corpus replies (the model call replaced by the stored reply)
and write what it decided: prediction, correct, extraction method. Usage:
    PYTHONHASHSEED=N python label.py BENCH OUT.jsonl [records.jsonl]"""
import asyncio, atexit, json, os, shutil, sys, tempfile
from types import SimpleNamespace
import load

CORPUS = "/work/shared/corpus/responses.jsonl"
BENCH_OF = {"mathvista": "MathVista", "mathvision": "MATH-Vision", "mmstar": "MMStar", "mmbench": "MMBench", "blink": "BLINK", "mmmu": "MMMU", "mmmu_pro": "MMMU-Pro",
            "hallusionbench": "HallusionBench", "mmt_bench": None, "mmvp": None, "seedbench2_plus": None, "ai2d": None,
            "pope": None}


from PIL import Image as _PIL
_IMAGE = _PIL.new("RGB", (1, 1))  # the VQA environments refuse an item without an image; its pixels are never read
_IMAGE_DIR = tempfile.mkdtemp(prefix="atropos-label-")
atexit.register(shutil.rmtree, _IMAGE_DIR, True)
_IMAGE.save(os.path.join(_IMAGE_DIR, "one.png"))  # VisuLogic's item["image_path"]: without it, every item is an error row


def item_for(bench, r):
    """The dataset item the environment would have read, built from a corpus record."""
    choices = r.get("choices") or {}
    if bench in ("mmstar", "mmbench", "blink", "mmt_bench", "mmvp"):
        return {"question": r.get("question", ""), **choices, "answer": r["answer"], "index": r["id"],
                "category": (r.get("meta") or {}).get("category", "")}
    if bench in ("ai2d", "seedbench2_plus"):  # their run_item counts `choices` (a list), 4 when there is none
        return {"question": r.get("question", ""), "choices": list(choices.values()), "answer": r["answer"],
                "index": r["id"]}
    if bench in ("mmmu", "mmmu_pro"):
        return {"question": r.get("question", ""), "options": str(list(choices.values())) if choices else "[]",
                "answer": r["answer"], "id": r["id"]}
    if bench in ("pope", "hallusionbench"):
        return {"question": r.get("question", ""), "answer": r["answer"], "id": r["id"],
                "gt_answer": r["answer"], "category": (r.get("meta") or {}).get("category", "")}
    if bench == "chartqa":
        return {"image": _IMAGE, "query": r.get("question", ""), "label": str(r["answer"]), "question": r.get("question", "")}
    if bench in ("docvqa", "infovqa"):
        gold = r["answer"] if isinstance(r["answer"], list) else [str(r["answer"])]
        key = "answers" if bench == "docvqa" else "answer"  # infovqa_environment.py:153 reads "answer"
        return {"image": _IMAGE, "question": r.get("question", ""), key: gold, "questionId": r["id"]}
    if bench == "realworldqa":
        return {"image": _IMAGE, "question": r.get("question", ""), "answer": str(r["answer"])}
    if bench == "visulogic":
        return {"image_path": "one.png", "question": r.get("question", ""), "label": str(r["answer"])}
    if bench == "ocrbench":
        return {"image": _IMAGE, "question": r.get("question", ""), "answer": r["answer"],
                "category": (r.get("meta") or {}).get("category", "")}
    if bench in ("wemath", "logicvista"):
        return {"image": _IMAGE, "question": r.get("question", ""), "answer": str(r["answer"])}
    if bench == "mmvet":
        return {"image": _IMAGE, "question": r.get("question", ""), "answer": str(r["answer"])}
    if bench == "mathverse":
        return {"image": _IMAGE, "question": r.get("question", ""), "answer": str(r["answer"])}
    if bench == "countbench":
        return {"image": _IMAGE, "question": r.get("question", ""), "answer": str(r["answer"])}
    if bench == "vlmblind":  # XAI/vlmsareblind: the gold in "groundtruth", the task in "task"
        return {"image": _IMAGE, "prompt": r.get("question", ""), "groundtruth": str(r["answer"]),
                "task": (r.get("meta") or {}).get("task", "")}
    if bench == "charxiv":  # the environment's own item (setup_data): answer, qid / inst_category, no grading query
        meta = r.get("meta") or {}
        return {"image": _IMAGE, "question": r.get("question", ""), "answer": str(r["answer"]), "qid": meta.get("qid", 1),
                "inst_category": meta.get("inst_category", 1), "grading_query": ""}
    if bench == "dynamath":  # the gold in "ground_truth", the answer type when the record has one
        item = {"image": _IMAGE, "question": r.get("question", ""), "ground_truth": str(r["answer"])}
        if "answer_type" in (r.get("meta") or {}):
            item["answer_type"] = r["meta"]["answer_type"]
        return item
    if bench == "mathvista":  # AI4Math/MathVista fields: question_type, choices (a list), answer_type, precision
        meta, choices = r.get("meta") or {}, r.get("choices") or {}
        item = {"image": _IMAGE, "question": r.get("question", ""), "answer": str(r["answer"]),
                "question_type": "multi_choice" if r["question_type"] == "multiple-choice" else "free_form",
                "choices": list(choices.values()) if choices else None}
        for key in ("answer_type", "precision"):
            if meta.get(key) is not None:
                item[key] = meta[key]
        return item
    if bench == "mathvision":  # the environment reads options from `choices` (a list)
        choices = r.get("choices") or {}
        return {"decoded_image": _IMAGE, "question": r.get("question", ""), "answer": str(r["answer"]),
                "choices": list(choices.values())}
    raise SystemExit(f"no item mapping for {bench}")


def run(bench, records):
    mod = load.env(bench)
    inst = load.instance(mod)
    inst.use_gpt_evaluation = False
    os.environ.pop("OPENAI_API_KEY", None)  # MathVista / MATH-Vision / CharXiv: no key, the GPT step gives nothing  # the path a run without an API key takes (mathverse_environment.py:279-296)
    inst.images_base = _IMAGE_DIR  # VisuLogic reads item["image_path"] under it (a 1-pixel PNG; never looked at)

    async def reply_with(text):
        return SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content=text))])

    for r in records:
        if bench == "charxiv":  # the run's mode; no OPENAI_API_KEY, so _judge_with_gpt gives nothing (the fallback scores)
            inst.mode = (r.get("meta") or {}).get("mode", "descriptive")
        inst.chat_completion = lambda server, messages, _t=r["response"]: reply_with(_t)
        try:
            metrics, sample = asyncio.run(inst.run_item(None, item_for(bench, r)))
        except Exception:  # the original raises on this item (OCRBench eval()s a gold): counted, not compared
            yield {"id": r["id"], "pred": None, "correct": False, "raised": True}
            continue
        yield {"id": r["id"], "pred": sample.get("prediction", sample.get("extracted")), "correct": sample.get("correct"),
               "score": sample.get("score"),
               "accuracy": metrics.get("accuracy"), "anls": metrics.get("anls"), "method": sample.get("extraction_method"),
               "error": sample.get("error")}


if __name__ == "__main__":
    bench, out = sys.argv[1], sys.argv[2]
    src = sys.argv[3] if len(sys.argv) > 3 else CORPUS
    want = BENCH_OF.get(bench)
    recs = [json.loads(l) for l in open(src, encoding="utf-8")]
    if src == CORPUS:
        recs = [r for r in recs if r["benchmark"] == want]
    with open(out, "w", encoding="utf-8") as f:
        for row in run(bench, recs):
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(bench, len(recs))
