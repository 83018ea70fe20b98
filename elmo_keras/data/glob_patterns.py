"""Whether a corpus pattern could ever name a file that a program writes itself (checkpoints, temporary files),
decided from the pattern alone, before any such file exists.

A corpus is expanded as ``data.corpus_files.corpus_paths`` expands it: a path with glob characters (and no file of
that exact name) is ``glob.glob(pattern, recursive=True)``, anything else is that one path. The files a program
writes are described by *name templates*: a sequence of character sets, one per character (``checkpoint-`` then
nine digits then ``.npz``), so that "some file the program may write" is a finite description however many steps
or random names there are. ``pattern_could_match`` then answers the question exactly for each directory segment
and, for the file name, by matching the glob's tokens (``*``, ``?``, ``[...]``, literals) against the template's
character sets, with ``glob``'s rule that a wildcard does not match a leading ``.`` (hidden files and directories)
unless the pattern segment starts with one.

Paths are compared absolute (``~`` expanded, relative to the current directory), and again with symlinks resolved
in the pattern's literal leading directories and in the directory written to, so a pattern through a symlinked
folder is caught too.
"""

from __future__ import annotations

import fnmatch
import glob
import os
from collections.abc import Callable, Sequence

Template = Sequence[frozenset]  # one set of possible characters per position of a file name
DIGITS = frozenset("0123456789")


def literal(text: str) -> list[frozenset]:
    """The template of exactly ``text``."""
    return [frozenset(character) for character in text]


def _tokens(segment: str) -> list[Callable[[frozenset], bool] | None]:
    """``segment``'s glob tokens as fnmatch reads them: None for ``*``, else a test "can this position's character
    set supply a character the token matches?" (``?``: any; ``[...]``: the class, ``!`` negating; a literal)."""
    tokens, index = [], 0
    while index < len(segment):
        character = segment[index]
        index += 1
        if character == "*":
            if not tokens or tokens[-1] is not None:
                tokens.append(None)
        elif character == "?":
            tokens.append(lambda options: bool(options))
        elif character == "[":
            end = index + (segment[index:index + 1] == "!")
            end += segment[end:end + 1] == "]"
            end = segment.find("]", end)
            if end < 0:  # no closing bracket: a literal "["
                tokens.append(lambda options: "[" in options)
                continue
            bracket = segment[index - 1:end + 1]
            tokens.append(lambda options, bracket=bracket: any(fnmatch.fnmatchcase(c, bracket) for c in options))
            index = end + 1
        else:
            tokens.append(lambda options, character=character: character in options)
    return tokens


def name_could_match(segment: str, template: Template, wildcard: bool = True) -> bool:
    """Whether the glob segment ``segment`` matches at least one file name the template describes (``wildcard``:
    ``segment`` is expanded by ``glob``, whose wildcards skip hidden names; False for a literal, escaped name)."""
    if wildcard and template and "." in template[0] and not segment.startswith("."):
        template = [template[0] - {"."}, *template[1:]]  # glob's wildcards skip hidden names
        if not template[0]:
            return False
    reach = {0}  # template positions reachable after the tokens so far
    for token in _tokens(segment):
        if token is None:
            reach = set(range(min(reach), len(template) + 1)) if reach else set()
        else:
            reach = {at + 1 for at in reach if at < len(template) and token(template[at])}
    return len(template) in reach


def _directories_match(segments: list[str], parts: list[str]) -> bool:
    """Whether the pattern's directory ``segments`` match the directory ``parts`` (names below the root)."""
    if not segments:
        return not parts
    head, rest = segments[0], segments[1:]
    if head == "**":  # recursive: zero or more directories, none hidden
        return any(_directories_match(rest, parts[skip:]) for skip in range(len(parts) + 1)
                   if not any(part.startswith(".") for part in parts[:skip]))
    if not parts:
        return False
    if glob.has_magic(head):
        hidden_ok = head.startswith(".") or not parts[0].startswith(".")
        return hidden_ok and fnmatch.fnmatchcase(parts[0], head) and _directories_match(rest, parts[1:])
    return head == parts[0] and _directories_match(rest, parts[1:])


def _split(path: str) -> list[str]:
    return [part for part in path.split(os.sep) if part]


def pattern_could_match(pattern: str | os.PathLike, directory: str | os.PathLike,
                        templates: Sequence[Template]) -> bool:
    """Whether expanding the corpus ``pattern`` could list a file written in ``directory`` under a name of
    ``templates`` (now or once such a file exists).

    Args:
        pattern: a corpus path or glob, as ``corpus_paths`` takes one.
        directory: the directory the files are written into (need not exist yet).
        templates: the names written there, each a ``Template``.
    """
    pattern = os.path.abspath(os.path.expanduser(os.fspath(pattern)))
    directories = {os.path.abspath(os.fspath(directory)), os.path.realpath(os.fspath(directory))}
    if not glob.has_magic(pattern) or os.path.isfile(pattern):  # one path: is it one of the written files?
        parents = {os.path.dirname(pattern), os.path.realpath(os.path.dirname(pattern))}
        name = os.path.basename(pattern)
        return bool(parents & directories) and any(name_could_match(glob.escape(name), t, False) for t in templates)
    segments = _split(pattern)
    if segments[-1] == "**":  # "a/**" lists every file below a
        segments.append("*")
    first_magic = next(i for i, segment in enumerate(segments) if glob.has_magic(segment))
    resolved = _split(os.path.realpath(os.sep + os.sep.join(segments[:first_magic]))) + segments[first_magic:]
    for candidate in (segments, resolved):
        *folders, name = candidate
        if any(_directories_match(folders, _split(path)) for path in directories) and any(
                name_could_match(name, template) for template in templates):
            return True
    return False
