"""Whether ``execution="xla"`` pays (docs/speed.md, "Which inference path runs when"): per model size, on the
graph path and the XLA path, the time of the token encoder (character CNN, highway, projection) alone and of the
whole biLM, hence each part's speed in multiply-adds per second and XLA's speed-up on it once compiled, and one XLA
compile's seconds, for batches of ``--batch`` sentences of ``--steps`` steps, interleaved rounds in one run (the
fastest call counts; the LSTM stacks' time is the whole biLM's less the encoder's).

    python benchmarks/inference_paths.py [--sizes elmo-small,original] [--steps 24,40] [--repeats 3] [--batch 64]

Random models of ELMo's published sizes (``allennlp_reference.SIZES``). A compile is the first XLA call of a shape
less a compiled call of it (the graph's first call is made before, so TensorFlow's start-up is not counted).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import numpy as np  # noqa: E402
from allennlp_reference import random_model_files  # noqa: E402
from timing import cpu_name  # noqa: E402

from elmo_keras._backend import compile_for_inference  # noqa: E402
from elmo_keras.embedding.embedder import ElmoEmbedder  # noqa: E402
from elmo_keras.embedding.inference import bilm_activations  # noqa: E402
from elmo_keras.embedding.precision import macs_per_token_parts  # noqa: E402
from elmo_keras.text.batching import char_ids_with_boundaries  # noqa: E402

BATCH = 64


def seconds(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def measure(size: str, steps: list[int], repeats: int, tmp: pathlib.Path, batch: int = BATCH) -> None:
    files = random_model_files(tmp, size)
    bilm = ElmoEmbedder(*files, execution="graph").bilm
    rng = np.random.default_rng(0)
    inputs = {t: char_ids_with_boundaries([["".join(rng.choice(list("abcdefgh"), size=rng.integers(2, 9)))
                                            for _ in range(t - 2)] for _ in range(batch)], t) for t in steps}
    shape = inputs[steps[0]].shape
    encoders = {mode: compile_for_inference(lambda x: bilm.token_encoder(x), mode, shape, bilm.variables)
                for mode in ("graph", "xla")}
    runs = {("whole", mode): (lambda x, mode=mode: bilm_activations(bilm, x, mode)) for mode in ("graph", "xla")}
    runs.update({("encoder", mode): (lambda x, f=f: np.asarray(f(x))) for mode, f in encoders.items()})
    first = {}
    for t in steps:  # first calls: the graph's traces (once), then one XLA compile per shape
        for key in (("whole", "graph"), ("encoder", "graph"), ("whole", "xla"), ("encoder", "xla")):
            first[key + (t,)] = seconds(lambda: runs[key](inputs[t]))
    best: dict[tuple, float] = {}
    for _ in range(repeats):
        for t in steps:
            for key, run in runs.items():
                best[key + (t,)] = min(best.get(key + (t,), float("inf")), seconds(lambda: run(inputs[t])))
    encoder_macs, recurrence_macs = macs_per_token_parts(bilm)
    print(f"{size}: multiply-adds per token: encoder {encoder_macs / 1e6:.1f}M, "
          f"LSTM stacks {recurrence_macs / 1e6:.1f}M")
    for t in steps:
        tokens = batch * t
        encoder = {mode: best["encoder", mode, t] for mode in ("graph", "xla")}
        whole = {mode: best["whole", mode, t] for mode in ("graph", "xla")}
        lstm = {mode: max(whole[mode] - encoder[mode], 1e-9) for mode in ("graph", "xla")}
        print(f"  b{batch} × {t} steps: graph {whole['graph'] * 1e3:5.0f} ms, xla {whole['xla'] * 1e3:5.0f} ms "
              f"({whole['graph'] / whole['xla']:4.2f}x), compile {first['whole', 'xla', t] - whole['xla']:4.2f} s | "
              f"encoder: graph {tokens * encoder_macs / encoder['graph'] / 1e9:5.1f} GMAC/s, xla "
              f"{encoder['graph'] / encoder['xla']:4.2f}x | LSTM stacks: graph "
              f"{tokens * recurrence_macs / lstm['graph'] / 1e9:5.1f} GMAC/s, xla {lstm['graph'] / lstm['xla']:4.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="elmo-small,original")
    parser.add_argument("--steps", default="24,40")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batch", type=int, default=BATCH, help="sentences per batch (default 64, the embedder's)")
    args = parser.parse_args()
    print(cpu_name())
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes.split(","):
            measure(size, [int(t) for t in args.steps.split(",")], args.repeats, pathlib.Path(tmp), args.batch)


if __name__ == "__main__":
    main()
