"""Throughput of our BiLM against a plain ``keras.layers.LSTM`` stack of the same sizes, in the same run.

    python benchmarks/bilm_throughput.py [--repeats 20] [--rounds 2]

Cases (tokens/s of one forward pass, both directions, all layers):
  toy b1 / toy b32   word embedding 128 → 256, 2 layers of 256 cells per direction, 12 tokens
  elmo-small b32     input 128, 1024 cells projected to 128, 2 layers per direction, 20 tokens
and one training step of the toy ``BiLanguageModel`` (batch 32, 12 tokens + boundaries, Adam), in ms: float32,
and mixed_bfloat16 where the CPU has native bfloat16 (the toy preset's ``"auto"`` picks it only where it measures
faster, see ``elmo_keras/models/bilm/precision.py``).

Our BiLM runs in three ways: "graph" (tf.function, the symbolic inference loop: what ``ElmoEmbedder``,
``layer_embeddings``, ``embed_file`` and the explorer use), "xla" (the loop unrolled, ``jit_compile=True``, one
compilation per shape) and, for training, the graph mode ``train_bilm`` uses.
The reference is the same computation with ``keras.layers.LSTM`` (one forward and one ``go_backwards``
stack), compiled the same way. Keras' LSTM cannot project its recurrent state, so the elmo-small
reference is LSTM(1024) followed by a Dense(128) per layer: it does more recurrent work than a projected
cell, which flatters our ratio there — compare the absolute figures too. Each figure is the fastest of
``--repeats`` calls (``timing.fastest_seconds``).

Where PyTorch is installed (optional, not a project dependency), ``torch_reference.py`` measures ``nn.LSTM``
on the same cases in a subprocess. ``--rounds`` (default 2) alternates PyTorch and ours, and the summary takes each
side's best over the rounds: on a shared machine whose speed drifts by 20 % and more within minutes, that favours
neither side. Every case also prints our ratio to PyTorch (the biLM's speed targets are stated against PyTorch:
≥ 1.5× at the ELMo-small size, a training step no slower).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402  (the benchmark measures the TensorFlow backend)
from timing import fastest_seconds  # noqa: E402

import elmo_keras  # noqa: E402,F401
from elmo_keras._backend import has_native_bfloat16  # noqa: E402
from elmo_keras._quiet import keras  # noqa: E402
from elmo_keras.layers import BiLM, WordEmbedding  # noqa: E402
from elmo_keras.models import build_bilm_lm, get_preset  # noqa: E402
from elmo_keras.models.bilm.precision import resolve_training_precision  # noqa: E402

VOCAB = 500


def ours(units, projection, input_dim, encoder_dim, unroll):
    projection_dim = projection if projection else None
    token_dim = projection or units
    encoder = WordEmbedding(VOCAB, encoder_dim, projection_dim=token_dim if token_dim != encoder_dim else None)
    bilm = BiLM(encoder, units=units, num_layers=2, projection_dim=projection_dim)
    bilm.forward_lstm.unroll = bilm.backward_lstm.unroll = unroll
    return bilm


def reference(units, projection, encoder_dim):
    token_dim = projection or units
    ids = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(VOCAB, encoder_dim, mask_zero=True)(ids)
    if token_dim != encoder_dim:
        x = keras.layers.Dense(token_dim)(x)
    outputs = []
    for backwards in (False, True):
        h = x
        for _ in range(2):
            h = keras.layers.LSTM(units, return_sequences=True, go_backwards=backwards)(h)
            if projection:
                h = keras.layers.Dense(projection)(h)
        outputs.append(h)
    return keras.Model(ids, outputs)


def torch_reference(repeats):
    """PyTorch's figures (``torch_reference.measure``) from a subprocess, or None without PyTorch."""
    if importlib.util.find_spec("torch") is None:
        print("PyTorch reference: not installed (pip install torch to measure nn.LSTM in the same run)")
        return None
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_reference.py")
    done = subprocess.run([sys.executable, script, "--json", "--repeats", str(repeats)], capture_output=True, text=True)
    if done.returncode != 0:
        print(f"PyTorch reference failed:\n{done.stderr[-2000:]}")
        return None
    results = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"PyTorch {results['version']} ({results['threads']} threads) measured in a subprocess")
    return results


