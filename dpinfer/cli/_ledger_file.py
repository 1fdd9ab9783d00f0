"""A :class:`~dpinfer.PrivacyBudget` kept in a file across ``dpinfer release`` invocations.

Three rules make the file trustworthy:

* **One writer at a time.**  Every invocation holds an exclusive ``fcntl.flock``
  on the ledger's folder and then on ``FILE.lock`` from reading the ledger to
  writing it back, so two concurrent releases never both read the old ledger and
  lose one charge.  The lock file is left in place.  If it is deleted (or
  replaced), a process waiting on it would hold a lock on a file no longer at
  that path while a newcomer locks a new one: after ``flock`` returns the lock
  is kept only if the locked file is still the one at ``FILE.lock`` (same device
  and inode), else it is taken again; and the folder's lock, which cannot be
  deleted from under its holder, keeps a newcomer out while a holder's lock file
  is deleted.  The kernel releases the locks when a process dies, even by
  ``kill -9``.
* **A head kept beside the file.**  After every charge the command writes
  ``FILE.head`` (the number of entries and the head digest), and it refuses a
  ledger whose chain does not reach that head: an older copy put back (a
  rollback), a truncated or rewritten ledger, or a deleted ledger while its head
  remains.  The chain's digests carry no key, so a person who can write both
  files can still roll both back; the releases' published digests catch that
  (``dpinfer budget verify``, :meth:`~dpinfer.PrivacyBudget.verify`).
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
import json
import os
import re
import tempfile
from contextlib import contextmanager
from pathlib import Path

from .._validation import _check_delta, _check_epsilon
from ..budget import AllocationPlan, BudgetExceededError, PrivacyBudget
from ..budget._verify import anchor_problem, verify_releases

_HEAD_FORMAT = "dpinfer.LedgerHead"

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


def head_path(path):
    """The sidecar ``FILE.head`` beside the ledger ``path``: its entry count and head digest."""
    path = Path(path)
    return path.with_name(path.name + ".head")


def read_head(path, given=None):
    """``(entries, head digest)`` recorded in the sidecar of ledger ``path``, or None when it has none."""
    given = str(path) if given is None else given
    side = head_path(path)
    try:
        with open(side, encoding="utf-8") as handle:
            text = handle.read(4096)
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise LedgerFileError(f"cannot read the head file {str(side)!r} of ledger {given!r}: "
                              f"{getattr(exc, 'strerror', None) or exc}.") from exc
    try:
        data = json.loads(text)
        ok = (isinstance(data, dict) and set(data) == {"format", "entries", "head_digest"}
              and data["format"] == _HEAD_FORMAT and type(data["entries"]) is int and data["entries"] >= 0
              and isinstance(data["head_digest"], str) and re.fullmatch(r"[0-9a-f]{64}", data["head_digest"]))
    except ValueError:
        ok = False
    if not ok:
        raise LedgerFileError(f"the head file {str(side)!r} of ledger {given!r} is not what 'dpinfer release "
                              "--budget' writes (format, entries, head_digest); it was edited. Restore it, or "
                              "check the ledger with 'dpinfer budget verify' against the published releases.")
    return data["entries"], data["head_digest"]


def write_head(path, budget):
    """Record ``budget``'s entry count and head digest in the sidecar of ledger ``path`` (atomically)."""
    write_atomic(head_path(path), json.dumps({"format": _HEAD_FORMAT, "entries": len(budget.ledger),
                                              "head_digest": budget.head_digest}) + "\n")


def verify_ledger(path, releases, names):
    """``(LedgerVerification, why behind its head file or None)`` of the ledger (or events export) ``path``.

    Unlike :func:`read_budget`, a ledger behind its head file is read and
    reported, not refused: the releases it lacks are the point of the check.
    """
    given = str(path)
    head = read_head(path, given)
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as exc:
        raise LedgerFileError(f"cannot read ledger file {given!r}: {exc.strerror or exc}.") from exc
    try:
        if '"dpinfer.LedgerEvents"' in text[:200]:  # a --format events export (its "format" comes first)
            budget = PrivacyBudget.from_events(text)
        else:
            budget = PrivacyBudget._from_text(text, "the file")
    except (TypeError, ValueError) as exc:
        raise LedgerFileError(f"ledger file {given!r} is not a valid dpinfer budget: {exc}") from exc
    return verify_releases(budget, releases, names), None if head is None else anchor_problem(budget, *head)


