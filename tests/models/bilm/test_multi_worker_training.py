"""``train_bilm`` in several processes (``strategy=tf.distribute.MultiWorkerMirroredStrategy()``): two worker
processes on loopback (``tests/support/multi_worker_worker.py``, each with its own ``TF_CONFIG``) train the ``tiny``
size on 40 sentences, global batch 8, 2 epochs, checkpointing every 2 steps and at epoch ends. Worker 1 is killed
with SIGKILL after step 7 (the chief has written steps 5 and 6; it stops on its own, with an error, once its peer
stops answering); both are restarted with ``resume=True``. Then

- each worker was given its own half of every global batch (rows 0–3 and 4–7);
- both end bit for bit at the weights and history of ONE uninterrupted process training the same global batches on
  2 logical CPU devices (``strategy="mirrored"``): with two replicas every all-reduce adds two numbers, whose sum
  does not depend on the order, and the resumed run is exact. Against one device the difference is float32
  rounding (measured max 1.2e-7, about one ulp of the largest weights, ~1.09; tolerance ``atol=1e-6, rtol=1e-5``,
  where the last two steps move the weights by 2e-2);
- only the chief (worker 0) wrote checkpoints (``distribution.writes_checkpoints``): the directory holds the latest
  two, complete, and nothing else.

The one-process run is the uninterrupted reference: two workers trained without interruption also end at its
weights bit for bit (measured when this test was written; running them too would add a minute on 2 cores).
TensorFlow only. Every group of processes has a time limit: a collective that hangs fails the test with the logs.
"""

import json
import os
import pathlib
import signal
import socket
import subprocess
import sys

import numpy as np
import pytest

from elmo_keras.models.bilm.checkpoint_files import read_checkpoint
from elmo_keras.models.bilm.training import train_bilm
from tests.support.backend_support import tensorflow_only
from tests.support.multi_worker_worker import GLOBAL_BATCH, SEED, SIZE, corpus
from tests.support.paths import REPO_ROOT

pytestmark = tensorflow_only("tf.distribute.MultiWorkerMirroredStrategy across two processes")

WORKERS = 2
ROWS_PER_WORKER = GLOBAL_BATCH // WORKERS
TIME_LIMIT = 150  # seconds for a group of processes (about 30 s each on 2 busy cores)
ONE_DEVICE_TOLERANCE = {"atol": 1e-6, "rtol": 1e-5}
KILLED_AT = 7  # worker 1's last step: the chief's newest checkpoints are steps 5 (epoch 1's end) and 6
ENVIRONMENT = {**os.environ, "KERAS_BACKEND": "tensorflow", "TF_CPP_MIN_LOG_LEVEL": "3"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("localhost", 0))
        return probe.getsockname()[1]


def start(out, *options, environment=ENVIRONMENT) -> subprocess.Popen:
    """One ``multi_worker_worker`` process writing ``out`` (.npz) and its log ``out``.log."""
    with open(out.with_suffix(".log"), "w") as log:
        return subprocess.Popen([sys.executable, "-m", "tests.support.multi_worker_worker", str(out), *options],
                                cwd=REPO_ROOT, env=environment, stdout=log, stderr=subprocess.STDOUT)


def start_workers(directory, *options, worker_1_options=()) -> list[subprocess.Popen]:
    """Two workers of one cluster on free loopback ports, writing ``directory/worker{i}.npz``."""
    cluster = {"worker": [f"localhost:{free_port()}" for _ in range(WORKERS)]}
    return [start(directory / f"worker{i}.npz", *options, *(worker_1_options if i == 1 else ()),
                  environment={**ENVIRONMENT, "TF_CONFIG": json.dumps({"cluster": cluster,
                                                                        "task": {"type": "worker", "index": i}})})
            for i in range(WORKERS)]


def wait_for(processes, what: str, timeout: float = TIME_LIMIT) -> list[int]:
    """The processes' exit codes; past ``timeout`` seconds all are killed and the test fails with their logs."""
    try:
        return [process.wait(timeout=timeout) for process in processes]
    except subprocess.TimeoutExpired:
        for process in processes:
            process.kill()
        pytest.fail(f"{what} did not finish in {timeout} s (a collective op waiting for a peer?):\n" + logs(processes))


def logs(processes) -> str:
    """The end of each process's log (``start`` writes it beside the process's .npz)."""
    paths = [pathlib.Path(process.args[3]).with_suffix(".log") for process in processes]
    return "\n".join(f"--- {path}:\n{path.read_text()[-3000:]}" for path in paths)


def finished(processes, what: str) -> list:
    """Wait for ``processes``, check each exited with 0, and load their results."""
    codes = wait_for(processes, what)
    assert codes == [0] * len(processes), f"{what} exited with {codes}:\n{logs(processes)}"
    return [np.load(process.args[3]) for process in processes]


