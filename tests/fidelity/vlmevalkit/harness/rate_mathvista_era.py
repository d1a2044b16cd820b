"""rate_mathvista_workdir.py on the ORIGINAL files of an older VLMEvalKit commit (2024-2025), whose
vlmeval/dataset/utils/mathvista.py takes `load` and the rest from `from ...smp import *`: vlmeval.smp is the
commit's own misc.py, unchanged (smp_any_era.py), loaded before the work-dir harness runs as it is.
    git show COMMIT:vlmeval/dataset/image_vqa.py > image_vqa.py   (and utils/mathvista.py, utils/matching_util.py,
    smp/misc.py beside it), then: python rate_mathvista_era.py MODEL JUDGE rows.jsonl OUT
tests/fixtures/reproduce/vlmevalkit-mathvista-eras was written so at c026693a (2025-08-04, can_infer v1)."""
import os
import runpy

import smp_any_era  # noqa: F401  (vlmeval.smp from the commit's misc.py, before mathvista.py imports it)

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "rate_mathvista_workdir.py"), run_name="__main__")
