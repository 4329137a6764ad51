"""The ways the settings search turns a reading's signs (``writer.mutations``): each a
guess that only the verdict's arithmetic keeps."""
from __future__ import annotations

import copy


def copy_with(settings: dict, **changes) -> dict:
    out = copy.deepcopy(settings)
    out.update(changes)
    return out


def _balance_of(settings: dict, result: dict | None) -> int | None:
    """The balance column's index: the settings', else the one the verdict's arithmetic
    found the balances in."""
    if settings.get("balance_column") is not None:
        return settings["balance_column"]
    roles = next((c.get("roles") for c in (result or {}).get("checks") or ()
                  if c.get("roles")), None)
    names = [c["name"] for c in settings["columns"]]
    return names.index(roles[0]) if roles and roles[0] in names else None


def variants(settings: dict, result: dict | None = None) -> list:
    """The reading with its signs turned each way the page may mean them: parentheses and
    a trailing minus as a sign or not, Dr and Cr (and two learned codes) either way, and
    the one column of money beside the balance with its bare amounts as money out."""
    out = [copy_with(settings, parens_negative=not settings.get("parens_negative", True)),
           copy_with(settings, trailing_minus_negative=not settings.get(
               "trailing_minus_negative", True))]
    now = settings.get("drcr_signs", {})
    learned = {m: now.get(m, 1) for m in settings.get("sign_marks") or ()}
    if learned:  # the two codes printed after the amounts ('S', 'H'), each the other way
        out.append(copy_with(settings, drcr_signs=dict(now, **{m: -v for m, v in learned.items()})))
    for signs in ({"dr": 1, "cr": 1}, {"dr": -1, "cr": 1}, {"dr": 1, "cr": -1}):
        signs = dict(signs, **learned)
        if signs != now:
            out.append(copy_with(settings, drcr_signs=signs))
    # the one column of money beside the balance: its bare amounts as money out, Cr in, Dr
    # out (a bank's lone 'Cr' beside bare debits), a guess the verdict asks the balance or
    # the summary to prove; a debit and a credit column print no sign to turn
    balance = _balance_of(settings, result)
    money = [i for i, c in enumerate(settings["columns"]) if c["kind"] == "amount"
             and i != balance and not c.get("section_signed")]
    bare_out = {"sign": -1, "drcr_signs": {"dr": 1, "cr": -1}, "sign_guessed": True}
    if len(money) == 1 and any(settings["columns"][money[0]].get(k) != v
                               for k, v in bare_out.items()):
        flipped = copy_with(settings)
        flipped["columns"][money[0]].update(bare_out)
        out.append(flipped)
    return out
