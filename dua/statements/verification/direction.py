"""Which way the amounts go where the reading signed them by a guess: sections' titles,
or two codes after the amounts whose way no balance told. Both ways must be tried; where
both add up, only the balances a summary prints day by day can say which is right.
"""
from __future__ import annotations


def signed_by_guess(frame, settings: dict) -> tuple:
    """``(columns, what)``: the columns of money whose signs the reading gave by a guess
    the arithmetic must prove, sections' titles or two codes after the amounts whose way
    no balance told (every column of money but the balance)."""
    columns = settings.get("columns") or []
    if settings.get("sign_marks_guessed"):
        codes = " and ".join(map(repr, settings.get("sign_marks") or ()))
        return [c["name"] for i, c in enumerate(columns) if c["kind"] == "amount" and i !=
                settings.get("balance_column") and c["name"] in frame.columns], \
            f"the amounts, their codes {codes} read the other way, add up"
    return [c["name"] for c in columns if c.get("section_signed") and c.get("output", True)
            and c["name"] in frame.columns and settings.get("sections")], "the sections add up"


def decide(result: dict, mirrored: dict, what: str) -> dict:
    """The amounts' signs come from sections or codes, and both ways add up: the daily
    balances decide, if any."""
    if not mirrored["passed"]:
        return with_running(result)
    mine = len((result.get("running") or {}).get("reached", []))
    theirs = len((mirrored.get("running") or {}).get("reached", []))
    if mine > theirs:
        return with_running(result)
    if theirs > mine:
        return dict(result, passed=False, bad_rows=theirs - mine,
                    detail=result["detail"] + f"; but signed the other way round the rows "
                    f"reach {theirs} of the daily balances printed, and {mine} as they stand")
    return dict(result, passed=None, detail=result["detail"] + f"; but signed the other way "
                f"round {what} as well, so the arithmetic cannot tell which way they move "
                "the balance")


def with_running(result: dict) -> dict:
    """The result, its detail saying how many of the balances printed day by day the rows
    reach from the opening one."""
    run = result.get("running")
    if run:
        result = dict(result, detail=result["detail"] + f"; from the printed {run['opening']} "
                      f"the rows reach {len(run['reached'])} of the balances printed by day")
    return result
