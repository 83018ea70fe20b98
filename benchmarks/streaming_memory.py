"""Peak memory and throughput of the streamed corpus (``StreamingCorpus``) against the in-memory path, as the corpus
grows.

    python benchmarks/streaming_memory.py [--sizes 1 10 100] [--memory-sizes 1 10] [--batch-size 64]

Corpora of 1×, 10×, 100× the toy polysemy training split (516 sentences, 5.7k tokens) are generated as gzip shards
in a temporary directory: every sentence is two corpus sentences spliced at random points, so the vocabulary does
not grow with the size. Each measurement runs in a fresh subprocess and reports the growth of its peak RSS
(``ru_maxrss``) over the RSS it had after its imports (TensorFlow alone takes several hundred MB), and its
throughput:

- ``scan``: ``StreamingCorpus.scan()``, the one-pass vocabulary;
- ``stream word`` / ``stream char``: the scan, then one full epoch of ``.batches(...)`` (word ids / character ids);
- ``memory word`` / ``memory char`` (the reference that grows): the sentences read into a list and
  ``Vocabulary.from_corpus``, then one epoch of ``training_batches(ShuffledBatches(...))``, ``train_bilm``'s input
  (on TensorFlow the whole corpus encoded up front and gathered per batch).

Sentences/s and tokens/s are those of the epoch pass ("pass s": batches made and read, after the scan or the
reading, "read/scan s"); for ``scan`` they are the scan's.

Also printed: the padding fraction of the streamed batches with length-sorted pools of 8 batches and without
(``pool_batches=1``), on the largest corpus. Figures on a shared machine are noisy (other work only adds time);
compare the ratios printed against the reference measured in the same run.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

from timing import cpu_name

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

SHARDS = 8
SENTENCES_PER_COPY = 516  # the polysemy training split



def write_corpus(directory: str, copies: int, seed: int = 0) -> str:
    """``copies`` × the polysemy training split, recombined, as ``SHARDS`` gzip files; returns their glob."""
    import numpy as np  # here: the parent process stays light (each measurement is a subprocess)

    from elmo_keras.data.polysemy import polysemy_sentences  # here: as above

    base = [list(tokens) for tokens in polysemy_sentences("train")]
    rng = np.random.default_rng([seed, copies])
    total = copies * len(base)
    firsts, seconds = rng.integers(0, len(base), total), rng.integers(0, len(base), total)
    handles = [gzip.open(os.path.join(directory, f"part-{k:03d}.txt.gz"), "wt", encoding="utf-8")
               for k in range(SHARDS)]
    for index, (a, b) in enumerate(zip(firsts, seconds)):
        head, tail = base[a], base[b]
        cut_a, cut_b = rng.integers(1, len(head) + 1), rng.integers(0, len(tail))
        handles[index % SHARDS].write(" ".join(head[:cut_a] + tail[cut_b:]) + "\n")
    for handle in handles:
        handle.close()
    return os.path.join(directory, "part-*.txt.gz")


def generated_corpora(root: str, sizes, memory_sizes):
    """For each size in either list, smallest first: ``(size, glob, streamed, in_memory)``, the corpus written to
    ``root/x<size>`` by ``write_corpus``; ``streamed``/``in_memory`` say which lists hold the size."""
    for size in sorted(set(sizes) | set(memory_sizes)):
        directory = os.path.join(root, f"x{size}")
        os.mkdir(directory)
        yield size, write_corpus(directory, size), size in sizes, size in memory_sizes


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kilobytes on Linux


def worker(mode: str, pattern: str, batch_size: int) -> dict:
    """One measurement in this (fresh) process; returns its figures."""
    import glob  # here: the worker's imports are part of what it measures around, not of the parent

    from elmo_keras.data.streaming import StreamingCorpus  # here: as above
    from elmo_keras.models.bilm.batches import ShuffledBatches, training_batches  # here: as above
    from elmo_keras.text.vocabulary import Vocabulary  # here: as above

    baseline = peak_rss_mb()
    started = time.perf_counter()
    if mode.startswith("memory"):
        sentences = []
        for path in sorted(glob.glob(pattern)):
            with gzip.open(path, "rt", encoding="utf-8") as handle:
                sentences += [line.split() for line in handle if line.split()]
        vocabulary = Vocabulary.from_corpus(sentences)
        num_sentences, num_tokens = len(sentences), sum(map(len, sentences))
        prepared = time.perf_counter()
        plan = ShuffledBatches(sentences, vocabulary, mode.split()[1], batch_size, seed=0)
        batches = sum(1 for _ in training_batches(plan, 1).take(len(plan)))
    else:
        corpus = StreamingCorpus(pattern)
        vocabulary, stats = corpus.scan()
        num_sentences, num_tokens = stats.num_sentences, stats.num_tokens
        prepared = time.perf_counter()
        batches = 0
        if mode != "scan":
            batches = sum(1 for _ in corpus.batches(vocabulary, mode.split()[1], batch_size, seed=0, epochs=1))
    finished = time.perf_counter()
    return {"mode": mode, "sentences": num_sentences, "tokens": num_tokens, "batches": batches,
            "prepare_seconds": prepared - started, "pass_seconds": finished - prepared,
            "baseline_mb": baseline, "peak_mb": peak_rss_mb()}


def measure(mode: str, pattern: str, batch_size: int, script: str = __file__) -> dict:
    """Run ``script --worker MODE --corpus PATTERN --batch-size N`` in a fresh process; its last stdout line (JSON)."""
    command = [sys.executable, script, "--worker", mode, "--corpus", pattern, "--batch-size", str(batch_size)]
    environment = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "KERAS_BACKEND": "tensorflow"}
    result = subprocess.run(command, capture_output=True, text=True, env=environment, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"{mode} failed:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def padding_fractions(pattern: str, batch_size: int) -> dict:
    """Padded share of the streamed batches' word-id tensors (filler rows included), pools of 8 batches vs none."""
    from elmo_keras.data.streaming import StreamingCorpus  # here: the parent imports TensorFlow only at the end

    fractions = {}
    for pool_batches in (8, 1):
        corpus = StreamingCorpus(pattern, pool_batches=pool_batches)
        corpus.scan()
        real = padded = 0
        for batch in corpus.epoch_sentence_batches(batch_size, seed=0, epoch=0):
            real += sum(len(s) + 2 for s in batch)
            padded += batch_size * (max(map(len, batch)) + 2)
        fractions[pool_batches] = 1 - real / padded
    return fractions


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 10, 100])
    parser.add_argument("--memory-sizes", type=int, nargs="*", default=[1, 10])
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--corpus", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.corpus, args.batch_size)))
        return

    print(f"CPU: {cpu_name()}; batch size {args.batch_size}; TensorFlow backend")
    print("peak RSS growth = peak RSS − RSS after the imports (each row a fresh process)\n")
    header = f"{'corpus':>7} {'sentences':>10} {'tokens':>10}  {'measured':<12} {'RSS growth MB':>13} " \
             f"{'read/scan s':>11} {'pass s':>7} {'sentences/s':>12} {'tokens/s':>10}"
    print(header)
    print("-" * len(header))
    rows = {}
    with tempfile.TemporaryDirectory(prefix="streaming_memory_") as root:
        for size, pattern, streamed, in_memory in generated_corpora(root, args.sizes, args.memory_sizes):
            modes = ["scan", "stream word", "stream char"] if streamed else []
            modes += ["memory word", "memory char"] if in_memory else []
            for mode in modes:
                row = rows[size, mode] = measure(mode, pattern, args.batch_size)
                seconds = row["pass_seconds"] if mode != "scan" else row["prepare_seconds"]
                print(f"{size:>6}× {row['sentences']:>10,} {row['tokens']:>10,}  {mode:<12} "
                      f"{row['peak_mb'] - row['baseline_mb']:>13.1f} {row['prepare_seconds']:>11.2f} "
                      f"{row['pass_seconds']:>7.2f} {row['sentences'] / seconds:>12,.0f} "
                      f"{row['tokens'] / seconds:>10,.0f}", flush=True)
            largest = pattern
        fractions = padding_fractions(largest, args.batch_size)
    print(f"\npadding share of the streamed batches (largest corpus): {fractions[8]:.1%} with length-sorted pools "
          f"of 8 batches, {fractions[1]:.1%} without")
    for mode in ("word", "char"):
        common = [s for s in args.memory_sizes if (s, f"stream {mode}") in rows and (s, f"memory {mode}") in rows]
        for size in common:
            stream, memory = rows[size, f"stream {mode}"], rows[size, f"memory {mode}"]
            growth = (memory["peak_mb"] - memory["baseline_mb"]) / max(stream["peak_mb"] - stream["baseline_mb"], 1)
            print(f"{size}× {mode}: in-memory RSS growth / streamed = {growth:.1f}; streamed throughput / in-memory "
                  f"= {memory['pass_seconds'] / stream['pass_seconds']:.2f}")


if __name__ == "__main__":
    main()
