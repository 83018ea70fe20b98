"""``ElmoEmbedder(precision="bfloat16")`` against ``precision="float32"``: a corpus embedded both ways, interleaved
rounds in one run, beside the ceiling of this CPU: a large float32 and a large bfloat16 matmul, measured in the same
run.

    python benchmarks/bf16_inference.py [--size original] [--sentences 200] [--rounds 2] [--execution graph]

The model: random weights of ELMo's published sizes (``allennlp_reference.SIZES``, written as the original files and
loaded by ``ElmoEmbedder``); the corpus: ``--sentences`` sentences of 5–40 tokens (``elmo_vs_allennlp.write_corpus``),
embedded by ``embed_sentences`` in batches of 64 (sorted windows, as ``embed_file`` does), warm (the graph traced
before the rounds). Per precision: tokens/s (real tokens, boundaries left out) and achieved GFLOP/s (2 ×
``macs_per_token`` × the padded tokens the batches run, boundaries included); the fastest round counts. Then the
agreement of the two: the smallest per-token cosine and the largest absolute difference, over every layer. Matmul
ceiling: `(N, N) · (N, N)` with ``--matmul-size`` N in each dtype, the fastest of five. Needs PyTorch only through
``allennlp_reference``'s imports.
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
import tensorflow as tf  # noqa: E402  (the benchmark measures the TensorFlow backend)
from allennlp_reference import SIZES, random_model_files  # noqa: E402
from elmo_vs_allennlp import corpus_sentences  # noqa: E402
from timing import cpu_name, fastest_seconds  # noqa: E402

from elmo_keras._backend import has_native_bfloat16  # noqa: E402
from elmo_keras.embedding.embedder import ElmoEmbedder  # noqa: E402
from elmo_keras.embedding.jobs import window_batches  # noqa: E402
from elmo_keras.embedding.precision import macs_per_token  # noqa: E402
from elmo_keras.embedding.shards import SORT_WINDOW_BATCHES  # noqa: E402

BATCH = 64
PRECISIONS = ("float32", "bfloat16")


def matmul_gflops(size: int, dtype: str) -> float:
    """GFLOP/s of one `(size, size) · (size, size)` matmul in ``dtype`` (TensorFlow, oneDNN on x86), fastest of 5."""
    rng = np.random.default_rng(0)
    a, b = (tf.cast(tf.constant(rng.normal(size=(size, size)).astype("float32")), dtype) for _ in range(2))
    product = tf.function(lambda: tf.matmul(a, b))
    return 2 * size**3 / fastest_seconds(lambda: product().numpy(), 5) / 1e9


def padded_tokens(lengths: list[int], batch_size: int) -> int:
    """The `(rows × steps)` positions the biLM runs for these sentences, as ``embed_sentences`` batches them."""
    window = batch_size * SORT_WINDOW_BATCHES
    total = 0
    for start in range(0, len(lengths), window):
        part = lengths[start : start + window]
        # each batch runs its longest sentence's steps, the two boundaries included
        total += sum(len(batch) * (max(part[i] for i in batch) + 2) for batch in window_batches(part, batch_size))
    return total


def per_token_agreement(a: list[np.ndarray], b: list[np.ndarray]) -> tuple[float, float]:
    """(smallest per-token cosine, largest absolute difference) over every sentence, layer and token."""
    cosine, difference = 1.0, 0.0
    for x, y in zip(a, b):
        x, y = x.astype(np.float64), y.astype(np.float64)
        cosines = (x * y).sum(-1) / (np.linalg.norm(x, axis=-1) * np.linalg.norm(y, axis=-1))
        cosine, difference = min(cosine, float(cosines.min())), max(difference, float(np.abs(x - y).max()))
    return cosine, difference


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=sorted(SIZES), default="original")
    parser.add_argument("--sentences", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--execution", choices=("graph", "xla"), default="graph")
    parser.add_argument("--matmul-size", type=int, default=2048)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        files = random_model_files(tmp, args.size)
        sentences = corpus_sentences(tmp / "corpus.txt", args.sentences)
        lengths = [len(sentence) for sentence in sentences]
        embedders = {"float32": ElmoEmbedder(*files, execution=args.execution, precision="float32")}
        embedders["bfloat16"] = ElmoEmbedder(bilm=embedders["float32"].bilm, execution=args.execution,
                                             precision="bfloat16")
        auto = ElmoEmbedder(bilm=embedders["float32"].bilm).matmul_dtype or "float32"
        work = 2 * macs_per_token(embedders["float32"].bilm) * padded_tokens(lengths, BATCH)
        print(f"{cpu_name()}; native bfloat16: {has_native_bfloat16()}; {args.size} "
              f"({macs_per_token(embedders['float32'].bilm) / 1e6:.0f} M multiply-adds per token), "
              f"{len(sentences)} sentences of 5-40 tokens, batch {BATCH}, {args.execution}; precision='auto' picks "
              f"{auto}")
        for name, embedder in embedders.items():
            list(embedder.embed_sentences(sentences[:BATCH], batch_size=BATCH))  # trace (graph) / warm up
        best = {name: float("inf") for name in embedders}
        vectors = {}
        for round_index in range(args.rounds):
            seconds = {}
            for name, embedder in embedders.items():
                start = time.perf_counter()
                vectors[name] = list(embedder.embed_sentences(sentences, batch_size=BATCH))
                seconds[name] = time.perf_counter() - start
                best[name] = min(best[name], seconds[name])
            print(f"  round {round_index + 1}: " + "   ".join(f"{name} {s:6.1f} s" for name, s in seconds.items())
                  + f"   {seconds['float32'] / seconds['bfloat16']:4.2f}x")
        peaks = {dtype: matmul_gflops(args.matmul_size, dtype) for dtype in PRECISIONS}
        for name in embedders:
            print(f"  {name:8s}: {sum(lengths) / best[name]:7.0f} tokens/s, {work / best[name] / 1e9:5.0f} GFLOP/s "
                  f"(a {args.matmul_size}² {name} matmul: {peaks[name]:4.0f} GFLOP/s, "
                  f"{work / best[name] / 1e9 / peaks[name]:4.0%} of it)")
        cosine, difference = per_token_agreement(vectors["float32"], vectors["bfloat16"])
        print(f"  bfloat16 / float32: {best['float32'] / best['bfloat16']:4.2f}x faster (best rounds); "
              f"per-token cosine ≥ {cosine:.6f}, max |difference| {difference:.1e}")


if __name__ == "__main__":
    main()
