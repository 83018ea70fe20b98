"""The biLM on each Keras backend (TensorFlow, JAX, PyTorch) against PyTorch's ``nn.LSTM``, in the same run.

    python benchmarks/backend_throughput.py [--backends tensorflow jax torch] [--repeats 10] [--train-toy]

Each backend is measured in its own subprocess (Keras picks its backend once per process) on what a user gets
by default there:
  forward   ``embedding.inference.bilm_activations`` (what ``ElmoEmbedder``, ``layer_embeddings`` and the explorer
            call): one TensorFlow graph for every shape, ``jax.jit`` once per shape, PyTorch eagerly; tokens/s of
            toy b32 (12 tokens) and ELMo-small b32 (20 tokens), and the first call (tracing/compilation);
  training  one ``train_on_batch`` of the toy ``BiLanguageModel`` (batch 32, 14 steps, ``DenseGradientAdam``) as
            ``train_bilm`` compiles it (``_backend.fit_jit_compile``: the TensorFlow graph, JAX's jit, PyTorch eager);
  toy       with ``--train-toy``, the whole ``train_bilm(preset="toy", seed=0)``: seconds and held-out perplexity.
PyTorch's ``nn.LSTM`` (``torch_reference.py``) is measured in a subprocess of the same run. Figures are the
fastest of ``--repeats`` calls (``timing.fastest_seconds``); ratios above 1 mean ours is faster.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
VOCAB = 500
CASES = (("toy b32", 32, 12, 256, None, 128), ("elmo-small b32", 32, 20, 1024, 128, 128))


def measure(repeats: int, train_toy: bool) -> dict:
    """This process's backend: ``{"backend", "forward": {case: tokens/s}, "first_call_s": {case: s},
    "training_step_ms", "toy": {...} or None}``."""
    sys.path.insert(0, os.path.join(HERE, ".."))
    sys.path.insert(0, HERE)
    import numpy as np
    from timing import fastest_seconds

    from elmo_keras._quiet import keras
    from elmo_keras.embedding.inference import bilm_activations
    from elmo_keras.layers import BiLM, WordEmbedding
    from elmo_keras.models import build_bilm_lm, get_preset, train_bilm
    from elmo_keras.models.fitting import compile_for_training

    rng = np.random.default_rng(0)
    forward, first_call = {}, {}
    for name, batch, steps, units, projection, encoder_dim in CASES:
        token_dim = projection or units
        encoder = WordEmbedding(VOCAB, encoder_dim, projection_dim=token_dim if token_dim != encoder_dim else None)
        bilm = BiLM(encoder, units=units, num_layers=2, projection_dim=projection)
        ids = rng.integers(4, VOCAB, size=(batch, steps)).astype("int32")
        bilm(ids[:1, :3])  # built (not timed: every backend builds the same way)
        start = time.perf_counter()
        bilm_activations(bilm, ids)
        first_call[name] = time.perf_counter() - start
        forward[name] = batch * steps / fastest_seconds(lambda: bilm_activations(bilm, ids), repeats)

    ids = rng.integers(4, VOCAB, size=(32, 14)).astype("int32")
    ids[:, 0], ids[:, -1] = 2, 3
    keras.utils.set_random_seed(0)
    model = build_bilm_lm(get_preset("toy"), VOCAB)
    model.build((None, None))
    compile_for_training(model, 1e-3)  # as train_bilm compiles it
    step_ms = fastest_seconds(lambda: model.train_on_batch(ids, ids), repeats) * 1e3

    toy = None
    if train_toy:
        start = time.perf_counter()
        trained = train_bilm(preset="toy", seed=0)
        toy = {"seconds": time.perf_counter() - start, "heldout": trained.training_summary["heldout"]}
    return {"backend": keras.backend.backend(), "forward": forward, "first_call_s": first_call,
            "training_step_ms": step_ms, "toy": toy}


def run_subprocess(arguments: list[str], environment: dict | None = None) -> dict | None:
    done = subprocess.run([sys.executable, *arguments], capture_output=True, text=True,
                          env=dict(os.environ, **(environment or {})))
    if done.returncode != 0:
        print(f"{' '.join(arguments)} failed:\n{done.stderr[-2000:]}")
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backends", nargs="+", default=["tensorflow", "jax", "torch"])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--train-toy", action="store_true", help="also time train_bilm(preset='toy') per backend")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)  # the per-backend subprocess
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.repeats, args.train_toy)))
        return
    reference = run_subprocess([os.path.join(HERE, "torch_reference.py"), "--json", "--repeats", str(args.repeats)])
    results = {}
    for backend in args.backends:
        results[backend] = run_subprocess(
            [__file__, "--measure", "--repeats", str(args.repeats)] + (["--train-toy"] if args.train_toy else []),
            {"KERAS_BACKEND": backend})
    print(f"{'backend':12s} {'toy b32 tok/s':>14s} {'elmo-small b32':>15s} {'first call':>11s} {'train step':>11s}"
          f"{'  toy preset' if args.train_toy else ''}")
    for backend, result in results.items():
        if result is None:
            continue
        toy = result["toy"]
        line = (f"{backend:12s} {result['forward']['toy b32']:14,.0f} {result['forward']['elmo-small b32']:15,.0f} "
                f"{result['first_call_s']['toy b32']:10.2f}s {result['training_step_ms']:9.1f}ms")
        if toy:
            line += (f"  {toy['seconds']:.0f} s, held-out ppl {toy['heldout']['forward_perplexity']:.2f} / "
                     f"{toy['heldout']['backward_perplexity']:.2f}")
        print(line)
        if reference is not None:
            print(f"{'':12s} {result['forward']['toy b32'] / reference['forward']['toy b32']:13.2f}x "
                  f"{result['forward']['elmo-small b32'] / reference['forward']['elmo-small b32']:14.2f}x "
                  f"{'':11s} {reference['training_step_ms'] / result['training_step_ms']:10.2f}x   (vs PyTorch)")
    if reference is not None:
        rates = reference["forward"]
        print(f"{'pytorch':12s} {rates['toy b32']:14,.0f} {rates['elmo-small b32']:15,.0f} "
              f"{'':11s} {reference['training_step_ms']:9.1f}ms   (nn.LSTM {reference['version']})")


if __name__ == "__main__":
    main()
