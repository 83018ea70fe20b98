"""Command line: ``python -m elmo_keras COMMAND ...`` (also installed as ``elmo-keras``).

Each subcommand is one ``Command`` entry in ``COMMANDS``: a help line, a function that adds its arguments
to its subparser, and a function ``run(args) -> exit status``. To add a command, write those two functions
and add an entry; ``main`` needs no change.

Commands:
    embed   embed a text file (one whitespace-tokenized sentence per line) into HDF5, AllenNLP's layout; with
            ``--shard K/N`` only shard K of N (K counted from 1), for several processes or machines.
    merge-shards   join the N outputs of ``embed --shard`` into the one-process output, checked complete.
    train   train a biLM (the built-in polysemy corpus, a text file, or streamed shards: a glob, .gz) and save a
            model directory; checkpoints, resuming, sampled softmax and data-parallel training are options.
    explore start the explorer (``streamlit run`` on the frame shipped in the package); options after it go to
            Streamlit, e.g. ``--server.port 8502``. Needs the ``app`` extra.
"""

from typing import TYPE_CHECKING

from elmo_keras._lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "elmo_keras.cli.commands": ["COMMANDS", "Command", "build_parser", "main"],
    "elmo_keras.cli.embed": ["TextProgressBar", "add_embed_arguments", "check_embed_arguments", "run_embed"],
    "elmo_keras.cli.explore": ["add_explore_arguments", "missing_app_requirements", "run_explore",
                               "streamlit_arguments"],
    "elmo_keras.cli.merge_shards": ["add_merge_arguments", "run_merge"],
    "elmo_keras.cli.stopping": ["EXIT_ERROR", "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_TERMINATED", "Terminated",
                                "raise_if_stopped", "stop_signals_stop_the_command"],
    "elmo_keras.cli.train": ["add_train_arguments", "check_train_arguments", "read_corpus_file", "run_train"],
})

if TYPE_CHECKING:  # what static tools and IDEs see
    from elmo_keras.cli.commands import COMMANDS, Command, build_parser, main
    from elmo_keras.cli.embed import TextProgressBar
    from elmo_keras.cli.stopping import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK, EXIT_TERMINATED
    from elmo_keras.cli.train import read_corpus_file

__all__ = ["COMMANDS", "EXIT_ERROR", "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_TERMINATED", "Command", "TextProgressBar",
           "build_parser", "main", "read_corpus_file"]
