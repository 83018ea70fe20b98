"""Text pipeline: tokenizer, sentences as token lists, word vocabulary, ELMo character ids and padded model inputs."""

from typing import TYPE_CHECKING

from elmo_keras._lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "elmo_keras.text.batching": ["TOKEN_INPUTS", "WordIds", "char_ids_with_boundaries", "lm_inputs_and_targets",
                                 "sentence_ids", "word_ids_with_boundaries"],
    "elmo_keras.text.char_ids": ["BEGIN_OF_SENTENCE_CHAR", "BEGIN_OF_WORD_CHAR", "BOS_TOKEN", "END_OF_SENTENCE_CHAR",
                                 "END_OF_WORD_CHAR", "EOS_TOKEN", "MAX_BYTES_PER_TOKEN", "MAX_CHARS_PER_TOKEN",
                                 "NUM_CHAR_IDS", "PADDING_CHAR", "batch_to_ids", "token_to_char_ids",
                                 "trim_character_padding"],
    "elmo_keras.text.sentences": ["as_token_lists", "as_words", "sentence_tokens"],
    "elmo_keras.text.tokenizer": ["tokenize"],
    "elmo_keras.text.vocabulary": ["BOS_ID", "EOS_ID", "PAD_ID", "SPECIAL_TOKENS", "UNK_ID", "Vocabulary"],
    "elmo_keras.text.vocabulary_files": ["VocabularyFileError", "read_bilm_vocabulary", "write_bilm_vocabulary"],
})

if TYPE_CHECKING:  # what static tools and IDEs see
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
    from elmo_keras.text.sentences import as_token_lists, as_words, sentence_tokens
    from elmo_keras.text.tokenizer import tokenize
    from elmo_keras.text.vocabulary import BOS_ID, EOS_ID, PAD_ID, SPECIAL_TOKENS, UNK_ID, Vocabulary
    from elmo_keras.text.vocabulary_files import VocabularyFileError, read_bilm_vocabulary, write_bilm_vocabulary

__all__ = [
    "BEGIN_OF_SENTENCE_CHAR", "BEGIN_OF_WORD_CHAR", "BOS_ID", "BOS_TOKEN", "END_OF_SENTENCE_CHAR",
    "END_OF_WORD_CHAR", "EOS_ID", "EOS_TOKEN", "MAX_BYTES_PER_TOKEN", "MAX_CHARS_PER_TOKEN", "NUM_CHAR_IDS",
    "PADDING_CHAR", "PAD_ID", "SPECIAL_TOKENS", "TOKEN_INPUTS", "UNK_ID", "Vocabulary", "VocabularyFileError",
    "WordIds", "as_token_lists",
    "as_words", "batch_to_ids", "char_ids_with_boundaries", "lm_inputs_and_targets", "sentence_ids", "sentence_tokens",
    "token_to_char_ids", "tokenize", "trim_character_padding", "word_ids_with_boundaries", "read_bilm_vocabulary",
    "write_bilm_vocabulary",
]
