"""What a benchmark reports: a measured value beside a floor measured in the same run."""
from __future__ import annotations

import dataclasses
import statistics
import time


@dataclasses.dataclass
class Figure:
    name: str
    value: float
    floor: float
    unit: str = "s"
    floor_name: str = "floor"
    higher_is_better: bool = False
    target: str = ""

    @property
    def ratio(self) -> float:
        if self.higher_is_better:
            return self.floor / self.value if self.value else float("inf")
        return self.value / self.floor if self.floor else float("inf")

    def line(self) -> str:
        target = f"  target: {self.target}" if self.target else ""
        # a rate's ratio above is the floor's time share; say the rates' own ratio too
        faster = (f" (rate {self.value / self.floor:.2f}x the floor's)"
                  if self.higher_is_better and self.floor and self.unit.endswith("/s") else "")
        return (f"{self.name}: {_fmt(self.value)} {self.unit} vs {self.floor_name} "
                f"{_fmt(self.floor)} {self.unit} -> {self.ratio:.2f}x the floor{faster}"
                f"{target}")


def _fmt(v: float) -> str:
    return f"{v:.3g}" if abs(v) < 1000 else f"{v:,.0f}"


def best_of(fn, repeat: int = 5, number: int = 1) -> float:
    """Best per-call seconds over ``repeat`` rounds of ``number`` calls (timeit's advice)."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t) / number)
    return min(times)


def median_of(fn, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)
