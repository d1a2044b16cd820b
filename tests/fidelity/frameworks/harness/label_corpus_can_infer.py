"""The ORIGINAL can_infer of each VLMEvalKit generation (originals.py, $FRAMEWORKS_SRC) on the real
multiple-choice replies of ../shared/corpus that ship their options (the records of
../shared/conformance/labels.jsonl), written compactly: per generation, {id: pred} only where it differs
from the conformance labels' `vlmeval_v1_pred` (null pred: nothing decided).
    FRAMEWORKS_SRC=DIR python label_corpus_can_infer.py CORPUS.jsonl LABELS.jsonl OUT.json.gz v0c v0b v0a"""
import gzip, json, sys

from label import TARGETS

corpus_path, labels_path, out_path, *generations = sys.argv[1:]
labels = {}
for line in open(labels_path, encoding="utf-8"):
    lab = json.loads(line)
    if lab["question_type"] == "multiple-choice":
        labels[lab["id"]] = lab
records = [r for r in map(json.loads, open(corpus_path, encoding="utf-8")) if r["id"] in labels]
out = {}
for g in generations:
    got = {lab["id"]: lab["pred"] for lab in TARGETS[f"vlmevalkit@{g}"](records)}
    out[g] = {i: p for i, p in sorted(got.items()) if p != labels[i].get("vlmeval_v1_pred")}
    print(g, len(got), "differ from v1:", len(out[g]), file=sys.stderr)
with open(out_path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, compresslevel=9) as f:
    f.write(json.dumps({"labelled": len(got), **out}, sort_keys=True).encode())
