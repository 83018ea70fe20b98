"""Text pipeline: tokenizer, word vocabulary and ELMo character ids."""

from elmo_keras.text.batching import encode_characters, encode_word_ids
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
)
from elmo_keras.text.tokenizer import tokenize
from elmo_keras.text.vocabulary import BOS_ID, EOS_ID, PAD_ID, SPECIAL_TOKENS, UNK_ID, Vocabulary

__all__ = [
    "BEGIN_OF_SENTENCE_CHAR", "BEGIN_OF_WORD_CHAR", "BOS_ID", "BOS_TOKEN", "END_OF_SENTENCE_CHAR",
    "END_OF_WORD_CHAR", "EOS_ID", "EOS_TOKEN", "MAX_BYTES_PER_TOKEN", "MAX_CHARS_PER_TOKEN", "NUM_CHAR_IDS",
    "PADDING_CHAR", "PAD_ID", "encode_characters", "encode_word_ids", "SPECIAL_TOKENS", "UNK_ID", "Vocabulary",
    "batch_to_ids", "token_to_char_ids",
    "tokenize",
]
