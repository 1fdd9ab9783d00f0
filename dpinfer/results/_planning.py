"""The answers of the planning functions, with the price of privacy beside them.

:class:`PowerResult` (an exact power), :class:`SampleSizeResult` (one sample's ``n``) and
:class:`SampleSizesResult` (two arms' ``(n1, n2)``) are the number the planning function always
returned (a ``float``, an ``int``, a ``tuple``: they compare, compute, unpack and serialise as
that number, and ``repr`` shows it), and they carry what R's ``power.htest`` carries: the
question asked, and its non-private comparators, so that ``print(result)`` shows the price of
privacy as a number.  The comparators are computed when first read (printing, ``to_dict()``,
an attribute), once, so a planning call that only wants the number does not pay for them.

The three share ``comparators`` (a dict of the comparators), ``to_dict()`` / ``to_json()``
(the answer, the question, the planned privacy, the comparators and the price, flat) and
``price_of_privacy()`` (the comparator lines of the print, as text).  No release exists yet,
so there is no :class:`PrivacyRecord`: the print's last line states the planned epsilon,
delta and mechanism, and ``to_dict()`` holds them.
"""

from __future__ import annotations

import math

from .._printing import _json_float, _json_text, _r_format, _write_or_return

__all__ = ["PowerResult", "SampleSizeResult", "SampleSizesResult"]

_R_ALTERNATIVE = {"two-sided": "two.sided", "less": "less", "greater": "greater"}


class _Planned:
    """The planning record and its comparators (shared by the three result types).

    ``_question``: ordered ``{printed name: value}`` of the power.htest lines (R's names);
    ``_fields``: the flat record of :meth:`to_dict` (the answer, the question, the privacy);
    ``_compute``: a picklable callable giving the comparators' dict, called once; ``_curve``: None or
    a picklable ``curve(n, noise=True)``, the planner's own exact power at ``n`` (the first arm's
    size, the allocation kept) with or without the privacy noise, drawn by :meth:`plot`.
    """

    def _setup(self, method, question, fields, compute, note, labels, privacy, curve=None):
        for name, value in (("method", method), ("_question", dict(question)), ("_fields", dict(fields)),
                            ("_compute", compute), ("note", note), ("_labels", labels),
                            ("_privacy_line", privacy), ("_curve", curve), ("_cache", {})):
            object.__setattr__(self, name, value)
        return self

    def __setattr__(self, name, value):
        raise AttributeError(f"a {type(self).__name__} is read-only; `{name}` cannot be set.")

    def __reduce__(self):
        return (_rebuild, (type(self), self._value(), self.method, self._question, self._fields,
                           self._compute, self.note, self._labels, self._privacy_line, self._curve))

    def __str__(self):
        return self._format()

    def __format__(self, spec):
        # f"{result}" and format specs see the number, as for the plain value returned before
        return format(self._value(), spec)

    def _repr_pretty_(self, printer, cycle):
        printer.text(repr(self._value()))

    @property
    def comparators(self):
        """The non-private comparators (a dict, computed on first use): see the class notes."""
        if "value" not in self._cache:
            self._cache["value"] = dict(self._compute())
        return dict(self._cache["value"])

    def plot(self, values=None, *, ax=None, title=None):
        """The exact power against ``n`` with the plan, the comparator without noise and the target
        marked (:func:`dpinfer.plot.planning_curve`).  Returns the matplotlib Axes; a plan whose
        power is simulated raises a TypeError saying so."""
        from ..plot import planning_curve

        return planning_curve(self, values, ax=ax, title=title)

    def price_of_privacy(self):
        """The comparator lines of the print (the comparators and the price), as text."""
        return "\n".join(self._comparator_lines())

    def to_dict(self):
        """A flat JSON-safe dict: the answer, the question, the privacy, the comparators and the price."""
        out = dict(self._fields)
        out.update({k: (_json_float(v) if isinstance(v, float) else v) for k, v in self._priced().items()})
        out["method"] = self.method
        out["note"] = self.note
        return out

    def to_json(self, path=None):
        """:meth:`to_dict` as JSON text; written to ``path`` (and None returned) when given."""
        return _write_or_return(_json_text(self.to_dict()) + "\n", path)

    def _format(self):
        names = list(self._question)
        width = max(15, *(len(n) for n in names))
        lines = ["", f"     {self.method} ", ""]
        for name, value in self._question.items():
            text = _r_format([value])[0].strip() if isinstance(value, (int, float)) else str(value)
            lines.append(f"{name.rjust(width)} = {text}")
        lines.append("")
        if self.note:
            lines += [f"NOTE: {self.note}", ""]
        lines += self._comparator_lines()
        lines += ["", self._privacy_line, ""]
        return "\n".join(lines)


