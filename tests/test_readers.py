"""Readers: every input format yields the same Records, bad input is located precisely."""
from __future__ import annotations

import collections
import csv
import gzip
import json
import re
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rulekit.data import sample_path
from rulekit.core.errors import InputError, UsageError
from rulekit.readers import FORMATS, detect_format, parse_field_map, read_records

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CORPUS = SHARED / "corpus" / "responses.jsonl"
MMEVALPRO = SHARED / "corpus" / "raw" / "mmevalpro" / "demo_model_output.json.gz"
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def corpus_lines(pred=lambda r: True, n=None):
    """Raw corpus objects matching `pred` (first `n`)."""
    out = []
    with open(CORPUS, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if pred(r):
                out.append(r)
                if n and len(out) == n:
                    break
    return out


def strip_where(rec):
    return {k: getattr(rec, k) for k in ("id", "question_type", "response", "answer", "choices",
                                         "benchmark", "model", "question", "meta")}


# ---------------------------------------------------------------- real files

def test_whole_corpus():
    recs = list(read_records([str(CORPUS)]))
    assert len(recs) == 31113
    assert len({r.id for r in recs}) == 31113
    qt = collections.Counter(r.question_type for r in recs)
    assert qt == {"multiple-choice": 25207, "open": 5906}
    assert sum(r.response == "" for r in recs) == 158
    types = collections.Counter(type(r.answer).__name__ for r in recs)
    assert types["float"] == 540 and types["int"] == 328
    assert all(r.meta["source"] for r in recs)  # extra top-level keys go to meta
    assert recs[0].where == f"{CORPUS}:1"
    # control characters survive untouched
    raw = {r["id"]: r["response"] for r in corpus_lines(lambda r: CONTROL.search(r["response"]))}
    assert len(raw) > 50
    got = {r.id: r.response for r in recs if r.id in raw}
    assert got == raw


def test_mmevalpro_demo():
    recs = list(read_records([str(MMEVALPRO)]))
    assert len(recs) == 6414
    triplets = collections.Counter(r.meta["triplet_id"] for r in recs)
    assert len(triplets) == 2138 and set(triplets.values()) == {3}
    r = recs[0]
    assert (r.id, r.response, r.answer, r.question_type, r.choices, r.benchmark) == \
        ("0", "C", "B", "multiple-choice", None, "MMEvalPro")
    assert r.meta == {"triplet_id": 1, "source": "MMMU", "eval_type": "Origin"}
    assert {r.meta["eval_type"] for r in recs} == {"Origin", "Perception", "Knowledge"}
    assert detect_format(str(MMEVALPRO)) == "json"
    assert len(list(read_records([str(MMEVALPRO)], fmt="mmevalpro"))) == 6414


def test_bundled_sample():
    lines = Path(sample_path()).read_bytes().splitlines()
    corpus = set(CORPUS.read_bytes().splitlines())
    assert all(line in corpus for line in lines)  # verbatim copies
    recs = list(read_records([sample_path()]))
    assert 350 <= len(recs) <= 450
    assert all(r.choices for r in recs if r.question_type == "multiple-choice")
    bench = collections.Counter((r.benchmark, r.question_type) for r in recs)
    assert bench[("MMMU", "multiple-choice")] >= 100 and bench[("MMMU", "open")] >= 30
    for b in ("MMMU-Pro", "MathVista", "ScienceQA", "MMBench", "MMStar", "M3CoT", "MMLU-Pro",
              "EMMA-mini"):
        assert any(k[0] == b for k in bench), b
    assert {r.model for r in recs if r.benchmark == "MMMU"} == {"llava1.5_13b", "qwen_vl"}
    assert any(r.response == "" for r in recs)
    assert any(CONTROL.search(r.response) for r in recs)


# ---------------------------------------------------------------- JSONL errors and details

def test_malformed_line_reports_line(tmp_path):
    good = json.dumps({"id": "a", "response": "A"})
    p = tmp_path / "bad.jsonl"
    p.write_text(f"{good}\n\n{good[:-1]}, oops}}\n{good}\n", encoding="utf-8")
    it = read_records([str(p)])
    assert next(it).id == "a"  # streams: records before the bad line come out
    with pytest.raises(InputError) as e:
        next(it)
    assert e.value.loc.file == str(p) and e.value.loc.line == 3
    assert "invalid JSON" in e.value.message
    assert f"{p}:3:" in e.value.render()


def test_missing_fields_named(tmp_path):
    p = tmp_path / "m.jsonl"
    p.write_text('{"id": "x", "response": "B"}\n{"id": "y", "answer": "B"}\n', encoding="utf-8")
    with pytest.raises(InputError) as e:
        list(read_records([str(p)]))
    assert "response" in e.value.message and e.value.loc.line == 2
    assert "--field response=" in e.value.help
    p.write_text('{"answer": "B"}\n', encoding="utf-8")
    with pytest.raises(InputError, match="fields: id, response"):
        list(read_records([str(p)]))


def test_defaults_null_response_and_types(tmp_path):
    p = tmp_path / "d.jsonl"
    rows = [{"id": 1, "response": None, "choices": ["x", "y"], "answer": "B"},
            {"id": "o", "response": "\x08frac{1}{2}\r\n", "answer": 0.5},
            {"id": "m", "response": "ok", "question_type": "multi_choice", "choices": {"A": "1"}}]
    p.write_bytes(b"\xef\xbb\xbf" + b"\n".join(json.dumps(r).encode() for r in rows))
    a, b, c = read_records([str(p)])
    assert (a.id, a.response, a.question_type, a.choices) == \
        ("1", "", "multiple-choice", {"A": "x", "B": "y"})
    assert (b.question_type, b.answer, b.response) == ("open", 0.5, "\x08frac{1}{2}\r\n")
    assert c.question_type == "multiple-choice"
    p.write_text('{"id": "z", "response": "", "question_type": "essay"}\n', encoding="utf-8")
    with pytest.raises(InputError, match="question_type"):
        list(read_records([str(p)]))


def test_gzip_and_content_detection(tmp_path):
    lines = CORPUS.read_bytes().splitlines(keepends=True)[:200]
    gz = tmp_path / "c.jsonl.gz"
    gz.write_bytes(gzip.compress(b"".join(lines)))
    noext = tmp_path / "records"
    noext.write_bytes(b"".join(lines))
    assert detect_format(str(noext)) == "jsonl"
    a = [strip_where(r) for r in read_records([str(gz)])]
    b = [strip_where(r) for r in read_records([str(noext)])]
    c = [strip_where(r) for r in read_records([str(CORPUS)])][:200]
    assert a == b == c and len(a) == 200
    arr = tmp_path / "c.json"
    arr.write_text(json.dumps([json.loads(x) for x in lines]), encoding="utf-8")
    assert [strip_where(r) for r in read_records([str(arr)])] == c


# ---------------------------------------------------------------- field map

def test_parse_field_map():
    assert parse_field_map(["response=prediction", "answer = doc.answer", "meta.cat=category"]) \
        == {"response": "prediction", "answer": "doc.answer", "meta.cat": "category"}
    for bad in (["response"], ["=x"], ["response="], ["nonsense=x"], ["id=a", "id=b"]):
        with pytest.raises(UsageError):
            parse_field_map(bad)
    assert set(FORMATS) >= {"jsonl", "json", "csv", "tsv", "parquet", "xlsx", "mmevalpro",
                            "lmms-eval", "vlmevalkit"}
    with pytest.raises(UsageError):
        list(read_records(["x.jsonl"], fmt="nope"))


def test_field_map(tmp_path):
    p = tmp_path / "f.jsonl"
    rows = [{"idx": 7, "pred": "The answer is (B)", "gt": "B", "opts": ["1", "2"],
             "doc": {"answer": "B", "cat": "art"}}]
    p.write_text(json.dumps(rows[0]) + "\n", encoding="utf-8")
    fields = {"id": "idx", "response": "pred", "answer": "doc.answer", "choices": "opts",
              "meta.category": "doc.cat"}
    (r,) = read_records([str(p)], fields=fields)
    assert (r.id, r.response, r.answer, r.choices, r.question_type) == \
        ("7", "The answer is (B)", "B", {"A": "1", "B": "2"}, "multiple-choice")
    assert r.meta["category"] == "art"
    with pytest.raises(InputError, match="'nope' \\(mapped to answer\\) not found"):
        list(read_records([str(p)], fields={**fields, "answer": "nope"}))


def test_field_map_takes_the_first_column_that_holds_a_value(tmp_path):
    """`answer=answer_option|answer`: VLMEvalKit's MathVista sheet keeps a multiple-choice gold letter in
    `answer_option` (its `answer` is the option text) and a free-form gold in `answer` alone."""
    p = tmp_path / "MathVista_MINI.tsv"
    with p.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, delimiter="\t")
        w.writerow(["index", "prediction", "answer", "answer_option", "a|b", "choices"])
        w.writerow(["1", "(B)", "8/11", "B", "x", "['3/11', '8/11']"])
        w.writerow(["2", "42", "42", "", "y", "[]"])
    first = list(read_records([str(p)], fields={"answer": "answer_option|answer"}))
    assert [(r.answer, r.question_type) for r in first] == [("B", "multiple-choice"), ("42", "open")]
    assert all("answer_option" not in r.meta for r in first)  # a mapped column is not also meta
    # a column literally named `a|b` is that column
    assert [r.answer for r in read_records([str(p)], fields={"answer": "a|b"})] == ["x", "y"]
    with pytest.raises(InputError, match="'nope\\|none' \\(mapped to answer\\) not found"):
        list(read_records([str(p)], fields={"answer": "nope|none"}))



