"""One schema for every bank's rows: ISO date, description, one signed amount, balance,
currency, account, page and row, with the statement's own columns after them.

Every field comes from what the reading already knows (the parser's SETTINGS: each
column's kind, the date column, the balance; the engine's sign notations) and from the
statement's own evidence: the printed balances decide which way each column moves the
money, the statement's own dates give the year a row's date leaves out, the codes it
prints give the currency. No bank is looked up by name. The rows themselves are never
changed: a parser's contract stays the statement's own columns.
"""
from __future__ import annotations

import dataclasses
import math

from ..notation import isodates
from ..table import engine, movements, outside, reconcile, totals, wordlines
from ..verification.verify import SCHEMA



@dataclasses.dataclass
class Normalized:
    """The rows in the common schema and how each field was found (``notes``)."""

    frame: object  # pandas DataFrame: SCHEMA, then the statement's own columns
    notes: dict  # field -> how it was derived, in words
    owed: bool  # the balance is a debt (a card): a purchase is money out
    closing_balance: float | None  # the last balance on a row, or one the figures prove

    def to_dict(self) -> dict:
        return {"notes": self.notes, "owed": self.owed, "closing_balance": self.closing_balance}


def normalize(frame, words: list, settings: dict, chars: list | None = None) -> Normalized:
    """The rows of ``frame`` (the statement's own columns, as the parser with ``settings``
    returned them) in the common schema; ``words``: the reader's words, one list a page.

    Raises:
        ValueError: ``settings`` name no date column of ``frame``
    """
    import pandas as pd  # lazy: keeps import dua fast

    pages, _ = engine.statement_pages(words, settings, chars)
    rows, _ = engine.extract(pages, settings)
    roles = _roles(frame, settings)
    lines = outside.lines_outside(pages, rows, settings)
    moves, balance, how, proven = _amounts(frame, roles, pages, settings)
    owed, why_owed = outside.owed(lines, settings, moves)
    if owed:
        moves = [None if m is None else -m for m in moves]
    # the reader's words and the engine's both: one glues what the other splits
    printed = [" ".join(w[0] for w in line) for page in list(words) + list(pages)
               for line in wordlines.group_lines(page, settings.get("line_tolerance", 3.0))]
    dates, why_dates = isodates.iso_dates(_dates(frame, roles["date"]), printed)
    currency, why_currency = outside.currency(lines, frame.columns)
    pages_of = _pages(rows, settings, len(frame))
    out = pd.DataFrame({
        "date": dates,
        "description": _texts(frame, roles["description"]),
        "amount": pd.Series([_cents(m) for m in moves], dtype="float64"),
        "balance": pd.Series(_floats(frame, balance), dtype="float64"),
        "currency": [currency] * len(frame),
        "account": outside.accounts(pages, rows, settings, len(frame)),
        "page": pd.Series(pages_of, dtype="Int64"),
        "row": pd.Series(range(1, len(frame) + 1), dtype="int64"),
    })
    own = frame.reset_index(drop=True).rename(columns=_own_name)
    notes = {"date": why_dates, "amount": how + (f"; {why_owed}" if owed else ""),
             "currency": why_currency, "description": roles["description"] or "none printed",
             "balance": balance or "none printed"}
    closing = next((v for v in reversed(_floats(frame, balance)) if v is not None), proven)
    return Normalized(pd.concat([out, own], axis=1), notes, owed, closing)


def _own_name(name) -> str:
    """A statement column keeps its name, unless the schema holds it ('Date' and 'date'
    stay apart; a column printed as 'amount' becomes 'amount (printed)')."""
    return f"{name} (printed)" if str(name) in SCHEMA else str(name)


def _roles(frame, settings: dict) -> dict:
    columns = settings["columns"] + settings.get("second_line", [])
    kinds = {c["name"]: c["kind"] for c in columns if c.get("output", True)}
    date = settings["columns"][settings["date_column"]]["name"]
    if date not in frame.columns:
        raise ValueError(f"the date column {date!r} is not among the rows' columns")
    at = settings.get("balance_column")
    balance = settings["columns"][at]["name"] if at is not None else None
    drcr = movements.drcr_column(frame)
    texts = [n for n, k in kinds.items() if k == "text" and n in frame.columns
             and n not in (date, drcr) and not _mostly_dates(frame[n])]
    amounts = [n for n, k in kinds.items() if k == "amount" and n in frame.columns]
    return {"date": date, "balance": balance, "drcr": drcr, "amounts": amounts,
            "description": max(texts, key=lambda n: _mean_length(frame[n]), default=None)}


