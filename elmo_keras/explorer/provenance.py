"""``provenance``: the line a page prints under a shipped experiment's tables, naming the package version, optimizer,
backend and date that made them and warning when the trainer code has changed since (``models.provenance``; the
pages import from the explorer only)."""

from elmo_keras.models.provenance import provenance_caption

__all__ = ["provenance_caption"]