def test_a_dotted_field_reads_into_a_cell_holding_a_dict(tmp_path):
    """`meta.subject=metadata.subject`: VLMEvalKit's MathVerse sheet keeps subject, subfield and problem
    version in a `metadata` cell written by str(dict) (a Python literal, parsed, never run); a JSON object
    reads too. A cell holding anything else — code included — has no such key."""
    p = tmp_path / "MathVerse_MINI.tsv"
    with p.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, delimiter="\t")
        w.writerow(["index", "prediction", "answer", "metadata"])
        w.writerow(["1", "5", "5", str({"subject": "plane geometry", "problem_version": "Text Lite"})])
        w.writerow(["2", "5", "5", '{"subject": "functions", "problem_version": "Vision Only", "x": null}'])
        w.writerow(["3", "5", "5", "{__import__('os').system('true')}"])
    fields = {"meta.subject": "metadata.subject"}
    two = tmp_path / "two.tsv"
    two.write_text("".join(p.read_text(encoding="utf-8").splitlines(True)[:3]), encoding="utf-8")
    got = list(read_records([str(two)], fields={**fields, "meta.version": "metadata.problem_version"}))
    assert [(r.meta["subject"], r.meta["version"]) for r in got] == [("plane geometry", "Text Lite"),
                                                                     ("functions", "Vision Only")]
    with pytest.raises(InputError, match="'metadata.subject' \\(mapped to meta.subject\\) not found"):
        list(read_records([str(p)], fields=fields))