def _rebuild(cls, value, method, question, fields, compute, note, labels, privacy, curve=None):
    return cls._make(value)._setup(method, question, fields, compute, note, labels, privacy, curve)


def _n_text(value):
    """A sample size for the comparator lines (R's 7 significant digits for a real one)."""
    if value is None:
        return "not computed"
    if isinstance(value, tuple):
        return " and ".join(_n_text(v) for v in value) if value[0] != value[1] else _n_text(value[0])
    return str(value) if isinstance(value, int) else _r_format([value])[0].strip()


class PowerResult(_Planned, float):
    """An exact power (a ``float``), carrying the question and its non-private comparators.

    Returned by :func:`~dpinfer.binom_ump_power` and :func:`~dpinfer.binom2_ump_power` for
    one ``(theta, n)`` (arrays of them still give an array).  It is the float those functions
    always returned; ``print(result)`` shows R's ``power.htest`` layout plus the comparators:

    * ``nonprivate_power``: the power of the same exact test without the privacy noise, at the
      same ``n`` (epsilon = infinity: the Tulap noise reduced to its uniform part, i.e. the
      randomized exact test; see the planning section of ``docs/two_arm.rst``);
    * ``normal_power``: the normal approximation's power without noise (R's
      ``power.prop.test`` for two arms; Lachin 1981 for one); None where it does not apply;
    * ``price``: ``nonprivate_power - power``, the power privacy costs at this ``n``.

    ``to_dict()`` holds them all (``power``, ``nonprivate_power``, ``normal_power``,
    ``price_power`` and the question).
    """

    @classmethod
    def _make(cls, value):
        return float.__new__(cls, value)

    def _value(self):
        return float(self)

    def __repr__(self):
        return float.__repr__(self)

    @property
    def nonprivate_power(self):
        """Exact power of the same test without the privacy noise, at the same ``n``."""
        return self.comparators["nonprivate_power"]

    @property
    def normal_power(self):
        """The normal approximation's power without noise (None where it does not apply)."""
        return self.comparators["normal_power"]

    @property
    def price(self):
        """``nonprivate_power - power``: the power the privacy noise costs at this ``n``."""
        return self.nonprivate_power - float(self)

    def _priced(self):
        return {**self.comparators, "price_power": self.price}

    def _comparator_lines(self):
        same, normal = self._labels
        digits = _r_format([self.nonprivate_power])[0].strip()
        lines = ["non-private comparators (power at the same n):", f"  {same}: {digits}"]
        if self.normal_power is not None:
            lines.append(f"  {normal}: {_r_format([self.normal_power])[0].strip()}")
        lines.append(f"price of privacy: {_r_format([self.price], 4)[0].strip()} of power "
                     "(the same test without noise minus the private power)")
        return lines


class SampleSizeResult(_Planned, int):
    """A one-sample sample size (an ``int``), carrying the question and its comparators.

    Returned by :func:`~dpinfer.binom_ump_sample_size`: the ``int`` it always returned;
    ``print(result)`` shows R's ``power.htest`` layout plus:

    * ``nonprivate_n``: the smallest ``n`` of the same exact test without the privacy noise
      (epsilon = infinity: the exact UMP *randomized* binomial test, one-sided, or the
      matching randomized two-sided test);
    * ``normal_n``: the normal approximation's (real) ``n`` without noise (Lachin 1981:
      ``sqrt(n) |theta1 - p0| = z_a sqrt(p0 (1 - p0)) + z_b sqrt(theta1 (1 - theta1))``);
    * ``price``: ``n - nonprivate_n``, the records privacy costs.
    * ``exact_power``: the exact private power at ``n``.
    """

    @classmethod
    def _make(cls, value):
        return int.__new__(cls, value)

    def _value(self):
        return int(self)

    def __repr__(self):
        return int.__repr__(self)

    @property
    def nonprivate_n(self):
        """Smallest ``n`` of the same exact test without the privacy noise."""
        return self.comparators["nonprivate_n"]

    @property
    def normal_n(self):
        """The normal approximation's ``n`` without noise (a real number, not rounded up)."""
        return self.comparators["normal_n"]

    @property
    def exact_power(self):
        """The exact private power at ``n`` (at least the target)."""
        return self._fields["exact_power"]

    @property
    def price(self):
        """``n - nonprivate_n``: the records the privacy noise costs."""
        return int(self) - self.nonprivate_n

    def _priced(self):
        return {**self.comparators, "price_n": self.price}

    def _comparator_lines(self):
        same, normal = self._labels
        return ["non-private comparators (n):",
                f"  {same}: {self.nonprivate_n}",
                f"  {normal}: {_n_text(self.normal_n)}",
                f"price of privacy: {self.price} (n = {int(self)} against {self.nonprivate_n} for the "
                "same test without noise)"]