def forward_case(name, batch, steps, units, projection, encoder_dim, repeats, torch_rate=None):
    rng = np.random.default_rng(0)
    ids = tf.constant(rng.integers(4, VOCAB, size=(batch, steps)), tf.int32)
    results = {}
    for label, unroll, jit in (("graph", False, False), ("xla", True, True)):
        bilm = ours(units, projection, encoder_dim, encoder_dim, unroll)
        fn = tf.function(lambda x, bilm=bilm: bilm(x)["activations"], jit_compile=jit)
        results[label] = fastest_seconds(lambda: [a.numpy() for a in fn(ids)], repeats)
    model = reference(units, projection, encoder_dim)
    for label, jit in (("keras LSTM graph", False), ("keras LSTM xla", True)):
        fn = tf.function(lambda x: model(x), jit_compile=jit)
        results[label] = fastest_seconds(lambda: [a.numpy() for a in fn(ids)], repeats)
    tokens = batch * steps
    best_ours = min(results["graph"], results["xla"])
    best_ref = min(results["keras LSTM graph"], results["keras LSTM xla"])
    print(f"\n{name}: batch {batch}, {steps} tokens")
    for label, seconds in results.items():
        print(f"  {label:18s} {tokens / seconds:10,.0f} tokens/s  ({seconds * 1e3:7.2f} ms)")
    if torch_rate is not None:
        print(f"  {'pytorch nn.LSTM':18s} {torch_rate:10,.0f} tokens/s  ({tokens / torch_rate * 1e3:7.2f} ms)")
    print(f"  ratio ours/keras (best of each): {best_ref / best_ours:.2f}x")
    if torch_rate is not None:
        print(f"  ratio ours/pytorch (our best):   {tokens / best_ours / torch_rate:.2f}x")
    return {label: tokens / results[label] for label in ("graph", "xla")}, torch_rate


def training_case(repeats, torch_ms=None):
    rng = np.random.default_rng(0)
    ids = rng.integers(4, VOCAB, size=(32, 14)).astype("int32")
    ids[:, 0], ids[:, -1] = 2, 3
    config = get_preset("toy")
    results = {}
    precisions = ["float32"] + (["mixed_bfloat16"] if has_native_bfloat16() else [])
    for precision in precisions:  # as train_bilm builds it: model and Adam built before the first step
        keras.utils.set_random_seed(0)
        model = build_bilm_lm(config, VOCAB, dtype=precision)
        model.build((None, None))
        model.compile(optimizer=keras.optimizers.Adam(1e-3), jit_compile=False)
        model.optimizer.build(model.trainable_variables)
        results[f"ours (graph, {precision})"] = fastest_seconds(lambda: model.train_on_batch(ids, ids), repeats)

    ref = reference(config.units, None, config.embedding_dim)
    softmax = keras.layers.Dense(VOCAB)
    f, b = ref.outputs
    inputs = ref.inputs[0]
    logits_f, logits_b = softmax(f), softmax(b)
    lm = keras.Model(inputs, [logits_f, logits_b])
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    lm.compile(optimizer=keras.optimizers.Adam(1e-3), loss=[loss, loss], jit_compile=True)
    ref_seconds = fastest_seconds(lambda: lm.train_on_batch(ids, [ids, ids]), repeats)
    print("\ntoy BiLanguageModel training step: batch 32, 14 steps (12 tokens + boundaries), Adam")
    for label, seconds in results.items():
        print(f"  {label:30s} {seconds * 1e3:7.1f} ms   ratio vs keras: {ref_seconds / seconds:.2f}x")
    print(f"  {'keras LSTM (xla, float32)':30s} {ref_seconds * 1e3:7.1f} ms")
    if torch_ms is not None:
        print(f"  {'pytorch nn.LSTM (float32)':30s} {torch_ms:7.1f} ms")
        for label, seconds in results.items():
            print(f"  ratio {label} vs pytorch: {torch_ms / (seconds * 1e3):.2f}x (above 1: ours is faster)")
    return {label.split(", ")[1].rstrip(")"): seconds * 1e3 for label, seconds in results.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=2,
                        help="rounds of (PyTorch, ours); the summary takes each side's best over the rounds")
    args = parser.parse_args()
    print(f"TensorFlow {tf.__version__}, Keras {keras.__version__}, {os.cpu_count()} CPUs")
    torch_results, ours = None, None
    for round_number in range(1, args.rounds + 1):
        print(f"\n=== round {round_number} of {args.rounds}")
        measured = torch_reference(args.repeats)
        torch_results = best_of_torch(torch_results, measured) if measured else torch_results
        this_round = run_ours(args.repeats, measured)
        ours = this_round if ours is None else best_of_ours(ours, this_round)
    toy, small, steps = ours
    torch_ms = torch_results["training_step_ms"] if torch_results else None
    summary(with_reference(toy, torch_results, "toy b32"), with_reference(small, torch_results, "elmo-small b32"),
            steps, torch_ms)


