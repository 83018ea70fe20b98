"""Readers and writer for users' tagged data (elmo_keras/text/conll.py): CoNLL-style files and CoNLL-U."""

import re

import pytest

from elmo_keras.text.conll import ConllSentence, read_conll, read_conll_sentences, read_conllu, write_conll

EXAMPLES = [
    (["New", "York", "is", "located", "in", "the", "USA", "."],
     ["B-LOC", "E-LOC", "O", "O", "O", "O", "S-LOC", "O"]),
    (["Zoë", "met", "#", "Åsa", "…"], ["S-PER", "O", "O", "S-PER", "O"]),
]

# a CoNLL-U file with a multi-word token (2-3 "don't" = do + n't), an empty node (4.1) and a missing xpos
CONLLU = """\
# sent_id = s1
# text = I don't know.
1\tI\tI\tPRON\tPRP\t_\t4\tnsubj\t_\t_
2-3\tdon't\t_\t_\t_\t_\t_\t_\t_\t_
2\tdo\tdo\tAUX\tVBP\t_\t4\taux\t_\t_
3\tn't\tnot\tPART\tRB\t_\t4\tadvmod\t_\t_
4\tknow\tknow\tVERB\tVB\t_\t0\troot\t_\t_
4.1\tknows\tknow\tVERB\t_\t_\t_\t_\t4:conj\t_
5\t.\t.\tPUNCT\t.\t_\t4\tpunct\t_\t_

# sent_id = s2
1\tYes\tyes\tINTJ\t_\t_\t0\troot\t_\t_
2\t!\t!\tPUNCT\t.\t_\t1\tpunct\t_\t_
"""


def write(tmp_path, text, name="data.txt", encoding="utf-8"):
    path = tmp_path / name
    path.write_bytes(text.encode(encoding) if isinstance(text, str) else text)
    return path


def test_round_trip_with_metadata(tmp_path):
    path = tmp_path / "out.conll"
    write_conll(path, EXAMPLES, metadata=[{"id": "1", "split": "train"}, {"id": "2", "note": "a = b"}])
    assert path.read_text(encoding="utf-8").startswith("# id = 1\n# split = train\nNew\tB-LOC\n")
    assert "…\tO\n" in path.read_text(encoding="utf-8") and not path.read_text(encoding="utf-8").endswith("\n\n")
    assert read_conll(path) == EXAMPLES
    sentences = read_conll_sentences(path)
    assert sentences == [ConllSentence(*EXAMPLES[0], {"id": "1", "split": "train"}, 3),
                         ConllSentence(*EXAMPLES[1], {"id": "2", "note": "a = b"}, 14)]


def test_write_without_metadata(tmp_path):
    path = tmp_path / "out.conll"
    write_conll(path, [(["a", "b"], ["X", "Y"]), (["c"], ["Z"])])
    assert path.read_bytes() == b"a\tX\nb\tY\n\nc\tZ\n"


def test_several_columns_and_tag_column(tmp_path):
    text = "-DOCSTART- -X- -X- O\n\nEU NNP B-NP S-ORG\nrejects VBZ B-VP O\n\n\n\nGerman  JJ\tB-NP  S-MISC\n"
    path = write(tmp_path, text)
    assert read_conll(path) == [(["-DOCSTART-"], ["O"]), (["EU", "rejects"], ["S-ORG", "O"]),
                                (["German"], ["S-MISC"])]
    assert read_conll(path, tag_column=1) == [(["-DOCSTART-"], ["-X-"]), (["EU", "rejects"], ["NNP", "VBZ"]),
                                              (["German"], ["JJ"])]
    assert read_conll(path, tag_column=-2)[1] == (["EU", "rejects"], ["B-NP", "B-VP"])


def test_comments(tmp_path):
    text = ("# a plain comment\n# id = 7\n#\tSYM\nfoo\tX\n# inner = yes\nbar\tY\n  \t \n# next = 1\n"
            "#no-space\tTAG\n")
    sentences = read_conll_sentences(write(tmp_path, text))
    assert sentences == [ConllSentence(["#", "foo", "bar"], ["SYM", "X", "Y"], {"id": "7", "inner": "yes"}, 3),
                         ConllSentence(["#no-space"], ["TAG"], {"next": "1"}, 9)]
    only_comment_after = read_conll_sentences(write(tmp_path, "a\tB\n\n# trailing = 1\n"))
    assert only_comment_after == [ConllSentence(["a"], ["B"], {}, 1)]


