"""Training step time with a sampled softmax at a 100,000- and a 793,471-word vocabulary: dense Adam (``"adam"``,
``train_bilm``'s default) against the row-sparse ``"lazy_adam"`` and ``"adagrad"`` (``BiLMConfig.optimizer``), same
batch, same run.

    python benchmarks/sparse_updates.py [--vocabs 100000 793471] [--negatives 1024] [--batch 32] [--steps 20]
                                        [--repeats 5] [--optimizers adam lazy_adam adagrad]

The model: word embedding 256, 2 layers of 256 LSTM cells per direction (no projection), no dropout, so the softmax
shared by both directions is 256 × V; at 793,471 words the embedding and the softmax hold 406M weights (1.6 GB in
float32). Adam adds two moments and the step a gradient of each (Adagrad one accumulator): each case runs in a
process of its own (the memory of one case is not all given back in-process: three cases in one process reached
19 GB at 793k words, one alone 11–12 GB), so the largest fits in 24 GB. A case is built and compiled as
``train_bilm`` compiles it (``compile_for_training`` with its ``optimizer`` and ``row_sparse_variables()``); timed:
one ``train_on_batch`` of a fixed batch of Zipf-distributed word ids (``--batch`` sentences × ``--steps`` tokens +
``<S>``/``</S>``), the fastest of ``--repeats`` calls after two untimed ones (``timing.fastest_seconds``). The ratio is
dense Adam's time over the case's, at the same vocabulary; the last column is the case's peak resident memory.

What the row-sparse optimizers save is the update of the rows no id of the step reaches (``models.sparse_optimizers``):
on TensorFlow and PyTorch they gather and write back the touched rows only; on JAX the update is computed for every
row and masked (static shapes under ``jax.jit``), so there expect no saving. The gradient of the softmax kernel is
still dense on every backend (and the embedding's on JAX and PyTorch).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

from sampled_softmax import zipf_batch  # noqa: E402
from timing import cpu_name, fastest_seconds  # noqa: E402

from elmo_keras._quiet import keras  # noqa: E402
from elmo_keras.models import BiLMConfig, build_bilm_lm  # noqa: E402
from elmo_keras.models.bilm.presets import OPTIMIZERS  # noqa: E402
from elmo_keras.models.fitting import compile_for_training  # noqa: E402

CONFIG = BiLMConfig(token_input="word", embedding_dim=256, units=256, num_layers=2, dropout=0.0)
BILM_TF_VOCAB = 793_471
LEARNING_RATES = {"adam": 1e-3, "lazy_adam": 1e-3, "adagrad": 0.2}  # bilm-tf's Adagrad rate; no effect on time


def step_seconds(optimizer: str, vocab_size: int, negatives: int, ids, repeats: int) -> float:
    """Fastest seconds of one ``train_on_batch`` of ``ids`` with ``optimizer``, compiled as ``train_bilm`` compiles."""
    keras.utils.set_random_seed(0)
    model = build_bilm_lm(CONFIG.replace(n_negative_samples=negatives, optimizer=optimizer), vocab_size)
    model.build((None, None))
    compile_for_training(model, LEARNING_RATES[optimizer], optimizer=optimizer,
                         row_sparse=model.row_sparse_variables())
    return fastest_seconds(lambda: model.train_on_batch(ids, ids), repeats)


def measured_case(optimizer: str, vocab_size: int, negatives: int, batch: int, steps: int,
                  repeats: int) -> tuple[float, float]:
    """``(seconds per step, peak resident GB)`` of one case, run in a fresh process (``main``'s pool)."""
    seconds = step_seconds(optimizer, vocab_size, negatives, zipf_batch(vocab_size, batch, steps), repeats)
    return seconds, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB on Linux


def in_own_process(fn, *args):
    """``fn(*args)`` in a new process (spawned: no engine state inherited), which exits with the case's memory."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(fn, args)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vocabs", type=int, nargs="+", default=[100_000, BILM_TF_VOCAB])
    parser.add_argument("--negatives", type=int, default=1024)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--optimizers", nargs="+", choices=OPTIMIZERS, default=list(OPTIMIZERS))
    args = parser.parse_args()
    if args.optimizers[0] != "adam":
        parser.error("--optimizers must start with adam, the reference of the ratios")
    print(f"{cpu_name()}, Keras {keras.__version__} on {keras.backend.backend()}")
    print(f"embedding {CONFIG.embedding_dim}, {CONFIG.num_layers} layers of {CONFIG.units} cells, softmax "
          f"{CONFIG.token_dim} x vocabulary; {args.negatives:,} sampled negatives; batch {args.batch} x {args.steps} "
          f"tokens")
    for vocab_size in args.vocabs:
        weights = vocab_size * (CONFIG.embedding_dim + CONFIG.token_dim + 1)
        print(f"vocabulary {vocab_size:,} ({weights / 1e6:,.0f}M embedding + softmax weights)", flush=True)
        reference = None
        for optimizer in args.optimizers:
            seconds, peak = in_own_process(measured_case, optimizer, vocab_size, args.negatives, args.batch,
                                           args.steps, args.repeats)
            reference = reference or seconds
            print(f"  {optimizer:10s} {seconds * 1e3:9.1f} ms/step {reference / seconds:6.2f}x dense Adam  "
                  f"(peak memory {peak:.1f} GB)", flush=True)


if __name__ == "__main__":
    main()
