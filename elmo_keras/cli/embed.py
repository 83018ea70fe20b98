"""The ``embed`` command: a text file (one whitespace-tokenized sentence per line) into HDF5, AllenNLP's layout;
``--engine ray`` embeds it (or several files, a glob) on Ray Data workers into the same file (``embedding.ray_engine``);
``--shard K/N`` embeds shard K of N (K counted from 1) for ``merge-shards`` to join (``embedding.shards``). The
model is a released one by preset name (``--model elmo_small_en``, ``elmo_transformer_en``; the old ``small`` …
as aliases), two files (paths or URLs, downloaded once into the cache), or a
trained model directory."""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from elmo_keras.cli.devices import add_devices_argument, split_cpu_devices
from elmo_keras.cli.stopping import EXIT_OK, checked_progress
from elmo_keras.embedding.choices import DEFAULT_RAY_WORKERS, EXECUTION_CHOICES, PRECISION_CHOICES
from elmo_keras.embedding.embedder_files import check_embed_paths
from elmo_keras.embedding.shards import SORT_WINDOW_BATCHES, parse_shard
from elmo_keras.limits import MAX_BATCH_SIZE
from elmo_keras.models.bilm.training_sizes import check_cpu_device_count
from elmo_keras.pretrained.downloads import cache_path, stderr_progress
from elmo_keras.pretrained.model_files import local_model_files, model_file_paths
from elmo_keras.pretrained.registry import ALIASES, RELEASED_ARCHIVES, preset_names, released_preset


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


STRATEGIES = ("mirrored",)  # inference splits batches across the devices of one process, on TensorFlow
ENGINES = ("process", "ray")  # who embeds: this process, or Ray Data workers (embedding.ray_engine)


def add_embed_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``embed`` command's arguments."""
    parser.add_argument("input", help="UTF-8 text file, one sentence per line (tokens separated by whitespace)")
    parser.add_argument("output", help="HDF5 file to write: one dataset per line, named by its 0-based index")
    model = parser.add_argument_group("model (one of --model, --options and --weights, or --model-dir)")
    model.add_argument("--model", type=model_name_argument, metavar="NAME",
                       help=f"a released ELMo by preset name: {', '.join(preset_names())} (aliases: "
                            f"{', '.join(ALIASES)}; downloaded once into "
                            "~/.cache/elmo_keras/pretrained, or $ELMO_KERAS_PRETRAINED_DIR)")
    model.add_argument("--options", metavar="FILE|URL", help="original ELMo options.json (a path or an http(s) URL)")
    model.add_argument("--weights", metavar="FILE|URL", help="original ELMo weights, HDF5 (a path or an http(s) URL)")
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
    parser.add_argument("--execution", choices=EXECUTION_CHOICES, default="auto",
                        help="how the stateless biLM runs: auto (default: one TF graph, as graph), graph, xla "
                             "(opt-in: compiled per padded shape) or eager")
    parser.add_argument("--precision", choices=PRECISION_CHOICES, default="auto",
                        help="the matmuls' precision: auto (default: bfloat16 on a CPU with native bfloat16 for "
                             "models of ELMo's published sizes, else float32), float32, or bfloat16 (float32 "
                             "accumulation and vectors)")
    parser.add_argument("--strategy", choices=STRATEGIES,
                        help="split every batch across devices: mirrored (TensorFlow) over every GPU, else every "
                             "CPU device (see --devices); stateless, graph execution")
    add_devices_argument(parser)
    parser.add_argument("--shard", type=shard_argument, metavar="K/N",
                        help="embed only shard K of N (K = 1 … N): a contiguous block of whole sorting windows "
                             f"(--batch-size × {SORT_WINDOW_BATCHES} lines), datasets named by their line in the whole "
                             "file; join the N outputs with merge-shards (stateless only)")
    parser.add_argument("--engine", choices=ENGINES, default="process",
                        help="who embeds: process (default: this process), or ray: Ray Data workers, each with its own "
                             "embedder, on a local cluster or --ray-address; INPUT may then also be a glob of files "
                             "('corpus/*.txt.gz', numbered one after the other); the output is the one-process output, "
                             'bit for bit (pip install "elmo_keras[ray]")')
    parser.add_argument("--workers", type=int, metavar="N",
                        help=f"--engine ray: Ray workers, one embedder each (default {DEFAULT_RAY_WORKERS})")
    parser.add_argument("--ray-address", metavar="ADDRESS",
                        help="--engine ray: the Ray cluster to run on (ray.init's address: auto, ray://HOST:10001); "
                             "default: $RAY_ADDRESS, else a local cluster started for the run")
    parser.add_argument("--quiet", action="store_true", help="no progress bars (embedding, downloading)")


