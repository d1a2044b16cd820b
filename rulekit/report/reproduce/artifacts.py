"""Finding what a set of work dirs holds: every file under them (a link out of a tree is never read),
then each framework's layout takes the files it knows (VLMEvalKit's reports, lmms-eval's runs,
MMEvalPro's score files), and what is left over is named."""
from __future__ import annotations

from pathlib import Path

from rulekit.core.errors import UsageError
from rulekit.report.reproduce.files import TREES, walk
from rulekit.report.reproduce.found import Artifact, Note, error_note
from rulekit.report.reproduce.lmms_eval import lmms_eval_runs
from rulekit.report.reproduce.mmevalpro import mmevalpro_pairs
from rulekit.report.reproduce.vlmevalkit import (INTERMEDIATE_SUFFIXES, NOT_READ_SUFFIXES, PREDICTION_SUFFIXES,
                                                 REPORT_SUFFIXES,
                                                 vlmevalkit_reports)

# each framework's layout, in the order they take files: (files) -> (Artifact, None) or (None, note) each
LAYOUTS = (vlmevalkit_reports, lmms_eval_runs, mmevalpro_pairs)


def find_artifacts(paths: list[str]) -> tuple[list[Artifact], list[Note]]:
    """The artifacts under `paths` (work dirs or files), and notes on what was found but cannot be
    reproduced (a report that cannot be read or has no prediction file, a prediction file without a
    report). A note is kept only for a file no layout took: MMEvalPro's `demo_score.json` is not
    VLMEvalKit's report without a prediction file. A path that does not exist is a usage error (E401);
    a tree deeper than the `dir-depth` limit is a note, and the other paths go on."""
    from rulekit.core.errors import RulekitError

    files: list[Path] = []
    notes: list[Note] = []
    roots: dict[Path, Path] = {}  # each file found → the tree it was found in (a file given: its folder)
    for p in paths:
        if not Path(p).exists():
            raise UsageError(f"no such file or directory: {p}", code="E401")
    for p in paths:
        path = Path(p)
        if path.is_dir():
            try:
                found, outside = walk(path)
            except RulekitError as exc:  # E302: nested deeper than the limit
                notes.append(error_note(path, exc, "not walked"))
                continue
            notes += [Note(str(link), text) for link, text in outside]
        else:
            found = [path]
        for f in found:
            roots.setdefault(f, path if path.is_dir() else path.parent)
        files += found
    files = sorted(set(files))
    artifacts, used = [], set()
    TREES.clear()
    TREES.update(roots)
    pending: list[tuple[int, Note]] = []
    taken: dict[Path, int] = {}  # each file a layout took → that layout
    for layout, finder in enumerate(LAYOUTS):  # each yields (artifact, None) or (None, note)
        for art, note in finder([f for f in files if f not in used]):
            if art is not None:
                artifacts.append(art)
                pieces = [x for _, part in art.parts for x in (part.predictions, part.result_sheet)]
                for f in (art.predictions, art.report, art.result_sheet, *pieces):
                    if f is not None:
                        used.add(f)
                        taken.setdefault(f, layout)
            else:
                pending.append((layout, note))
    # a layout's note on a file another layout took is moot (MMEvalPro's demo_score.json is not a
    # VLMEvalKit report without its prediction file)
    notes += [n for layout, n in pending if taken.get(Path(n.file), layout) == layout]
    # a prediction file whose report is there but was not read (a missed-file note says why) is not "alone"
    reports = {(g.parent, g.name) for g in files if g.name.endswith((*REPORT_SUFFIXES, *NOT_READ_SUFFIXES))}
    for f in files:
        if f.suffix in PREDICTION_SUFFIXES and f not in used and not f.name.endswith(INTERMEDIATE_SUFFIXES) \
                and not any(f.name.endswith(s) for s in (*REPORT_SUFFIXES, *NOT_READ_SUFFIXES)) \
                and not any((f.parent, f.stem + s) in reports for s in (*REPORT_SUFFIXES, *NOT_READ_SUFFIXES)):
            notes.append(Note(str(f), f"no published number next to it (no {f.stem}_acc.csv); nothing to reproduce"))
    runs = {f.parent for f in files if f.name.endswith("results.json")}
    for f in files:
        if "_samples_" in f.name and f.name.endswith((".jsonl", ".jsonl.gz")) and f.parent not in runs:
            notes.append(Note(str(f), "an lmms-eval samples log without its run's results.json next to it; "
                                      "nothing to reproduce"))
    return artifacts, notes
