"""``training_precision="auto"``'s TensorFlow side (``models.bilm.precision`` decides): whether bfloat16 can pay off on
this CPU, and the timing of a training computation in each precision; whether inference's ``precision="auto"`` may
choose bfloat16 here (``embedding.precision``), and the fused elementwise steps its loop runs.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable

import numpy as np

from elmo_keras._quiet import keras


def has_native_bfloat16(cpuinfo_path: str = "/proc/cpuinfo") -> bool:
    """True on TensorFlow when the CPU does bfloat16 arithmetic natively (AVX512-BF16 or AMX-BF16 flags).

    There oneDNN's bfloat16 matmuls use those instructions; elsewhere bfloat16 is emulated and slower. The flag
    only rules bfloat16 out: whether a whole training step is faster with it is measured
    (``models.bilm.precision``), since casts and small matmuls can make it slower even with the instructions.

    Args:
        cpuinfo_path: str, the file listing the CPU flags. Defaults to ``"/proc/cpuinfo"`` (False if unreadable).
    """
    if keras.backend.backend() != "tensorflow":
        return False
    try:
        with open(cpuinfo_path, encoding="utf-8", errors="replace") as cpuinfo:
            flags = cpuinfo.read()
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


def has_native_bfloat16_inference() -> bool:
    """True where TensorFlow runs inference on the CPU (no GPU visible) and the CPU has native bfloat16
    (``has_native_bfloat16``): where ``ElmoEmbedder(precision="auto")`` may choose bfloat16 matmuls. A GPU is not
    counted: the bfloat16 path is measured on CPUs only (``benchmarks/bf16_inference.py``)."""
    if not has_native_bfloat16():
        return False
    import tensorflow as tf  # here: has_native_bfloat16 is True on the TensorFlow backend only

    return not tf.config.list_logical_devices("GPU")


@functools.cache
def fused_elementwise(fn: Callable) -> Callable:
    """``fn`` (elementwise ops only) compiled by XLA into fused loops on TensorFlow, else ``fn`` itself.

    For the elementwise work between the bfloat16 matmuls of the inference loop (``recurrence.cell_math.lstm_step``):
    run op by op, each op and each float32/bfloat16 cast makes a pass over memory, which costs as much per step as
    bfloat16 saves in the matmuls; fused, it is one pass. The matmuls stay outside, with oneDNN (XLA's CPU dots do
    not use bfloat16 instructions). On JAX a compiled loop is fused whole already; PyTorch runs ops one by one.
    Compiled once per input shape (a few milliseconds: elementwise only); one compiled function per ``fn``.
    """
    if keras.backend.backend() != "tensorflow":
        return fn
    import tensorflow as tf  # here: only the backend in use is imported (others may be absent)

    return tf.function(fn, jit_compile=True, autograph=False)


def time_training_steps(build: Callable, precisions: Iterable[str], ids: np.ndarray, targets: np.ndarray,
                        rounds: int) -> dict[str, float]:
    """The fastest of ``rounds`` timings of one training computation (forward, loss, gradients) per precision.

    Each model is built, traced and warmed up in turn (in the order of ``precisions``), then they are timed in
    alternation. TensorFlow only (``models.bilm.precision`` measures only where ``has_native_bfloat16``).

    Args:
        build: ``fn(precision) -> keras.Model``, built, with a ``compute_loss(y=, y_pred=, training=)``.
        precisions: the Keras dtype policies to time, e.g. ``("float32", "mixed_bfloat16")``.
        ids: int32 NumPy inputs; targets: int32 NumPy targets.
        rounds: int, timings of each precision.

    Returns:
        ``{precision: seconds}``.
    """
    import tensorflow as tf  # here: resolve_training_precision reaches this on the TensorFlow backend only

    targets = tf.constant(targets)
    inputs = tf.constant(ids)
    steps = {}
    for precision in precisions:
        model = build(precision)

        def step(x, y, model=model):
            with tf.GradientTape() as tape:
                loss = model.compute_loss(y=y, y_pred=model(x, training=True), training=True)
            gradients = tape.gradient(loss, model.trainable_variables)
            return [g.values if isinstance(g, tf.IndexedSlices) else g for g in gradients]  # the embedding's: sparse

        steps[precision] = tf.function(step)
        steps[precision](inputs, targets)  # trace and warm up
    best = {precision: float("inf") for precision in steps}
    for _ in range(rounds):
        for precision, step in steps.items():
            started = time.perf_counter()
            for gradient in step(inputs, targets):
                gradient.numpy()
            best[precision] = min(best[precision], time.perf_counter() - started)
    return best
