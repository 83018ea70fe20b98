"""``DictConfig``: what the frozen-dataclass configurations share (``BiLMConfig``, ``Seq2SeqConfig``,
``TaggerConfig``): ``replace``, and a ``to_dict`` / ``from_dict`` round trip through ``training.json`` that refuses
unknown fields."""

from __future__ import annotations

import dataclasses


class DictConfig:
    """Mixin for ``@dataclass(frozen=True)`` configurations."""

    def replace(self, **changes):
        """A copy with ``changes`` (validated again by the dataclass's ``__post_init__``)."""
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict:
        """Every field as JSON-ready values (``dataclasses.asdict``)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict):
        """The configuration saved by ``to_dict``.

        Raises:
            ValueError: fields the class does not have (named); bad values (the class's own checks).
        """
        data = cls._from_saved(dict(data))
        unknown = set(data) - {field.name for field in dataclasses.fields(cls)}
        if unknown:
            raise ValueError(f"unknown {cls.__name__} fields: {sorted(unknown)}")
        return cls(**data)

    @classmethod
    def _from_saved(cls, data: dict) -> dict:
        """Turn JSON values back into field values (a hook: JSON lists → tuples, a renamed field, ...)."""
        return data
