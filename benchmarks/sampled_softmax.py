"""Training tokens/s of a small word-level biLM at a 100k-word vocabulary: full softmax against sampled softmax
(``BiLMConfig.n_negative_samples``), same batches, same run.

    python benchmarks/sampled_softmax.py [--vocab 100000] [--batch 32] [--steps 20] [--repeats 5]

The model: word embedding 64, 2 layers of 128 LSTM cells projected to 64 per direction, no dropout; the
softmax shared by both directions (100,000 × 64). Each case is compiled as ``train_bilm`` compiles it (a
TensorFlow graph, ``DenseGradientAdam``), and one training step on a fixed batch of Zipf-distributed word ids
(``--batch`` sentences × ``--steps`` tokens + ``<S>``/``</S>``) is timed: the fastest of ``--repeats`` calls
after two untimed ones (``timing.fastest_seconds``). tokens/s counts the tokens of the batch (both directions
train on them). Every case pays the same dense Adam update of the whole 100k-row embedding and softmax: sampling
saves the `(tokens, vocab)` logits and their gradient, not that.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import numpy as np  # noqa: E402
from timing import cpu_name, fastest_seconds  # noqa: E402

from elmo_keras._quiet import keras  # noqa: E402
from elmo_keras.models import BiLMConfig, build_bilm_lm  # noqa: E402
from elmo_keras.models.fitting import compile_for_training  # noqa: E402
from elmo_keras.text.vocabulary import BOS_ID, EOS_ID  # noqa: E402

CONFIG = BiLMConfig(token_input="word", embedding_dim=64, units=128, projection_dim=64, num_layers=2, dropout=0.0)
NEGATIVES = (None, 1024, 8192)  # None: the full softmax, the reference



def zipf_batch(vocab_size: int, batch: int, steps: int, seed: int = 0) -> np.ndarray:
    """int32 `(batch, steps + 2)` word ids: ``<S>``, ``steps`` Zipf-distributed words (rank r with weight
    ``1 / (r + 1)``, as natural text roughly is), ``</S>``."""
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, vocab_size - 3)
    words = rng.choice(np.arange(4, vocab_size), size=(batch, steps), p=weights / weights.sum())
    return np.concatenate([np.full((batch, 1), BOS_ID), words, np.full((batch, 1), EOS_ID)], axis=1).astype("int32")


def training_step_seconds(config: BiLMConfig, vocab_size: int, ids: np.ndarray, repeats: int) -> float:
    """Fastest seconds of one ``train_on_batch`` of ``ids`` for a model of ``config`` (compiled as ``train_bilm``)."""
    keras.utils.set_random_seed(0)
    model = build_bilm_lm(config, vocab_size)
    model.build((None, None))
    compile_for_training(model, 1e-3)  # as train_bilm compiles it
    return fastest_seconds(lambda: model.train_on_batch(ids, ids), repeats)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vocab", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"{cpu_name()}, Keras {keras.__version__} on {keras.backend.backend()}")
    print(f"vocabulary {args.vocab:,}; embedding {CONFIG.embedding_dim}, {CONFIG.num_layers} layers of "
          f"{CONFIG.units} cells projected to {CONFIG.projection_dim}; batch {args.batch} x {args.steps} tokens")
    ids = zipf_batch(args.vocab, args.batch, args.steps)
    tokens = args.batch * args.steps
    rates = {}
    for negatives in NEGATIVES:
        seconds = training_step_seconds(CONFIG.replace(n_negative_samples=negatives), args.vocab, ids, args.repeats)
        rates[negatives] = tokens / seconds
        label = "full softmax" if negatives is None else f"sampled, {negatives} negatives"
        print(f"  {label:28s} {seconds * 1e3:8.1f} ms/step {rates[negatives]:10,.0f} tokens/s "
              f"{rates[negatives] / rates[None]:6.2f}x the full softmax")


if __name__ == "__main__":
    main()
