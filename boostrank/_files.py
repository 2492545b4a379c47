"""Output files that are whole or absent: atomic replacement of regular files, write-through to the rest."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from typing import Callable


def _special(path: str) -> bool:
    """An existing path that is not a regular file (a device, FIFO or socket): written through, never replaced."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def check_out(out, *inputs, option: str = "--out") -> None:
    """Refuse an output path before any work: empty, a folder, one of the inputs, or in a folder we cannot write."""
    if out is None:
        return
    if str(out) == "":
        raise ValueError(f"{option} is empty; name a file")
    out = os.fspath(out)
    if os.path.isdir(out):
        raise ValueError(f"{option} {out} is a folder; name a file in it")
    target = os.path.realpath(out)
    for path in inputs:
        if path and os.path.exists(path) and os.path.realpath(path) == target:
            raise ValueError(f"{option} {out} is one of the inputs ({path}); choose another file")
    if _special(target):
        return  # /dev/null, /dev/stdout, a FIFO: written through
    folder = os.path.dirname(target) or "."
    if not os.path.isdir(folder):
        raise ValueError(f"{option} {out}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise ValueError(f"{option} {out}: folder {folder} is not writable")


def write_atomic(out, write: Callable[[str], object]) -> None:
    """Call ``write(path)`` so that ``out`` ends up whole or as it was.

    A regular file (or a new one) is written to a temporary file beside it and moved
    over it; through a symlink, the link's target is replaced and the link kept.  The
    file gets the mode an ordinary ``open`` would give (the existing file's, else
    0666 less the umask), not ``mkstemp``'s 0600.  A device, FIFO or socket (``/dev/null``,
    ``/dev/stdout``) gets the finished bytes through one ``open``: renaming over it would
    replace the device, and a writer that opened a FIFO twice would end its reader's
    read at the first close.
    """
    out = os.fspath(out)
    target = os.path.realpath(out)
    if _special(target):
        fd, tmp = tempfile.mkstemp(prefix=".boostrank-", suffix=os.path.splitext(target)[1])
        os.close(fd)
        try:
            write(tmp)
            with open(tmp, "rb") as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst)
        finally:
            os.unlink(tmp)
        return
    folder = os.path.dirname(target) or "."
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    # same suffix: XGBoost picks its file format from the extension
    fd, tmp = tempfile.mkstemp(prefix=".boostrank-", suffix=os.path.splitext(target)[1], dir=folder)
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
