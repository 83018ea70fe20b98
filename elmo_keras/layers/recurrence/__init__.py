"""The LSTM recurrence, written once; the Keras layers (``ProjectedLSTMCell``, ``LSTMStack``, ``BiLM``, the
taggers' ``BiLSTM``) own the weights and call it.

- ``cell_math``: the cell's equations (``lstm_step``, ``lstm_update``).
- ``sequence_loop``: the time loop over a whole sequence — with its hand-written gradient (``lstm_sequence``),
  from a given state (``scanned_sequence``), unrolled for XLA (``unrolled_sequence``).
- ``stack_runner``: a stack of layers in one direction or two at once (``run_stacks``): dropout, skip
  connections, reading backwards within each sentence's length, final states.
"""

from typing import TYPE_CHECKING

from elmo_keras._lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "elmo_keras.layers.recurrence.cell_math": ["lstm_step", "lstm_update"],
    "elmo_keras.layers.recurrence.sequence_loop": ["lstm_sequence", "scanned_sequence", "unrolled_sequence"],
    "elmo_keras.layers.recurrence.stack_runner": ["CellWeights", "Direction", "StackOptions", "StackRun", "run_stacks"],
})

if TYPE_CHECKING:  # what static tools and IDEs see
    from elmo_keras.layers.recurrence.cell_math import lstm_step, lstm_update
    from elmo_keras.layers.recurrence.sequence_loop import lstm_sequence, scanned_sequence, unrolled_sequence
    from elmo_keras.layers.recurrence.stack_runner import CellWeights, Direction, StackOptions, StackRun, run_stacks

__all__ = [
    "CellWeights", "Direction", "StackOptions", "StackRun", "lstm_sequence", "lstm_step", "lstm_update", "run_stacks",
    "scanned_sequence", "unrolled_sequence",
]
