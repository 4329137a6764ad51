"""An answer key in the common schema alone (a user's own ledger: ISO date, one signed
amount): it cannot teach where the statement prints its columns, so the parser is learned
as without a key, and the key then judges the rows normalised (``normalize``).
"""
from __future__ import annotations

import csv
import math

from ..verification.verify import SCHEMA

_NEEDED = {"date", "amount"}
_COMPARED = ("date", "amount", "balance")  # what a ledger and a statement share exactly


def is_ledger_key(path: str | None) -> bool:
    """Whether the CSV at ``path`` holds the common schema's columns only, date and amount
    among them (a key ``--normalize`` wrote also holds the statement's own columns)."""
    if not path:
        return False
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            header = next(csv.reader(fh), [])
    except (OSError, UnicodeDecodeError):
        return False  # the reading of the key says what is wrong with it
    names = {h.strip() for h in header}
    return bool(names) and names <= set(SCHEMA) and _NEEDED <= names


def judge(normalized, key_path: str) -> dict:
    """The check of the normalised rows against a ledger key: the same number of rows,
    and each row's date, amount (to the cent) and balance, where the key gives one."""
    import pandas as pd  # lazy: keeps import dua fast

    key = pd.read_csv(key_path, encoding="utf-8-sig")
    got = normalized.frame
    name = "ledger_key"
    if len(key) != len(got):
        return {"name": name, "passed": False,
                "detail": f"the key lists {len(key)} rows, the statement gives {len(got)}"}
    for i in range(len(key)):
        for column in _COMPARED:
            if column not in key.columns:
                continue
            want, have = key[column].iloc[i], got[column].iloc[i]
            if not _same(want, have):
                return {"name": name, "passed": False,
                        "detail": f"row {i + 1}: {column} {_show(have)}, the key says "
                                  f"{_show(want)}"}
    shown = ", ".join(c for c in _COMPARED if c in key.columns)
    return {"name": name, "passed": True,
            "detail": f"the {len(key)} rows, normalised, equal the key's ({shown})"}


def _show(value) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{float(value):.2f}"
    return str(value)


def _same(want, have) -> bool:
    if isinstance(want, float) and math.isnan(want):
        return True  # the key leaves it open
    if isinstance(want, (int, float)):
        return have is not None and not (isinstance(have, float) and math.isnan(have)) \
            and abs(float(have) - float(want)) < 0.005
    return str(want).strip() == str(have).strip()
