"""Wrong versions of right rows: what a parse that went wrong would hand ``dua check``.

Each kind takes an answer key (a DataFrame in the key convention) and returns a copy that
differs from it the way a faulty reading does, or None when the key offers no place for
that fault (no two rows that cancel, no description of two words). Kinds are drawn from
the key's own columns by their values (dates, amounts, text), never by their names.
"""
from __future__ import annotations

import math
import re

_DATE = re.compile(r"\d")


def _kinds(key) -> dict:
    """column roles by their values: 'amount' (float), 'date' (first text column with a
    digit on most rows), 'text' (the text column with the most letters)."""
    roles: dict = {"amount": [], "date": None, "text": None}
    best_letters = 0
    for name in key.columns:
        values = key[name]
        if str(values.dtype).startswith("float") or str(values.dtype).startswith("int"):
            roles["amount"].append(name)
            continue
        cells = [str(v) for v in values.dropna()]
        if not cells:
            continue
        if roles["date"] is None and sum(bool(_DATE.search(c)) for c in cells) > 0.8 * len(cells) \
                and max(len(c) for c in cells) <= 16:
            roles["date"] = name
            continue
        letters = sum(len(re.findall(r"[^\W\d_]", c)) for c in cells)
        if letters > best_letters:
            roles["text"], best_letters = name, letters
    return roles


def _drop(key, rows: list):
    return key.drop(index=key.index[rows]).reset_index(drop=True)


def lost_first(key):
    return _drop(key, [0]) if len(key) > 1 else None


def lost_last(key):
    return _drop(key, [len(key) - 1]) if len(key) > 1 else None