# ---------------------------------------------------------------- tables

def _table_records():
    """Real records with string answers, incl. empty and control-character replies."""
    return corpus_lines(lambda r: isinstance(r["answer"], str) and r["benchmark"] in
                        ("MMMU", "MathVista", "MMLU-Pro", "EMMA-mini", "TheoremQA")
                        and (r["response"] == "" or CONTROL.search(r["response"])
                             or sum(map(ord, r["id"])) % 50 == 0))


COLS = ["id", "question_type", "response", "answer", "choices", "benchmark", "model",
        "question", "meta"]


def _row(r):
    meta = {**r["meta"], "source": r["source"]}
    return [r["id"], r["question_type"], r["response"], r["answer"],
            json.dumps(r["choices"]) if r["choices"] else "", r["benchmark"], r["model"],
            r["question"], json.dumps(meta)]


def _expected(r):
    return {"id": r["id"], "question_type": r["question_type"], "response": r["response"],
            "answer": r["answer"] or None, "choices": r["choices"], "benchmark": r["benchmark"],
            "model": r["model"], "question": r["question"] or None,
            "meta": {**r["meta"], "source": r["source"]}}


@pytest.mark.parametrize("ext,delim", [("csv", ","), ("tsv", "\t")])
def test_csv_tsv_round_trip(tmp_path, ext, delim):
    src = _table_records()
    assert any(r["response"] == "" for r in src) and any(CONTROL.search(r["response"]) for r in src)
    p = tmp_path / f"t.{ext}"
    with open(p, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, delimiter=delim)
        w.writerow(COLS)
        w.writerows(_row(r) for r in src)
    recs = list(read_records([str(p)]))
    assert [strip_where(r) for r in recs] == [_expected(r) for r in src]
    assert recs[0].where == f"{p}:2"


