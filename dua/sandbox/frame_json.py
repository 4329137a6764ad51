"""DataFrame <-> JSON for the sandbox boundary: columns, dtypes and values, never pickle.

The child encodes, the parent decodes into a frame with identical dtypes, so that
``decode(encode(df)).equals(df)``. Both sides load this file on its own (the child by path,
without the dua package), so it imports only the standard library, numpy and pandas, and
only inside functions (lazy: keeps import dua fast).
"""
from __future__ import annotations

import datetime as _dt
import decimal
import json
import math

FORMAT = "dua-frame/1"
_NUMPY_KINDS = "iufbMm"  # int, uint, float, bool, datetime64, timedelta64
_MASKED = ("Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64",
           "Float32", "Float64", "boolean")


class FrameCodecError(ValueError):
    """A frame (or its JSON) that cannot cross the boundary, with the reason."""


def dumps(df: object, limit: int | None = None) -> str:
    """``df`` as one line of JSON; FrameCodecError if it cannot be encoded or passes ``limit``."""
    text = json.dumps(encode(df), separators=(",", ":"), ensure_ascii=False)
    if limit is not None and len(text) > limit:
        raise FrameCodecError(f"the result is {len(text):,} characters of JSON, over the "
                              f"{limit:,} limit")
    return text


def loads(text: str) -> object:
    """The DataFrame ``text`` describes; FrameCodecError if it is malformed."""
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise FrameCodecError(f"result is not JSON: {exc}") from exc
    return decode(doc)


def encode(df: object) -> dict:
    import pandas as pd  # lazy: keeps import dua fast

    if not isinstance(df, pd.DataFrame):
        raise FrameCodecError(f"expected a pandas DataFrame, got {type(df).__name__}")
    data = []
    for i in range(df.shape[1]):
        label = df.columns[i]
        try:
            data.append(_encode_array(df.iloc[:, i].array))
        except FrameCodecError as exc:
            raise FrameCodecError(f"column {label!r}: {exc}") from None
    return {"format": FORMAT, "shape": list(df.shape), "index": _encode_axis(df.index),
            "columns": _encode_axis(df.columns), "data": data}


def decode(doc: object) -> object:
    import pandas as pd  # lazy: keeps import dua fast

    try:
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise FrameCodecError(f"not a {FORMAT} document")
        index, columns = _decode_axis(doc["index"]), _decode_axis(doc["columns"])
        arrays = [_decode_array(a) for a in doc["data"]]
        if len(arrays) != len(columns) or any(len(a) != len(index) for a in arrays):
            raise FrameCodecError("shape does not match the data")
        df = pd.DataFrame(dict(enumerate(arrays)), index=index, copy=False)
        df.columns = columns
        return df
    except (KeyError, TypeError, IndexError, AttributeError, OverflowError) as exc:
        raise FrameCodecError(f"malformed {FORMAT} document: {type(exc).__name__}: {exc}") from exc
    except ValueError as exc:
        if isinstance(exc, FrameCodecError):
            raise
        raise FrameCodecError(f"malformed {FORMAT} document: {exc}") from exc


# --- axes ---------------------------------------------------------------------------


def _encode_axis(axis: object) -> dict:
    import pandas as pd  # lazy: keeps import dua fast

    if isinstance(axis, pd.MultiIndex):
        return {"levels": [_encode_axis(axis.get_level_values(i)) for i in range(axis.nlevels)]}
    name = _encode_scalar(axis.name)
    if type(axis) is pd.RangeIndex:
        return {"range": [axis.start, axis.stop, axis.step], "name": name}
    return {"array": _encode_array(axis.array), "name": name}


def _decode_axis(doc: dict) -> object:
    import pandas as pd  # lazy: keeps import dua fast

    if "levels" in doc:
        levels = [_decode_axis(level) for level in doc["levels"]]
        return pd.MultiIndex.from_arrays(levels, names=[level.name for level in levels])
    name = _decode_scalar(doc["name"])
    if "range" in doc:
        start, stop, step = (int(v) for v in doc["range"])
        return pd.RangeIndex(start, stop, step, name=name)
    array = _decode_array(doc["array"])
    return pd.Index(array, dtype=array.dtype, name=name, copy=False)


