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

from elmo_keras._lazy import attach_stub

__getattr__, __dir__, __all__ = attach_stub(__name__, __file__)