def _mostly_dates(series) -> bool:
    from ..notation.dates import parts_of

    values = [str(v) for v in series.dropna()]
    return bool(values) and sum(parts_of(v) is not None for v in values) >= 0.8 * len(values)


def _mean_length(series) -> float:
    values = [len(str(v)) for v in series.dropna()]
    return sum(values) / len(values) if values else 0.0


def _amounts(frame, roles: dict, pages: list, settings: dict) -> tuple:
    """``(amounts, balance column, how, closing)``: each row's movement signed the way it
    moves the printed balance, where one reconciles; else as the statement's notation signs
    it, and then the closing balance the printed figures prove (None where none does)."""
    # the date goes along: a balance printed on a day's last row only is still the balance
    keep = roles["amounts"] + [c for c in (roles["drcr"], roles["date"]) if c]
    sub = frame[keep].reset_index(drop=True)
    fit = reconcile.oriented(sub) if len(roles["amounts"]) > 1 else None
    if fit is not None and fit[3] <= len(frame) // 2:
        bal, what, moves, bad = fit
        checked = "every printed balance" if not bad else f"the printed balances ({bad} rows " \
                                                            "do not reconcile)"
        return moves, bal, f"{what}, signed by {checked} in {bal!r}", None
    moving = [c for c in roles["amounts"] if c != roles["balance"]]
    if not moving:
        return [None] * len(frame), roles["balance"], "no amount column", None
    if roles["drcr"] and movements.said_codes(frame[roles["drcr"]].tolist()):
        signed = sub[moving + [roles["drcr"]]]
        what, moves = movements.movement_options(signed)[0]  # the usual way: the balances say none
        return _holes(frame, moving, moves), roles["balance"], what, None
    summed = [sum(v for v in row if v is not None) if any(v is not None for v in row) else None
              for row in zip(*(_floats(frame, c) for c in moving))]
    how = " plus ".join(repr(c) for c in moving) + " as the statement signs them"
    proof, closing = _totals(sub[roles["date"]].tolist(), summed, pages, settings)
    return summed, roles["balance"], how + (f"; {proof}" if proof else ""), closing


def _holes(frame, moving: list, values: list) -> list:
    """None where a row prints no amount at all (the options read a blank as 0.0)."""
    blank = [all(v is None for v in row) for row in zip(*(_floats(frame, c) for c in moving))]
    return [None if b else v for b, v in zip(blank, values)]


def _totals(dates: list, summed: list, pages: list, settings: dict) -> tuple:
    """``(what the printed figures say of the amounts, the closing balance they prove)``:
    the balances a summary prints day by day, reached from one it prints (the direction
    proven); else a printed balance that the amounts lead to from another; else a total."""
    import pandas as pd  # lazy: keeps import dua fast

    try:
        printed = reconcile.amounts_outside_rows(pages, settings)
    except (KeyError, IndexError, TypeError, ValueError):
        return "", None
    amounts = [v or 0.0 for v in summed]
    frame = pd.DataFrame({"date": [str(d) for d in dates],
                          "amount": pd.Series(amounts, dtype="float64")})
    daily = reconcile.running_balances(frame, printed, "date")
    if daily is not None:
        closing = round(daily["opening"] + sum(amounts), 2)
        return (f"from the printed {daily['opening']} they reach {len(daily['reached'])} "
                f"balances the statement prints, closing at {closing}"), closing
    found = totals.reconcile_totals(frame[["amount"]], printed)
    if not found.get("passed"):
        return "", None
    total = sum(amounts)
    ends = [t for p in dict.fromkeys(printed) for t in dict.fromkeys(printed)
            if p != t and abs(p + total - t) < 0.005]
    return found["detail"], (round(ends[0], 2) if ends else None)


