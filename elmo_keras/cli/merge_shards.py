"""The ``merge-shards`` command: the N shard files of one ``embed --shard K/N`` run joined into the one-process output
(``embedding.shards.merge_shards`` checks they are complete, non-overlapping and of one input)."""

from __future__ import annotations

import argparse
import sys

from elmo_keras.cli.stopping import EXIT_OK
from elmo_keras.embedding.shards import merge_shards


def add_merge_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``merge-shards`` command's arguments."""
    parser.add_argument("output", help="HDF5 file to write first, then the shards: the output embed writes without "
                                        "--shard (an existing file is replaced only if embed or merge-shards wrote it)")
    parser.add_argument("shards", nargs="+", metavar="SHARD",
                        help="the N files written by embed --shard 1/N … N/N, in any order")


def run_merge(args: argparse.Namespace) -> int:
    """Merge ``args.shards`` into ``args.output``; errors propagate to ``main`` (which prints them)."""
    count = merge_shards(args.output, args.shards)
    print(f"merged {len(args.shards)} shards ({count} sentences) into {args.output}", file=sys.stderr)
    return EXIT_OK
