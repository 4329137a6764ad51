"""The JSON frame codec rebuilds identical DataFrames (values, dtypes, index, columns)."""
from __future__ import annotations

import datetime as dt
import decimal
import itertools
import json
import unittest

import numpy as np
import pandas as pd

from dua.sandbox import frame_json
from dua.sandbox.frame_json import FrameCodecError

N = 4


def _columns() -> dict:
    """One factory per dtype (and awkward value) the codec promises to carry."""
    return {
        "str": lambda: pd.Series(["a", None, "ç€", ""]),
        "string_NA": lambda: pd.Series(["x", None, "z", "w"], dtype="string"),
        "object_mixed": lambda: pd.Series(["a", 1, None, 2.5], dtype=object),
        "object_nan": lambda: pd.Series([np.nan, "b", None, True], dtype=object),
        "object_dates": lambda: pd.Series([dt.date(2024, 1, 31), dt.datetime(2024, 2, 1, 9, 30),
                                           pd.Timestamp("2024-03-01", tz="UTC"), pd.NaT],
                                          dtype=object),
        "object_decimal": lambda: pd.Series([decimal.Decimal("1.20"), pd.NA,
                                             np.int64(7), dt.timedelta(days=1)], dtype=object),
        "object_nested": lambda: pd.Series([[1, "a"], (2, None), {"k": 1.5}, "s"], dtype=object),
        "int64": lambda: pd.Series([0, -1, 2**62, 7], dtype="int64"),
        "int32": lambda: pd.Series([1, 2, 3, -4], dtype="int32"),
        "uint64": lambda: pd.Series([0, 1, 2**64 - 1, 3], dtype="uint64"),
        "float64": lambda: pd.Series([1.5, np.nan, -0.0, np.inf]),
        "float32": lambda: pd.Series([0.1, np.nan, 3.25, -1e30], dtype="float32"),
        "float_exact": lambda: pd.Series([0.1 + 0.2, 1 / 3, 1e-310, 6864.58]),
        "bool": lambda: pd.Series([True, False, True, False]),
        "datetime_ns": lambda: pd.Series(pd.to_datetime(["2024-01-01", None, "2024-02-29",
                                                         "1970-01-01"]).as_unit("ns")),
        "datetime_s": lambda: pd.Series(pd.to_datetime(["2024-01-01", "2024-01-02", None,
                                                        "2024-01-04"]).as_unit("s")),
        "datetime_tz": lambda: pd.Series(pd.to_datetime(["2024-01-01 10:00", None, "2024-06-01 00:00",
                                                         "2024-12-31 23:59"]).tz_localize("Asia/Kolkata")),
        "timedelta": lambda: pd.Series(pd.to_timedelta([1, None, 3, -4], unit="s")),
        "Int64": lambda: pd.Series([1, None, 3, -(2**62)], dtype="Int64"),
        "boolean": lambda: pd.Series([True, None, False, True], dtype="boolean"),
        "Float64": lambda: pd.Series([1.5, None, 2.0, -3.0], dtype="Float64"),
        "category": lambda: pd.Series(pd.Categorical(["x", "y", None, "x"], ordered=True)),
    }


