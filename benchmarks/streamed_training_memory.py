"""Peak memory of biLM *training* (``train_bilm``, one epoch) on a streamed corpus against the in-memory path, as
the corpus grows (issue #17).

    python benchmarks/streamed_training_memory.py [--sizes 1 10 100] [--memory-sizes 1 10 100] [--batch-size 64]

The corpora are ``streaming_memory.write_corpus``'s: 1×, 10×, 100× the toy polysemy training split (516 sentences,
5.7k tokens), recombined so that the vocabulary does not grow with the size, as 8 gzip shards. Each (size, path)
trains in a fresh subprocess, one epoch of a small character-level biLM (``CONFIG``; a char model, so the softmax is
the only part that depends on the vocabulary, and the vocabulary is the same at every size):

- ``streamed``: ``train_bilm("DIR/part-*.txt.gz", preset=CONFIG, heldout=None)`` (``StreamingCorpus``);
- ``in memory`` (the reference that grows): the same sentences read into a list of token lists, then
  ``train_bilm(sentences, preset=CONFIG, heldout=None)``.

Reported per row: the peak RSS (``ru_maxrss``) minus the peak RSS after the imports and a model-free warm-up (one
small TensorFlow op, so the runtime's thread pools and allocator exist before the baseline), so the growth covers
reading the corpus, the vocabulary, the batches, the model, ``fit`` and the training summary's scoring; "in fit":
the same at the end of the epoch, before the summary scores its sentences (all of them in memory, the first 2,000
streamed). Then the ``fit`` seconds (``training_summary["train_seconds"]``), the whole ``train_bilm`` call's
seconds, and the tokens/s of ``fit`` (its seconds include building the graph: at 1× that is most of them).

``--sizes 1000 --memory-sizes`` measures a streamed 1000× point alone (6.2M tokens, ~5 minutes on 2 cores).
Seconds on a shared machine are noisy (other work only adds time); the memory figures are not.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import sys
import tempfile
import time

from streaming_memory import generated_corpora, measure
from timing import cpu_name

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

CONFIG = {"token_input": "char", "embedding_dim": 4, "char_filters": ((1, 8), (2, 8)), "n_highway": 1, "units": 16,
          "projection_dim": 8, "num_layers": 1, "dropout": 0.0, "epochs": 1, "batch_size": 64,
          "learning_rate": 1e-2}


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kilobytes on Linux


def current_rss_mb() -> float:
    with open("/proc/self/status", encoding="utf-8") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def worker(path: str, pattern: str, batch_size: int) -> dict:
    """One training run in this (fresh) process; returns its figures."""
    import glob  # here: the worker's imports are part of what it measures around, not of the parent

    import tensorflow as tf  # here: as above

    from elmo_keras.models.bilm.presets import BiLMConfig  # here: as above
    from elmo_keras.models.bilm.training import train_bilm  # here: as above

    config = BiLMConfig(**{**CONFIG, "batch_size": batch_size})
    float(tf.reduce_sum(tf.matmul(tf.ones((64, 64)), tf.ones((64, 64)))))  # model-free warm-up of the runtime
    baseline = peak_rss_mb()
    started = time.perf_counter()
    if path == "in memory":
        corpus = []
        for name in sorted(glob.glob(pattern)):
            with gzip.open(name, "rt", encoding="utf-8") as handle:
                corpus += [line.split() for line in handle if line.split()]
    else:
        corpus = pattern
    after_fit = []  # peak RSS at the end of the epoch: before the training summary scores its sample
    model = train_bilm(corpus, preset=config, heldout=None, seed=0,
                       callbacks=[lambda epoch, logs: after_fit.append(peak_rss_mb())])
    finished = time.perf_counter()
    summary = model.training_summary
    return {"path": path, "sentences": summary["num_sentences"], "tokens": summary["num_tokens"],
            "vocab_size": summary["vocab_size"], "batch_size": summary["config"]["batch_size"],
            "fit_seconds": summary["train_seconds"], "total_seconds": finished - started,
            "loss": summary["history"]["loss"][-1] if summary.get("history", {}).get("loss") else None,
            "baseline_mb": baseline, "fit_peak_mb": after_fit[-1], "peak_mb": peak_rss_mb(),
            "end_rss_mb": current_rss_mb()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 10, 100], help="streamed corpus sizes (× toy)")
    parser.add_argument("--memory-sizes", type=int, nargs="*", default=[1, 10, 100], help="in-memory sizes (× toy)")
    parser.add_argument("--batch-size", type=int, default=CONFIG["batch_size"])
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--corpus", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.corpus, args.batch_size)))
        return

    shown = {k: v for k, v in CONFIG.items() if k != "batch_size"}
    print(f"CPU: {cpu_name()}; TensorFlow backend; one epoch, batch size {args.batch_size}, BiLMConfig({shown})")
    print("RSS growth = peak RSS − peak RSS after imports and warm-up (each row a fresh process)\n")
    header = f"{'corpus':>7} {'sentences':>10} {'tokens':>10}  {'path':<10} {'vocab':>6} {'RSS growth MB':>13} " \
             f"{'in fit':>7} {'peak MB':>8} {'fit s':>7} {'call s':>7} {'tokens/s':>9}"
    print(header)
    print("-" * len(header))
    rows = {}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="streamed_training_memory_") as root:
        for size, pattern, streamed, in_memory in generated_corpora(root, args.sizes, args.memory_sizes):
            paths = ["streamed"] if streamed else []
            paths += ["in memory"] if in_memory else []
            for path in paths:
                row = rows[size, path] = measure(path, pattern, args.batch_size, script=__file__)
                print(f"{size:>6}× {row['sentences']:>10,} {row['tokens']:>10,}  {path:<10} {row['vocab_size']:>6} "
                      f"{row['peak_mb'] - row['baseline_mb']:>13.1f} "
                      f"{row['fit_peak_mb'] - row['baseline_mb']:>7.1f} {row['peak_mb']:>8.0f} "
                      f"{row['fit_seconds']:>7.1f} {row['total_seconds']:>7.1f} "
                      f"{row['tokens'] / row['fit_seconds']:>9,.0f}", flush=True)
    print(f"\nwhole run: {time.perf_counter() - started:.0f} s")
    for size in sorted(args.memory_sizes):
        if (size, "streamed") in rows and (size, "in memory") in rows:
            stream, memory = rows[size, "streamed"], rows[size, "in memory"]
            print(f"{size}×: in-memory RSS growth − streamed = "
                  f"{(memory['peak_mb'] - memory['baseline_mb']) - (stream['peak_mb'] - stream['baseline_mb']):.1f} "
                  f"MB; streamed fit tokens/s / in-memory = {memory['fit_seconds'] / stream['fit_seconds']:.2f}")


if __name__ == "__main__":
    main()