def best_of_torch(best: dict | None, measured: dict) -> dict:
    """PyTorch's figures over rounds: the higher rate per forward case, the shorter training step."""
    if best is None:
        return measured
    return {**best, "forward": {case: max(rate, measured["forward"][case]) for case, rate in best["forward"].items()},
            "training_step_ms": min(best["training_step_ms"], measured["training_step_ms"])}


def best_of_ours(best, measured):
    """Ours over rounds, the same way: ``(toy, small, steps)`` as ``run_ours`` returns them."""
    def rates(a, b):
        return {label: max(rate, b[0][label]) for label, rate in a[0].items()}, a[1]

    return (rates(best[0], measured[0]), rates(best[1], measured[1]),
            {precision: min(ms, measured[2][precision]) for precision, ms in best[2].items()})


def with_reference(case, torch_results, name):
    rates, _ = case
    return rates, (torch_results["forward"][name] if torch_results else None)


def run_ours(repeats, torch_results):
    torch_forward = torch_results["forward"] if torch_results else {}
    forward_case("toy", 1, 12, 256, None, 128, repeats, torch_forward.get("toy b1"))
    toy = forward_case("toy", 32, 12, 256, None, 128, repeats, torch_forward.get("toy b32"))
    small = forward_case("elmo-small", 32, 20, 1024, 128, 128, repeats, torch_forward.get("elmo-small b32"))
    torch_ms = torch_results["training_step_ms"] if torch_results else None
    steps = training_case(repeats, torch_ms)
    return toy, small, steps


def summary(toy, small, steps, torch_ms):
    """The table the performance targets are stated in: ours, PyTorch, ours / PyTorch (above 1: ours is faster)."""
    auto, _ = resolve_training_precision(get_preset("toy"))  # what the toy preset trains in on this machine
    rows = [(f"toy training step, {precision}", f"{ms:.1f} ms", torch_ms, torch_ms / ms if torch_ms else None)
            for precision, ms in steps.items()]
    rows.append((f"  (the toy preset's 'auto' picks {auto} here)", "", None, None))
    for name, (rates, torch_rate) in (("toy b32 forward", toy), ("ELMo-small b32 forward", small)):
        for label, rate in rates.items():
            ratio = rate / torch_rate if torch_rate else None
            rows.append((f"{name}, {label}", f"{rate:,.0f} tok/s", torch_rate, ratio))
    print("\nsummary (PyTorch: ms per step / tokens per second)")
    for work, ours_value, reference, ratio in rows:
        reference_text = ""
        if reference is not None:
            reference_text = f"{reference:.1f} ms" if "step" in work else f"{reference:,.0f} tok/s"
        ratio_text = "" if ratio is None else f"{ratio:.2f}x"
        print(f"  {work:40s} {ours_value:>14s} {reference_text:>14s} {ratio_text:>7s}")


if __name__ == "__main__":
    main()
