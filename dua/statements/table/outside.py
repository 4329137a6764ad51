"""What a statement says about its rows outside them: whether its balance is owed (a
card), the currency it names, the account each row stands under. Read from the lines that
are no row's, never from a list of banks.
"""
from __future__ import annotations

import re

from . import wordlines

# The words a card (or any account that is a debt) statement prints about what is owed:
# there a purchase raises the printed balance, and is money out for the account holder.
# Matched with the spaces taken out: a page that prints no space glyphs reads 'PaymentDue'.
_OWED = re.compile(r"(creditlimit|minimum(?:payment|amount)|paymentdue|availablecredit|"
                   r"totalamountdue|kreditrahmen|mindestbetrag|limitedecr[ée]dit|"
                   r"paiementminimum)", re.IGNORECASE)
# ISO 4217 codes in use (the data a currency is read against; a three-letter word that is
# not one, 'AMT' or 'REF', is no currency).
_ISO4217 = frozenset("""
AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN BWP
BYN BZD CAD CDF CHF CLP CNY COP CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP
GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR
KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK
MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR
SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH
UGX USD UYU UZS VES VND VUV WST XAF XCD XOF XPF YER ZAR ZMW ZWL""".split())
# Codes that are also words printed in capitals ('ALL TRANSACTIONS', 'TOP UP'): never read
# as a currency from running text, only from a column's heading.
_WORDS = frozenset("ALL BAM BOB CUP MAD MOP PEN SOS TOP TRY".split())
# Signs that name one currency wherever they are printed ('$' and '¥' name several).
_SIGNS = {"€": "EUR", "£": "GBP", "₹": "INR", "₩": "KRW", "₺": "TRY", "₽": "RUB", "₴": "UAH",
          "₱": "PHP", "₪": "ILS", "₦": "NGN", "฿": "THB", "zł": "PLN"}
_CODE = re.compile(r"(?<![A-Za-z])([A-Z]{3})(?![A-Za-z])")
# An account's number where a statement names it: a label, then digits (masked ones too).
_ACCOUNT = re.compile(r"(?i)\b(?:account|acct|a/c|konto|compte|cuenta|conto|iban)\b"
                      r"(?:\s*(?:number|no\.?|nr\.?|num[eé]ro|n[°º]|#|:|-))*\s*"
                      r"((?:[A-Z]{2}\d{2} ?)?[\dX*](?:[\dX* -]{3,}[\dX*]))")


def owed(lines: list, settings: dict, moves: list) -> tuple:
    """Whether the statement's balance is a debt (a card): its notation marks the credits
    (a lone 'CR' that lowers what is owed), or it speaks of a credit limit and a minimum
    payment and most of its movements raise the balance (purchases)."""
    for col in settings["columns"]:
        signs = col.get("drcr_signs")
        if col["kind"] == "amount" and signs and signs.get("cr") == -1 and signs.get("dr") == -1:
            return True, f"{col['name']!r} marks credits 'CR' against what is owed: a card"
    words = {m.group(1).lower() for text in lines
             for m in _OWED.finditer(re.sub(r"\s+", "", text))}
    known = [m for m in moves if m is not None and m != 0]
    rising = sum(m > 0 for m in known)
    if len(words) >= 2 and known and rising > len(known) / 2:
        return True, (f"the statement prints {', '.join(sorted(words))} and most movements "
                      "raise its balance: a card, purchases are money out")
    return False, ""


def lines_outside(pages: list, rows: list, settings: dict) -> list:
    """The texts of the statement's lines that are no row's (its heading, period, totals)."""
    own = {id(w) for row in rows for line in row[1] for w in line}
    out = []
    for words in pages:
        for line in wordlines.group_lines(words, settings.get("line_tolerance", 3.0)):
            kept = [w for w in line if id(w) not in own]
            if kept:
                out.append(" ".join(w[0] for w in kept))
    return out


def currency(lines: list, columns) -> tuple:
    """``(ISO 4217 code, how)``: the one currency the statement names outside its rows (a
    code, or a sign that names one currency), its column headings first; None when it
    names none, or several."""
    for where, texts in (("the column headings", [str(c) for c in columns]),
                         ("the statement's lines outside its rows", lines)):
        found = {}
        for text in texts:
            for code in _CODE.findall(text):
                if code in _ISO4217 and (code not in _WORDS or where.startswith("the column")):
                    found[code] = found.get(code, 0) + 1
            for sign, code in _SIGNS.items():
                if sign in text:
                    found[code] = found.get(code, 0) + 1
        if len(found) == 1:
            code = next(iter(found))
            return code, f"{code}, printed in {where}"
        if found:
            return None, f"several currencies printed in {where} ({', '.join(sorted(found))})"
    return None, "no currency printed"


def accounts(pages: list, rows: list, settings: dict, count: int) -> list:
    """The account each row stands under, where the PDF holds several: the last account
    number named above the row (outside the rows), when two or more of them own rows; one
    account (or its number printed twice, as number and IBAN) leaves the column empty."""
    if len(rows) != count:
        return [None] * count
    own = {id(w) for row in rows for line in row[1] for w in line}
    named = []  # (page, top, number) in reading order
    for page, words in enumerate(pages):
        for line in wordlines.group_lines(words, settings.get("line_tolerance", 3.0)):
            text = " ".join(w[0] for w in line if id(w) not in own)
            for found in _ACCOUNT.finditer(text):
                named.append(((page, line[0][3]), re.sub(r"[ -]", "", found.group(1))))
    if len({n for _, n in named}) < 2:
        return [None] * count
    out = []
    for row in rows:
        first = row[1][0] if row[1] else []
        at = (row[3][0][0], min(w[3] for w in first)) if first else (row[3][0][0], 0.0)
        above = [n for where, n in named if where <= at]
        out.append(above[-1] if above else None)
    if settings.get("row_order") == "reversed":
        out = out[::-1]
    return out if len({a for a in out if a}) >= 2 else [None] * count
