"""Files of the user's and of the batches: atomic writes (a reader never sees a half-written
file under its final name), the writer lock of a batch or sweep folder, reads of a user's text
files with one-line errors, and an operating-system error (a full disk, a read-only folder) as
one line that says what to do.

This module sits at the bottom of the layers (it imports only ``sim.errors``), so the games'
data and position loaders use it as well as the configs and manifests: every text file a user
gives is read with the same checks and the same wording.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import re
import shutil
import socket
import stat
import tempfile
import time
import tomllib
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sim.errors import InputError

# A user's text file (a config, a tile set, a position, a manifest) is small; anything bigger
# than this is not one, and reading a device or a huge file must not hang or exhaust memory.
MAX_TEXT_BYTES = 256 * 1024 * 1024


def host_tag() -> str:
    """Eight hex digits standing for this machine (of its host name): temporary files carry it,
    so that a process checks whether the writer of a leftover is alive only on its own host."""
    return hashlib.sha256(socket.gethostname().encode("utf-8", "surrogateescape")).hexdigest()[:8]


def temporary_prefix(path: Path) -> str:
    """The start of the temporary names of ``path`` written by this process:
    ``.NAME.PID-HOST.`` (``mkstemp`` adds random letters and ``.tmp``)."""
    return f".{path.name}.{os.getpid()}-{host_tag()}."


# The owner part of a temporary name: ``.NAME.PID-HOST.RANDOM.tmp``.
_TEMPORARY_OWNER = re.compile(r"\.(?P<pid>\d+)-(?P<host>[0-9a-f]{8})\.[^.]+\.tmp$")


def temporary_owner(name: str) -> tuple[int, str] | None:
    """The process id and host tag in a temporary file name written by ``write_bytes_atomic``,
    or None for a name without them (written by a sim from before the writer lock)."""
    match = _TEMPORARY_OWNER.search(name)
    return (int(match["pid"]), match["host"]) if match else None


def process_is_dead(pid: int) -> bool:
    """True when no process ``pid`` exists on this host (a process of another user counts as
    alive: it exists)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def may_remove_temporary(name: str) -> bool:
    """Whether a writer holding a folder's lock may delete the temporary file ``name`` there:
    its own, or one whose writer is provably dead (same host, no such process). A name without
    an owner was left by a sim from before the writer lock, which named no owner (no writer of
    this version makes one), so it is removed as before."""
    owner = temporary_owner(name)
    if owner is None:
        return True
    pid, host = owner
    if host != host_tag():
        return False  # another machine's process (a shared folder): its liveness is unknown
    return pid == os.getpid() or process_is_dead(pid)


def _with_path(error: OSError, path: Path) -> OSError:
    """``error`` naming ``path`` (a failed write names no file; a failed rename names the
    temporary one): the path the user knows."""
    if error.errno is None:
        return error
    named = type(error)(error.errno, error.strerror or os.strerror(error.errno), str(path))
    return named


# The folders this process writes as their only writer (a batch or sweep under its writer
# lock, a report being built in its staging folder), absolute as given: a write inside one of
# them never goes through a symbolic link (``refuse_link_on_the_way``).
_OWNED_FOLDERS: set[Path] = set()


def _absolute(path: Path) -> Path:
    """``path`` made absolute without resolving links (resolving would hide the very link
    that is looked for)."""
    return Path(os.path.abspath(path))


def refuse_link_on_the_way(path: Path) -> None:
    """A one-line ``InputError`` when ``path`` lies inside a folder this process owns (a batch
    or sweep it holds the writer lock of, a report folder it builds) and a folder between
    that one and ``path`` is a symbolic link: a write there would land outside the folder.
    Folders above the owned one are the user's choice and are not looked at."""
    if not _OWNED_FOLDERS:
        return
    target = _absolute(path)
    for owned in _OWNED_FOLDERS:
        if not target.is_relative_to(owned) or target == owned:
            continue
        folder = owned
        for part in target.relative_to(owned).parts[:-1]:
            folder = folder / part
            try:
                mode = os.lstat(folder).st_mode
            except FileNotFoundError:
                break  # created below, as a real folder
            except OSError:
                break  # the write itself will say why
            if stat.S_ISLNK(mode):
                raise InputError(link_refusal(folder, owned))