class FrameJsonRoundTripTest(unittest.TestCase):
    def assertRoundTrip(self, df: pd.DataFrame) -> pd.DataFrame:
        text = frame_json.dumps(df)
        json.loads(text)  # one plain JSON document (Python's json: NaN and Infinity allowed)
        rebuilt = frame_json.loads(text)
        self.assertTrue(rebuilt.equals(df), f"\n{df}\n!=\n{rebuilt}")
        self.assertTrue(rebuilt.dtypes.equals(df.dtypes), f"{df.dtypes}\n!=\n{rebuilt.dtypes}")
        self.assertEqual(type(df.index), type(rebuilt.index))
        self.assertEqual(df.index.dtype, rebuilt.index.dtype)
        self.assertEqual(df.columns.dtype, rebuilt.columns.dtype)
        self.assertEqual(list(df.columns), list(rebuilt.columns))
        return rebuilt

    def test_every_dtype_alone_round_trips_with_identical_dtype(self):
        for name, make in _columns().items():
            with self.subTest(dtype=name):
                self.assertRoundTrip(pd.DataFrame({name: make()}))

    def test_every_pair_of_dtypes_round_trips(self):
        columns = _columns()
        for a, b in itertools.combinations(columns, 2):
            with self.subTest(pair=(a, b)):
                self.assertRoundTrip(pd.DataFrame({a: columns[a](), b: columns[b]()}))

    def test_all_dtypes_together_round_trip(self):
        self.assertRoundTrip(pd.DataFrame({k: f() for k, f in _columns().items()}))

    def test_empty_frames_keep_their_dtypes(self):
        for name, make in _columns().items():
            with self.subTest(dtype=name):
                self.assertRoundTrip(pd.DataFrame({name: make()}).iloc[:0])
        self.assertRoundTrip(pd.DataFrame())

    def test_indexes_and_column_labels_round_trip(self):
        base = {"a": [1.0, 2.0, 3.0, 4.0], "b": ["w", "x", "y", "z"]}
        indexes = {
            "range_step": pd.RangeIndex(10, 18, 2, name="row"),
            "str": pd.Index(["p", "q", "r", "s"], name="key"),
            "int": pd.Index([5, 1, 9, 2]),
            "datetime": pd.DatetimeIndex(pd.to_datetime(["2024-01-01", "2024-01-02",
                                                         "2024-01-03", "2024-01-04"])),
            "multi": pd.MultiIndex.from_arrays([["a", "a", "b", "b"], [1, 2, 1, 2]],
                                               names=["g", "n"]),
        }
        for name, index in indexes.items():
            with self.subTest(index=name):
                self.assertRoundTrip(pd.DataFrame(base, index=index))

    def test_duplicate_integer_and_object_column_labels_round_trip(self):
        dup = pd.DataFrame([[1, 2.5, "x"]], columns=["a", "a", "b"])
        self.assertRoundTrip(dup)
        self.assertRoundTrip(pd.DataFrame([[1, 2]], columns=[10, 20]))
        self.assertRoundTrip(pd.DataFrame([[1, 2]], columns=pd.Index(["a", "b"], dtype=object)))

    def test_icici_shaped_frame_round_trips(self):
        df = pd.DataFrame({"Date": ["01-08-2024", "02-08-2024"],
                           "Description": ["Salary Credit", "UPI"],
                           "Debit Amt": [1935.3, np.nan], "Credit Amt": [np.nan, 1652.61],
                           "Balance": [6864.58, 8517.19]})
        self.assertRoundTrip(df)


class FrameJsonRefusalTest(unittest.TestCase):
    def test_a_value_of_an_unknown_type_is_refused_with_the_column_name(self):
        df = pd.DataFrame({"weird": pd.Series([object()], dtype=object)})
        with self.assertRaisesRegex(FrameCodecError, r"column 'weird'.*type object"):
            frame_json.dumps(df)

    def test_dtypes_outside_the_promise_are_refused_not_coerced(self):
        cases = {"sparse": pd.arrays.SparseArray([0.0, 1.0]),
                 "period": pd.period_range("2024-01", periods=2, freq="M").array,
                 "interval": pd.arrays.IntervalArray.from_breaks([0, 1, 2]),
                 "complex": np.array([1j, 2j])}
        for name, array in cases.items():
            with self.subTest(dtype=name):
                with self.assertRaisesRegex(FrameCodecError, "cannot cross the sandbox boundary"):
                    frame_json.dumps(pd.DataFrame({name: array}))

    def test_a_non_frame_is_refused(self):
        with self.assertRaisesRegex(FrameCodecError, "expected a pandas DataFrame, got list"):
            frame_json.dumps([1, 2])

    def test_the_size_limit_is_enforced(self):
        df = pd.DataFrame({"s": ["x" * 1000] * 10})
        with self.assertRaisesRegex(FrameCodecError, "over the 500 limit"):
            frame_json.dumps(df, limit=500)

    def test_malformed_documents_raise_frame_codec_errors(self):
        good = json.loads(frame_json.dumps(pd.DataFrame({"a": [1, 2]})))
        bad = [
            "not json", "[]", json.dumps({"format": "other"}),
            json.dumps(dict(good, data=[])),
            json.dumps(dict(good, data=[{"dtype": "int64", "values": [1]}])),
            json.dumps(dict(good, data=[{"dtype": "void", "values": [1, 2]}])),
            json.dumps(dict(good, data=[{"dtype": "object", "values": [{"$": "evil"}, 1]}])),
            json.dumps(dict(good, data=[{"dtype": {"kind": "masked", "name": "os.system"},
                                         "values": [1, 2]}])),
        ]
        for text in bad:
            with self.subTest(text=text[:60]):
                with self.assertRaises(FrameCodecError):
                    frame_json.loads(text)


if __name__ == "__main__":
    unittest.main()
