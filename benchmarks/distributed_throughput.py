"""Training tokens/s of the toy ``BiLanguageModel`` on one device and data-parallel over logical CPU devices.

    python benchmarks/distributed_throughput.py [--devices 2] [--steps 20] [--repeats 3]

Both runs train the same model (the toy preset, dropout 0) with ``train_bilm``'s optimizer on the same global
batches (32 sentences of 12 words + boundaries) in the same process: once on one device, once under
``distribution_scope("mirrored")`` over ``--devices`` logical CPU devices (``configure_cpu_devices``). Each figure is
the fastest of ``--repeats`` timed ``fit`` calls of ``--steps`` steps (``timing.fastest_seconds``); the ratio is
mirrored / one device. Logical CPU devices share the same cores, so this shows the mechanics and the overhead of
splitting and all-reducing, not a speed-up (expect a ratio ≤ 1 on a 2-core machine); on a multi-GPU host the same
code runs one replica per GPU.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402  (MirroredStrategy: the benchmark measures the TensorFlow backend)
from timing import cpu_name, fastest_seconds  # noqa: E402

from elmo_keras._quiet import keras  # noqa: E402
from elmo_keras.models.bilm.distribution import configure_cpu_devices, distribution_scope  # noqa: E402
from elmo_keras.models.bilm.language_model import build_bilm_lm  # noqa: E402
from elmo_keras.models.bilm.presets import get_preset  # noqa: E402
from elmo_keras.models.fitting import compile_for_training  # noqa: E402

VOCAB, BATCH, WORDS = 500, 32, 12



def global_batches(steps: int) -> tf.data.Dataset:
    rng = np.random.default_rng(0)
    ids = np.zeros((steps * BATCH, WORDS + 2), "int32")
    ids[:, 0], ids[:, -1] = 2, 3
    ids[:, 1:-1] = rng.integers(4, VOCAB, size=(steps * BATCH, WORDS))
    return tf.data.Dataset.from_tensor_slices((ids, ids)).batch(BATCH)


def seconds_per_fit(strategy, steps: int, repeats: int) -> float:
    with distribution_scope(strategy):
        keras.utils.set_random_seed(0)
        config = get_preset("toy").replace(dropout=0.0)
        model = build_bilm_lm(config, VOCAB)
        model.build((None, None))
        compile_for_training(model, config.learning_rate)  # as train_bilm compiles it
        data = global_batches(steps)
        return fastest_seconds(lambda: model.fit(data, epochs=1, verbose=0), repeats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--devices", type=int, default=2)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    configure_cpu_devices(args.devices)
    tokens = args.steps * BATCH * (WORDS + 1) * 2  # real targets per fit, both directions
    one = tokens / seconds_per_fit(None, args.steps, args.repeats)
    mirrored = tokens / seconds_per_fit("mirrored", args.steps, args.repeats)
    print(f"CPU: {cpu_name()}; TensorFlow {tf.__version__}, Keras {keras.__version__}")
    print(f"toy biLM training, global batch {BATCH} × {WORDS + 2} tokens, {args.steps} steps per fit")
    print(f"  one device                          {one:10.0f} tokens/s")
    print(f"  mirrored, {args.devices} logical CPU devices      {mirrored:10.0f} tokens/s")
    print(f"  ratio mirrored / one device         {mirrored / one:10.2f}")


if __name__ == "__main__":
    main()