def run_embed(args: argparse.Namespace) -> int:
    """Embed ``args.input`` into ``args.output``; errors propagate to ``main`` (which prints them)."""
    from elmo_keras.embedding.embedder import ElmoEmbedder  # Keras: heavy, not for --help

    split_cpu_devices(args.devices)  # first: the backend's runtime must not have started
    files = None if args.model_dir is not None else (args.model or args.options, args.weights)  # a name: weights None
    # before downloading or loading the model: the paths exist, and the output destroys nothing that is read (the
    # cached copies of URLs included)
    archive = RELEASED_ARCHIVES.get(args.model)
    if archive is not None:
        files, sources = None, {"the archive": str(cache_path(archive.archive.url))}
    else:
        options_file, weight_file = (None, None) if files is None else model_file_paths(*files)
        sources = {"the options file": options_file, "the weights file": weight_file}
    directories = {"the model directory": args.model_dir}
    if args.engine == "ray":
        # Keras and Ray: heavy, not for --help (Ray is the optional ray extra, checked by check_embed_arguments)
        from elmo_keras.embedding.ray_engine import check_corpus_paths

        check_corpus_paths(args.input, args.output, sources, directories)
    else:
        check_embed_paths(args.input, args.output, sources, directories)
    download_progress = None if args.quiet else stderr_progress
    # the one load verb; a name or URLs are fetched first (into the cache) with this command's progress
    source = args.model_dir or args.model if files is None else local_model_files(*files, progress=download_progress)
    if args.engine == "ray":
        return _run_on_ray(args, source)
    embedder = ElmoEmbedder.from_preset(source, stateful=args.stateful, execution=args.execution,
                                        strategy=args.strategy, precision=args.precision,
                                        progress=download_progress)
    progress = None if args.quiet else TextProgressBar(sys.stderr)
    count = embedder.embed_file(args.input, args.output, output_format=args.output_format,
                                batch_size=args.batch_size, progress=checked_progress(progress), shard=args.shard)
    replicas = None if embedder.strategy is None else embedder.strategy.num_replicas_in_sync
    devices = "" if replicas is None else f", each batch split across {replicas} devices"
    print(f"wrote {count} sentences ({args.output_format}) to {args.output}{_shard_note(args, count)}{devices}",
          file=sys.stderr)
    return EXIT_OK


def _run_on_ray(args: argparse.Namespace, source) -> int:
    """``embed --engine ray``: ``args.input`` (a file or a glob) embedded by Ray workers loading ``source``."""
    from elmo_keras.embedding.ray_engine import embed_corpus  # Keras and Ray: heavy, not for --help

    workers = args.workers or DEFAULT_RAY_WORKERS
    progress = None if args.quiet else TextProgressBar(sys.stderr)
    count = embed_corpus(source, args.input, args.output, output_format=args.output_format,
                         batch_size=args.batch_size, workers=workers, address=args.ray_address,
                         execution=args.execution, precision=args.precision, progress=checked_progress(progress))
    print(f"wrote {count} sentences ({args.output_format}) to {args.output} with {workers} Ray workers",
          file=sys.stderr)
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


