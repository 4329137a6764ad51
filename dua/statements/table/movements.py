"""The ways a statement's columns of numbers can move its balance: each column as printed,
signed by a Dr/Cr column (or by two short codes of its own, either way round), or two to
four columns netted, money in against money out. Which way is right, the arithmetic
(``reconcile``) decides.
"""
from __future__ import annotations

import itertools
import math
import re

_DRCR_WORD = r"(?i)dr\.?|cr\.?|debit|credit"


def _floats(frame, col) -> list:
    out = []
    for v in frame[col].tolist():
        out.append(float("nan") if v is None else float(v))
    return out


def _zero(values: list) -> list:
    return [0.0 if math.isnan(v) else v for v in values]


def numeric_columns(frame) -> list:
    """The columns of numbers that print some: a column the page heads and never fills
    moves no balance."""
    return [c for c in frame.columns if str(frame[c].dtype) == "float64" and frame[c].notna().any()]


def drcr_column(frame):
    """A text column that holds only Dr/Cr (or debit/credit) words, or two short codes
    of its own ('D'/'C', 'S'/'H', 'Af'/'Bij'), or None."""
    for c in frame.columns:
        if str(frame[c].dtype) in ("float64", "int64"):
            continue
        values = frame[c].dropna().astype(str)
        if len(values) and (values.str.fullmatch(_DRCR_WORD).all() or _two_codes(values)):
            return c
    return None


def said_codes(values) -> bool:
    """Whether a sign column's words say which way (Dr/Cr, debit/credit): two codes of
    the statement's own say nothing until the balances do."""
    return all(re.fullmatch(_DRCR_WORD, str(v).strip()) for v in values if v == v)


def _two_codes(values) -> bool:
    codes = {v.strip().rstrip(".").lower() for v in values}
    return len(codes) == 2 and all(code.isalpha() and len(code) <= 3 for code in codes)


def _out_codes(values: list) -> list:
    """The codes that may mark money out, the usual first (a word for debit): the other
    way round is an option too, which the balances decide."""
    codes = sorted({str(v).strip().rstrip(".").lower() for v in values if v == v})
    return sorted(codes, key=lambda code: not code.startswith("d"))


def movement_options(frame, exclude=()) -> list:
    """(description, movements) for every way the numeric columns can be the movements."""
    return [(what, moves) for what, moves, _ in _movements(frame, exclude)]


def halves(moves: list) -> set:
    """The money in's total and the money out's, as printed (unsigned): from either one,
    the rows reach the other whatever they are, so neither proves a balance."""
    return {round(sum(m for m in moves if m > 0), 2), round(-sum(m for m in moves if m < 0), 2)}


def _signed_out(values: list) -> bool:
    """A column whose every amount prints a minus: money out, signed as printed."""
    moved = [v for v in values if v]
    return bool(moved) and all(v < 0 for v in moved)


def _movements(frame, exclude=()) -> list:
    """(description, movements, the columns they sum) for every way the numeric columns
    can be the movements."""
    nums = [c for c in numeric_columns(frame) if c not in exclude]
    vals = {c: _zero(_floats(frame, c)) for c in nums}
    drcr = drcr_column(frame)
    out = []
    codes = _out_codes(frame[drcr].tolist()) if drcr is not None else []
    for c in nums:
        for k, code in enumerate(codes):
            signs = [-1.0 if str(s).strip().rstrip(".").lower() == code else 1.0
                     for s in frame[drcr].tolist()]
            name = f"{c!r} signed by {drcr!r}" + (f" ({code!r} out)" if k else "")
            out.append((name, [s * v for s, v in zip(signs, vals[c])], {c}))
        out.append((f"{c!r}", vals[c], {c}))
    for d, c in itertools.permutations(nums, 2):
        out.append((f"{c!r} in, {d!r} out", [b - a for a, b in zip(vals[d], vals[c])], {c, d}))
    # a column of money out that prints its own minus ('-$4,961.00') moves money as signed
    for c, d in itertools.combinations(nums, 2):
        if _signed_out(vals[c]) or _signed_out(vals[d]):
            out.append((f"{c!r} and {d!r} as signed", [a + b for a, b in zip(vals[c], vals[d])],
                        {c, d}))
    # Three or four columns move it: a charge column beside debit and credit columns.
    for size in range(3, min(4, len(nums)) + 1):
        for cols in itertools.combinations(nums, size):
            for signs in itertools.product((1.0, -1.0), repeat=size - 1):
                signs = (1.0,) + signs
                if all(x > 0 for x in signs):
                    continue
                ins = " and ".join(repr(c) for c, x in zip(cols, signs) if x > 0)
                outs = " and ".join(repr(c) for c, x in zip(cols, signs) if x < 0)
                moves = [sum(x * vals[c][i] for c, x in zip(cols, signs))
                         for i in range(len(frame))]
                out.append((f"{ins} in, {outs} out", moves, set(cols)))
    return out