def test_byte_order_mark_crlf_and_no_final_newline(tmp_path):
    path = write(tmp_path, "\ufeff# id = 1\r\nOslo\tS-LOC\r\n\r\nis\tO\r\nfine\tO", encoding="utf-8")
    assert read_conll_sentences(path) == [ConllSentence(["Oslo"], ["S-LOC"], {"id": "1"}, 2),
                                          ConllSentence(["is", "fine"], ["O", "O"], {}, 4)]


@pytest.mark.parametrize(
    "content, message",
    [
        (b"a\tB\n\nb\tC\nd\xff\tE\n", "line 4: not valid UTF-8 at byte offset 10 (byte 0xff)"),
        ("a\tB\nlonely\nc\tD\n", "line 2: 1 column(s), but a token line needs at least 2"),
        ("", "no sentences"),
        ("# id = 1\n\n\n", "no sentences"),
        ("# id = 1\n# id = 2\na\tB\n", "line 2: comment key 'id' repeated in one sentence"),
    ],
)
def test_read_conll_errors_name_file_and_line(tmp_path, content, message):
    path = write(tmp_path, content)
    with pytest.raises(ValueError, match=re.escape(f"{path}") + ".*" + re.escape(message)):
        read_conll(path)


def test_tag_column_errors(tmp_path):
    path = write(tmp_path, "a\tB\tC\n")
    with pytest.raises(ValueError, match=re.escape(f"{path} line 1: 3 column(s), but a token line needs at least 4")):
        read_conll(path, tag_column=3)
    with pytest.raises(ValueError, match="at least 4"):
        read_conll(path, tag_column=-3)
    for bad in (0, True, 1.0):
        with pytest.raises(ValueError, match=f"tag_column must be a non-zero integer.*{bad!r}"):
            read_conll(path, tag_column=bad)


@pytest.mark.parametrize("reader", [read_conll, read_conllu])
def test_paths_that_are_not_files(tmp_path, reader):
    with pytest.raises(IsADirectoryError, match=re.escape(f"{tmp_path} is a directory")):
        reader(tmp_path)
    with pytest.raises(FileNotFoundError, match=re.escape(f"not found: {tmp_path / 'missing.conll'}")):
        reader(tmp_path / "missing.conll")


@pytest.mark.parametrize(
    "examples, metadata, message",
    [
        ([([], [])], None, "example 0: 0 tokens and 0 tags"),
        ([(["a"], ["B"]), (["a", "b"], ["C"])], None, "example 1: 2 tokens and 1 tags"),
        ([(["a b"], ["C"])], None, "example 0: token or tag 'a b'"),
        ([(["a"], [""])], None, "example 0: token or tag ''"),
        ([(["a"], ["B"])], [{}, {}], "metadata has 2 items for 1 examples"),
        ([(["a"], ["B"])], [{"sent id": "1"}], "example 0: metadata key 'sent id'"),
        ([(["a"], ["B"])], [{"a=b": "1"}], "example 0: metadata key 'a=b'"),
        ([(["a"], ["B"])], [{"id": "1\n2"}], "example 0: metadata value '1\\\\n2'"),
        ([(["a"], ["B"])], [{"id": " 1"}], "example 0: metadata value ' 1'"),
    ],
)
def test_write_conll_errors_write_nothing(tmp_path, examples, metadata, message):
    path = tmp_path / "out.conll"
    with pytest.raises(ValueError, match=message):
        write_conll(path, examples, metadata)
    assert not path.exists()


def test_read_conllu_skips_multiword_tokens_and_empty_nodes(tmp_path):
    path = write(tmp_path, CONLLU)
    assert read_conllu(path) == [(["I", "do", "n't", "know", "."], ["PRON", "AUX", "PART", "VERB", "PUNCT"]),
                                 (["Yes", "!"], ["INTJ", "PUNCT"])]
    assert read_conllu(path, column="deprel")[0][1] == ["nsubj", "aux", "advmod", "root", "punct"]
    assert read_conllu(path, column="xpos", allow_missing=True)[1] == (["Yes", "!"], ["_", "."])


def test_read_conllu_byte_order_mark_and_crlf(tmp_path):
    path = write(tmp_path, "\ufeff" + CONLLU.replace("\n", "\r\n"))
    assert read_conllu(path)[1] == (["Yes", "!"], ["INTJ", "PUNCT"])


def test_read_conllu_missing_value_names_sentence_token_and_line(tmp_path):
    path = write(tmp_path, CONLLU)
    message = f"{path} line 12: sentence 2 (sent_id = s2), token 'Yes': the 'xpos' value is missing ('_')"
    with pytest.raises(ValueError, match=re.escape(message)):
        read_conllu(path, column="xpos")
    upos_missing = write(tmp_path, "1\ta\ta\t_\t_\t_\t0\troot\t_\t_\n", name="missing.conllu")
    with pytest.raises(ValueError, match=re.escape(f"{upos_missing} line 1: sentence 1, token 'a': the 'upos'")):
        read_conllu(upos_missing)
    assert read_conllu(upos_missing, allow_missing=True) == [(["a"], ["_"])]