def test_csv_bad_row_line_number(tmp_path):
    p = tmp_path / "bad.csv"
    p.write_text('id,response\n1,"two\nlines"\n2,x,extra\n', encoding="utf-8")
    with pytest.raises(InputError) as e:
        list(read_records([str(p)]))
    assert e.value.loc.line == 4 and "3 cells" in e.value.message


def test_parquet_round_trip(tmp_path):
    src = _table_records()
    p = tmp_path / "t.parquet"
    pq.write_table(pa.Table.from_pylist([dict(zip(COLS, _row(r))) for r in src]), p)
    recs = list(read_records([str(p)]))
    assert [strip_where(r) for r in recs] == [_expected(r) for r in src]
    assert recs[0].where == f"{p}#1"
    # nested columns: a struct of options (missing letters are null) and a list of options
    p2 = tmp_path / "n.parquet"
    pq.write_table(pa.Table.from_pylist([
        {"index": 1, "prediction": "B", "opts": {"A": "x", "B": "y", "C": "z"}},
        {"index": 2, "prediction": "A", "opts": {"A": "p", "B": "q"}}]), p2)
    a, b = read_records([str(p2)], fields={"choices": "opts"})
    assert (a.id, a.choices, b.choices) == ("1", {"A": "x", "B": "y", "C": "z"}, {"A": "p", "B": "q"})


def test_vlmevalkit_tsv(tmp_path):
    """A VLMEvalKit prediction TSV as pandas writes it, built from real MMBench records."""
    src = corpus_lines(lambda r: r["benchmark"] == "MMBench", n=20)
    cols = ["index", "question", "hint", "A", "B", "C", "D", "answer", "category",
            "l2-category", "split", "prediction"]
    p = tmp_path / "llava_MMBench_DEV_EN.tsv"
    with open(p, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, delimiter="\t")
        w.writerow(cols)
        for i, r in enumerate(src):
            opts = [r["choices"].get(k, "") for k in "ABCD"]
            w.writerow([1000 + i, r["question"], "", *opts, r["answer"], "attribute",
                        "finegrained", "dev", r["response"] + "\tsee\nabove"])
        # an MMMU open row: no options at all
        w.writerow([9, "What is 2+2?", "", "", "", "", "", "4", "", "", "dev", "4"])
    recs = list(read_records([str(p)]))
    assert len(recs) == 21
    for i, (rec, r) in enumerate(zip(recs, src)):
        assert rec.id == str(1000 + i)
        assert rec.response == r["response"] + "\tsee\nabove"
        assert rec.choices == r["choices"] and rec.answer == r["answer"]
        assert rec.question_type == "multiple-choice" and rec.question == r["question"]
        assert rec.meta == {"category": "attribute", "l2-category": "finegrained", "split": "dev"}
    last = recs[-1]
    assert (last.id, last.question_type, last.choices, last.answer, last.response) == \
        ("9", "open", None, "4", "4")
    assert last.where == f"{p}:{2 + 20 * 2}"  # each prediction spans two lines
    assert len(list(read_records([str(p)], fmt="vlmevalkit"))) == 21