def read_budget(path, given=None):
    """The budget in ``path``, checked against its head file (LedgerFileError if missing, unreadable or
    behind; messages name ``given``)."""
    path = Path(path)
    given = str(path) if given is None else given
    head = read_head(path, given)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        if head is not None:
            raise LedgerFileError(f"ledger file {given!r} does not exist, but its head file records "
                                  f"{head[0]} entries: the ledger was deleted or moved. Restore it; a new "
                                  "ledger would spend the total again.") from exc
        raise LedgerFileError(f"ledger file {given!r} does not exist.") from exc
    except OSError as exc:
        raise LedgerFileError(f"cannot read ledger file {given!r}: {exc.strerror}.") from exc
    try:
        budget = PrivacyBudget._from_text(text, "the file")
    except (TypeError, ValueError) as exc:
        raise LedgerFileError(f"ledger file {given!r} is not a valid dpinfer budget: {exc}") from exc
    problem = None if head is None else anchor_problem(budget, *head)
    if problem is not None:
        raise LedgerFileError(f"ledger file {given!r} is refused: {problem} (its head file "
                              f"{given + '.head'!r} records the later state). Restore the newest ledger; "
                              "'dpinfer budget verify' lists the published releases it lacks.")
    return budget


_MAX_PLAN_CHARS = 1 << 20


