"""The names ``elmo_keras.real_text`` exports (read by ``_lazy.attach_stub``)."""

from elmo_keras.real_text.bilms import TREEBANK_BILMS, VOCABULARY_MIN_COUNT, load_treebank_bilm, train_treebank_bilm
from elmo_keras.real_text.kneser_ney import KneserNeyLM, kneser_ney_perplexities, modified_discounts
from elmo_keras.real_text.probe_findings import layer_preferences, probe_findings, probe_summary
from elmo_keras.real_text.probing import PROBE_SEEDS, probe_runs, treebank_probe_data
from elmo_keras.real_text.tagging_curve import CURVE_FRACTIONS, curve_findings, curve_table, learning_curve
from elmo_keras.real_text.tasks import TASK_KINDS, TASK_TITLES
