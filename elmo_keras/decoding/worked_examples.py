"""Three classic lecture examples of greedy search, beam search and nucleus sampling (Holtzman et al. 2020), as
fixed probability tables.

Each example is a ``WorkedExample``: a vocabulary, the table, a ``next_log_probs`` function over it and the
expected answer. Only the nucleus example comes with numbers (.50 / .25 / .10 / .06, total .91); the greedy and
beam examples are usually drawn without them (greedy stuck after A; beam keeping A B and A D and dropping the C
branch, where greedy per branch would keep A B and C E), so those two tables are constructed here to show exactly
that. Prefixes missing from a table end the sequence (``</S>`` with probability 1), so the two-step examples
produce two words then ``</S>`` (``max_len = 3``).

* ``greedy_trap()`` — greedy picks A (0.5) first, but the best whole sequence starts with B:
  ``P(A B) = 0.5 × 0.4 = 0.20`` while ``P(B C) = 0.4 × 0.9 = 0.36``.
* ``same_branch_beam()`` — beam search with k = 2: step 1 keeps A (0.5) and C (0.4); at step 2 the global
  top 2 of all 2 × |V| extensions are ``A B`` (0.225) and ``A D`` (0.20), both from the A branch; the best
  C extension ``C E`` (0.18) is pruned with the whole C branch. Per-branch greedy would have kept A B and C E.
* ``nucleus_example()`` — the next-word distribution fine .50 / good .25 / okay .10 / great .06 / nice .04 /
  bad .03 / awful .02; with p = 0.9 the running total reaches .91 at "great", so the nucleus is exactly
  {fine, good, okay, great}.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from elmo_keras.decoding.table_model import PrefixTable
from elmo_keras.text.char_ids import EOS_TOKEN
from elmo_keras.text.vocabulary import BOS_ID, EOS_ID, Vocabulary


@dataclass
class WorkedExample:
    """A worked example: a table model plus its expected answer.

    Attributes:
        name: short identifier.
        title, description: text for display.
        vocabulary: the ``Vocabulary`` naming the ids (``<S>`` = ``bos_id``, ``</S>`` = ``eos_id``).
        table: ``{prefix words: {next word: probability}}`` as written.
        next_log_probs: the table as a ``fn(prefixes) -> (n, vocab)`` log-probability function.
        bos_id, eos_id, max_len: the decoding arguments the example is meant for.
        expected: the answers, as words (keys depend on the example).
    """

    name: str
    title: str
    description: str
    vocabulary: Vocabulary
    table: dict
    next_log_probs: PrefixTable
    bos_id: int = BOS_ID
    eos_id: int = EOS_ID
    max_len: int = 3
    expected: dict = field(default_factory=dict)

    def words(self, token_ids) -> list[str]:
        """``token_ids`` (ints) as words through ``vocabulary``."""
        return self.vocabulary.ids_to_tokens(token_ids)

    def ids(self, words) -> list[int]:
        """``words`` (strings) as token ids through ``vocabulary``."""
        return self.vocabulary.encode(words)


def _example(name, title, description, words, table, max_len=3, expected=None) -> WorkedExample:
    vocabulary = Vocabulary(words)
    return WorkedExample(
        name=name, title=title, description=description, vocabulary=vocabulary, table=table,
        next_log_probs=PrefixTable(table, vocabulary, EOS_TOKEN), max_len=max_len, expected=expected or {},
    )


def greedy_trap() -> WorkedExample:
    """Section 12: the most probable first word does not start the most probable sequence."""
    table = {
        (): {"A": 0.5, "B": 0.4, "C": 0.1},
        ("A",): {"A": 0.3, "B": 0.4, "C": 0.3},
        ("B",): {"A": 0.05, "B": 0.05, "C": 0.9},
        ("C",): {"A": 0.4, "B": 0.3, "C": 0.3},
    }
    return _example(
        "greedy_trap", "Greedy search: best at each step is not best overall",
        "Greedy takes A (0.5), then the best word after A is B (0.4): P(A B) = 0.20. "
        "Starting with B (0.4) and then C (0.9) gives P(B C) = 0.36.",
        ["A", "B", "C"], table,
        expected={"greedy": ["A", "B", EOS_TOKEN], "greedy_prob": 0.20,
                  "best": ["B", "C", EOS_TOKEN], "best_prob": 0.36},
    )


def same_branch_beam() -> WorkedExample:
    """Section 13: with k = 2 both survivors of step 2 come from the A branch; the C branch is dropped."""
    table = {
        (): {"A": 0.5, "B": 0.05, "C": 0.4, "D": 0.03, "E": 0.02},
        ("A",): {"A": 0.05, "B": 0.45, "C": 0.05, "D": 0.40, "E": 0.05},
        ("C",): {"A": 0.1, "B": 0.2, "C": 0.1, "D": 0.15, "E": 0.45},
    }
    return _example(
        "same_branch_beam", "Beam search (k = 2): the global top k can come from one branch",
        "Step 1 keeps A (0.5) and C (0.4). Step 2 ranks all extensions together: A B 0.225, A D 0.20, "
        "C E 0.18, … so A B and A D survive and the C branch is dropped.",
        ["A", "B", "C", "D", "E"], table,
        expected={"beam_size": 2, "step1": [["A"], ["C"]], "step2": [["A", "B"], ["A", "D"]],
                  "pruned_branch": ["C"], "per_branch_greedy": [["A", "B"], ["C", "E"]]},
    )


def nucleus_example() -> WorkedExample:
    """Section 16: nucleus sampling with p = 0.9 keeps fine, good, okay and great (total 0.91)."""
    first = {"fine": 0.50, "good": 0.25, "okay": 0.10, "great": 0.06, "nice": 0.04, "bad": 0.03, "awful": 0.02}
    return _example(
        "nucleus", "Nucleus (top-p) sampling with p = 0.9",
        "Sorted by probability the running total is .50, .75, .85, .91: it reaches 0.9 at 'great', so the "
        "nucleus is {fine, good, okay, great}, renormalised by 0.91.",
        ["awful", "bad", "fine", "good", "great", "nice", "okay"], {(): first}, max_len=2,
        expected={"top_p": 0.9, "nucleus": ["fine", "good", "okay", "great"], "nucleus_mass": 0.91},
    )


def all_examples() -> list[WorkedExample]:
    """The three examples: greedy, beam, nucleus."""
    return [greedy_trap(), same_branch_beam(), nucleus_example()]
