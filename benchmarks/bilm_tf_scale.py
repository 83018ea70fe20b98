"""Training tokens/s of ONE biLM at bilm-tf's published settings, on this machine, and the arithmetic that projects
training on the 1B Word Benchmark from it.

    python benchmarks/bilm_tf_scale.py [--batch 16] [--steps 20] [--vocab 20000] [--softmax-vocabs 100000 400000]

bilm-tf's released model (its ``options.json``): character CNN with filters
[[1,32],[2,32],[3,64],[4,128],[5,256],[6,512],[7,1024]] over 16-dim character embeddings, 2 highway layers, a
projection to 512; 2 LSTM layers of 4096 cells projected to 512 per direction, cell_clip 3, proj_clip 3, skip
connections; a softmax over 793,471 words trained with 8192 sampled negatives; batch 128 × 20 unrolled steps per
GPU; 10 epochs over ~800M training tokens.

What is measured: a ``BiLanguageModel`` with exactly that architecture and ``n_negative_samples=8192``, one
training step (``train_on_batch``, compiled as ``train_bilm`` compiles it, ``DenseGradientAdam``) on a batch of
``--batch`` × ``--steps`` random words, the fastest of ``--repeats`` steps after two untimed ones. Two changes,
for memory (23 GB shared here): the batch is smaller than 128, and the model's vocabulary is ``--vocab``
instead of 793,471 (a 793k × 512 softmax is 1.6 GB, and with its gradient and Adam's two moments 6.5 GB before
temporaries). With character input the vocabulary enters the step only through the softmax: the sampled logits do
not depend on it, but the dense gradient of the softmax and its dense Adam update (``DenseGradientAdam`` updates
every row every step; bilm-tf updated only the sampled rows) are linear in it. That part is measured on its own:
the sampled-softmax loss, its gradient and the Adam update of a 512 × V softmax alone, at two vocabulary sizes
(``--softmax-vocabs``); its cost per word extends the model's step to 793,471 words:
``t(793,471) = t_model(V) + (793,471 − V) · (t_softmax(V2) − t_softmax(V1)) / (V2 − V1)``.

Projection: ``days = tokens × epochs / (tokens/s per device × devices) / 86,400``, with 800M tokens and 10 epochs
as bilm-tf. It assumes perfect scaling over devices (data parallel, no communication cost) and that a device
sustains the measured rate. CPU figures are not GPU figures: they say what this code does here, and give the
arithmetic; a GPU's rate must be measured on the GPU.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import numpy as np  # noqa: E402
from timing import cpu_name, fastest_seconds  # noqa: E402

from elmo_keras._backend import loss_and_gradients  # noqa: E402
from elmo_keras._quiet import keras  # noqa: E402
from elmo_keras.models import BiLMConfig, build_bilm_lm  # noqa: E402
from elmo_keras.models.bilm.sampled_softmax import sample_candidates, sampled_softmax_losses  # noqa: E402
from elmo_keras.models.fitting import compile_for_training  # noqa: E402
from elmo_keras.models.optimizer import CLIP_NORM, DenseGradientAdam  # noqa: E402
from elmo_keras.text.char_ids import MAX_CHARS_PER_TOKEN, token_to_char_ids  # noqa: E402

BILM_TF = BiLMConfig(
    token_input="char", embedding_dim=16,
    char_filters=((1, 32), (2, 32), (3, 64), (4, 128), (5, 256), (6, 512), (7, 1024)), n_highway=2,
    units=4096, projection_dim=512, num_layers=2, cell_clip=3.0, proj_clip=3.0, use_skip_connections=True,
    dropout=0.1, n_negative_samples=8192,
)
BILM_TF_VOCAB = 793_471
BILM_TF_BATCH = 128  # sentences × 20 steps per GPU
TRAINING_TOKENS = 800_000_000  # the 1B Word Benchmark's training split, as bilm-tf counted it (~800M)
EPOCHS = 10


def random_char_batch(vocab_size: int, batch: int, steps: int, seed: int = 0):
    """``(char_ids (batch, steps, 50), word_ids (batch, steps))``: random words of 3–9 letters."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    words = ["".join(rng.choice(letters, size=rng.integers(3, 10))) for _ in range(batch * steps)]
    char_ids = np.array([token_to_char_ids(word) for word in words], "int32").reshape(batch, steps, MAX_CHARS_PER_TOKEN)
    word_ids = rng.integers(4, vocab_size, size=(batch, steps)).astype("int32")
    return char_ids, word_ids


def step_seconds(vocab_size: int, batch: int, steps: int, repeats: int) -> tuple[float, int]:
    """Fastest seconds of one training step at ``vocab_size``, and the model's parameter count."""
    keras.utils.set_random_seed(0)
    model = build_bilm_lm(BILM_TF, vocab_size)
    model.build((None, None, MAX_CHARS_PER_TOKEN))
    compile_for_training(model, 1e-3)  # as train_bilm compiles it
    char_ids, word_ids = random_char_batch(vocab_size, batch, steps)
    started = time.perf_counter()
    seconds = fastest_seconds(lambda: model.train_on_batch(char_ids, word_ids), repeats)
    print(f"  vocabulary {vocab_size:>9,}: {model.count_params():>12,} parameters, {seconds:7.2f} s/step "
          f"({time.perf_counter() - started:.0f} s with tracing and warm-up)", flush=True)
    return seconds, model.count_params()


