"""The names ``elmo_keras.layers.recurrence`` exports (read by ``_lazy.attach_stub``)."""

from elmo_keras.layers.recurrence.cell_math import lstm_step, lstm_update
from elmo_keras.layers.recurrence.sequence_loop import lstm_sequence, scanned_sequence, unrolled_sequence
from elmo_keras.layers.recurrence.stack_runner import CellWeights, Direction, StackOptions, StackRun, run_stacks
