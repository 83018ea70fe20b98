"""A model's two files as local paths, whatever names them: a released model's name (``"elmo_small_en"``,
``pretrained.registry``), or two paths, each a local file or an ``http(s)://`` URL (fetched and verified by
``pretrained.downloads``). What ``load_pretrained_bilm``, ``ElmoEmbedder`` and the ``embed`` command accept.
"""

from __future__ import annotations

import os

from elmo_keras.pretrained.downloads import (
    OFFLINE_ENV,
    DownloadProgress,
    OfflineError,
    cache_path,
    cached_file,
    is_offline,
    is_url,
    offline_error,
    stderr_progress,
)
from elmo_keras.pretrained.registry import RELEASED_MODELS, RemoteFile, published_file, released_model
from elmo_keras.pretrained.urls import normal_url


def model_sources(options_file, weight_file=None) -> tuple[str | RemoteFile, str | RemoteFile]:
    """What the two files are, without any I/O: a released model's ``RemoteFile`` s for a name (``weight_file``
    None), else each argument as a local path (str) or, for a URL, a ``RemoteFile`` with the registry's size and
    checksum where it lists that URL.

    Raises:
        TypeError: an argument is not a str or path (a number passed where ``weight_file`` goes, say).
        ValueError: ``weight_file`` is None and ``options_file`` is no released model's name; ``URLError``: a URL
            ``urls.checked_url`` refuses.
    """
    if weight_file is None:
        if not isinstance(options_file, str):
            raise TypeError(f"pass a released model's name ({', '.join(RELEASED_MODELS)}) or options_file and "
                            f"weight_file; received options_file={options_file!r:.80} and no weight_file")
        return released_model(options_file).files
    sources = []
    for argument, value in (("options_file", options_file), ("weight_file", weight_file)):
        if not isinstance(value, (str, os.PathLike)):
            hint = ("; for a released model pass its name alone, e.g. load_pretrained_elmo('elmo_small_en', "
                    "num_output_representations=2)" if argument == "weight_file" else "")
            raise TypeError(f"{argument} must be a path or an http(s) URL, received {type(value).__name__} "
                            f"({value!r:.60}){hint}")
        if is_url(value):  # checked before any work: a bad port, credentials, no host are refused here
            url = normal_url(value)
            sources.append(published_file(url) or RemoteFile(url))
        else:
            sources.append(os.fspath(value))
    return sources[0], sources[1]


def model_file_paths(options_file, weight_file=None) -> tuple[str, str]:
    """The two local paths ``local_model_files`` will return (cache paths for URLs), without downloading anything:
    what a command checks its outputs against before it starts. Raises as ``model_sources``."""
    return tuple(source if isinstance(source, str) else str(cache_path(source.url))
                 for source in model_sources(options_file, weight_file))


def local_model_files(options_file, weight_file=None,
                      progress: DownloadProgress | None = stderr_progress) -> tuple[str, str]:
    """A model's ``options.json`` and weight file as two local paths, downloading what is not cached yet.

    Args:
        options_file: a released model's name (``"elmo_small_en"``; then ``weight_file`` is None), or the options
            file: a path or an ``http(s)://`` URL.
        weight_file: the weight file, a path or an ``http(s)://`` URL. Defaults to None (``options_file`` is a name).
        progress: called as ``progress(file name, bytes so far, total or None)`` while downloading; None for
            silence. Defaults to ``stderr_progress``.

    Returns:
        ``(options path, weights path)`` as str; local paths are returned as given (their checks come when they are
        read), cached files have been verified (``cached_file``).

    Raises:
        TypeError, ValueError: as ``model_sources`` (an unknown name lists the released ones).
        OfflineError: files to download while offline or with the network down (one line: the URLs, where to put
            them by hand).
        DownloadError: an HTTP error (404 ...), a dropped connection, a length other than expected.
        CachedFileChangedError: a cached file changed since it was downloaded (delete it to download it again).
    """
    name = options_file if weight_file is None else None
    sources = model_sources(options_file, weight_file)
    copies = iter(cached_copies([source for source in sources if isinstance(source, RemoteFile)], name, progress))
    options, weights = (source if isinstance(source, str) else next(copies) for source in sources)
    return options, weights


def cached_copies(remote: list[RemoteFile], name: str | None = None,
                  progress: DownloadProgress | None = stderr_progress) -> list[str]:
    """The verified local copies of the ``remote`` files, in order, downloading those not cached yet.

    Args:
        remote: the files (their URL, and the size and checksum where known).
        name: the released model they belong to, for the offline message; None where they are given by URL.
        progress: as for ``local_model_files``.

    Raises:
        OfflineError: files to download while offline or with the network down (one line naming every file still
            missing and where to put it by hand); the download errors of ``cached_file``.
    """
    missing = [source.url for source in remote if not cache_path(source.url).is_file()]
    if missing and is_offline():
        raise offline_error(missing, f"{OFFLINE_ENV}={os.environ.get(OFFLINE_ENV)} is set", name=name)
    paths = []
    for source in remote:
        try:
            paths.append(str(cached_file(source.url, size=source.size, sha256=source.sha256, progress=progress)))
        except OfflineError as error:  # the network is down: say where every file still missing goes
            still_missing = [url for url in missing if not cache_path(url).is_file()] or [source.url]
            raise offline_error(still_missing, error.reason, name=name) from None
    return paths
