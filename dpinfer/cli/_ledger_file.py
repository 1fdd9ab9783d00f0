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
from ..budget import AllocationPlan, BudgetExceededError, PrivacyBudget

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


def read_budget(path, given=None):
    """The budget in ``path`` (LedgerFileError if missing or unreadable; messages name ``given``)."""
    path = Path(path)
    given = str(path) if given is None else given
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise LedgerFileError(f"ledger file {given!r} does not exist.") from exc
    except OSError as exc:
        raise LedgerFileError(f"cannot read ledger file {given!r}: {exc.strerror}.") from exc
    try:
        return PrivacyBudget.from_json(text)
    except (TypeError, ValueError) as exc:
        raise LedgerFileError(f"ledger file {given!r} is not a valid dpinfer budget: {exc}") from exc


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
    try:
        lock_fd = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    except FileNotFoundError as exc:
        raise LedgerFileError(f"cannot use ledger file {given!r}: its folder {str(Path(given).parent)!r} does not "
                              "exist; create it first.") from exc
    except OSError as exc:
        raise LedgerFileError(f"cannot lock ledger file {given!r} ({exc.strerror or exc}).") from exc
    try:
        fcntl.flock(lock_fd, fcntl.LOCK_EX)
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
    finally:
        fcntl.flock(lock_fd, fcntl.LOCK_UN)
        os.close(lock_fd)
