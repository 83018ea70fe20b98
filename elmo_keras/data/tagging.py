"""Synthetic tagging data for the multi-task tagger and TagLM, and its loaders.

All four files are **synthetic**: ``tools/make_tagging_data.py`` fills hand-written templates from small
word lists with one seeded random generator (re-running it reproduces the files byte for byte). They are
toys for seeing multi-task learning and semi-supervised tagging work on a CPU in minutes, not benchmarks, and
their "facts" (who was born where) are random.

**The shop domain** (lowercase, like spoken customer-service requests; punctuation is a token):

- ``pos_tagged.conll`` — about 1,100 sentences with Universal POS tags (``POS_TAGS``). About 60% come from
  the same templates and word lists as the frame sentences ("is the pharmacy open on sunday ?"), the rest
  from other templates of the same domain that put the ambiguous words in their other roles: *book* the
  noun ("return this book to the library"), *close* the verb ("they close the road"), *open* the verb
  ("can you open the door"), *no* the determiner ("there are no tables").
- ``frames_tagged.conll`` — 130 sentences with semantic frame labels (``FRAME_LABELS``), after the
  "oui il est ouvert" example of Tafforeau et al. (2016): ``yes , it is open .`` →
  ``Agreement null B_Place#Opening null Opening null``. The word that evokes a frame is labelled with the
  frame's name (``Opening``, ``Closure``, ``Booking``, ``Locative_relation``; answer words ``Agreement`` /
  ``Disagreement``); each frame element is a span ``B_<Element>#<Frame>`` ``I_<Element>#<Frame>`` …
  (elements per frame: ``FRAME_ELEMENTS``); everything else is ``null``. Element spans are constituents
  that POS tags delimit: noun phrases (``the/DET new/ADJ post/NOUN office/NOUN``) and prepositional
  phrases (``on/ADP sunday/PROPN``, ``for/ADP four/NUM people/NOUN``).

  Why POS training helps: the frame set is small (104 training sentences, 29 labels) while the place,
  time and item words come from long lists: 60 of the 144 frame word types occur at most twice among the
  training frame sentences, and 50 of those at least ten times in the POS training set, in the same
  templates (every frame word occurs in the POS training set). And some target words are ambiguous
  exactly where the POS is: *book*/VERB evokes ``Booking`` but *book*/NOUN is inside a place (``the book
  shop``); *close*/VERB evokes ``Closure`` but *close*/ADJ ``Locative_relation``. No sentence appears in
  both files (the frame sentences' POS tags are not shipped).

**News-style NER** (proper case): ``ner_bioes.conll`` — 400 sentences with PER/LOC/ORG spans in BIOES
(``NER_LABELS``): single-token names (``S-LOC``), multi-token names (``New York`` → ``B-LOC E-LOC``,
``Bank of America`` → ``B-ORG I-ORG E-ORG``, ``the River Thames`` → ``O B-LOC E-LOC``) and names whose type
only the context tells: *Jordan*, *Washington*, *Georgia*, *Sydney* … (person or place), *Chelsea*
(club, place or person), *Barcelona* (club or place), *Paris* vs *Paris Hilton*, *New York* vs *New York
Times*. The first word of a sentence is capitalised, entity or not. Fifteen names (the generator's
``NAMES``) **never** occur in the training sentences, only in held-out ones (twelve of them: *Lisbon*, *Kofi
Mensah*, *Siemens*, *Lincoln* …) and in the unlabelled text, so a tagger must recognise them from context:
that is where a biLM trained on unlabelled text (TagLM) helps.

**Unlabelled text**: ``tagging_unlabelled.txt`` — over 3,000 whitespace-tokenized sentences, one per line,
from both domains: the training sentences of the three files above plus new sentences from the same
templates (including the held-out-only names in new contexts). No held-out sentence of any file is in it.

Every labelled sentence is preceded by ``# id = N`` (unique in its file) and ``# split = train|heldout``
(about 20% held out; fixed). File format: see :mod:`elmo_keras.text.conll`; every file's lines end in ``\\n``,
``\\r\\n`` or a lone ``\\r``.
"""

from __future__ import annotations

import functools
from importlib import resources

from elmo_keras.data.polysemy import POS_TAGS, SPLITS
from elmo_keras.text.conll import read_conll_sentences, split_lines

POS_FILE = "pos_tagged.conll"
FRAMES_FILE = "frames_tagged.conll"
NER_FILE = "ner_bioes.conll"
UNLABELLED_FILE = "tagging_unlabelled.txt"