def test_xlsx_needs_openpyxl(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "openpyxl", None)  # import fails as if not installed
    p = tmp_path / "pred.xlsx"
    p.write_bytes(b"PK\x03\x04")
    assert detect_format(str(p)) == "xlsx"
    with pytest.raises(InputError) as e:
        list(read_records([str(p)]))
    assert "openpyxl" in e.value.message and "pip install openpyxl" in e.value.help


# ---------------------------------------------------------------- lmms-eval

def _lmms_line(r, doc_id, with_doc_id=True):
    """An lmms-eval MMMU --log_samples line carrying real corpus content."""
    opts = list(r["choices"].values()) if r["choices"] else []
    doc = {"question": "<image 1> " + r["question"], "options": str(opts),
           "explanation": "", "img_type": "['Tables']", "answer": r["answer"],
           "topic_difficulty": "Medium", "question_type": r["question_type"],
           "subfield": r["meta"].get("subject", "")}
    if with_doc_id:
        doc["id"] = r["id"].rsplit("/", 1)[1]
    return {"doc_id": doc_id, "doc": doc, "target": r["answer"],
            "arguments": [["<image 1> question", {"max_new_tokens": 16}]],
            "resps": [[r["response"]]], "filtered_resps": [r["response"]],
            "doc_hash": "abc", "prompt_hash": "def", "target_hash": "ghi",
            "mmmu_acc": {"id": doc.get("id"), "subdomain": "x",
                         "question_type": r["question_type"], "answer": r["answer"],
                         "parsed_pred": "A"}}


def test_lmms_eval_log_samples(tmp_path):
    mc = corpus_lines(lambda r: r["benchmark"] == "MMMU" and r["question_type"] == "multiple-choice"
                      and any("'" in v for v in r["choices"].values()), n=1)
    mc += corpus_lines(lambda r: r["benchmark"] == "MMMU" and r["question_type"] == "multiple-choice",
                       n=3)
    op = corpus_lines(lambda r: r["benchmark"] == "MMMU" and r["question_type"] == "open", n=2)
    lines = [_lmms_line(r, i) for i, r in enumerate(mc + op)]
    lines[1]["filtered_resps"] = [["nested " + mc[1]["response"]]]
    lines[2] = _lmms_line(mc[2], 2, with_doc_id=False)
    mixed = {"id": "ours-1", "response": "A", "choices": {"A": "a", "B": "b"}}
    p = tmp_path / "qwen_vl_mmmu_val.jsonl"
    p.write_text("\n".join(json.dumps(x) for x in lines + [mixed]) + "\n", encoding="utf-8")
    recs = list(read_records([str(p)]))
    assert len(recs) == len(lines) + 1 and recs[-1].id == "ours-1"
    r0 = recs[0]
    assert r0.id == mc[0]["id"].rsplit("/", 1)[1]
    assert r0.choices == mc[0]["choices"]  # Python-literal options with quotes parsed
    assert (r0.response, r0.answer, r0.question_type) == \
        (mc[0]["response"], mc[0]["answer"], "multiple-choice")
    assert r0.question.startswith("<image 1> ")
    assert r0.meta["doc_id"] == 0 and r0.meta["reference_extraction"] == "A"
    assert r0.meta["subfield"] == mc[0]["meta"]["subject"] and "mmmu_acc" in r0.meta["metrics"]
    assert recs[1].response == "nested " + mc[1]["response"]
    assert recs[1].meta["resps"] == mc[1]["response"]  # raw differs from filtered: kept
    assert recs[2].id == "2"  # no doc.id: doc_id
    for rec, r in zip(recs[len(mc):len(mc) + 2], op):
        assert (rec.question_type, rec.choices, rec.answer) == ("open", None, r["answer"])
    # older lmms-eval: a .json object with a "logs" array
    pj = tmp_path / "mmmu_val.json"
    pj.write_text(json.dumps({"logs": lines}), encoding="utf-8")
    assert [strip_where(x) for x in read_records([str(pj)])] == \
        [strip_where(x) for x in recs[:-1]]
    # forced mapping: a line with a "response" key is still read as lmms-eval
    pf = tmp_path / "forced.jsonl"
    pf.write_text(json.dumps({"doc_id": 5, "doc": {}, "target": "C", "filtered_resps": ["C"],
                              "response": "ignored"}),
                  encoding="utf-8")
    (f,) = read_records([str(pf)], fmt="lmms-eval")
    assert (f.id, f.response, f.answer, f.question_type) == ("5", "C", "C", "open")


