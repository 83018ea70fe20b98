"""The original bilm-tf test model (../shared/fixtures/elmo_bilm_tf): readers for its sentences and expected
embeddings, and the pytest fixtures ``conftest.py`` shares (``model_dir``, ``sentences``, ``expected``)."""

from __future__ import annotations

import json
import pathlib

import h5py
import numpy as np
import pytest

NUM_LISTS = 3  # lm_embeddings_{0,1,2}.hdf5
NUM_BATCHES = 10  # sentences per list = batches the original code ran


def read_sentences(model_dir: pathlib.Path) -> list:
    """``sentences[k][i]``: token list of sentence ``i`` of list ``k`` (whitespace-tokenized)."""
    with open(model_dir / "lm_embeddings_sentences.json", encoding="utf-8") as handle:
        return [[text.split() for text in texts] for texts in json.load(handle)]


def read_expected(model_dir: pathlib.Path) -> list:
    """``expected[k][i]``: `(n_tokens, 32)` top layer ``[forward; backward]`` of ``sentences[k][i]``."""
    result = []
    for k in range(NUM_LISTS):
        with h5py.File(model_dir / f"lm_embeddings_{k}.hdf5", "r") as handle:
            result.append([np.concatenate([handle[str(i)][0], handle[str(i)][1]], axis=-1) for i in range(NUM_BATCHES)])
    return result


@pytest.fixture(scope="module")
def model_dir(shared_fixtures):
    """The bilm-tf test model's directory (the test is skipped where ../shared/fixtures is absent)."""
    return shared_fixtures / "elmo_bilm_tf"


@pytest.fixture(scope="module")
def sentences(model_dir):
    return read_sentences(model_dir)


@pytest.fixture(scope="module")
def expected(model_dir):
    return read_expected(model_dir)
