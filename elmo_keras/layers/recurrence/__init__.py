"""The LSTM recurrence, written once; the Keras layers (``ProjectedLSTMCell``, ``LSTMStack``, ``BiLM``, the
taggers' ``BiLSTM``) own the weights and call it.

- ``cell_math``: the cell's equations (``lstm_step``, ``lstm_update``).
- ``sequence_loop``: the time loop over a whole sequence — with its hand-written gradient (``lstm_sequence``),
  from a given state (``scanned_sequence``), unrolled for XLA (``unrolled_sequence``).
- ``stack_runner``: a stack of layers in one direction or two at once (``run_stacks``): dropout, skip
  connections, reading backwards within each sentence's length, final states.
"""

from elmo_keras._lazy import attach_stub

__getattr__, __dir__, __all__ = attach_stub(__name__, __file__)