def read_plan(path):
    """The :class:`~dpinfer.AllocationPlan` in the file ``path`` (LedgerFileError if unreadable or invalid)."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read(_MAX_PLAN_CHARS + 1)
    except FileNotFoundError as exc:
        raise LedgerFileError(f"plan file {str(path)!r} does not exist.") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise LedgerFileError(f"cannot read plan file {str(path)!r}: {getattr(exc, 'strerror', None) or exc}.") from exc
    if len(text) > _MAX_PLAN_CHARS:
        raise LedgerFileError(f"plan file {str(path)!r} is longer than {_MAX_PLAN_CHARS:_} characters; "
                              "it does not look like an allocation plan.")
    try:
        return AllocationPlan.from_json(text)
    except (TypeError, ValueError) as exc:
        raise LedgerFileError(f"plan file {str(path)!r} is not a valid allocation plan: {exc}") from exc


def _real_path(path):
    """``path`` with its folder resolved (symbolic links of folders followed); a link as the file is refused.

    The ledger is replaced by renaming a new file over it: through a symbolic
    link that would replace the link by a regular file, and through a hard link
    it would leave the other name holding the old ledger.  Either forks the
    ledger (two files, each spending the whole total), so both are refused.
    """
    path = Path(path)
    if path.is_symlink():
        target = os.readlink(path)
        raise LedgerFileError(
            f"ledger file {str(path)!r} is a symbolic link (to {target!r}); give the ledger's real path. "
            "Writing through a link would replace the link by a copy and fork the ledger.")
    return path.parent.resolve() / path.name


def _refuse_hard_links(path, given):
    """Refuse a ledger file that has other names (hard links): each name would become its own ledger."""
    links = os.stat(path).st_nlink
    if links > 1:
        raise LedgerFileError(
            f"ledger file {given!r} has {links} names (hard links); keep one name (remove the others, "
            "'find -samefile' lists them): each name would otherwise become a separate ledger, each "
            "spending the whole total.")


_LOCK_RETRIES = 1000


def _lock_folder(folder):
    """An fd holding ``flock`` on the ledger's folder, or None where the folder cannot be opened for reading.

    A folder holding the ledger cannot be deleted, unlike ``FILE.lock``: while one
    release holds the lock file, deleting it lets a newcomer create and lock a new
    one, and both would read the same ledger and one charge would be lost (49
    releases printed, 22 recorded).  Every release in the folder waits for this
    lock (a release takes milliseconds); ``FILE.lock`` is still taken after it, so
    that a dpinfer before 0.2 running at the same time is kept out too.
    """
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _lock(lock_path, given):
    """An fd holding ``flock`` on the file now at ``lock_path`` (retaken if the path was replaced meanwhile)."""
    for _ in range(_LOCK_RETRIES):
        try:
            lock_fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        except FileNotFoundError as exc:
            raise LedgerFileError(f"cannot use ledger file {given!r}: its folder {str(Path(given).parent)!r} "
                                  "does not exist; create it first.") from exc
        except OSError as exc:
            raise LedgerFileError(f"cannot lock ledger file {given!r} ({exc.strerror or exc}).") from exc
        try:
            fcntl.flock(lock_fd, fcntl.LOCK_EX)
            held = os.fstat(lock_fd)
            try:
                now = os.stat(lock_path)
            except FileNotFoundError:
                now = None
        except BaseException:
            os.close(lock_fd)
            raise
        if now is not None and (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino):
            return lock_fd
        # the lock file was deleted or replaced while we waited: our lock guards nothing; take the new one
        _lock_taken_again(lock_path)
        fcntl.flock(lock_fd, fcntl.LOCK_UN)
        os.close(lock_fd)
    raise LedgerFileError(f"cannot lock ledger file {given!r}: its lock file {lock_path!r} was deleted or "
                          f"replaced {_LOCK_RETRIES} times while waiting for it; stop whatever removes it.")


def _lock_taken_again(lock_path):
    """A seam for the tests: called each time the lock is dropped because its file left the path."""


@contextmanager
def locked_budget(path, *, total_epsilon=None, total_delta=None, description="", plan=None):
    """Hold the ledger ``path`` locked; yield its budget; write it back if it gained entries.

    The file is created on first use from ``total_epsilon`` (required then),
    ``total_delta`` (default 0) and the allocation ``plan`` (a plan file's path,
    optional).  Later, totals and a plan given must equal the file's.  The
    budget is written back (atomically) whenever the block leaves it with more
    entries than it had, also when the block raises after a charge: a release
    that failed after its charge keeps it.
    """
    given = str(path)
    path = _real_path(path)
    plan_path, plan = plan, (None if plan is None else read_plan(plan))
    folder_fd = _lock_folder(path.parent)
    try:
        lock_fd = _lock(f"{path}.lock", given)
    except BaseException:
        _unlock(folder_fd)
        raise
    try:
        if path.exists() or head_path(path).exists():  # a head without its ledger: read_budget refuses it
            if path.exists():
                _refuse_hard_links(path, given)
            budget = read_budget(path, given)
            for flag, value, held in (("--total-epsilon", total_epsilon, budget.epsilon),
                                      ("--total-delta", total_delta, budget.delta)):
                if value is not None and value != held:
                    raise LedgerFileError(
                        f"{flag} {value:g} differs from the total {held:g} recorded in ledger {given!r}; "
                        "a ledger's totals are fixed when it is created (omit the flag to use the file's).")
            if plan is not None and plan != budget.plan:
                held = "no plan" if budget.plan is None else f"another plan (digest {budget.plan.digest[:16]}...)"
                raise LedgerFileError(
                    f"--plan {plan_path!r} (digest {plan.digest[:16]}...) is not the plan ledger {given!r} was created "
                    f"with: it holds {held}. A plan is fixed before the first release (omit --plan to use the "
                    "ledger's).")
        else:
            if total_epsilon is None:
                raise LedgerFileError(
                    f"ledger file {given!r} does not exist; create it on the first release with "
                    "--total-epsilon E (and --total-delta D if the releases use delta).")
            totals = (_check_epsilon(total_epsilon, "--total-epsilon"),
                      _check_delta(0.0 if total_delta is None else total_delta, "--total-delta"))
            try:
                budget = PrivacyBudget(*totals, description=description, plan=plan)
            except ValueError as exc:
                raise LedgerFileError(f"--plan {plan_path!r} does not fit the ledger's totals: "
                                      f"{str(exc).replace('`plan` ', 'it ')}") from exc
        start = len(budget.ledger)
        try:
            yield budget
        except BudgetExceededError as exc:
            raise LedgerFileError(f"ledger {given!r} cannot pay for this release: {exc.detail}") from exc
        finally:
            if len(budget.ledger) > start:
                try:
                    write_atomic(path, budget.to_json())
                except OSError as exc:
                    raise LedgerFileError(
                        f"cannot write ledger file {given!r} ({exc.strerror or exc}); the release was "
                        "not shown and the ledger is unchanged.") from exc
                try:  # after the ledger: a crash between leaves the ledger ahead of its head, which is accepted
                    write_head(path, budget)
                except OSError as exc:
                    raise LedgerFileError(
                        f"cannot write the head file {given + '.head'!r} ({exc.strerror or exc}); the ledger "
                        "holds the charge but the release was not shown.") from exc
    finally:
        _unlock(lock_fd)
        _unlock(folder_fd)


def _unlock(fd):
    if fd is not None:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