def link_refusal(link: Path, owner: Path) -> str:
    """The one line refusing a symbolic link ``link`` inside the folder ``owner``."""
    try:
        target = os.readlink(link)
    except OSError:
        target = "?"
    return (f"{link}: a symbolic link (to {target}) inside {owner}; sim reads and writes a "
            f"batch, sweep or report only inside its own folder: replace the link by a real "
            f"folder (or remove it)")


def refuse_links_inside(folder: Path) -> None:
    """A one-line ``InputError`` naming the first symbolic link found anywhere inside
    ``folder`` (links are not followed; ``folder`` itself may be one, the user's choice). A
    batch, sweep or report folder holds only what sim wrote there: a link in it (``shards/``
    pointing elsewhere) would make a run delete or write files outside it."""
    folder = Path(folder)
    pending = [folder]
    while pending:
        current = pending.pop()
        try:
            entries = list(os.scandir(current))
        except (FileNotFoundError, NotADirectoryError):
            continue
        for entry in sorted(entries, key=lambda entry: entry.name):
            if entry.is_symlink():
                raise InputError(link_refusal(Path(entry.path), folder))
            if entry.is_dir(follow_symlinks=False):
                pending.append(Path(entry.path))


@contextmanager
def owned_folder(folder: Path) -> Iterator[Path]:
    """While inside, ``folder`` is one this process owns: every ``write_bytes_atomic`` below it
    refuses to go through a symbolic link (``refuse_link_on_the_way``)."""
    key = _absolute(Path(folder))
    added = key not in _OWNED_FOLDERS
    _OWNED_FOLDERS.add(key)
    try:
        yield Path(folder)
    finally:
        if added:
            _OWNED_FOLDERS.discard(key)