def test_lmms_eval_slim_sample_lines_without_doc_are_read(tmp_path):
    """lmms-eval 0.4+ logs `doc_id`, `target`, `filtered_resps`, the per-sample metric and `input`, no
    `doc` (real line shape: shruum/lmms-eval's LLaVA-1.5 scienceqa_img log)."""
    from rulekit.readers import read_records

    path = tmp_path / "20260218_234435_samples_scienceqa_img.jsonl"
    path.write_text('{"doc_id": 7, "target": "B", "filtered_resps": ["A. the watering method used"], '
                    '"doc_hash": "74234e", "exact_match": 0.0, "input": "Context: ..."}\n', encoding="utf-8")
    [r] = read_records([str(path)])
    assert (r.id, r.response, r.answer, r.choices) == ("7", "A. the watering method used", "B", None)
    assert r.meta["metrics"] == {"exact_match": 0.0}


def test_lmms_eval_doc_question_type_that_is_no_type_of_ours_stays_in_meta(tmp_path):
    """OK-VQA's doc has its own `question_type` ("other", "eight"): not a record type, so it is kept in meta
    (the record is open) instead of failing the line; a known one (MMMU's) still sets the type."""
    from rulekit.readers import read_records

    path = tmp_path / "samples_ok_vqa_val2014.jsonl"
    path.write_text(json.dumps({"doc_id": 0, "doc": {"question_type": "other", "answers": ["red"] * 10},
                                "target": "answer", "filtered_resps": ["Red"]}) + "\n"
                    + json.dumps({"doc_id": 1, "doc": {"question_type": "open"}, "target": "4",
                                  "filtered_resps": ["4"]}) + "\n", encoding="utf-8")
    ok, mmmu = read_records([str(path)])
    assert (ok.question_type, ok.meta["question_type"], ok.answer) == ("open", "other", "answer")
    assert mmmu.question_type == "open" and "question_type" not in mmmu.meta


def test_read_position_follows_the_bytes_read_gzip_included(tmp_path):
    import gzip

    from rulekit.readers import ReadPosition, read_records

    lines = "".join(f'{{"id": "{i}", "response": "{"x" * 200}"}}\n' for i in range(3000)).encode()
    plain, packed = tmp_path / "a.jsonl", tmp_path / "b.jsonl.gz"
    plain.write_bytes(lines)
    packed.write_bytes(gzip.compress(lines))
    position = ReadPosition([str(plain), str(packed)])
    assert position.total == len(lines) + packed.stat().st_size
    seen = []
    for n, _ in enumerate(read_records([str(plain), str(packed)], position=position), 1):
        if n % 500 == 0:
            seen.append(position.bytes_read())
    assert seen == sorted(seen) and 0 < seen[0] < len(lines) < seen[-1] <= position.total
    assert position.bytes_read() == position.total
