"""Every shipped experiment file (``elmo_keras/data/*_experiments.json``) says which code made it
(``models.provenance``), and the pages' caption shows it. Never imports Keras (``tests/conftest.py``); that a
recorded optimizer is today's is ``test_experiment_optimizers.py``."""

import datetime
import json
import re

import pytest

from elmo_keras import __version__
from elmo_keras.models.provenance import (
    FIELDS,
    code_changed,
    code_fingerprint,
    experiment_provenance,
    provenance_caption,
)
from tests.support.paths import REPO_ROOT

ROOT = REPO_ROOT
SHIPPED = sorted((ROOT / "elmo_keras" / "data").glob("*_experiments.json"))
# files made before provenance was recorded and not rerun since: they may lack it or hold "provenance": null (the
# pages say so); every other file must carry the record. Take a file off once its tool has rerun.
MADE_BEFORE_PROVENANCE: set[str] = set()
BACKENDS = ("tensorflow ", "jax ", "torch ")


def test_the_experiment_files_are_found():
    assert {path.name for path in SHIPPED} >= {"tagging_experiments.json", "classifier_experiments.json",
                                               "dialogue_experiments.json", "gradient_experiments.json"}


@pytest.mark.parametrize("path", SHIPPED, ids=lambda path: path.name)
def test_a_shipped_experiment_file_records_its_provenance(path):
    provenance = json.loads(path.read_text(encoding="utf-8")).get("provenance")
    if provenance is None:
        assert path.name in MADE_BEFORE_PROVENANCE, (
            f"{path.name} does not say which code made it: rerun its tools/run_*_experiments.py")
        return
    assert tuple(provenance) == FIELDS
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", provenance["package_version"])
    assert provenance["optimizer"].isidentifier()
    assert provenance["backend"].startswith(BACKENDS)
    assert re.fullmatch(r"[0-9a-f]{12}", provenance["code_fingerprint"])
    assert datetime.date.fromisoformat(provenance["made_on"]) <= datetime.date.today() + datetime.timedelta(days=1)
    assert provenance["git_commit"] is None or re.fullmatch(r"[0-9a-f]{40}", provenance["git_commit"])
    assert provenance["git_dirty"] in (None, True, False)
    assert provenance["machine"]


@pytest.mark.parametrize("tool", sorted((ROOT / "tools").glob("run_*_experiment*.py")), ids=lambda path: path.stem)
def test_every_experiment_tool_records_provenance(tool):
    assert "experiment_provenance(" in tool.read_text(encoding="utf-8"), (
        f"{tool.name}: store models.provenance.experiment_provenance() under the results' 'provenance' key")


def _provenance(**changes) -> dict:
    return {"provenance": {"package_version": __version__, "optimizer": "DenseGradientAdam",
                           "backend": "tensorflow 2.21.0", "code_fingerprint": code_fingerprint(),
                           "made_on": "2026-12-02", "git_commit": "35033c1" + "0" * 33, "git_dirty": False,
                           "machine": "AMD EPYC", **changes}}


def test_the_caption_names_version_optimizer_backend_and_date():
    caption = provenance_caption(_provenance())
    assert caption == (f"Made with elmo_keras {__version__} (commit 35033c1), DenseGradientAdam, tensorflow 2.21.0, "
                       "on 2026-12-02 (AMD EPYC).")
    assert "modified" in provenance_caption(_provenance(git_dirty=True))
    assert "(commit" not in provenance_caption(_provenance(git_commit=None, git_dirty=None))


def test_the_caption_warns_when_the_trainer_code_changed_since():
    stale = _provenance(code_fingerprint="0" * 12)
    assert code_changed(stale) and not code_changed(_provenance())
    assert "has changed since: rerun the experiment" in provenance_caption(stale)
    assert "changed" not in provenance_caption(_provenance())


def test_the_caption_of_a_file_without_provenance():
    assert provenance_caption({"provenance": None}).startswith("Made before provenance was recorded")
    assert provenance_caption({}).startswith("Made before provenance was recorded")
    assert code_changed({"provenance": None}) is None
    assert provenance_caption(None) == ""


def test_the_fingerprint_ignores_docstrings_comments_and_layout(tmp_path):
    module = tmp_path / "module.py"

    def fingerprint(source: str) -> str:
        module.write_text(source, encoding="utf-8")
        return code_fingerprint([module])

    original = fingerprint('"""Doc."""\n\ndef f(x):\n    """Doc."""\n    return x + 1\n')
    assert fingerprint('"""Other doc."""\n\n\ndef f(x):  # a comment\n    return (x +\n            1)\n') == original
    assert fingerprint('"""Doc."""\n\ndef f(x):\n    return x + 2\n') != original


@pytest.mark.parametrize("optimizer", ["dense gradient adam", 3, ""])
def test_an_optimizer_that_is_not_a_class_name_is_refused(optimizer):
    with pytest.raises(ValueError, match=r"class name of the optimizer .*type\(model.optimizer\).__name__"):
        experiment_provenance(optimizer)
