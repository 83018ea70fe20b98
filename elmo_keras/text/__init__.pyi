"""The names ``elmo_keras.text`` exports (read by ``_lazy.attach_stub``)."""

from elmo_keras.text.batching import (
    TOKEN_INPUTS,
    WordIds,
    char_ids_with_boundaries,
    lm_inputs_and_targets,
    sentence_ids,
    word_ids_with_boundaries,
)
from elmo_keras.text.char_ids import (
    BEGIN_OF_SENTENCE_CHAR,
    BEGIN_OF_WORD_CHAR,
    BOS_TOKEN,
    END_OF_SENTENCE_CHAR,
    END_OF_WORD_CHAR,
    EOS_TOKEN,
    MAX_BYTES_PER_TOKEN,
    MAX_CHARS_PER_TOKEN,
    NUM_CHAR_IDS,
    PADDING_CHAR,
    batch_to_ids,
    token_to_char_ids,
    trim_character_padding,
)
from elmo_keras.text.sentences import SentenceTypeError, as_token_lists, as_words, check_sentences, sentence_tokens
from elmo_keras.text.tokenizer import tokenize
from elmo_keras.text.vocabulary import BOS_ID, EOS_ID, PAD_ID, SPECIAL_TOKENS, UNK_ID, Vocabulary
from elmo_keras.text.vocabulary_files import VocabularyFileError, read_bilm_vocabulary, write_bilm_vocabulary