def lost_middle(key):
    return _drop(key, [len(key) // 2]) if len(key) > 2 else None


def lost_first_of_a_later_account(key):
    """The first row of a table whose balances start again (another account's), lost: its
    amount leads from no balance printed, as the statement's first row's does."""
    bal, signs = _roles_of_money(key, _kinds(key))
    if bal is None:
        return None
    b = key[bal].tolist()
    starts = [i for i in range(1, len(b)) if abs(b[i] - b[i - 1] - _movement(key, i, signs))
              >= 0.005]
    return _drop(key, [starts[0]]) if starts else None


def _roles_of_money(key, roles: dict) -> tuple:
    """(balance column or None, {column: sign}) found from the values: a column that is set
    on every row and whose steps are the other columns' amounts under one choice of signs."""
    import itertools

    cols = roles["amount"]
    for bal in cols:
        b = key[bal].tolist()
        if not all(_real(v) for v in b) or len(b) < 3:
            continue
        others = [c for c in cols if c != bal]
        for signs in itertools.product((1.0, -1.0), repeat=len(others)):
            fits = sum(abs(b[i] - b[i - 1] - sum(s * _zero(key[c].iloc[i])
                                                  for c, s in zip(others, signs))) < 0.005
                       for i in range(1, len(b)))
            if others and fits >= 0.9 * (len(b) - 1):
                return bal, dict(zip(others, signs))
    signs = {c: (1.0 if n == 0 else -1.0) for n, c in enumerate(cols)}
    return None, signs


def _zero(v) -> float:
    return float(v) if _real(v) else 0.0


def _movement(key, i: int, signs: dict) -> float:
    return sum(s * _zero(key[c].iloc[i]) for c, s in signs.items())


def lost_cancelling_pair(key):
    """Two rows whose movements cancel, lost together: the balances still chain."""
    _, signs = _roles_of_money(key, _kinds(key))
    moves = [_movement(key, i, signs) for i in range(len(key))]
    for i in range(len(key)):
        for j in range(i + 1, len(key)):
            if moves[i] and abs(moves[i] + moves[j]) < 0.005:
                return _drop(key, [i, j])
    return None


def lost_one_way(key):
    """Every row that moves money one way lost, the other way's kept: a section of money in
    the reading never reached, where the money out's total still adds up."""
    _, signs = _roles_of_money(key, _kinds(key))
    moves = [_movement(key, i, signs) for i in range(len(key))]
    ins = [i for i, m in enumerate(moves) if m > 0]
    if len(ins) < 2 or len(key) - len(ins) < 2:
        return None
    return _drop(key, ins)


def lost_adjacent_pair(key):
    return _drop(key, [1, 2]) if len(key) > 3 else None


def doubled(key):
    import pandas as pd

    i = len(key) // 2
    return pd.concat([key.iloc[:i + 1], key.iloc[i:]]).reset_index(drop=True)


def _text_rows(key, column, min_words: int) -> list:
    return [i for i, v in enumerate(key[column].tolist())
            if isinstance(v, str) and len(v.split()) >= min_words]


def word_moved_down(key):
    """A description's last word moved to the start of the next row's."""
    col = _kinds(key)["text"]
    if col is None:
        return None
    for i in _text_rows(key, col, 2):
        nxt = key[col].iloc[i + 1] if i + 1 < len(key) else None
        if isinstance(nxt, str):
            out = key.copy()
            words = out.at[i, col].split()
            out.at[i, col] = " ".join(words[:-1])
            out.at[i + 1, col] = words[-1] + " " + nxt
            return out
    return None


def tail_lost(key):
    """The longest description's second half left out, as a wrapped line the reading took
    for no part of its row (a heading over the rows below, a section's title)."""
    col = _kinds(key)["text"]
    rows = _text_rows(key, col, 6) if col is not None else []
    if not rows:
        return None
    i = max(rows, key=lambda r: len(key[col].iloc[r].split()))
    out = key.copy()
    words = out.at[i, col].split()
    out.at[i, col] = " ".join(words[:len(words) // 2])
    return out


def columns_merged(key):
    """Two neighbouring columns of text read as one, each row's cells joined under the first
    one's name ('Balance' and 'Date' a narrow gutter apart, on a page set at other widths)."""
    names = list(key.columns)
    for left, right in zip(names, names[1:]):
        if any(str(key[n].dtype).startswith(("float", "int")) for n in (left, right)) or \
                not key[right].notna().any():
            continue
        out = key.drop(columns=[right])
        out[left] = [" ".join(str(v) for v in pair if isinstance(v, str)) or None
                     for pair in zip(key[left], key[right])]
        return out
    return None


def word_into_next_column(key):
    """A description's last word read across the edge into the next column's cell, where
    the next column prints a word on that row: 'for the' / 'month 18/02'."""
    col = _kinds(key)["text"]
    names = list(key.columns)
    nxt = names[names.index(col) + 1] if col is not None and names.index(col) + 1 < len(names) \
        else None
    if nxt is None or str(key[nxt].dtype).startswith(("float", "int")):
        return None
    for i in _text_rows(key, col, 2):
        if isinstance(key[nxt].iloc[i], str):
            out = key.copy()
            words = out.at[i, col].split()
            out.at[i, col] = " ".join(words[:-1])
            out.at[i, nxt] = words[-1] + " " + key[nxt].iloc[i]
            return out
    return None


def amounts_swapped(key):
    roles = _kinds(key)
    for c in roles["amount"]:
        values = key[c].tolist()
        for i in range(len(values) - 1):
            a, b = values[i], values[i + 1]
            if _real(a) and _real(b) and a != b:
                out = key.copy()
                out.at[i, c], out.at[i + 1, c] = b, a
                return out
    return None


def _real(v) -> bool:
    return isinstance(v, float) and not math.isnan(v)


def digit_changed(key):
    roles = _kinds(key)
    for c in roles["amount"]:
        for i, v in enumerate(key[c].tolist()):
            if _real(v) and abs(v) >= 1:
                out = key.copy()
                out.at[i, c] = v + (10.0 if abs(v) % 100 < 90 else -10.0)  # the tens digit
                return out
    return None


def word_split(key):
    col = _kinds(key)["text"]
    if col is None:
        return None
    for i, v in enumerate(key[col].tolist()):
        if not isinstance(v, str):
            continue
        for word in v.split():
            if len(word) >= 5 and word.isalpha():
                out = key.copy()
                out.at[i, col] = v.replace(word, word[:2] + " " + word[2:], 1)
                return out
    return None


def words_glued(key):
    col = _kinds(key)["text"]
    if col is None:
        return None
    for i in _text_rows(key, col, 2):
        out = key.copy()
        words = out.at[i, col].split(" ")
        out.at[i, col] = words[0] + words[1] + (" " + " ".join(words[2:]) if words[2:] else "")
        return out
    return None


def _swap_neighbours(key, col):
    """Two neighbouring rows' cells of ``col`` swapped, where they differ."""
    if col is None:
        return None
    values = key[col].tolist()
    for i in range(len(values) - 1):
        if isinstance(values[i], str) and isinstance(values[i + 1], str) \
                and values[i] != values[i + 1]:
            out = key.copy()
            out.at[i, col], out.at[i + 1, col] = values[i + 1], values[i]
            return out
    return None


def dates_swapped(key):
    return _swap_neighbours(key, _kinds(key)["date"])


def date_tail_in_description(key):
    """A wrapped date's second line read into the description: '02 Mar' / '25 ...'."""
    roles = _kinds(key)
    col, text = roles["date"], roles["text"]
    if col is None or text is None:
        return None
    out = key.copy()
    changed = False
    for i, v in enumerate(key[col].tolist()):
        if isinstance(v, str) and len(v.split()) >= 2:
            head, tail = v.rsplit(" ", 1)
            out.at[i, col] = head
            desc = out.at[i, text]
            out.at[i, text] = tail + (" " + desc if isinstance(desc, str) else "")
            changed = True
    return out if changed else None


def descriptions_swapped(key):
    return _swap_neighbours(key, _kinds(key)["text"])


def descriptions_a_row_off(key):
    """Each row read with the next row's description, the last with none: descriptions set
    over their figures read as if under them (the first one taken for the heading's)."""
    col = _kinds(key)["text"]
    if col is None or len(key) < 2:
        return None
    out = key.copy()
    out[col] = key[col].shift(-1)
    return out


def amount_in_other_column(key):
    """A debit read into the credit column (or the other way): the two columns of money
    that are not the balance, on a row that sets one of them."""
    roles = _kinds(key)
    balance, _ = _roles_of_money(key, roles)
    moving = [c for c in roles["amount"] if c != balance]
    if len(moving) < 2:
        return None
    a, b = moving[:2]
    for i in range(len(key)):
        if _real(key[a].iloc[i]) and not _real(key[b].iloc[i]):
            out = key.copy()
            out.at[i, b], out.at[i, a] = key[a].iloc[i], float("nan")
            return out
    return None


def balance_lost(key):
    """A row's balance left out of its cell where the next row shares its day in one of
    the rows' columns of dates (a booking date, a value date): read as a balance printed
    on a day's last row only."""
    roles = _kinds(key)
    balance, _ = _roles_of_money(key, roles)
    if balance is None:
        return None
    texts = [c for c in key.columns if c not in roles["amount"]]
    for i in range(len(key) - 1):
        if any(isinstance(key[c].iloc[i], str) and key[c].iloc[i] == key[c].iloc[i + 1]
               for c in texts):
            out = key.copy()
            out.at[i, balance] = float("nan")
            return out
    return None


def sign_flipped(key):
    for c in _kinds(key)["amount"]:
        values = key[c].tolist()
        if any(_real(v) and v < 0 for v in values):  # a signed column
            for i, v in enumerate(values):
                if _real(v) and v:
                    out = key.copy()
                    out.at[i, c] = -v
                    return out
    return None


KINDS = {f.__name__: f for f in (
    lost_first, lost_last, lost_middle, lost_first_of_a_later_account, lost_cancelling_pair,
    lost_one_way, lost_adjacent_pair, doubled, word_moved_down, tail_lost, columns_merged,
    word_into_next_column, amounts_swapped, digit_changed, word_split, words_glued,
    dates_swapped, date_tail_in_description, descriptions_swapped, descriptions_a_row_off,
    amount_in_other_column, balance_lost, sign_flipped)}


def wrong_versions(key) -> dict:
    """kind -> wrong rows, for every kind the key offers a place for (and that differs)."""
    out = {}
    for name, make in KINDS.items():
        wrong = make(key)
        if wrong is not None and not (wrong.shape == key.shape and wrong.equals(key)):
            out[name] = wrong
    return out