@pytest.mark.parametrize(
    "text, message",
    [
        ("1\tok\tok\tX\t_\t_\t0\troot\t_\t_\n\n# sent_id = b\n1\tfine\tfine\tX\t_\t_\t0\troot\t_\t_\nbroken\n",
         "line 5: malformed CoNLL-U: Invalid line format"),
        ("1\ta\ta\tX\t_\t_\t0\troot\t_\t_\nx\tb\tb\tX\t_\t_\t1\tdep\t_\t_\n",
         "line 2: malformed CoNLL-U: Failed parsing field 'id': 'x' is not a valid ID"),
        ("1\ta\ta\tX\t_\t_\tnone\troot\t_\t_\n", "line 1: malformed CoNLL-U: Failed parsing field 'head'"),
        ("1\ta\ta\tX\t_\t_\t0\troot\t_\t_\n_\tb\tb\tX\t_\t_\t1\tdep\t_\t_\n",
         "line 2: sentence 1, token 'b': the id must be an integer"),
        ("1\ta\ta\n", "line 1: sentence 1, token 'a': no 'upos' column (3 columns on the line)"),
        ("# only = comments\n\n", "no sentences"),
        ("", "no sentences"),
        (b"1\ta\ta\tX\n\n1\t\xe9\n", "line 3: not valid UTF-8 at byte offset 11"),
    ],
)
def test_read_conllu_errors_name_file_and_line(tmp_path, text, message):
    path = write(tmp_path, text, name="bad.conllu")
    with pytest.raises(ValueError, match=re.escape(f"{path}") + ".*" + re.escape(message)):
        read_conllu(path)


def test_read_conllu_structured_column_and_bad_argument(tmp_path):
    path = write(tmp_path, CONLLU)
    with pytest.raises(ValueError, match=re.escape(f"{path} line 3: sentence 1 (sent_id = s1), token 'I': column "
                                                   "'head' holds int values, not tags")):
        read_conllu(path, column="head")
    with pytest.raises(ValueError, match="column must be a CoNLL-U column name.*''"):
        read_conllu(path, column="")


def test_lone_carriage_returns_end_lines_in_every_reader(tmp_path):
    """Old Mac line ends: the whole file used to be one line, whose middle tokens were lost."""
    path = write(tmp_path, "# id = 1\rNew\tB-LOC\rYork\tE-LOC\r\rhi\tO\r\n")
    assert read_conll_sentences(path) == [ConllSentence(["New", "York"], ["B-LOC", "E-LOC"], {"id": "1"}, 2),
                                          ConllSentence(["hi"], ["O"], {}, 5)]
    assert read_conllu(write(tmp_path, CONLLU.replace("\n", "\r"), name="mac.conllu")) == read_conllu(write(tmp_path,
                                                                                                           CONLLU))
    bad = write(tmp_path, b"a\tB\r\rb\tC\rd\xff\tE\r", name="bad.conll")
    with pytest.raises(ValueError, match=re.escape(f"{bad} line 4: not valid UTF-8")):
        read_conll(bad)


@pytest.mark.parametrize(
    "words, problem",
    [
        ("4\tknow\tknow\tVERB\t_\t_\t0\troot\t_\t_\n", "found word 4 where word 2 must follow"),
        ("2\tdo\tdo\tAUX\t_\t_\t0\troot\t_\t_\n", "word 3 is missing"),
        ("3\tn't\tnot\tPART\t_\t_\t0\troot\t_\t_\n2\tdo\tdo\tAUX\t_\t_\t3\taux\t_\t_\n",
         "found word 3 where word 2 must follow"),
    ],
)
def test_a_multiword_token_without_its_words_is_refused_not_lost(tmp_path, words, problem):
    """The range line gives way to its syntactic words; without them, "don't" used to vanish silently."""
    text = "1\tI\tI\tPRON\t_\t_\t2\tnsubj\t_\t_\n2-3\tdon't\t_\t_\t_\t_\t_\t_\t_\t_\n" + words
    path = write(tmp_path, text, name="mwt.conllu")
    message = (f"{path} line 2: sentence 1, multi-word token 2-3 \"don't\" must be followed by its words 2 to 3, one "
               f"per line: {problem} (its text would be lost)")
    with pytest.raises(ValueError, match=re.escape(message)):
        read_conllu(path)
