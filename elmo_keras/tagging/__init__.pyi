"""The names ``elmo_keras.tagging`` exports (read by ``_lazy.attach_stub``)."""

from elmo_keras.tagging.config import TaggerConfig
from elmo_keras.tagging.encoding import TaggingVocabulary
from elmo_keras.tagging.evaluation import evaluate_tagger, label_f1, span_f1, token_accuracy
from elmo_keras.tagging.multitask import MultiTaskTagger
from elmo_keras.tagging.persistence import load_tagger, save_tagger
from elmo_keras.tagging.schemes import allowed_transitions, invalid_transitions, is_valid_sequence, parse_label
from elmo_keras.tagging.sequence_tagger import SequenceTagger
from elmo_keras.tagging.taglm import TagLM
from elmo_keras.tagging.training import train_multitask_tagger, train_taglm
from elmo_keras.text.conll import ConllSentence, read_conll, read_conll_sentences, read_conllu, write_conll
