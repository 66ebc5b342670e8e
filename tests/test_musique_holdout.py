"""scripts/musique_holdout.py writes question files of questions the eval's own samples
left out, over the same corpus as the whole MuSiQue set."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from graphmind.eval.datasets import (
    DATA_ENV,
    MUSIQUE_QUESTIONS,
    EvalDataset,
    default_data_root,
    load_dataset,
)

REPO = Path(__file__).resolve().parents[1]
DATA = default_data_root()
pytestmark = pytest.mark.skipif(
    not (DATA / MUSIQUE_QUESTIONS).is_file(), reason=f"no MuSiQue data under {DATA}"
)


def _ids(dataset: EvalDataset) -> set[str]:
    return {q.id for q in dataset.questions}


def test_holdout_files_leave_out_the_tuned_and_checked_samples(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "musique_holdout.py"), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, DATA_ENV: str(DATA)},
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    whole = load_dataset("musique", DATA)
    tuned = _ids(load_dataset("musique", DATA, limit=140, seed=0))
    checked = _ids(load_dataset("musique", DATA, limit=100, seed=3642))
    unseen = load_dataset("musique", DATA, limit=100, path=tmp_path / "musique-unseen-86.json")
    hundred = load_dataset("musique", DATA, limit=100, path=tmp_path / "musique-100.json")

    assert _ids(unseen) == _ids(whole) - tuned - checked
    assert len(unseen.questions) == 86
    assert len(hundred.questions) == 100
    assert _ids(unseen) < _ids(hundred)
    assert _ids(hundred) - _ids(unseen) <= checked
    # the same corpus, and each question with the whole set's gold and answers
    assert unseen.corpus == whole.corpus == hundred.corpus
    by_id = {q.id: q for q in whole.questions}
    for question in [*unseen.questions, *hundred.questions]:
        assert question == by_id[question.id]
