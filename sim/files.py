"""Files of the user's and of the batches: atomic writes (a reader never sees a half-written
file under its final name) and reads of a user's text files with one-line errors.

This module sits at the bottom of the layers (it imports only ``sim.errors``), so the games'
data and position loaders use it as well as the configs and manifests: every text file a user
gives is read with the same checks and the same wording.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
import tomllib
from pathlib import Path
from typing import Any

from sim.errors import InputError

# A user's text file (a config, a tile set, a position, a manifest) is small; anything bigger
# than this is not one, and reading a device or a huge file must not hang or exhaust memory.
MAX_TEXT_BYTES = 256 * 1024 * 1024


def write_bytes_atomic(path: str | Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, fsync it, then rename it into place."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp creates 0600; results are meant to be shared like any other output file.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_text_atomic(path: str | Path, text: str) -> None:
    """Atomic write of UTF-8 text (see ``write_bytes_atomic``)."""
    write_bytes_atomic(path, text.encode("utf-8"))


def read_user_text(path: str | Path, what: str) -> str:
    """The UTF-8 text of a file a user gave, or a one-line ``InputError`` that names the file,
    says what it should have been (``what``: "config file", "tile set file", ...) and why it
    cannot be read: not found, a folder, not a regular file, too big, unreadable, not UTF-8."""
    path = Path(path)
    try:
        mode = path.stat().st_mode
        if stat.S_ISDIR(mode):
            raise InputError(f"{path}: {what} is a folder, not a file")
        if not stat.S_ISREG(mode):
            raise InputError(f"{path}: {what} is not a regular file")
        with path.open("rb") as stream:
            data = stream.read(MAX_TEXT_BYTES + 1)
    except FileNotFoundError:
        raise InputError(f"{path}: {what} not found") from None
    except NotADirectoryError:
        raise InputError(f"{path}: {what} not found (a part of the path is a file)") from None
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise InputError(f"{path}: {what} cannot be read ({reason})") from None
    if len(data) > MAX_TEXT_BYTES:
        raise InputError(f"{path}: {what} is larger than {MAX_TEXT_BYTES // 2**20} MiB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: {what} is not UTF-8 text (byte {error.start})") from None


def parse_user_json(text: str, path: str | Path, what: str) -> Any:
    """JSON ``text`` read from ``path``, or a one-line ``InputError`` (invalid, or nested too
    deeply for the parser)."""
    try:
        return json.loads(text)
    except RecursionError:
        raise InputError(f"{path}: {what} is not valid JSON (nested too deeply)") from None
    except json.JSONDecodeError as error:
        raise InputError(f"{path}: {what} is not valid JSON ({error.msg} at line "
                         f"{error.lineno}, column {error.colno})") from None


def parse_user_toml(text: str, path: str | Path, what: str) -> dict[str, Any]:
    """TOML ``text`` read from ``path``, or a one-line ``InputError``."""
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise InputError(f"{path}: {what} is not valid TOML (nested too deeply)") from None
    except tomllib.TOMLDecodeError as error:
        reason = " ".join(str(error).split())
        raise InputError(f"{path}: {what} is not valid TOML ({reason})") from None


def read_user_json(path: str | Path, what: str) -> Any:
    """A user's JSON file, parsed (``read_user_text`` and ``parse_user_json``)."""
    return parse_user_json(read_user_text(path, what), path, what)


def read_user_toml(path: str | Path, what: str) -> dict[str, Any]:
    """A user's TOML file, parsed (``read_user_text`` and ``parse_user_toml``)."""
    return parse_user_toml(read_user_text(path, what), path, what)
