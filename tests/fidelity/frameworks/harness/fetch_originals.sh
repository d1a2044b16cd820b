#!/bin/sh
# Writes the ORIGINAL files the labeller loads (unchanged) into $1 (FRAMEWORKS_SRC), from local clones:
#   VLMEVALKIT=... LMMS_EVAL=... MMMU=... MMEVALPRO=... DCVLR=... sh fetch_originals.sh DIR
# (git clones of open-compass/VLMEvalKit, EvolvingLMMs-Lab/lmms-eval, MMMU-Benchmark/MMMU,
# chenllliang/MMEvalPro and YosubShin/VLMEvalKit holding the commits below).
set -eu
out=$1
mkdir -p "$out"
V="git -C $VLMEVALKIT show"
L="git -C $LMMS_EVAL show"
for c in e8e78f05 c3371551 c026693a bc4b28be 39cebe2f 9ac258c1; do $V $c:vlmeval/utils/matching_util.py > "$out/matching_util@$c.py"; done
for f in vmcbench mathvista olympiadbench physics_eval_utils physic vqa_eval omni3dbench yorn visulogic mathv; do
  $V e8e78f05:vlmeval/dataset/utils/$f.py > "$out/$f.py"
done
for f in image_vqa image_mcq; do $V e8e78f05:vlmeval/dataset/$f.py > "$out/ds_$f.py"; done
$V e8e78f05:vlmeval/smp/misc.py > "$out/misc.py"
$L 75571cfe:lmms_eval/tasks/_task_utils/mmmu_mcq_utils.py > "$out/lmms_mmmu_mcq_utils.py"
$L 75571cfe:lmms_eval/tasks/mmmu/utils.py > "$out/lmms_mmmu_utils.py"
$L 75571cfe:lmms_eval/tasks/livexiv_vqa/utils.py > "$out/lmms_livexiv_utils.py"
$L c7eaef37:lmms_eval/tasks/mme/utils.py > "$out/lmms_mme_utils.py"
$L 8ada8050:lmms_eval/tasks/scienceqa/utils.py > "$out/lmms_sqa_utils@8ada8050.py"
$L f06f8e67:lmms_eval/tasks/scienceqa/utils.py > "$out/lmms_sqa_utils@f06f8e67.py"
$L 7e9719d7:lmms_eval/tasks/scienceqa_img/utils.py > "$out/lmms_sqa_utils@7e9719d7.py"
git -C "$MMMU" show bb0b95a9:mmmu/utils/eval_utils.py > "$out/mmmu_eval_utils.py"
git -C "$MMEVALPRO" show c6fb5418:auto_score.py > "$out/mmevalpro_auto_score.py"
git -C "$DCVLR" show 6f61d704:vlmeval/utils/matching_util.py > "$out/fork_matching_util.py"
