"""Labels for the fidelity tests: run the original env over records under several PYTHONHASHSEEDs and
merge: {"id", "preds": [...distinct...], "correct": [...distinct...], "method": first run's method, and where
a run reports them "accuracy", "score", "anls", "error": [...distinct...]}. Usage:
    ATROPOS_SRC=... python build.py BENCH RECORDS.jsonl OUT.jsonl [SEEDS]"""
import json, os, subprocess, sys, tempfile
bench, src, out = sys.argv[1], sys.argv[2], sys.argv[3]
seeds = range(int(sys.argv[4]) if len(sys.argv) > 4 else 6)
runs = []
work = tempfile.mkdtemp(prefix=f"lab.{bench}.")  # private: another labelling run may be using /tmp too
for s in seeds:
    tmp = os.path.join(work, f"{s}.jsonl")
    subprocess.run([sys.executable, "label.py", bench, tmp, src], check=True, env={**os.environ, "PYTHONHASHSEED": str(s)},
                   stdout=subprocess.DEVNULL)
    runs.append([json.loads(l) for l in open(tmp)])
    os.remove(tmp)
with open(out, "w", encoding="utf-8") as f:
    for rows in zip(*runs):
        preds = sorted({r["pred"] for r in rows}, key=lambda x: (x is None, str(x)))
        corr = sorted({bool(r["correct"]) for r in rows})
        row = {"id": rows[0]["id"], "preds": preds, "correct": corr, "method": rows[0].get("method")}
        for key in ("accuracy", "score", "anls", "error"):  # kept when a run reports them
            if any(r.get(key) is not None for r in rows):
                row[key] = sorted({r.get(key) for r in rows}, key=str)
        f.write(json.dumps(row, ensure_ascii=False) + "\n")
print(bench, len(runs[0]))
os.rmdir(work)
