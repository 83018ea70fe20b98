"""The ``embed`` command: a text file (one whitespace-tokenized sentence per line) into HDF5, AllenNLP's layout;
``--shard K/N`` embeds shard K of N (K counted from 1) for ``merge-shards`` to join (``pretrained.shards``)."""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from elmo_keras.cli.stopping import EXIT_OK, checked_progress
from elmo_keras.limits import MAX_BATCH_SIZE
from elmo_keras.pretrained.shards import SORT_WINDOW_BATCHES, parse_shard


class TextProgressBar:
    """``progress(done, total)`` callback drawing ``[#####.....]  500/1000 sentences`` on one line of ``stream``.

    Args:
        stream: where to draw (``sys.stderr``); the line ends when ``done >= total``.
        width: int, characters in the bar. Defaults to 30.
        unit: str, what is counted. Defaults to ``"sentences"``.
    """

    def __init__(self, stream: TextIO, width: int = 30, unit: str = "sentences"):
        self.stream = stream
        self.width = width
        self.unit = unit

    def __call__(self, done: int, total: int) -> None:
        filled = self.width if total == 0 else self.width * done // total
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(f"\r[{bar}] {done:>{len(str(total))}}/{total} {self.unit}")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()


def add_embed_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``embed`` command's arguments."""
    parser.add_argument("input", help="UTF-8 text file, one sentence per line (tokens separated by whitespace)")
    parser.add_argument("output", help="HDF5 file to write: one dataset per line, named by its 0-based index")
    model = parser.add_argument_group("model (either --options and --weights, or --model-dir)")
    model.add_argument("--options", metavar="FILE", help="original ELMo options.json")
    model.add_argument("--weights", metavar="FILE", help="original ELMo weights (HDF5)")
    model.add_argument("--model-dir", metavar="DIR", help="a model directory written by the train command")
    layers = parser.add_mutually_exclusive_group()
    layers.add_argument("--all", dest="output_format", action="store_const", const="all",
                        help="write every layer: (layers, tokens, dim) per sentence (default)")
    layers.add_argument("--top", dest="output_format", action="store_const", const="top",
                        help="write the top layer only: (tokens, dim)")
    layers.add_argument("--average", dest="output_format", action="store_const", const="average",
                        help="write the mean of the layers: (tokens, dim)")
    parser.set_defaults(output_format="all")
    parser.add_argument("--batch-size", type=int, default=64, metavar="N", help="sentences per batch (default 64)")
    parser.add_argument("--stateful", action="store_true",
                        help="carry LSTM state from batch to batch like the original ELMo (default: stateless)")
    parser.add_argument("--execution", choices=("graph", "xla", "eager"), default="graph",
                        help="how the stateless biLM runs: one TF graph (default), XLA-compiled per shape "
                             "(faster on long files after compiling), or eagerly")
    parser.add_argument("--shard", type=shard_argument, metavar="K/N",
                        help="embed only shard K of N (K = 1 … N): a contiguous block of whole sorting windows "
                             f"(--batch-size × {SORT_WINDOW_BATCHES} lines), datasets named by their line in the whole "
                             "file; join the N outputs with merge-shards (stateless only)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def run_embed(args: argparse.Namespace) -> int:
    """Embed ``args.input`` into ``args.output``; errors propagate to ``main`` (which prints them)."""
    from elmo_keras.pretrained.embedder import ElmoEmbedder, check_embed_paths  # Keras: heavy, not for --help

    # before loading the model: the paths exist, and the output destroys nothing that is read
    check_embed_paths(args.input, args.output, {"the options file": args.options, "the weights file": args.weights},
                      {"the model directory": args.model_dir})
    if args.model_dir is not None:
        embedder = ElmoEmbedder.from_model_dir(args.model_dir, stateful=args.stateful, execution=args.execution)
    else:
        embedder = ElmoEmbedder(args.options, args.weights, stateful=args.stateful, execution=args.execution)
    progress = None if args.quiet else TextProgressBar(sys.stderr)
    count = embedder.embed_file(args.input, args.output, output_format=args.output_format,
                                batch_size=args.batch_size, progress=checked_progress(progress), shard=args.shard)
    print(f"wrote {count} sentences ({args.output_format}) to {args.output}{_shard_note(args, count)}", file=sys.stderr)
    return EXIT_OK


def _shard_note(args: argparse.Namespace, count: int) -> str:
    """``" (shard 2/3)"``, what an empty shard means, or ``""`` without ``--shard``."""
    if args.shard is None:
        return ""
    k, n = args.shard
    if count == 0:
        return (f" (shard {k}/{n} is empty: the file has fewer windows of --batch-size × {SORT_WINDOW_BATCHES} lines "
                f"than {n} shards; merge-shards still needs it)")
    return f" (shard {k}/{n})"


def shard_argument(text: str) -> tuple[int, int]:
    """``--shard K/N`` → ``(K, N)``; a bad value is argparse's error (exit 2), saying what ``K/N`` must be."""
    try:
        return parse_shard(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def check_embed_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Exactly one model source (``--model-dir`` or ``--options`` + ``--weights``) and a valid ``--batch-size``."""
    files = args.options is not None or args.weights is not None
    if args.model_dir is not None and files:
        parser.error("use either --model-dir or --options/--weights, not both")
    if args.model_dir is None and (args.options is None or args.weights is None):
        parser.error("the embed command needs --options FILE and --weights FILE (or --model-dir DIR)")
    check_batch_size_argument(parser, args.batch_size)
    if args.shard is not None and args.stateful:
        parser.error("--shard needs stateless embedding: with --stateful a sentence's vectors depend on every batch "
                     "before it, so a shard cannot start in the middle of the file")


def check_batch_size_argument(parser: argparse.ArgumentParser, value: int | None) -> None:
    """``--batch-size`` is absent or in ``[1, MAX_BATCH_SIZE]`` (else ``parser.error``, exit 2)."""
    if value is not None and value < 1:
        parser.error(f"--batch-size must be >= 1, received {value}")
    if value is not None and value > MAX_BATCH_SIZE:
        parser.error(f"--batch-size must be <= {MAX_BATCH_SIZE:,} (a batch is capped at the corpus size anyway), "
                     f"received {value:,}")
