"""Rows as finance tools read them: CSV, JSON Lines, OFX 2.2 (XML) and QIF.

OFX and QIF speak of one signed amount and a full date, so they are written from the rows
in the common schema (``normalize``) only. Everything here is text made from the rows
alone (no clock, no random id): the same rows give the same file, and a transaction keeps
its FITID when a statement is converted again, so a finance tool's import can tell a
transaction it already holds.
"""
from __future__ import annotations

import hashlib
import json
import math
from xml.sax.saxutils import escape

FORMATS = ("csv", "jsonl", "ofx", "qif")
NORMALIZED_ONLY = ("ofx", "qif")  # they need one signed amount and an ISO date
SUFFIX = {"csv": ".csv", "jsonl": ".jsonl", "ofx": ".ofx", "qif": ".qif"}
_NAME_MAX, _MEMO_MAX = 32, 255  # OFX 2.2's lengths for NAME and MEMO


# ISO 4217 code for "no currency involved": OFX requires CURDEF, the statement names none
NO_CURRENCY = "XXX"

def render(frame, fmt: str, normalized=None, account: str = "") -> str:
    """The rows of ``frame`` as text in ``fmt``; ``normalized`` (a ``Normalized``) is
    required for OFX and QIF, whose rows are its frame.

    Raises:
        ValueError: an unknown format, or OFX/QIF without normalised rows
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}: one of {', '.join(FORMATS)}")
    if fmt == "csv":
        return frame.to_csv(index=False)
    if fmt == "jsonl":
        return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in records(frame))
    if normalized is None:
        raise ValueError(f"{fmt} needs the rows in the common schema (normalize them first)")
    if fmt == "ofx":
        return ofx(normalized, account)
    return qif(normalized)


def records(frame) -> list:
    """Each row as a dict of plain JSON values (a blank cell is null)."""
    out = []
    for row in frame.to_dict(orient="records"):
        out.append({str(k): _plain(v) for k, v in row.items()})
    return out


def _plain(value):
    if value is None:
        return None
    if hasattr(value, "item"):  # a numpy scalar
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    if type(value).__name__ in ("NAType", "NaTType"):
        return None
    return value


def fitids(frame) -> list:
    """A stable id for each row: its date, amount and description, and which of the rows
    that share all three it is (two coffees of one day at one price are two)."""
    seen: dict = {}
    out = []
    for row in records(frame):
        key = f"{row['date']}|{_money(row['amount'])}|{row['description'] or ''}"
        seen[key] = seen.get(key, 0) + 1
        out.append(hashlib.sha1(f"{key}|{seen[key]}".encode()).hexdigest()[:24])
    return out


def ofx(normalized, account: str = "") -> str:
    """OFX 2.2 (XML): one STMTTRN a row, and LEDGERBAL: the closing balance where the rows
    print one or the statement's printed figures prove one, else the rows' net movement
    (OFX requires a LEDGERBAL). A card statement is a credit card statement, its balance
    owed negative."""
    rows = records(normalized.frame)
    dates = [r["date"] for r in rows if r["date"]]
    first, last = (min(dates), max(dates)) if dates else ("1970-01-01", "1970-01-01")
    currency = next((r["currency"] for r in rows if r["currency"]), None) or NO_CURRENCY
    ids = fitids(normalized.frame)
    trans = "".join(_stmttrn(r, fitid) for r, fitid in zip(rows, ids))
    account_id = escape((account or "UNKNOWN")[:22])
    if normalized.owed:
        msgs, trnrs, stmtrs = "CREDITCARDMSGSRSV1", "CCSTMTTRNRS", "CCSTMTRS"
        acct = f"<CCACCTFROM><ACCTID>{account_id}</ACCTID></CCACCTFROM>"
    else:
        msgs, trnrs, stmtrs = "BANKMSGSRSV1", "STMTTRNRS", "STMTRS"
        acct = (f"<BANKACCTFROM><BANKID>000000000</BANKID><ACCTID>{account_id}</ACCTID>"
                "<ACCTTYPE>CHECKING</ACCTTYPE></BANKACCTFROM>")
    balance = normalized.closing_balance
    if balance is None:
        balance = sum(r["amount"] or 0.0 for r in rows)
    elif normalized.owed:
        balance = -balance  # what is owed is the holder's negative balance
    ledger = (f"<LEDGERBAL><BALAMT>{_money(balance)}</BALAMT><DTASOF>{_ofx_date(last)}"
              "</DTASOF></LEDGERBAL>")
    status = "<STATUS><CODE>0</CODE><SEVERITY>INFO</SEVERITY></STATUS>"
    return (
        '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n'
        '<?OFX OFXHEADER="200" VERSION="220" SECURITY="NONE" OLDFILEUID="NONE" '
        'NEWFILEUID="NONE"?>\n'
        f"<OFX><SIGNONMSGSRSV1><SONRS>{status}<DTSERVER>{_ofx_date(last)}</DTSERVER>"
        "<LANGUAGE>ENG</LANGUAGE></SONRS></SIGNONMSGSRSV1>\n"
        f"<{msgs}><{trnrs}><TRNUID>0</TRNUID>{status}<{stmtrs}><CURDEF>{currency}</CURDEF>"
        f"{acct}\n<BANKTRANLIST><DTSTART>{_ofx_date(first)}</DTSTART>"
        f"<DTEND>{_ofx_date(last)}</DTEND>\n{trans}</BANKTRANLIST>{ledger}"
        f"</{stmtrs}></{trnrs}></{msgs}></OFX>\n")


def _stmttrn(row: dict, fitid: str) -> str:
    amount = row["amount"] or 0.0
    description = " ".join(str(row["description"] or "").split())
    memo = f"<MEMO>{escape(description[:_MEMO_MAX])}</MEMO>" if len(description) > _NAME_MAX \
        else ""
    return (f"<STMTTRN><TRNTYPE>{'CREDIT' if amount >= 0 else 'DEBIT'}</TRNTYPE>"
            f"<DTPOSTED>{_ofx_date(row['date'])}</DTPOSTED><TRNAMT>{_money(amount)}</TRNAMT>"
            f"<FITID>{fitid}</FITID><NAME>{escape(description[:_NAME_MAX]) or '-'}</NAME>"
            f"{memo}</STMTTRN>\n")


def qif(normalized) -> str:
    """QIF: a bank account (a card's as !Type:CCard), D date (MM/DD/YYYY), T amount,
    P payee, ^ after each row."""
    head = "!Type:CCard\n" if normalized.owed else "!Type:Bank\n"
    parts = [head]
    for row in records(normalized.frame):
        year, month, day = (row["date"] or "1970-01-01").split("-")
        payee = " ".join(str(row["description"] or "").split())
        parts.append(f"D{month}/{day}/{year}\nT{_money(row['amount'] or 0.0)}\nP{payee}\n^\n")
    return "".join(parts)


def _ofx_date(iso: str | None) -> str:
    return (iso or "1970-01-01").replace("-", "")


def _money(value) -> str:
    return f"{float(value):.2f}" if value is not None else "0.00"