def weights(result) -> list[np.ndarray]:
    return [result[f"arr_{k}"] for k in range(len([name for name in result.files if name.startswith("arr_")]))]


def history(result) -> dict:
    return json.loads(str(result["history"]))


def checkpoint_report(result) -> dict:
    return json.loads(str(result["checkpoints"]))


def directory_listing(directory) -> list[str]:
    return sorted(os.listdir(directory))


def model_values(path) -> list[np.ndarray]:
    return read_checkpoint(path).values["model"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Two workers whose worker 1 is killed after step ``KILLED_AT``, started together with the references (one
    process on 2 logical devices, a subprocess since logical devices must be made before TensorFlow starts; one
    device, in this process); then both workers restarted with ``resume=True``."""
    directory = tmp_path_factory.mktemp("multi_worker")
    checkpoints = ("--checkpoint-dir", str(directory / "checkpoints"))
    killed = start_workers(directory, *checkpoints, worker_1_options=("--kill-after-step", str(KILLED_AT)))
    mirrored = start(directory / "mirrored.npz", "--mirrored")
    try:
        one_device = train_bilm(corpus(), size=SIZE, seed=SEED)  # while the others run
        [mirrored_result] = finished([mirrored], "the one-process run on 2 logical devices")
        killed_codes = wait_for(killed, "the workers of the killed run")
    finally:
        for process in [*killed, mirrored]:
            process.kill()
    after_the_kill, killed_logs = directory_listing(directory / "checkpoints"), logs(killed)
    resumed = finished(start_workers(directory, *checkpoints, "--resume"), "the resumed workers")
    return {"killed_codes": killed_codes, "killed_logs": killed_logs, "after_the_kill": after_the_kill,
            "resumed": resumed, "checkpoints": directory / "checkpoints", "mirrored": mirrored_result,
            "one_device": [np.asarray(w) for w in one_device.get_weights()]}


def test_each_worker_trains_its_half_of_every_global_batch(runs):
    for i, result in enumerate(runs["resumed"]):
        batches = sorted(int(name.rsplit("_", 1)[1]) for name in result.files if name.startswith("global_rows_"))
        assert batches == list(range(5))  # the first epoch's 5 global batches
        for k in batches:
            whole, own = result[f"global_rows_{k}"], result[f"own_rows_{k}"]
            np.testing.assert_array_equal(own, whole[i * ROWS_PER_WORKER : (i + 1) * ROWS_PER_WORKER])
        real_tokens = [[(result[f"global_rows_{k}"][rows] > 0).sum() for k in batches]
                       for rows in (slice(None, ROWS_PER_WORKER), slice(ROWS_PER_WORKER, None))]
        assert real_tokens[0] != real_tokens[1]  # the halves weigh differently


def test_a_killed_worker_stops_the_chief_after_its_checkpoints(runs):
    chief_code, worker_1_code = runs["killed_codes"]
    assert worker_1_code == -signal.SIGKILL, runs["killed_logs"]
    assert chief_code not in (0, -signal.SIGKILL), runs["killed_logs"]  # TensorFlow's health check stopped it
    assert runs["after_the_kill"] == ["checkpoint-000000005.npz", "checkpoint-000000006.npz"]


def test_the_resumed_workers_end_at_the_one_process_weights(runs):
    worker_0, worker_1 = (weights(result) for result in runs["resumed"])
    mirrored, one_device = weights(runs["mirrored"]), runs["one_device"]
    assert len(worker_0) == len(worker_1) == len(mirrored) == len(one_device) == 15
    for mine, theirs, two_devices, one in zip(worker_0, worker_1, mirrored, one_device):
        np.testing.assert_array_equal(mine, theirs)
        np.testing.assert_array_equal(mine, two_devices)  # two addends per all-reduce: order-free
        np.testing.assert_allclose(mine, one, **ONE_DEVICE_TOLERANCE)
    for result in runs["resumed"]:
        assert checkpoint_report(result)["note"] == "resumed from checkpoint-000000006.npz (step 6)"
        assert history(result) == history(runs["mirrored"])  # the resumed epoch's metrics included

    last_two_steps = [np.max(np.abs(a - b)) for a, b in zip(model_values(runs["checkpoints"] /
                                                                         "checkpoint-000000010.npz"),
                                                            model_values(runs["checkpoints"] /
                                                                         "checkpoint-000000008.npz"))]
    assert max(last_two_steps) > 1e3 * ONE_DEVICE_TOLERANCE["atol"]  # the tolerance is far below what a step moves


def test_only_the_chief_writes_checkpoints(runs):
    assert [result["written"].tolist() for result in runs["resumed"]] == [[8, 10], []]
    assert directory_listing(runs["checkpoints"]) == ["checkpoint-000000008.npz", "checkpoint-000000010.npz"]