def write_bytes_atomic(path: str | Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, fsync it, then rename it into place.
    The temporary name carries this process's id and host (``temporary_prefix``), so a writer
    only ever deletes its own leftovers or a dead process's. An operating-system error (disk
    full, read-only, ...) is raised naming ``path``, with nothing left behind. Inside a folder
    this process owns (a locked batch or sweep, a report being built) a folder on the way that
    is a symbolic link is refused (``InputError``) before anything is written: the rename
    replaces a link at ``path`` itself rather than writing through it, and the temporary file
    is created exclusively, so only a linked folder could lead elsewhere."""
    path = Path(path)
    refuse_link_on_the_way(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        refuse_link_on_the_way(path)  # a link put there meanwhile
        handle, temporary = tempfile.mkstemp(prefix=temporary_prefix(path), suffix=".tmp",
                                             dir=path.parent)
    except OSError as error:
        raise _with_path(error, Path(error.filename or path)) from None
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
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        raise _with_path(error, path) from None
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


# The lock file a batch or sweep folder holds while a process writes it (see ``WriterLock``).
LOCK_FILE = "writer.lock"
# How long a second writer waits for the holder's line to appear in the lock file (the holder
# writes it just after taking the lock).
_HOLDER_WAIT_SECONDS = 0.5


# The folders whose writer lock this process holds (resolved), so that its own checks of a
# folder (``raise_if_locked``) do not take its own lock for someone else's.
_HELD_FOLDERS: set[str] = set()


class WriterLock:
    """The writer lock of a folder, held (see ``hold_writer_lock``); ``release`` gives it up."""

    def __init__(self, path: Path, handle: int) -> None:
        self.path = path
        self.handle: int | None = handle
        self.folder_key = str(path.parent.resolve())
        _HELD_FOLDERS.add(self.folder_key)
        # Every write of the holder inside the folder refuses to go through a link.
        self.owned_key = _absolute(path.parent)
        self.owns_folder = self.owned_key not in _OWNED_FOLDERS
        _OWNED_FOLDERS.add(self.owned_key)

    def release(self) -> None:
        """Remove the lock file (while it is still this lock's) and unlock; safe to repeat."""
        if self.handle is None:
            return
        try:
            if _same_file(self.path, self.handle):
                self.path.unlink()
        except OSError:
            pass  # a lock file left behind is taken over by the next writer
        os.close(self.handle)  # closing the last descriptor releases the flock
        self.handle = None
        _HELD_FOLDERS.discard(self.folder_key)
        if self.owns_folder:
            _OWNED_FOLDERS.discard(self.owned_key)

    def __enter__(self) -> WriterLock:
        return self

    def __exit__(self, *exc_info) -> None:
        self.release()


def _same_file(path: Path, handle: int) -> bool:
    """True when ``path`` is (still) the file open as ``handle``."""
    try:
        named = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return False
    held = os.fstat(handle)
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


def _holder_text(handle: int) -> str:
    """Who holds a lock, from the line its holder wrote into the lock file."""
    deadline = time.monotonic() + _HOLDER_WAIT_SECONDS
    while True:
        try:
            text = os.pread(handle, 4096, 0).decode("utf-8", "replace")
        except OSError:
            text = ""
        try:
            holder = json.loads(text)
        except ValueError:
            holder = None
        if isinstance(holder, dict) or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    if not isinstance(holder, dict):
        return "another sim"
    pid, host, started = holder.get("pid"), holder.get("host"), holder.get("started")
    who = []
    if isinstance(pid, int):
        who.append(f"pid {pid}")
    if isinstance(host, str):
        who.append(f"on host {escape_control_characters(host[:64])}")
    parts = [" ".join(who)] if who else []
    if isinstance(started, (int, float)):
        moment = time.localtime(started)
        same_day = time.localtime()[:3] == moment[:3]
        parts.append("since " + time.strftime("%H:%M" if same_day else "%Y-%m-%d %H:%M",
                                                moment))
    return f"another sim ({', '.join(parts)})" if parts else "another sim"


def _locked_message(folder: Path, handle: int, what: str) -> str:
    return f"{folder}: {_holder_text(handle)} is writing this {what}; wait for it or stop it"


def raise_if_locked(folder: Path, what: str) -> None:
    """A one-line ``InputError`` naming the holder when another process holds ``folder``'s
    writer lock; nothing is created or written (a folder without a lock file is free). Lets a
    command say so before any other check of the folder (whose state is the holder's business
    while it writes)."""
    folder = Path(folder)
    path = folder / LOCK_FILE
    try:
        if str(folder.resolve()) in _HELD_FOLDERS:
            return
        handle = os.open(path, os.O_RDONLY | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return  # no lock file, or none we may read: taking the lock will say why
    try:
        # A shared lock, dropped at once: refused only while a writer holds it.
        fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        message = _locked_message(folder, handle, what)
        os.close(handle)
        raise InputError(message) from None
    except OSError:
        pass
    os.close(handle)


def hold_writer_lock(folder: Path, what: str) -> WriterLock:
    """Take the writer lock of ``folder`` (a batch or a sweep, ``what`` says which), creating
    the folder if needed; a second writer gets a one-line ``InputError`` naming the holder and
    has written nothing.

    The lock is ``fcntl.flock`` on ``folder/writer.lock``: the kernel releases it when its
    process ends however it ends, so the lock file of a killed process is simply taken over
    (its line says pid, host and start, for the message a second writer gets). Released, the
    file is removed; a writer that opened it just before checks after locking that the name
    still leads to the file it locked, else it opens the new one.

    A folder holding a symbolic link anywhere inside (``shards/`` or ``input/`` linked to a
    folder elsewhere) is refused in one line before anything is written
    (``refuse_links_inside``): a writer deletes its leftovers and writes its files there."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    refuse_links_inside(folder)
    path = folder / LOCK_FILE
    flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(20):
        try:
            handle = os.open(path, flags, 0o666)
        except OSError as error:
            if error.errno == errno.ELOOP:
                raise InputError(f"{path}: a link, not sim's lock file; remove it") from None
            raise _with_path(error, path) from None
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            message = _locked_message(folder, handle, what)
            os.close(handle)
            raise InputError(message) from None
        except OSError as error:
            os.close(handle)
            raise _with_path(error, path) from None
        if not _same_file(path, handle):
            os.close(handle)  # released and removed by its holder meanwhile: lock the new one
            continue
        line = json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                           "started": round(time.time(), 3)}) + "\n"
        try:
            os.ftruncate(handle, 0)
            os.pwrite(handle, line.encode("utf-8", "surrogateescape"), 0)
        except OSError as error:
            os.close(handle)
            raise _with_path(error, path) from None
        return WriterLock(path, handle)
    raise InputError(f"{path}: the lock file keeps being replaced; is another program "
                     f"removing it?")


# Characters never printed as they are: C0 and C1 controls (newline, escape sequences), format
# characters that reorder or hide text (bidirectional overrides), line and paragraph
# separators, and lone surrogates (undecodable bytes of a file name). Joiners are kept: they
# are part of ordinary emoji and scripts.
_CONTROL_CATEGORIES = {"Cc", "Cf", "Cs", "Zl", "Zp"}
_KEPT_FORMAT_CHARACTERS = {"\u200c", "\u200d"}


def is_control_character(character: str) -> bool:
    """True for a character that must never reach a terminal raw
    (``escape_control_characters``)."""
    return unicodedata.category(character) in _CONTROL_CATEGORIES \
        and character not in _KEPT_FORMAT_CHARACTERS


def escape_control_characters(text: str) -> str:
    """``text`` with every control character written as Python writes it in a string literal
    (``\\n``, ``\\x1b``, ``\\u202e``): a name or path printed this way cannot break a one-line
    message into two, clear the screen or reorder what is shown."""
    if text.isprintable():
        return text
    return "".join(repr(c)[1:-1] if is_control_character(c) else c for c in text)


# What an operating-system error means and what to do about it, by errno (any other errno: the
# system's own words).
_OS_ERROR_ADVICE = {
    errno.ENOSPC: "no space left on the device; free some space or write elsewhere (--out)",
    errno.EDQUOT: "disk quota exceeded; free some space or write elsewhere (--out)",
    errno.EFBIG: "file too large (a file-size limit such as `ulimit -f`, or the file "
                 "system's); raise the limit or write elsewhere (--out)",
    errno.EROFS: "read-only file system; write elsewhere (--out)",
    errno.EACCES: "permission denied; write where you may (--out) or change the folder's "
                  "permissions",
    errno.EPERM: "operation not permitted; write where you may (--out) or change the "
                 "folder's permissions",
    errno.ENOTDIR: "a part of this path is a file, not a folder; choose another path",
    errno.ENAMETOOLONG: "name too long for the file system; choose a shorter name or path",
    errno.EISDIR: "a folder, not a file; choose another path",
    errno.ENOENT: "no such file or folder (removed while sim was using it?)",
    errno.ELOOP: "too many levels of symbolic links; choose another path",
    errno.EMFILE: "too many open files; raise the limit (`ulimit -n`)",
    errno.ENFILE: "too many open files on this system; try again later",
    errno.EIO: "input/output error (a failing disk, or a drive removed?)",
}
# A longer path is shown by its two ends in an error line.
_LONGEST_PATH_SHOWN = 160
# The errors of a place that cannot be written at all (not a full or failing disk).
READ_ONLY_ERRORS = (errno.EROFS, errno.EACCES, errno.EPERM)


def is_read_only_error(error: OSError) -> bool:
    """True when ``error`` says the place cannot be written (read-only file system, or no
    permission), as opposed to a write that failed part-way."""
    return error.errno in READ_ONLY_ERRORS


def os_error_line(error: OSError) -> str:
    """An operating-system error as one line: the path it concerns, what went wrong and what
    to do (control characters escaped)."""
    advice = _OS_ERROR_ADVICE.get(error.errno) if error.errno is not None else None
    reason = advice or error.strerror or type(error).__name__
    where = error.filename if error.filename is not None else None
    if isinstance(where, bytes):
        where = where.decode("utf-8", "surrogateescape")
    if where and len(where) > _LONGEST_PATH_SHOWN:
        # A path too long for the system would fill the screen: its two ends say which it is.
        half = _LONGEST_PATH_SHOWN // 2
        where = f"{where[:half]}...{where[-half:]} ({len(where)} characters)"
    text = f"{where}: {reason}" if where else reason
    return escape_control_characters(str(text))


def check_output_folder(folder: Path, is_own: Callable[[str], bool], what: str,
                        option: str = "--out") -> None:
    """A one-line ``InputError`` unless ``folder`` may be replaced by a new ``what`` (a
    report): it is absent, or a real folder (not a symbolic link, not a file) holding only
    files ``is_own`` accepts (paths relative to it, ``/``-separated) and no link. The user's
    own files are never deleted: a folder holding any is refused, naming one. ``option`` is
    the option that picks the folder."""
    folder = Path(folder)
    try:
        mode = os.lstat(folder).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISLNK(mode):
        state = "a dangling symbolic link" if not folder.exists() else "a symbolic link"
        raise InputError(f"{folder}: {state}; sim writes a {what} only into a folder of its "
                         f"own, never through a link: give another folder with {option}")
    if not stat.S_ISDIR(mode):
        raise InputError(f"{folder}: an existing file, not a folder; give another folder with "
                         f"{option}")
    refuse_links_inside(folder)
    foreign = sorted(path.relative_to(folder).as_posix() for path in folder.rglob("*")
                     if not path.is_dir() and not is_own(path.relative_to(folder).as_posix()))
    if foreign:
        more = f" and {len(foreign) - 1} more" if len(foreign) > 1 else ""
        raise InputError(f"{folder}: holds files the {what} did not write ({foreign[0]}{more}); "
                         f"sim replaces a {what} folder whole and never deletes your files: "
                         f"move them, or give another folder with {option}")


def _remove_dead_stagings(folder: Path) -> None:
    """Remove the staging folders of ``folder`` left by a process that died while writing
    (``.NAME.PID-HOST.RANDOM.tmp`` beside it, its writer provably gone); an old folder it had
    renamed aside (``.NAME.PID-HOST.old.tmp``) and not yet replaced is put back."""
    parent = folder.parent
    prefix = f".{folder.name}."
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return
    for entry in entries:
        if (entry.name.startswith(prefix) and temporary_owner(entry.name) is not None
                and entry.name[len(prefix):].count(".") == 2
                and entry.is_dir(follow_symlinks=False) and may_remove_temporary(entry.name)
                and temporary_owner(entry.name)[0] != os.getpid()):
            if entry.name.endswith(".old.tmp") and not os.path.lexists(folder):
                os.rename(entry.path, folder)  # killed between its two renames
            else:
                shutil.rmtree(entry.path, ignore_errors=True)


@contextmanager
def replace_folder_whole(folder: Path, is_own: Callable[[str], bool],
                         what: str) -> Iterator[Path]:
    """Build a new ``folder`` all-or-nothing: yields a staging folder beside it
    (``.NAME.PID-HOST.RANDOM.tmp``, owned: no write in it goes through a link) to write every
    file into; when the block ends normally the old ``folder`` is renamed aside, the staging
    folder renamed in and the old one removed. An error or interrupt inside the block removes
    the staging folder and leaves the old ``folder`` as it was, never a mix of old and new.

    ``folder`` is first checked with ``check_output_folder`` (``is_own``, ``what``) and checked
    again just before the swap (files the user put there meanwhile are not deleted). Staging
    folders of a process that died while writing are removed."""
    folder = Path(folder)
    check_output_folder(folder, is_own, what)
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        _remove_dead_stagings(folder)
        staging = Path(tempfile.mkdtemp(prefix=temporary_prefix(folder), suffix=".tmp",
                                        dir=folder.parent))
    except OSError as error:
        raise _with_path(error, Path(error.filename or folder)) from None
    try:
        # mkdtemp creates 0700; a report is meant to be shared like any other output.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(staging, 0o777 & ~umask)
        with owned_folder(staging):
            yield staging
        check_output_folder(folder, is_own, what)
        aside = None
        if os.path.lexists(folder):
            aside = folder.parent / f"{temporary_prefix(folder)}old.tmp"
            os.rename(folder, aside)
        try:
            os.rename(staging, folder)
        except BaseException:
            if aside is not None:
                os.rename(aside, folder)
            raise
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if aside is not None:
        shutil.rmtree(aside, ignore_errors=True)
