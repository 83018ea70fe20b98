"""Sentences and tags as tagger inputs: one ``TaggingVocabulary`` holds every id mapping a tagger needs.

A tagger reads a dict of int32 arrays (all right-padded, no sentence boundaries):

- ``"words"`` `(batch, time)`: ids in the tagger's own word vocabulary (0 = padding, 1 = ``<unk>``);
- ``"chars"`` `(batch, time, 50)`: ELMo character ids (``batch_to_ids``), when the tagger has a char-CNN;
- ``"bilm"`` `(batch, time)` or `(batch, time, 50)`: the frozen biLM's input (its own word vocabulary, or
  character ids for a character-level biLM), when the tagger reads biLM vectors.

Tags are ids into each task's label list, padded with ``PAD_TAG = -1`` (the padding the CRF and the softmax
losses mask out).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from elmo_keras._backend import padded_time
from elmo_keras.argument_checks import check_int
from elmo_keras.tagging.inputs import MAX_SENTENCE_TOKENS, check_task, check_token_lists
from elmo_keras.text.char_ids import batch_to_ids
from elmo_keras.text.vocabulary import Vocabulary, read_json_file

PAD_TAG = -1
Example = tuple[Sequence[str], Sequence[str]]  # (tokens, tags), one tag per token


@dataclass
class TaggingVocabulary:
    """The word vocabulary, each task's labels, and which inputs the tagger reads.

    Attributes:
        words: the tagger's word vocabulary.
        labels: ``{task: (label, ...)}`` in id order.
        use_chars: the tagger reads ``"chars"``. Defaults to False.
        bilm_vocabulary: the frozen biLM's word vocabulary (a word-level biLM), or None. Defaults to None.
        use_bilm: the tagger reads ``"bilm"`` (character ids when ``bilm_vocabulary`` is None). Defaults to False.

    Example:
        >>> vocabulary = TaggingVocabulary.from_examples({"pos": [(["the", "dog"], ["DET", "NOUN"])]})
        >>> vocabulary.encode_inputs([["the", "dog"], ["dog"]])["words"].tolist(), vocabulary.labels  # 0 = padding
        ([[5, 4], [4, 0]], {'pos': ('DET', 'NOUN')})
    """

    words: Vocabulary
    labels: dict[str, tuple[str, ...]]
    use_chars: bool = False
    bilm_vocabulary: Vocabulary | None = None
    use_bilm: bool = False
    _label_ids: dict = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self):
        self.labels = {task: tuple(labels) for task, labels in self.labels.items()}
        self._label_ids = {task: {label: i for i, label in enumerate(labels)} for task, labels in self.labels.items()}

    @classmethod
    def from_examples(cls, examples: Mapping[str, Sequence[Example]], min_count: int = 1, lowercase: bool = True,
                      **kwargs) -> "TaggingVocabulary":
        """Words of every task's sentences and each task's labels in sorted order.

        Args:
            examples: ``{task: [(tokens, tags), …]}``.
            min_count: int, words seen fewer times read as ``<unk>``. Defaults to 1.
            lowercase: bool, lowercase words before lookup. Defaults to True.
            **kwargs: the other fields (``use_chars``, ``bilm_vocabulary``, ``use_bilm``).
        """
        sentences = [tokens for task_examples in examples.values() for tokens, _ in task_examples]
        words = Vocabulary.from_corpus(sentences, min_count=min_count, lowercase=lowercase)
        labels = {task: tuple(sorted({tag for _, tags in task_examples for tag in tags}))
                  for task, task_examples in examples.items()}
        return cls(words, labels, **kwargs)

    # -- inputs -------------------------------------------------------------------------------------------------

    def encode_inputs(self, sentences: Sequence[Sequence[str]], length: int | None = None) -> dict[str, np.ndarray]:
        """The model inputs for ``sentences``, right-padded with 0.

        Args:
            sentences: a list of non-empty token lists (str tokens), each at most ``MAX_SENTENCE_TOKENS`` long.
            length: int, the time steps ``time``, from the longest sentence to ``padded_time(MAX_SENTENCE_TOKENS)
                + 1``. Defaults to None (the longest sentence).

        Returns:
            ``{"words": (batch, time)}``, plus ``"chars"`` `(batch, time, 50)` and ``"bilm"`` `(batch, time)` or
            `(batch, time, 50)` when used; int32 NumPy arrays.

        Raises:
            ValueError: naming ``sentences`` (and the sentence) or ``length`` (see ``tagging.inputs``).
        """
        sentences = check_token_lists(sentences)
        if not sentences:
            raise ValueError("sentences must hold at least one sentence, received an empty list")
        longest = max(len(s) for s in sentences)
        time = longest if length is None else check_int(length, "length")
        if not longest <= time <= padded_time(MAX_SENTENCE_TOKENS) + 1:
            raise ValueError(f"length must be from the longest sentence ({longest}) to "
                             f"{padded_time(MAX_SENTENCE_TOKENS) + 1:,}, received {time:,}")
        inputs = {"words": self._word_ids(sentences, self.words, time)}
        if self.use_chars:
            inputs["chars"] = _char_ids(sentences, time)
        if self.use_bilm:
            inputs["bilm"] = (_char_ids(sentences, time) if self.bilm_vocabulary is None
                              else self._word_ids(sentences, self.bilm_vocabulary, time))
        return inputs

    @staticmethod
    def _word_ids(sentences, vocabulary: Vocabulary, time: int) -> np.ndarray:
        ids = np.zeros((len(sentences), time), np.int32)
        for row, sentence in enumerate(sentences):
            ids[row, : len(sentence)] = vocabulary.encode(sentence)
        return ids

    # -- tags ---------------------------------------------------------------------------------------------------

    def encode_tags(self, task: str, tag_lists: Sequence[Sequence[str]], length: int | None = None) -> np.ndarray:
        """Tag ids `(batch, time)` int32, padded with ``PAD_TAG``.

        Args:
            task: one of ``labels``.
            tag_lists: one list of tag names per sentence.
            length: int, the time steps. Defaults to None (the longest list).

        Raises:
            ValueError: an unknown task, or a tag that is not one of the task's labels (named, with its sentence
                and position).
        """
        ids = self._label_ids[self._task(task)]
        time = max(len(t) for t in tag_lists) if length is None else int(length)
        encoded = np.full((len(tag_lists), time), PAD_TAG, np.int32)
        for row, tags in enumerate(tag_lists):
            for position, tag in enumerate(tags):
                if tag not in ids:
                    raise ValueError(f"task {task!r}: sentence {row}, token {position} has tag {tag!r}, which is not "
                                     f"one of its {len(ids)} labels ({', '.join(list(ids)[:8])}, ...)")
                encoded[row, position] = ids[tag]
        return encoded

    def ids_to_tags(self, task: str, tag_ids, lengths: Sequence[int]) -> list[list[str]]:
        """Tag names of the first ``lengths[i]`` positions of each row of ``tag_ids``.

        Args:
            task: one of ``labels``.
            tag_ids: int `(batch, time)`.
            lengths: one sentence length per row.
        """
        labels = self.labels[self._task(task)]
        return [[labels[int(i)] for i in row[:length]] for row, length in zip(np.asarray(tag_ids), lengths)]

    def _task(self, task: str) -> str:
        return check_task(task, list(self.labels))

    # -- persistence --------------------------------------------------------------------------------------------

    def to_dict(self) -> dict:
        """A JSON-ready dict that ``from_dict`` reads back."""
        return {"words": self.words.to_dict(), "labels": {task: list(v) for task, v in self.labels.items()},
                "use_chars": self.use_chars, "use_bilm": self.use_bilm,
                "bilm_vocabulary": None if self.bilm_vocabulary is None else self.bilm_vocabulary.to_dict()}

    @classmethod
    def from_dict(cls, data: dict, source: str = "<dict>") -> "TaggingVocabulary":
        """The vocabulary ``to_dict`` wrote.

        Args:
            data: the dict.
            source: names where ``data`` came from (a file) in the ``ValueError`` raised if it is not one.
        """
        try:
            bilm = data.get("bilm_vocabulary")
            return cls(Vocabulary.from_dict(data["words"], source=source),
                       {str(task): tuple(labels) for task, labels in data["labels"].items()},
                       use_chars=bool(data.get("use_chars", False)), use_bilm=bool(data.get("use_bilm", False)),
                       bilm_vocabulary=None if bilm is None else Vocabulary.from_dict(bilm, source=source))
        except (KeyError, TypeError, AttributeError) as error:
            raise ValueError(f"{source}: not a tagging vocabulary ({type(error).__name__}: {error})") from None

    # the model-directory mechanism (models/persistence.py) calls save, load and len
    def save(self, path) -> None:
        """Write ``to_dict()`` as JSON to ``path``."""
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(self.to_dict(), handle, ensure_ascii=False, indent=0)

    @classmethod
    def load(cls, path) -> "TaggingVocabulary":
        """Read the file at ``path`` written by ``save``; errors name the file."""
        data = read_json_file(path, "tagging vocabulary")
        if not isinstance(data, dict):
            raise ValueError(f"{path} is not a tagging vocabulary (a JSON object)")
        return cls.from_dict(data, source=str(path))

    def __len__(self) -> int:
        """The word vocabulary's size (what the model's word embedding expects)."""
        return len(self.words)


def _char_ids(sentences, time: int) -> np.ndarray:
    ids = batch_to_ids(sentences)  # (batch, longest, 50)
    padded = np.zeros((len(sentences), time, ids.shape[2]), np.int32)
    padded[:, : min(time, ids.shape[1])] = ids[:, :time]
    return padded
