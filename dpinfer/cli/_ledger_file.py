"""A :class:`~dpinfer.PrivacyBudget` kept in a file across ``dpinfer release`` invocations.

Two rules make the file trustworthy:

* **One writer at a time.**  Every invocation holds an exclusive ``fcntl.flock``
  on ``FILE.lock`` from reading the ledger to writing it back, so two concurrent
  releases never both read the old ledger and lose one charge.  The lock file is
  left in place (deleting it would let a third process lock a different file);
  the kernel releases the lock when a process dies, even by ``kill -9``.
* **Atomic replacement.**  The new ledger is written to a temporary file in the
  same folder, flushed to disk (``fsync``) and renamed over the old one
  (``os.replace``, atomic on POSIX), then the folder is synced.  A process killed
  at any point leaves either the old ledger or the new one, never a torn file; a
  stray ``.FILE.*.tmp`` may remain and is ignored.

The release is written out (printed) only after the ledger holding its charge is
on disk, so a crash can lose a release but never an emitted release's charge;
a retried release is a new release, charged again, as it should be.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

from .._validation import _check_delta, _check_epsilon
from ..budget import BudgetExceededError, PrivacyBudget

__all__ = []  # private module


class LedgerFileError(ValueError):
    """The ledger file cannot be used as asked (exit status 2 in the command)."""


def _flush_to_disk(handle):
    """Flush ``handle`` to the operating system and the disk (a seam for the crash test)."""
    handle.flush()
    os.fsync(handle.fileno())


def write_atomic(path, text):
    """Replace ``path`` by ``text`` atomically (temporary file in the same folder, fsync, rename)."""
    path = Path(path)
    folder = path.resolve().parent
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            _flush_to_disk(handle)
        if path.exists():
            mode = path.stat().st_mode & 0o777
        else:  # a new ledger gets the mode of any new file (mkstemp makes it 0600)
            mask = os.umask(0)
            os.umask(mask)
            mode = 0o666 & ~mask
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    dir_fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def read_budget(path):
    """The budget in ``path`` (LedgerFileError if missing or unreadable)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise LedgerFileError(f"ledger file {str(path)!r} does not exist.") from exc
    except OSError as exc:
        raise LedgerFileError(f"cannot read ledger file {str(path)!r}: {exc.strerror}.") from exc
    try:
        return PrivacyBudget.from_json(text)
    except (TypeError, ValueError) as exc:
        raise LedgerFileError(f"ledger file {str(path)!r} is not a valid dpinfer budget: {exc}") from exc


@contextmanager
def locked_budget(path, *, total_epsilon=None, total_delta=None, description=""):
    """Hold the ledger ``path`` locked; yield its budget; write it back if it gained entries.

    The file is created on first use from ``total_epsilon`` (required then) and
    ``total_delta`` (default 0).  Later, totals given must equal the file's.  The
    budget is written back (atomically) whenever the block leaves it with more
    entries than it had, also when the block raises after a charge: a release
    that failed after its charge keeps it.
    """
    path = Path(path)
    lock_fd = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(lock_fd, fcntl.LOCK_EX)
        if path.exists():
            budget = read_budget(path)
            for flag, given, held in (("--total-epsilon", total_epsilon, budget.epsilon),
                                      ("--total-delta", total_delta, budget.delta)):
                if given is not None and given != held:
                    raise LedgerFileError(
                        f"{flag} {given:g} differs from the total {held:g} recorded in ledger {str(path)!r}; "
                        "a ledger's totals are fixed when it is created (omit the flag to use the file's).")
        else:
            if total_epsilon is None:
                raise LedgerFileError(
                    f"ledger file {str(path)!r} does not exist; create it on the first release with "
                    "--total-epsilon E (and --total-delta D if the releases use delta).")
            budget = PrivacyBudget(_check_epsilon(total_epsilon, "--total-epsilon"),
                                   _check_delta(0.0 if total_delta is None else total_delta, "--total-delta"),
                                   description=description)
        start = len(budget.ledger)
        try:
            yield budget
        except BudgetExceededError as exc:
            raise LedgerFileError(f"ledger {str(path)!r} cannot pay for this release: {exc.detail}") from exc
        finally:
            if len(budget.ledger) > start:
                try:
                    write_atomic(path, budget.to_json())
                except OSError as exc:
                    raise LedgerFileError(
                        f"cannot write ledger file {str(path)!r} ({exc.strerror or exc}); the release was "
                        "not shown and the ledger is unchanged.") from exc
    finally:
        fcntl.flock(lock_fd, fcntl.LOCK_UN)
        os.close(lock_fd)
