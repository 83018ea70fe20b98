"""``--devices N``, shared by the ``train`` and ``embed`` commands: the CPU split into N logical devices for
``--strategy`` (a simulation of a multi-device host on a machine without accelerators)."""

from __future__ import annotations

import argparse


def add_devices_argument(parser: argparse.ArgumentParser) -> None:
    """The ``--devices N`` argument."""
    parser.add_argument("--devices", type=int, metavar="N",
                        help="split the CPU into N logical devices for --strategy (a simulation on a machine "
                             "without accelerators)")


def split_cpu_devices(devices: int | None) -> None:
    """Split the CPU into ``devices`` logical devices (``models.bilm.distribution.configure_cpu_devices``); None: do
    nothing. Call it before anything starts the backend's runtime.

    Raises:
        ValueError: the runtime has already started, or the backend has no logical devices (naming ``--devices``).
    """
    if devices is None:
        return
    from elmo_keras.models.bilm.distribution import configure_cpu_devices  # Keras and the backend: not for --help

    try:
        configure_cpu_devices(devices)
    except RuntimeError as error:
        raise ValueError(f"--devices {devices}: {error}") from None