# --- arrays -------------------------------------------------------------------------


def _encode_array(array: object) -> dict:
    import numpy as np  # lazy: keeps import dua fast
    import pandas as pd

    dtype = array.dtype
    if isinstance(dtype, pd.StringDtype):
        na = "nan" if _is_nan(dtype.na_value) else "NA"
        values = [v if isinstance(v, str) else None for v in array]
        return {"dtype": {"kind": "string", "storage": dtype.storage, "na": na}, "values": values}
    if isinstance(dtype, pd.CategoricalDtype):
        return {"dtype": {"kind": "category", "ordered": bool(dtype.ordered),
                          "categories": _encode_array(dtype.categories.array)},
                "values": array.codes.tolist()}
    if isinstance(dtype, pd.DatetimeTZDtype):
        return {"dtype": {"kind": "datetimetz", "unit": dtype.unit, "tz": str(dtype.tz)},
                "values": array.asi8.tolist()}
    if str(dtype) in _MASKED:
        values = [None if m else v for v, m in zip(array._data.tolist(), array._mask.tolist())]
        return {"dtype": {"kind": "masked", "name": str(dtype)}, "values": values}
    if type(dtype).__name__ in ("NumpyEADtype", "PandasDtype"):  # a plain numpy column
        dtype = dtype.numpy_dtype
    if not isinstance(dtype, np.dtype):  # sparse, period, interval, arrow…: refuse, never coerce
        raise FrameCodecError(f"dtype {dtype} cannot cross the sandbox boundary; use plain "
                              "str, int, float, bool or datetime64 columns")
    numpy = np.asarray(array)
    if numpy.dtype.kind in "Mm":
        return {"dtype": str(numpy.dtype), "values": numpy.view("i8").tolist()}
    if numpy.dtype.kind in _NUMPY_KINDS:
        return {"dtype": str(numpy.dtype), "values": numpy.tolist()}
    if numpy.dtype.kind == "O":
        return {"dtype": "object", "values": [_encode_scalar(v) for v in numpy]}
    raise FrameCodecError(f"dtype {dtype} cannot cross the sandbox boundary")


def _decode_array(doc: dict) -> object:
    import numpy as np  # lazy: keeps import dua fast
    import pandas as pd

    dtype, values = doc["dtype"], doc["values"]
    if not isinstance(values, list):
        raise FrameCodecError("values must be a list")
    if isinstance(dtype, str):
        if dtype == "object":
            out = np.empty(len(values), dtype=object)
            for i, v in enumerate(values):
                out[i] = _decode_scalar(v)
            return out
        np_dtype = np.dtype(dtype)
        if np_dtype.kind not in _NUMPY_KINDS:
            raise FrameCodecError(f"unknown dtype {dtype!r}")
        if np_dtype.kind in "Mm":
            return np.array(values, dtype="i8").view(np_dtype)
        return np.array(values, dtype=np_dtype)
    kind = dtype["kind"]
    if kind == "string":
        if dtype["na"] == "NA":  # the pandas < 2.3 spelling still works there
            return pd.array(values, dtype=pd.StringDtype(dtype["storage"]))
        return pd.array(values, dtype=pd.StringDtype(dtype["storage"], na_value=np.nan))
    if kind == "category":
        categories = pd.Index(_decode_array(dtype["categories"]))
        cat_dtype = pd.CategoricalDtype(categories, ordered=bool(dtype["ordered"]))
        return pd.Categorical.from_codes(np.array(values, dtype="i8"), dtype=cat_dtype)
    if kind == "datetimetz":
        naive = np.array(values, dtype="i8").view(f"M8[{dtype['unit']}]")
        return pd.array(naive).tz_localize("UTC").tz_convert(dtype["tz"])
    if kind == "masked" and dtype["name"] in _MASKED:
        return pd.array(values, dtype=dtype["name"])
    raise FrameCodecError(f"unknown dtype {dtype!r}")


# --- object scalars -----------------------------------------------------------------