FRAME_NULL = "null"
# frame name -> its elements; a frame without elements is a one-word answer (yes / no)
FRAME_ELEMENTS = {
    "Opening": ("Place", "Time"),
    "Closure": ("Place", "Time"),
    "Booking": ("Customer", "Item", "Party", "Place", "Time"),
    "Locative_relation": ("Figure", "Ground"),
    "Agreement": (),
    "Disagreement": (),
}
FRAME_LABELS = (
    FRAME_NULL,
    *FRAME_ELEMENTS,
    *(f"{prefix}_{element}#{frame}" for frame, elements in FRAME_ELEMENTS.items() for element in elements
      for prefix in "BI"),
)
NER_TYPES = ("PER", "LOC", "ORG")
NER_LABELS = ("O", *(f"{prefix}-{kind}" for kind in NER_TYPES for prefix in "BIES"))

_LABELS = {POS_FILE: frozenset(POS_TAGS), FRAMES_FILE: frozenset(FRAME_LABELS), NER_FILE: frozenset(NER_LABELS)}


@functools.cache
def _labelled(file_name: str) -> tuple[tuple[tuple[str, ...], tuple[str, ...], str], ...]:
    """``(tokens, tags, split)`` of every sentence of one shipped file, read and validated once."""
    with resources.as_file(resources.files("elmo_keras.data").joinpath(file_name)) as path:
        sentences = read_conll_sentences(path)
    rows, seen_ids = [], set()
    for sentence in sentences:
        where = f"{file_name} line {sentence.line}"
        raw_id, split = sentence.metadata.get("id", ""), sentence.metadata.get("split")
        if not raw_id.isdigit() or int(raw_id) in seen_ids:
            raise ValueError(f"{where}: the sentence needs a '# id = N' comment with a new integer, found {raw_id!r}")
        seen_ids.add(int(raw_id))
        if split not in SPLITS:
            raise ValueError(f"{where}: unknown split {split!r} (expected one of {SPLITS})")
        unknown = sorted(set(sentence.tags) - _LABELS[file_name])
        if unknown:
            raise ValueError(f"{where}: unknown tag(s) {unknown}")
        rows.append((tuple(sentence.tokens), tuple(sentence.tags), split))
    return tuple(rows)


def _examples(file_name: str, split: str) -> list[tuple[list[str], list[str]]]:
    if split not in (*SPLITS, "all"):
        raise ValueError(f"split must be 'train', 'heldout' or 'all', received {split!r}")
    return [(list(tokens), list(tags)) for tokens, tags, row_split in _labelled(file_name)
            if split in ("all", row_split)]


def pos_examples(split: str = "train") -> list[tuple[list[str], list[str]]]:
    """``(tokens, tags)`` pairs of the POS set (Universal POS tags, ``POS_TAGS``), in file order.

    Args:
        split: ``"train"``, ``"heldout"`` or ``"all"``. Defaults to ``"train"``.

    Returns:
        Fresh lists on every call, so callers may change them.

    Raises:
        ValueError: for another ``split``, or if the shipped file is inconsistent (naming file and line).
    """
    return _examples(POS_FILE, split)


def frame_examples(split: str = "train") -> list[tuple[list[str], list[str]]]:
    """``(tokens, labels)`` pairs of the frame set (``FRAME_LABELS``); arguments as for ``pos_examples``."""
    return _examples(FRAMES_FILE, split)


def ner_examples(split: str = "train") -> list[tuple[list[str], list[str]]]:
    """``(tokens, tags)`` pairs of the NER set (BIOES, ``NER_LABELS``); arguments as for ``pos_examples``."""
    return _examples(NER_FILE, split)


@functools.lru_cache(maxsize=1)
def _unlabelled() -> tuple[tuple[str, ...], ...]:
    text = resources.files("elmo_keras.data").joinpath(UNLABELLED_FILE).read_text(encoding="utf-8")
    lines = split_lines(text)  # the line ends of the CoNLL readers: \n, \r\n, lone \r (not \f, \u2028, ...)
    if lines and not lines[-1]:
        lines.pop()  # the final line end
    sentences = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            raise ValueError(f"{UNLABELLED_FILE} line {number} is blank; every line must hold one sentence")
        sentences.append(tuple(line.split()))
    return tuple(sentences)


def tagging_unlabelled_sentences() -> list[list[str]]:
    """The unlabelled sentences (token lists, fresh on every call) for training a biLM for TagLM.

    Raises:
        ValueError: if the shipped file has a blank line (naming it).
    """
    return [list(tokens) for tokens in _unlabelled()]
