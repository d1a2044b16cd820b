"""MMVet's capability table as an OLDER VLMEvalKit wrote it: `MMVet_acc` of vlmeval/eval/mmvet_eval.py at a 2023
commit (9304eca5, 2023-12-09: each capability counted once per question) loaded unchanged from VLMEVALKIT_SRC
(files `mmvet_eval.py` and `misc.py` = `git show COMMIT:vlmeval/smp.py`, whose own `load`/`dump` write the
file), run on a judge sheet (`score` per row, the judge's grade) already written by a later harness.
    VLMEVALKIT_SRC=DIR python rate_mmvet_acc_era.py JUDGE_SHEET.xlsx
writes JUDGE_SHEET_score.csv beside it (the original's own file name; `_score.xlsx` at ca3c9b52, 2023-12-06)."""
import os, sys, types

src = os.environ["VLMEVALKIT_SRC"]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.chdir(src)  # smp_any_era loads misc.py from the current directory
try:  # smp.py of 2023 imports Pillow at load time; MMVet_acc never opens an image
    import PIL  # noqa: F401
except ImportError:
    pil = types.ModuleType("PIL")
    pil.Image = types.ModuleType("PIL.Image")
    sys.modules["PIL"], sys.modules["PIL.Image"] = pil, pil.Image
from modules import load_module  # noqa: E402
from smp_any_era import _Anything, smp  # noqa: E402

era = sys.modules["vlmeval.smp.misc"]
smp.load, smp.dump = era.load, era.dump  # the era's own file I/O, not the harness's
sys.modules["vlmeval.chat_api"] = _Anything("vlmeval.chat_api")  # the judge: not called by MMVet_acc
sys.modules["vlmeval.utils"].track_progress_rich = None
module = load_module("vlmeval.eval.mmvet_eval", os.path.join(src, "mmvet_eval.py"))
print(module.MMVet_acc(os.path.abspath(sys.argv[1])).to_string())