def model_name_argument(text: str) -> str:
    """``--model NAME`` → the preset name (an alias or file stem → its preset name); an unknown one is argparse's
    error (exit 2), listing the names."""
    try:
        return released_preset(text).name
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def check_embed_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Exactly one model source (``--model``, ``--options`` + ``--weights`` or ``--model-dir``) and a valid
    ``--batch-size``."""
    sources = [name for name, given in (("--model-dir", args.model_dir is not None),
                                        ("--options/--weights", args.options is not None or args.weights is not None),
                                        ("--model", args.model is not None)) if given]
    if len(sources) == 2:
        parser.error(f"use either {sources[0]} or {sources[1]}, not both")
    if len(sources) == 3:
        parser.error("use only one of --model-dir, --options/--weights and --model")
    if not sources or (sources == ["--options/--weights"] and (args.options is None or args.weights is None)):
        parser.error("the embed command needs --options FILE and --weights FILE (paths or URLs), --model NAME, or "
                     "--model-dir DIR")
    check_batch_size_argument(parser, args.batch_size)
    if args.shard is not None and args.stateful:
        parser.error("--shard needs stateless embedding: with --stateful a sentence's vectors depend on every batch "
                     "before it, so a shard cannot start in the middle of the file")
    check_strategy_arguments(parser, args)
    check_engine_arguments(parser, args)


def check_engine_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """``--workers`` and ``--ray-address`` with ``--engine ray`` only; ``--engine ray`` stateless, without ``--shard``
    or ``--strategy``, and with Ray installed (else one line naming the extra to install)."""
    if args.engine != "ray":
        given = [name for name, value in (("--workers", args.workers), ("--ray-address", args.ray_address))
                 if value is not None]
        if given:
            parser.error(f"{' and '.join(given)} go with --engine ray")
        return
    for option, given in (("--shard", args.shard is not None), ("--stateful", args.stateful),
                          ("--strategy", args.strategy is not None)):
        if given:
            parser.error(f"--engine ray embeds every line, stateless, one embedder per worker: drop {option} (--shard "
                         "is the hand-run alternative to the engine)")
    if args.workers is not None and args.workers < 1:
        parser.error(f"--workers must be >= 1, received {args.workers}")
    from elmo_keras.embedding.ray_engine import RayNotInstalledError, import_ray  # Keras and Ray: heavy, optional

    try:
        import_ray()
    except RayNotInstalledError as error:
        parser.error(str(error))


def check_strategy_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """``--strategy`` with stateless graph execution, and ``--devices N`` (N ≥ 1, not absurdly many) with it."""
    if args.strategy is not None and args.stateful:
        parser.error("--strategy needs stateless embedding: with --stateful each batch row carries its LSTM state on "
                     "one device")
    if args.strategy is not None and args.execution not in ("auto", "graph"):
        parser.error(f"--strategy splits each batch across the devices in one graph: use --execution auto or graph, "
                     f"not {args.execution}")
    if args.devices is not None and args.strategy is None:
        parser.error("--devices splits the CPU for --strategy: add --strategy mirrored")
    if args.devices is not None:
        if args.devices < 1:
            parser.error(f"--devices must be >= 1, received {args.devices}")
        try:
            check_cpu_device_count(args.devices, "--devices")
        except ValueError as error:
            parser.error(str(error))


def check_batch_size_argument(parser: argparse.ArgumentParser, value: int | None) -> None:
    """``--batch-size`` is absent or in ``[1, MAX_BATCH_SIZE]`` (else ``parser.error``, exit 2)."""
    if value is not None and value < 1:
        parser.error(f"--batch-size must be >= 1, received {value}")
    if value is not None and value > MAX_BATCH_SIZE:
        parser.error(f"--batch-size must be <= {MAX_BATCH_SIZE:,} (a batch is capped at the corpus size anyway), "
                     f"received {value:,}")
