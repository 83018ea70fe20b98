"""The notebooks run from top to bottom (on the tiny preset) and print what their text says."""

from __future__ import annotations

import os
import pathlib

import pytest

from tests.support.paths import REPO_ROOT

NOTEBOOKS = REPO_ROOT / "notebooks"


def _run(path: pathlib.Path) -> str:
    nbclient = pytest.importorskip("nbclient", reason="nbclient is a test requirement (requirements-test.txt)")
    nbformat = pytest.importorskip("nbformat")
    notebook = nbformat.read(path, as_version=4)
    assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code"), \
        f"{path.name} is stored with outputs: regenerate it with tools/make_notebooks.py"
    os.environ["ELMO_KERAS_NOTEBOOK_SIZE"] = "tiny"
    try:
        nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                                resources={"metadata": {"path": str(path.parent)}}).execute()
    finally:
        del os.environ["ELMO_KERAS_NOTEBOOK_SIZE"]
    return "".join(output.get("text", "") for cell in notebook.cells if cell.cell_type == "code"
                   for output in cell.outputs)


@pytest.mark.slow
def test_quickstart_runs_and_shows_what_it_says(shared_fixtures):
    printed = _run(NOTEBOOKS / "quickstart.ipynb")
    assert "layer 0: cosine(bank_money, bank_river) = 1.000" in printed
    assert "layer weights [0.09  0.245 0.665] -> ELMo vectors (2, 32)" in printed
    assert "original ELMo: (3, 6, 32) (layers, tokens, dim)" in printed
    assert "strings in: (2, 3, 32) vectors, the same as from batch_to_ids: True" in printed
    assert "greedy    A B </S>  P = 0.20" in printed and "beam k=2  B C </S>  P = 0.36" in printed


@pytest.mark.slow
def test_the_lecture_notebook_runs_and_shows_what_it_says():
    printed = _run(NOTEBOOKS / "lecture_models.ipynb")
    assert "1 like this 0.53" in printed and "max pool (value, position): (0.53, 1)" in printed
    assert "held-out accuracy:" in printed and "HRED beam:" in printed and "VHRED, 3 z ~ p(z|c):" in printed
    far_near = [line.split(":")[-1].split("(")[0].strip() for line in printed.splitlines() if "far/near" in line
                or "clipped at" in line]
    assert far_near[0] == far_near[1], far_near  # clipping leaves the far/near ratio as it was
    assert "Keras clipnorm step == formula: True" in printed


@pytest.mark.slow
def test_the_real_english_notebook_runs_and_shows_what_it_says():
    printed = _run(NOTEBOOKS / "real_english.ipynb")
    assert "train: 12,544 sentences, 204,577 words; dev: 2,001 sentences" in printed
    assert "(\"n't\", 'PART')" in printed and "CC BY-SA 4.0" in printed
    assert "dev perplexity, forward: biLM" in printed and "Kneser-Ney trigram" in printed
    assert "upos" in printed and "deprel" in printed
    assert "words only: 125 training sentences, test accuracy" in printed
    assert "+ biLM vectors: 125 training sentences, test accuracy" in printed


def test_the_notebooks_are_generated_from_tools_make_notebooks():
    nbformat = pytest.importorskip("nbformat")
    import sys

    sys.path.insert(0, str(NOTEBOOKS.parent / "tools"))
    try:
        import make_notebooks
    finally:
        sys.path.pop(0)
    assert sorted(path.name for path in NOTEBOOKS.glob("*.ipynb")) == sorted(make_notebooks.NOTEBOOKS)
    for name in make_notebooks.NOTEBOOKS:
        assert nbformat.read(NOTEBOOKS / name, as_version=4) == make_notebooks.build(name), name