def _pages(rows: list, settings: dict, count: int) -> list:
    """The page (from 1) each row starts on, where the engine's reading is these rows."""
    if len(rows) != count:
        return [None] * count
    if settings.get("row_order") == "reversed":
        rows = rows[::-1]
    return [row[3][0][0] + 1 if row[3] else None for row in rows]


def _dates(frame, column: str) -> list:
    """Each row's printed date; a row that prints none takes the one above it (a date
    printed once a day)."""
    out, last = [], None
    for v in frame[column].tolist():
        if v is not None and not (isinstance(v, float) and math.isnan(v)) and str(v).strip():
            last = str(v)
        out.append(last)
    return out


def _texts(frame, column: str | None) -> list:
    if column is None:
        return [None] * len(frame)
    return [None if v is None or (isinstance(v, float) and math.isnan(v)) else str(v)
            for v in frame[column].tolist()]


def _floats(frame, column: str | None) -> list:
    if column is None or column not in frame.columns:
        return [None] * len(frame)
    out = []
    for v in frame[column].tolist():
        try:
            f = float(v)
        except (TypeError, ValueError):
            f = math.nan
        out.append(None if math.isnan(f) else f)
    return out


def _cents(value):
    return None if value is None else round(value, 2)


def rows_text(frame, fmt: str, wanted: bool, reader_pages: list | None, settings: dict | None,
              account: str = "", notes: dict | None = None) -> str:
    """The rows as ``fmt`` text (``formats``), in the common schema when ``wanted`` or when
    the format needs it; ``reader_pages``: the reader's pages (dicts with "words", "chars")
    the rows were read from, ``settings`` the reading's (None or {}: learned from the rows);
    ``notes``, a dict given, receives how each field was found (``Normalized.to_dict``).

    Raises:
        VerificationError: the rows cannot be normalised (no reading of the page finds them)
    """
    from . import formats

    if not wanted and fmt not in formats.NORMALIZED_ONLY:
        return formats.render(frame, fmt)
    from ...errors import VerificationError

    words = [p["words"] for p in reader_pages or []]
    chars = [p.get("chars") for p in reader_pages or []]
    settings = _settings(frame, words, settings, chars)
    try:
        found = normalize(frame, words, settings, chars)
    except (ValueError, KeyError, IndexError) as exc:  # the reading and the rows disagree
        raise VerificationError(f"The rows cannot be normalised: {exc}",
                                hint="Leave out --normalize and --format ofx|qif for these "
                                "rows.") from exc
    if notes is not None:
        notes.update(found.to_dict())
    return formats.render(found.frame, fmt, found, account)


def _settings(frame, words: list, settings: dict | None, chars: list) -> dict:
    """The reading's settings, or where a parser carries none (an LLM's free code) the
    reading its rows teach, as ``dua check`` learns it."""
    from ...errors import VerificationError

    if settings and settings.get("columns"):
        return settings
    from ..agent import rowcheck

    pages, apart = engine.statement_pages(words, {}, chars)
    learned = rowcheck.check(pages, apart, frame).settings if len(frame) else None
    if not learned:
        raise VerificationError("The rows cannot be normalised: no reading of the statement "
                                "finds them, so which column is the date and which the "
                                "amounts is not known",
                                hint="Leave out --normalize and --format ofx|qif for these rows.")
    return learned


def normalize_statement(rows, pdf_path: str, *, password: str | None = None,
                        settings: dict | None = None):
    """``dua.normalize``: rows read from ``pdf_path`` (a DataFrame in the statement's own
    columns, or the path of a CSV of them) in the common schema, as a ``Normalized``.

    Raises:
        DocumentError (the PDF), VerificationError (the rows cannot be located on it)
    """
    from ... import pdf
    from ..verification import verify

    frame = verify.load_expected(rows) if isinstance(rows, str) else rows
    reading = pdf.start_reading(pdf_path, password)
    try:
        reading.document()
    finally:
        reading.cancel()
    words = [p["words"] for p in reading.pages]
    chars = [p.get("chars") for p in reading.pages]
    return normalize(frame, words, _settings(frame, words, settings, chars), chars)