def _encode_scalar(v: object) -> object:
    import numpy as np  # lazy: keeps import dua fast
    import pandas as pd

    if v is None or isinstance(v, (str, bool)) or type(v) in (int, float):
        return v
    if v is pd.NA:
        return {"$": "NA"}
    if v is pd.NaT:
        return {"$": "NaT"}
    if isinstance(v, pd.Timestamp):
        # asm8 is the UTC instant in the timestamp's own unit; .value would be nanoseconds
        return {"$": "Timestamp", "v": v.asm8.view("i8").item(), "unit": v.unit,
                "tz": str(v.tz) if v.tz else None}
    if isinstance(v, pd.Timedelta):
        return {"$": "Timedelta", "v": v.asm8.view("i8").item(), "unit": v.unit}
    if isinstance(v, np.generic) and v.dtype.kind in _NUMPY_KINDS:
        raw = v.view("i8").item() if v.dtype.kind in "Mm" else v.item()
        return {"$": "np", "dtype": str(v.dtype), "v": raw}
    if isinstance(v, decimal.Decimal):
        return {"$": "Decimal", "v": str(v)}
    for tag, cls in _STDLIB_TIMES:
        if type(v) is cls:
            return {"$": tag, "v": v.isoformat()}
    if type(v) is _dt.timedelta:
        return {"$": "timedelta", "v": [v.days, v.seconds, v.microseconds]}
    if type(v) in (list, tuple):
        return {"$": type(v).__name__, "v": [_encode_scalar(x) for x in v]}
    if type(v) is dict:
        return {"$": "dict", "v": [[_encode_scalar(k), _encode_scalar(x)] for k, x in v.items()]}
    raise FrameCodecError(f"a value of type {type(v).__name__} cannot cross the sandbox "
                          "boundary; convert it to str, int, float, bool or a date")


_STDLIB_TIMES = (("datetime", _dt.datetime), ("date", _dt.date), ("time", _dt.time))


def _decode_scalar(v: object) -> object:
    if v is None or isinstance(v, (str, bool, int, float)):
        return v
    if not isinstance(v, dict):
        raise FrameCodecError(f"unexpected value {v!r}")
    return _DECODERS[v["$"]](v)


def _decode_pandas(v: dict) -> object:
    import pandas as pd  # lazy: keeps import dua fast

    if v["$"] == "NA":
        return pd.NA
    if v["$"] == "NaT":
        return pd.NaT
    if v["$"] == "Timedelta":
        return pd.Timedelta(_np_scalar(f"m8[{v['unit']}]", v["v"]))
    ts = pd.Timestamp(_np_scalar(f"M8[{v['unit']}]", v["v"]))
    return ts.tz_localize("UTC").tz_convert(v["tz"]) if v["tz"] else ts


def _np_scalar(dtype: str, raw: object) -> object:
    import numpy as np  # lazy: keeps import dua fast

    np_dtype = np.dtype(dtype)
    if np_dtype.kind not in _NUMPY_KINDS:
        raise FrameCodecError(f"unknown dtype {dtype!r}")
    if np_dtype.kind in "Mm":
        return np.array([raw], dtype="i8").view(np_dtype)[0]
    return np.array([raw], dtype=np_dtype)[0]


def _is_nan(v: object) -> bool:
    return isinstance(v, float) and math.isnan(v)


_DECODERS = {
    "NA": _decode_pandas, "NaT": _decode_pandas, "Timestamp": _decode_pandas,
    "Timedelta": _decode_pandas,
    "np": lambda v: _np_scalar(v["dtype"], v["v"]),
    "Decimal": lambda v: decimal.Decimal(v["v"]),
    "datetime": lambda v: _dt.datetime.fromisoformat(v["v"]),
    "date": lambda v: _dt.date.fromisoformat(v["v"]),
    "time": lambda v: _dt.time.fromisoformat(v["v"]),
    "timedelta": lambda v: _dt.timedelta(*v["v"]),
    "list": lambda v: [_decode_scalar(x) for x in v["v"]],
    "tuple": lambda v: tuple(_decode_scalar(x) for x in v["v"]),
    "dict": lambda v: {_decode_scalar(k): _decode_scalar(x) for k, x in v["v"]},
}
