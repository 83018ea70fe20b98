"""The names ``elmo_keras.real_text`` exports (read by ``_lazy.attach_stub``)."""

from elmo_keras.real_text.bilms import TREEBANK_BILMS, VOCABULARY_MIN_COUNT, load_treebank_bilm, train_treebank_bilm
from elmo_keras.real_text.kneser_ney import KneserNeyLM, kneser_ney_perplexities, modified_discounts