def softmax_step_seconds(vocab_size: int, rows: int, repeats: int) -> float:
    """Fastest seconds of the sampled loss, its gradient and a ``DenseGradientAdam`` update of a 512 × ``vocab_size``
    softmax alone (``rows`` hidden states, 8192 negatives): the part of a training step that grows with the
    vocabulary (compiled as a TensorFlow graph)."""
    import tensorflow as tf  # here: the benchmark measures the TensorFlow backend (the model's step is TF too)

    dim = BILM_TF.projection_dim
    kernel = keras.Variable(keras.initializers.GlorotUniform(seed=0)((dim, vocab_size)), name="kernel")
    bias = keras.Variable(np.zeros(vocab_size, "float32"), name="bias")
    optimizer = DenseGradientAdam(1e-3, clipnorm=CLIP_NORM)
    optimizer.build([kernel, bias])
    seed = keras.random.SeedGenerator(0)
    rng = np.random.default_rng(0)
    hidden = tf.constant(rng.normal(size=(rows, dim)).astype("float32"))
    targets = tf.constant(rng.integers(4, vocab_size, size=rows).astype("int32"))

    @tf.function
    def step():
        ids, counts = sample_candidates(BILM_TF.n_negative_samples, vocab_size, seed)
        loss, gradients = loss_and_gradients(
            lambda: tf.reduce_mean(sampled_softmax_losses(hidden, targets, kernel, bias, ids, counts)), [kernel, bias])
        optimizer.apply(gradients, [kernel, bias])
        return loss

    seconds = fastest_seconds(lambda: step().numpy(), repeats)
    print(f"  softmax alone, vocabulary {vocab_size:>9,}: {seconds:7.3f} s/step", flush=True)
    return seconds


def expected_distinct(num_sampled: int, num_candidates: int) -> float:
    """Expected distinct ids among ``num_sampled`` log-uniform draws with replacement: ``Σ_k 1 − (1 − q_k)^S``."""
    ranks = np.arange(num_candidates, dtype="float64")
    q = np.log((ranks + 2) / (ranks + 1)) / np.log(num_candidates + 1)
    return float(np.sum(-np.expm1(num_sampled * np.log1p(-q))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--vocab", type=int, default=20_000)
    parser.add_argument("--softmax-vocabs", type=int, nargs=2, default=(100_000, 400_000))
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    print(f"{cpu_name()}, Keras {keras.__version__} on {keras.backend.backend()}")
    print(f"bilm-tf architecture, 8192 sampled negatives; batch {args.batch} x {args.steps} tokens "
          f"(bilm-tf: {BILM_TF_BATCH} x 20 per GPU)")
    tokens = args.batch * args.steps
    rows = 2 * tokens  # both directions' positions
    v1, v2 = args.softmax_vocabs
    s1, s2 = (softmax_step_seconds(v, rows, args.repeats + 1) for v in (v1, v2))
    per_word = (s2 - s1) / (v2 - v1)
    model_seconds, parameters = step_seconds(args.vocab, args.batch, args.steps, args.repeats)
    t_full = model_seconds + (BILM_TF_VOCAB - args.vocab) * per_word
    params_full = parameters + (BILM_TF_VOCAB - args.vocab) * (BILM_TF.projection_dim + 1)
    print(f"\nthe softmax's dense gradient + Adam update: {per_word * 1e6:.2f} s per million words and step "
          f"→ {t_full:.2f} s/step at {BILM_TF_VOCAB:,} words ({params_full:,} parameters)")
    rates = {args.vocab: tokens / model_seconds, BILM_TF_VOCAB: tokens / t_full}
    for vocab, rate in rates.items():
        note = " (extrapolated)" if vocab == BILM_TF_VOCAB else " (measured)"
        print(f"  vocabulary {vocab:>9,}: {rate:8.1f} tokens/s on this CPU{note}")
    rate = rates[BILM_TF_VOCAB]
    print(f"\nprojection: {TRAINING_TOKENS:,} tokens x {EPOCHS} epochs / ({rate:.1f} tokens/s x devices)")
    for devices in (1, 3, 8):
        days = TRAINING_TOKENS * EPOCHS / (rate * devices) / 86_400
        print(f"  {devices} device(s) at this rate: {days:,.0f} days")
    print("  (a CPU rate, perfect scaling assumed: the arithmetic, not a GPU prediction; measure a GPU's rate there)")
    distinct = expected_distinct(BILM_TF.n_negative_samples, BILM_TF_VOCAB - 1)
    print(f"\n8192 draws with replacement over {BILM_TF_VOCAB:,} words hold {distinct:,.0f} distinct ids on average "
          "(TensorFlow's unique sampler: 8192)")


if __name__ == "__main__":
    main()