class SampleSizesResult(_Planned, tuple):
    """Two arms' sample sizes ``(n1, n2)`` (a ``tuple``), carrying the question and its comparators.

    Returned by :func:`~dpinfer.binom2_ump_sample_size`: the pair it always returned (it
    unpacks, indexes and compares as the tuple); ``print(result)`` shows R's
    ``power.htest`` layout plus:

    * ``nonprivate_n``: ``(n1, n2)`` of the same exact test (the same ordering ``statistic``,
      effect, margin, allocation) without the privacy noise (epsilon = infinity: the Tulap
      noise reduced to its uniform part, a randomized exact unconditional test);
    * ``normal_n``: ``(n1, n2)`` of the normal approximation without noise, real numbers
      (R's ``power.prop.test`` formula; None unless the null is ``theta1 = theta2``);
    * ``price``: ``(n1 - nonprivate n1, n2 - nonprivate n2)`` and ``price_total`` their sum;
    * ``exact_power``: the exact private power at ``(n1, n2)``.
    """

    @classmethod
    def _make(cls, value):
        return tuple.__new__(cls, tuple(int(v) for v in value))

    def _value(self):
        return tuple(self)

    def __repr__(self):
        return tuple.__repr__(tuple(self))

    def __getnewargs__(self):
        return (tuple(self),)

    @property
    def nonprivate_n(self):
        """``(n1, n2)`` of the same exact test without the privacy noise."""
        c = self.comparators
        return (c["nonprivate_n1"], c["nonprivate_n2"])

    @property
    def normal_n(self):
        """``(n1, n2)`` of the normal approximation without noise (reals), or None."""
        c = self.comparators
        return None if c["normal_n1"] is None else (c["normal_n1"], c["normal_n2"])

    @property
    def exact_power(self):
        """The exact private power at ``(n1, n2)`` (at least the target)."""
        return self._fields["exact_power"]

    @property
    def price(self):
        """Per arm: ``(n1, n2)`` minus those of the same test without noise (None when that search
        went beyond the exact sums' reach)."""
        if self.nonprivate_n[0] is None:
            return None
        return tuple(a - b for a, b in zip(self, self.nonprivate_n))

    @property
    def price_total(self):
        """Both arms together: ``n1 + n2`` minus the same sum without noise (or None)."""
        return None if self.price is None else sum(self.price)

    def _priced(self):
        p1, p2 = (None, None) if self.price is None else self.price
        return {**self.comparators, "price_n1": p1, "price_n2": p2, "price_total": self.price_total}

    def _comparator_lines(self):
        same, normal = self._labels
        if self.price is None:
            return ["non-private comparators (n per group):", f"  {same}: not computed (beyond the exact "
                    "sums' reach)", f"  {normal}: {_n_text(self.normal_n)}"]
        equal = self[0] == self[1] and self.nonprivate_n[0] == self.nonprivate_n[1]
        unit = "per group" if equal else "(n1 and n2)"
        price = (f"{self.price[0]} per group" if equal and self.price[0] == self.price[1]
                 else f"{self.price[0]} and {self.price[1]} (n1 and n2)")
        return [f"non-private comparators (n {unit}):",
                f"  {same}: {_n_text(self.nonprivate_n)}",
                f"  {normal}: {_n_text(self.normal_n)}",
                f"price of privacy: {price}, {self.price_total} in total (against the same test "
                "without noise)"]


for _cls in (PowerResult, SampleSizeResult, SampleSizesResult):
    _cls.__module__ = "dpinfer.results"  # pickles and docs name the public path
del _cls
