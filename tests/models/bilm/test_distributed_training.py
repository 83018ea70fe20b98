"""Data-parallel training (``models.bilm.distribution``) gives the one-device result: one step on 2 replicas (2 logical
CPU devices, in a subprocess: ``tests/support/distributed_worker.py``) ends at the same weights, loss and perplexities
as one
device on the same global batch, to 1e-5; two ``MultiWorkerMirroredStrategy`` workers over loopback end at the one-
device weights too; and the scope's arguments are checked."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from elmo_keras._quiet import keras
from elmo_keras.models.bilm.distribution import (
    configure_cpu_devices,
    distribution_scope,
    global_token_means,
    sum_over_replicas,
)
from tests.support.backend_support import BACKEND, to_numpy
from tests.support.paths import REPO_ROOT

TOLERANCE = 1e-5
STRATEGIES = {"tensorflow": "tf.distribute.MirroredStrategy", "jax": "keras.distribution.DataParallel"}


@pytest.mark.parametrize("backend", sorted(STRATEGIES))
def test_one_step_on_two_replicas_matches_one_device(backend, tmp_path):
    if BACKEND != backend:  # the worker runs under its own backend: once across the three CI runs
        pytest.skip(f"runs in the {backend} CI run ({STRATEGIES[backend]} in a {backend} subprocess)")
    out = tmp_path / "result.json"
    done = subprocess.run([sys.executable, "-m", "tests.support.distributed_worker", str(out)], cwd=REPO_ROOT,
                          env=dict(os.environ, KERAS_BACKEND=backend), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    step = json.loads(out.read_text())["step"]

    assert step["tokens_per_replica"][0] != step["tokens_per_replica"][1]  # the halves weigh differently
    assert 0 < step["clipped"] < step["variables"]  # clipnorm acts on some variables, not all
    assert step["moved"] > 1e-3  # the step is far larger than the tolerance
    assert step["weights"] <= TOLERANCE, step
    assert step["logs"] == pytest.approx(dict.fromkeys(step["logs"], 0.0), abs=TOLERANCE), step["logs"]
    assert set(step["logs"]) == {"loss", "forward_perplexity", "backward_perplexity"}


# two MultiWorkerMirroredStrategy workers over loopback against one process:
# tests/models/bilm/test_multi_worker_training.py


def test_no_strategy_is_one_replica_and_changes_nothing():
    with distribution_scope(None) as replicas:
        assert replicas == 1
        total, count = keras.ops.convert_to_tensor(6.0), keras.ops.convert_to_tensor(4.0)
        assert to_numpy(sum_over_replicas(total)) == 6.0
        assert [to_numpy(v) if v is not None else None for v in sum_over_replicas([total, None])] == [6.0, None]
        shares, means, counts = global_token_means([total, total], [count, keras.ops.convert_to_tensor(0.0)])
        assert [to_numpy(v) for v in shares] == [pytest.approx(1.5), 6.0]  # no tokens: the sum
        assert [to_numpy(v) for v in means] == [pytest.approx(1.5), 6.0]
        assert [to_numpy(v) for v in counts] == [4.0, 0.0]


@pytest.mark.parametrize("strategy, message", [
    ("mirrored-ish", "strategy must be None, one of"),
    (object(), "strategy must be None, one of"),
    ("mirrored" if BACKEND != "tensorflow" else "data-parallel", "backend"),
])
def test_a_bad_strategy_is_refused_before_anything_is_built(strategy, message):
    with pytest.raises(ValueError, match=message):
        with distribution_scope(strategy):
            pass


def test_devices_without_a_strategy_are_refused():
    with pytest.raises(ValueError, match="needs a strategy"):
        with distribution_scope(None, devices=["cpu:0", "cpu:1"]):
            pass


@pytest.mark.parametrize("count", [0, -1, 1.5, True])
def test_configure_cpu_devices_checks_its_count(count):
    with pytest.raises(ValueError, match="count must be a positive int, received"):
        configure_cpu_devices(count)


def test_configure_cpu_devices_after_the_runtime_started_says_so():
    np.asarray(to_numpy(keras.ops.ones(1)))  # the backend's runtime is running in this process now
    with pytest.raises(RuntimeError, match="configure_cpu_devices|no logical CPU devices"):
        configure_cpu_devices(3)
