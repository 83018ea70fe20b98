"""The gradient-flow study of the Gradients page: why a plain RNN forgets and what clipping and gating do.

``cells`` (a tanh RNN cell and an LSTM cell with a settable forget-gate bias), ``models`` (a recurrent classifier
over either), ``task`` ("remember the first token" and its training), ``flow`` (state gradients by distance,
clipping) and ``results`` (the study's tables and the quiz's numbers). Imported through ``elmo_keras.analysis``
on first use (``_lazy``).
"""
