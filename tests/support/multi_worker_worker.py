"""The other side of ``tests/models/bilm/test_multi_worker_training.py``: one ``train_bilm`` run of the ``tiny`` size
(global batch ``GLOBAL_BATCH``, ``EPOCHS`` epochs) in its own TensorFlow process, as one worker of a
``MultiWorkerMirroredStrategy`` when ``TF_CONFIG`` names a cluster, else with ``--mirrored`` over 2 logical CPU
devices of this process:

    TF_CONFIG=... python -m tests.support.multi_worker_worker OUT.npz [--checkpoint-dir D] [--resume]
                                                                      [--kill-after-step K]
    python -m tests.support.multi_worker_worker OUT.npz --mirrored

- ``--checkpoint-dir D``: checkpoints in D every ``CHECKPOINT_EVERY`` steps and at every epoch end (the chief
  writes them; every worker reads them with ``--resume``).
- ``--resume``: continue from D's newest checkpoint.
- ``--kill-after-step K``: SIGKILL this process right after optimizer step K, as a crash would.

OUT.npz holds the trained weights (``arr_0`` …), the history, the training summary's checkpoint report, the steps
of the checkpoints this process wrote (``written``), and for a worker the rows it was given of every global batch
of the first epoch (``own_rows_K``: what ``strategy.experimental_distribute_dataset``, which Keras' ``fit`` applies
to ``train_bilm``'s dataset, hands this worker) beside the global batches themselves (``global_rows_K``).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import signal

import numpy as np
import tensorflow as tf

from elmo_keras._quiet import keras  # the backend's Python modules only: its runtime is not started yet
from elmo_keras.data.polysemy import polysemy_sentences
from elmo_keras.models.bilm import checkpoints
from elmo_keras.models.bilm.distribution import configure_cpu_devices
from elmo_keras.models.bilm.presets import get_size
from elmo_keras.models.bilm.training import train_bilm
from elmo_keras.models.bilm.training_data import prepare_training_data

SENTENCES = 40
GLOBAL_BATCH = 8  # 5 steps per epoch, 4 rows per replica
EPOCHS = 2
CHECKPOINT_EVERY = 2  # with the epoch ends: steps 2, 4, 5, 6, 8, 10
SEED = 5
SIZE = get_size("tiny").replace(batch_size=GLOBAL_BATCH, epochs=EPOCHS)


def corpus() -> list[list[str]]:
    """The first ``SENTENCES`` sentences of the polysemy training split (10 to 16 tokens, 552 in all: the halves of
    a global batch hold different numbers of real tokens)."""
    return polysemy_sentences("train")[:SENTENCES]


class KillAfterStep(keras.callbacks.Callback):
    """SIGKILL this process right after optimizer step ``step``."""

    def __init__(self, step: int):
        super().__init__()
        self.step, self.done = int(step), 0

    def on_train_batch_end(self, batch, logs=None):
        self.done += 1
        if self.done == self.step:
            os.kill(os.getpid(), signal.SIGKILL)


def record_writes() -> list[int]:
    """The steps of the checkpoints this process writes from now on (``checkpoints.write_checkpoint`` wrapped)."""
    written, write = [], checkpoints.write_checkpoint

    def recorded(directory, state, *args, **kwargs):
        written.append(state.step)
        return write(directory, state, *args, **kwargs)

    checkpoints.write_checkpoint = recorded
    return written


def rows_of_first_epoch(strategy) -> dict:
    """The first epoch's global batches of ``train_bilm``'s pipeline, and this worker's part of each."""
    data, _, _ = prepare_training_data(corpus(), SIZE, SEED)
    own = [strategy.experimental_local_results(inputs)[0].numpy()
           for inputs, _ in strategy.experimental_distribute_dataset(data.batches(1))]
    whole = [inputs.numpy() for inputs, _ in data.batches(1)]
    return {**{f"own_rows_{k}": rows for k, rows in enumerate(own)},
            **{f"global_rows_{k}": rows for k, rows in enumerate(whole)}}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--mirrored", action="store_true")
    parser.add_argument("--checkpoint-dir", type=pathlib.Path)
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--kill-after-step", type=int)
    args = parser.parse_args(argv)

    strategy = None
    if args.mirrored:
        configure_cpu_devices(2)  # first: before TensorFlow's runtime starts
        strategy = "mirrored"
    elif os.environ.get("TF_CONFIG"):
        strategy = tf.distribute.MultiWorkerMirroredStrategy()  # first: it starts this worker's runtime
    written = record_writes()
    callbacks = [KillAfterStep(args.kill_after_step)] if args.kill_after_step is not None else []
    model = train_bilm(corpus(), size=SIZE, seed=SEED, strategy=strategy, callbacks=callbacks,
                       checkpoint_dir=args.checkpoint_dir, resume=args.resume,
                       checkpoint_every=CHECKPOINT_EVERY if args.checkpoint_dir is not None else None)
    summary = model.training_summary
    rows = rows_of_first_epoch(strategy) if strategy is not None and not args.mirrored else {}
    np.savez(args.out, *[np.asarray(w) for w in model.get_weights()], history=json.dumps(summary["history"]),
             checkpoints=json.dumps(summary.get("checkpoints", {})), written=np.array(written, np.int64), **rows)


if __name__ == "__main__":
    main()
