"""VLMEvalKit's ORIGINAL mathverse.py (vlmeval/dataset/utils/mathverse.py @ e8e78f05, unchanged; only
`vlmeval.smp.file.load` stubbed to take the DataFrame itself) on records with scripted judge replies:
MathVerse_auxeval_extract with a `model` returning the record's scripted extraction replies, then
MathVerse_auxeval_score with one returning its scripted grading replies (each noting prompts and
temperatures), as MathVerse.evaluate runs them — the rows written to an .xlsx between the stages and
read back (vlmeval/smp/file.py's dump_xlsx and load_xlsx, VLMEvalKit's default PRED_FORMAT), so an
extraction "null", "None", "NA" or "" reaches the grader as NaN; then MathVerse_acc on the rows (the
`metadata` column written as MathVerse's TSV has it). Writes JSON: per record the sha256 of each prompt (UTF-8), the
extract, the score log's kind, the grader's temperatures and the score; and MathVerse_acc's table
(NaN as null).
    python rate_mathverse.py records.jsonl out.json   (mathverse.py beside it; needs pandas, numpy,
    xlsxwriter and openpyxl; scripted.py beside this file)"""
import io, json, math, sys

import pandas as pd

from scripted import Scripted, load_original, sha256 as sha

mathverse = load_original("mathverse.py")


def xlsx_round_trip(frame):
    """What VLMEvalKit's dump(data, 'x.xlsx') then load('x.xlsx') give back."""
    buffer = io.BytesIO()
    with pd.ExcelWriter(buffer, engine="xlsxwriter", engine_kwargs={"options": {"strings_to_formulas": False}}) as w:
        frame.to_excel(w, index=False)
    buffer.seek(0)
    return pd.read_excel(buffer)


rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
out, extractors = {}, []
for r in rows:  # stage 1 (image_vqa.py MathVerse.evaluate), then dump(data, storage_extract)
    line = {"prediction": r["response"], "answer": r["answer"], "question_for_eval": r["meta"]["question_for_eval"]}
    extractor = Scripted(r["judge_replies"])
    extractors.append((extractor, mathverse.MathVerse_auxeval_extract(extractor, line)))
    assert extractor.temperatures == [0]
data = pd.DataFrame({"index": range(len(rows)), "prediction": [r["response"] for r in rows],
                     "answer": [r["answer"] for r in rows],
                     "question_for_eval": [r["meta"]["question_for_eval"] for r in rows],
                     "extract": [res["extract"] for _, res in extractors],
                     "metadata": [str({k: r["meta"][k] for k in ("problem_version", "subject", "subfield")})
                                  for r in rows]})
data = xlsx_round_trip(data)
scores = []
for i, r in enumerate(rows):  # stage 2 on the rows read back, then dump(data, storage_score)
    line = data.iloc[i]
    grader = Scripted(r["grader_replies"])
    res = mathverse.MathVerse_auxeval_score(grader, line)
    assert len(set(grader.prompts)) <= 1
    out[r["id"]] = {"extract_sha256": sha(extractors[i][0].prompts[0]), "extract": extractors[i][1]["extract"],
                    "prefetch": res["log_score"] == "Prefetch succeed",
                    "grader_sha256": sha(grader.prompts[0]) if grader.prompts else None,
                    "temperatures": grader.temperatures, "score": bool(res["score"])}
    scores.append(res["score"])
data["score"] = scores
table = mathverse.MathVerse_acc(xlsx_round_trip(data))
json.dump({"records": out,
           "table": {row["split"]: {k: None if isinstance(v, float) and math.isnan(v) else v
                                    for k, v in row.items() if k != "split"}
                     for row in table.to_dict("records")}},
          open(sys.argv[2], "w"), indent=None, sort_keys=True)
