"""The DataFrame of a statement's rows: each column's cells read as its kind prints them.

Copied verbatim, after ``engine``, into every generated parser: standard library and
pandas only (pandas loads inside ``frame_of``). Amounts become signed floats, the
cells of a column of bare integers integers (as ``read_csv`` reads them), empty cells NaN.
"""
from __future__ import annotations

import re

from .amounts import parse_amount
from .engine import extract


def _convert(values: list, col: dict, settings: dict) -> list:
    kind = col["kind"]
    if kind == "amount":
        if "drcr_signs" in col:  # this column's own Dr/Cr convention (a card's lone 'Cr')
            settings = dict(settings, drcr_signs=col["drcr_signs"])
        sign = col.get("sign", 1)  # -1: the column prints money out unsigned, as a Debit column
        amounts = [parse_amount(v, settings) if v else None for v in values]
        return [a * sign if a is not None and sign != 1 else a for a in amounts]
    for label in col.get("labels", ()):  # printed beside every value, no part of it
        values = [" ".join(t for t in v.split(" ") if t != label) if v else v for v in values]
    texts = [v if v else None for v in values]
    present = [v for v in texts if v is not None]
    # read_csv semantics: a column of bare integers is numeric, not text.
    if present and all(re.fullmatch(r"-?\d{1,15}", v) for v in present):
        return [int(v) if v is not None else None for v in texts]
    return texts


def build_frame(pages: list, settings: dict):
    """The statement's transactions as a DataFrame (columns and kinds from ``settings``)."""
    return frame_of(extract(pages, settings)[0], settings)


def frame_of(rows: list, settings: dict):
    """The DataFrame of rows ``extract`` found."""
    import pandas as pd  # lazy: the engine is also imported by dua, which must stay light

    if settings.get("row_order") == "reversed":  # the answer key lists the rows newest first
        rows = rows[::-1]
    data = {}
    for i, col in enumerate(settings["columns"] + settings.get("second_line", [])):
        if not col.get("output", True):
            continue
        values = _convert([row[0][i] for row in rows], col, settings)
        if col.get("section_signed"):  # the section a row stands in signs its amount
            values = [v * row[2] if v is not None else v for v, row in zip(values, rows)]
        if col.get("dtype") == "float" or all(v is None for v in values):
            values = [float(v) if v is not None else None for v in values]
            data[_unique(col["name"], data)] = pd.Series(values, dtype="float64")
        elif col.get("dtype") == "str":
            data[_unique(col["name"], data)] = pd.Series([None if v is None else str(v)
                                                          for v in values])
        else:
            data[_unique(col["name"], data)] = _series(values, pd)
    for col in settings.get("blank_columns", ()):  # named by the key, printed nowhere
        data[col["name"]] = pd.Series([None] * len(rows), dtype="float64" if col.get(
            "dtype") in ("float", None) else "object")
    frame = pd.DataFrame(data)
    order = settings.get("output_order")  # the answer key's column order, when it is not the page's
    if order and sorted(order) == sorted(frame.columns):
        frame = frame[order]
    frame.index = pd.RangeIndex(len(rows))
    return frame


def _unique(name: str, data: dict) -> str:
    """``name``, or where a column of that name is already in ``data`` (a heading that printed
    'DATE' over two columns), ``name.1``, ``name.2``…, as pandas reads such a CSV back: two
    columns of one name are two columns, never one of them lost."""
    out, n = name, 0
    while out in data:
        n += 1
        out = f"{name}.{n}"
    return out


def _series(values: list, pd):
    if any(isinstance(v, float) for v in values):
        return pd.Series(values, dtype="float64")
    if all(isinstance(v, int) for v in values) and values:
        return pd.Series(values, dtype="int64")
    if any(isinstance(v, int) for v in values):
        return pd.Series([float(v) if v is not None else None for v in values], dtype="float64")
    return pd.Series(values, dtype=None if values else "object")
