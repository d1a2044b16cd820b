"""Labels of the Unicode edge records (unicode_edge.py) in the shape each test of
tests/test_atropos_fidelity.py reads, from the ORIGINAL environment (label.py, loaded by load.py):

    ATROPOS_SRC=/path/to/src python label_unicode.py BENCH RECORDS.jsonl OUT.jsonl

Multiple-choice benchmarks and POPE / HallusionBench: build.py (six hash seeds, the predictions merged).
The others: one run; a key the test does not read is left out ("score" for MMVet and CharXiv only;
"error" for the environment's error row; "raised" when the original raised); `correct` is the
item's accuracy 1.0 where the environment writes none (WeMath, MMVet); CountBench's prediction (the
reply) is left out, as the test compares its correct only."""
import json, os, subprocess, sys

import label

SEEDED = {"mmstar", "mmbench", "blink", "mmmu", "mmmu_pro", "ai2d", "seedbench2_plus", "mmt_bench", "mmvp", "pope",
          "hallusionbench"}


def shape(bench, row):
    """One label.py row as the test reads it."""
    out = {"id": row["id"]}
    if row.get("raised") or (bench == "ocrbench" and row.get("error")):  # OCRBench: the gold's .lower() raised
        return {**out, "pred": None, "correct": False, "raised": True}
    if row.get("error"):
        return {**out, "error": row["error"], "correct": bool(row.get("correct"))}
    if bench == "charxiv":
        return {**out, "score": row["score"]}
    correct = row["correct"] if row["correct"] is not None else row["accuracy"] == 1.0  # WeMath, MMVet: no "correct"
    out.update(pred=None if bench == "countbench" else row["pred"], correct=correct)  # CountBench: the test reads correct
    if bench in ("chartqa", "docvqa", "infovqa"):
        out["anls"] = row["anls"]
    if bench == "mmvet":
        out["score"] = row["score"]
    return out


if __name__ == "__main__":
    bench, src, dst = sys.argv[1], sys.argv[2], sys.argv[3]
    if bench in SEEDED:
        subprocess.run([sys.executable, "build.py", bench, src, dst], check=True, env=os.environ)
        raise SystemExit(0)
    records = [json.loads(line) for line in open(src, encoding="utf-8")]
    with open(dst, "w", encoding="utf-8") as f:
        for row in label.run(bench, records):
            f.write(json.dumps(shape(bench, row), ensure_ascii=False) + "\n")
    print(bench, len(records))
