"""Progress of long computations: one updating line on stderr, or a callback.

The long public calls (exact two-arm intervals at large n, the exact two-sample DP-JIMI
limit, the table tests with many draws, ...) take ``progress=``:

* ``None`` (the default): automatic.  Nothing is shown unless the call has already run
  ``DELAY`` (2) seconds *and* ``sys.stderr`` is a terminal; then one line on stderr is
  redrawn in place (carriage returns) and ended by a newline when the call finishes.  Under
  pytest, in a pipe, in a notebook or from R (reticulate) stderr is not a terminal, so the
  default is silent there.
* ``True``: always show the line (from the start), whatever stderr is.
* ``False``: never show anything.
* a callable ``f(done, total, message)``: called with the integers ``done <= total`` (the
  work units of the call: scan points, suprema, quadratures, blocks of draws), nondecreasing,
  first ``(0, total, ...)`` and last ``(total, total, ...)`` on success, and a short message
  (for a notebook widget or a GUI).  Nothing is written to stderr then.

Messages carry only the call's name, step counts and the names of public settings, never a
released or confidential value (DESIGN section 5; a release is public, but a log line is no
place for it).  No dependency: plain text with ``\\r``.

Kernels take a :class:`Progress` (or :data:`SILENT`) and call :meth:`Progress.advance` per
unit; a kernel whose number of units is only bounded takes a :meth:`Progress.part` of that
bound and closes it when done (the fraction jumps to the part's end: monotone either way).
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
import time

import numpy as np

from ._validation import _show

__all__ = []  # private module

#: seconds a call runs before the automatic line appears
DELAY = 2.0
#: seconds between two redraws of the line (callbacks get every step)
REDRAW = 0.1

#: True inside :func:`quiet`: the automatic default (None) shows nothing
_QUIET = contextvars.ContextVar("dpinfer_progress_quiet", default=False)


@contextlib.contextmanager
def quiet(on=True):
    """Within the block, ``progress=None`` (automatic) shows nothing (the command's ``--no-progress``)."""
    token = _QUIET.set(bool(on) or _QUIET.get())
    try:
        yield
    finally:
        _QUIET.reset(token)


def _check_progress(progress, name="progress"):
    """``progress`` as given (None, a bool or a callable), or a TypeError naming it."""
    if progress is None or callable(progress):
        return progress
    if isinstance(progress, (bool, np.bool_)):
        return bool(progress)
    raise TypeError(f"`{name}` must be None (automatic: a line on stderr after {DELAY:g} s when it is a "
                    f"terminal), True, False or a callable taking (done, total, message); "
                    f"got {_show(progress)}.")


class Progress:
    """``done`` of ``total`` work units of one public call, reported as ``progress`` asks.

    Parameters
    ----------
    progress : None, bool or callable
        As checked by :func:`_check_progress`.
    total : int
        The number of units (at least 1).
    label : str
        What runs (a public function's name); it starts every message.
    unit : str
        The name of a unit in the message ('suprema', 'quadratures', ...).
    """

    def __init__(self, progress, total, label, unit="steps", *, stream=None, clock=time.monotonic):
        self.total = max(int(total), 1)
        self.done = 0
        self.label, self.unit = label, unit
        self._callback = progress if callable(progress) and not isinstance(progress, bool) else None
        self._mode = "callback" if self._callback else {None: "auto", True: "on", False: "off"}[progress]
        if self._mode == "auto" and _QUIET.get():
            self._mode = "off"
        self._stream = stream
        self._clock = clock
        self._start = clock()
        self._drawn = -np.inf
        self._width = 0
        self._terminal = None
        self._closed = False
        self._step = ""
        if self._callback is not None:
            self._callback(0, self.total, self._message())

    # -- reporting --------------------------------------------------------------------------
    def _message(self):
        step = f" ({self._step})" if self._step else ""
        return f"{self.label}: {self.done}/{self.total} {self.unit}{step}"

    def _err(self):
        return self._stream if self._stream is not None else sys.stderr

    def _visible(self, now):
        if self._mode == "on" or self._width:
            return True
        if self._mode != "auto" or now - self._start < DELAY:
            return False
        if self._terminal is None:
            isatty = getattr(self._err(), "isatty", None)
            try:
                self._terminal = bool(isatty()) if isatty is not None else False
            except (ValueError, OSError):  # a closed or odd stream: stay silent
                self._terminal = False
        return self._terminal

    def _report(self, final=False):
        if self._mode == "off":
            return
        if self._callback is not None:
            self._callback(self.done, self.total, self._message())
            return
        now = self._clock()
        if not self._visible(now) or (not final and now - self._drawn < REDRAW):
            return
        self._drawn = now
        text = f"{self._message()}, {100 * self.done // self.total}%, {now - self._start:.0f} s"
        err = self._err()
        err.write("\r" + text.ljust(self._width))
        self._width = max(self._width, len(text))
        if final:
            err.write("\n")
        err.flush()

    # -- the kernels' interface --------------------------------------------------------------
    def step(self, text):
        """Name the current stage (a public word: 'lower end', 'margin scan', ...)."""
        self._step = text

    def advance(self, units=1):
        """``units`` more done (never beyond ``total``)."""
        self.reach(self.done + units)

    def reach(self, done):
        """At least ``done`` units done (the count never goes back, never beyond ``total``)."""
        done = min(int(done), self.total)
        if done > self.done and not self._closed:
            self.done = done
            self._report()

    def fraction(self, share):
        """At least ``share`` (in [0, 1]) of the units done, rounded down."""
        self.reach(int(share * self.total))

    def part(self, units):
        """A :class:`_Part` of ``units`` units starting at the current count."""
        return _Part(self, units)

    def close(self):
        """All done: report ``total`` and end the line if one was drawn (once)."""
        if self._closed:
            return
        again = self._callback is not None and self.done == self.total  # reported already
        self.done = self.total
        self._step = ""
        if not again:
            self._report(final=True)
        self._closed = True

    def abandon(self):
        """The call failed: end a drawn line, report nothing more."""
        if self._width and not self._closed:
            self._err().write("\n")
            self._err().flush()
        self._closed = True

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        if kind is None:
            self.close()
        else:
            self.abandon()
        return False


class _Part:
    """``units`` units of a :class:`Progress` from its count at creation; :meth:`close` jumps to their end."""

    def __init__(self, parent, units):
        self.parent, self.units = parent, int(units)
        self.base, self.done = parent.done, 0

    def step(self, text):
        self.parent.step(text)

    def advance(self, units=1):
        self.done = min(self.done + units, self.units)
        self.parent.reach(self.base + self.done)

    def reach(self, done):
        self.done = min(max(self.done, int(done)), self.units)
        self.parent.reach(self.base + self.done)

    def fraction(self, share):
        self.reach(int(share * self.units))

    def part(self, units):
        return _Part(self, units)

    @property
    def total(self):
        return self.units

    def close(self):
        self.reach(self.units)


class _Silent:
    """The progress of a kernel called without one: every method does nothing."""

    def step(self, text):
        pass

    def advance(self, units=1):
        pass

    def reach(self, done):
        pass

    def fraction(self, share):
        pass

    def part(self, units):
        return self

    def close(self):
        pass


#: the no-op reporter kernels use by default
SILENT = _Silent()


def start(progress, total, label, unit="steps"):
    """A :class:`Progress` for a public call (``progress`` already checked), as a context manager."""
    return Progress(progress, total, label, unit)
