"""A column value's hash text (:func:`cdcwire.model.value_text.hash_text`) as a Spark SQL expression.

The JVM routing tier hashes handle keys without a Python worker, so it needs the exact
bytes Python hashes for every VALUE field: text, bytes and integers are plain casts; a
float is the trap. Java 17's ``Double.toString`` is not always the shortest text, so the
expression calls the Schubfach writer Jackson ships with Spark (``DoubleToDecimal`` /
``FloatToDecimal``: the shortest text, as Java 19 prints it) and rewrites its
``1.0E-5`` form into Go's plain ``0.00001``. Java always keeps two digits where one
would do (``4.9E-324`` for Python's ``5e-324``): for subnormals, where that one digit
can read back to the same float, the one-digit text is taken when it does.
"""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

_DOUBLE_WRITER = "com.fasterxml.jackson.core.io.schubfach.DoubleToDecimal"
_FLOAT_WRITER = "com.fasterxml.jackson.core.io.schubfach.FloatToDecimal"
_SHORT = r"^(-?)([1-9])\.([1-9])E(-[0-9]+)$"
#: Exponents below which a float's shortest text may have one digit where Java prints two.
_SUBNORMAL_EXPONENT = {"double": -300, "float": -36}


def _let(value: Column, body) -> Column:
    """``body(value)`` with ``value`` computed once: a lambda binds it (each use of a Column
    object would otherwise repeat its whole expression in the generated code)."""
    return F.element_at(F.transform(F.array(value), body), 1)


def _one_digit(java_text: Column, value: Column, width: str) -> Column:
    """Java's two-digit text of a subnormal, or its one-digit rounding when that reads back to
    the same float (Python's shortest text), as ``D.0E-N``."""
    sign = F.regexp_extract(java_text, _SHORT, 1)
    first = F.regexp_extract(java_text, _SHORT, 2).cast("int")
    second = F.regexp_extract(java_text, _SHORT, 3).cast("int")
    exponent = F.regexp_extract(java_text, _SHORT, 4).cast("int")

    def candidate(digit: Column) -> tuple[Column, Column]:
        carry = digit == 10
        d = F.when(carry, F.lit(1)).otherwise(digit)
        e = F.when(carry, exponent + 1).otherwise(exponent)
        text = F.concat(sign, d.cast("string"), F.lit("E"), e.cast("string"))
        back = text.cast("double") if width == "double" else text.cast("double").cast("float")
        reads_back = back == (value if width == "double" else value.cast("float"))
        return reads_back, F.concat(sign, d.cast("string"), F.lit(".0E"), e.cast("string"))

    near_ok, near = candidate(F.when(second < 5, first).otherwise(first + 1))
    far_ok, far = candidate(F.when(second < 5, first + 1).otherwise(first))
    short = F.length(F.regexp_extract(java_text, _SHORT, 0)) > 0
    return (
        F.when(short & (exponent < _SUBNORMAL_EXPONENT[width]) & near_ok, near)
        .when(short & (exponent < _SUBNORMAL_EXPONENT[width]) & far_ok, far)
        .otherwise(java_text)
    )


def _plain(java_text: Column) -> Column:
    """Java's shortest text (``-1.25E-5``, ``123.0``) as Go's ``'f'`` text (``-0.0000125``, ``123``)."""
    form = r"^(-?)([0-9]+)\.([0-9]+)(?:E(-?[0-9]+))?$"
    sign = F.regexp_extract(java_text, form, 1)
    whole = F.regexp_extract(java_text, form, 2)
    exponent = F.coalesce(F.nullif(F.regexp_extract(java_text, form, 4), F.lit("")).cast("int"), F.lit(0))
    parts = F.struct(
        F.concat(whole, F.regexp_extract(java_text, form, 3)).alias("digits"),
        (F.length(whole) + exponent).alias("point"),
    )

    def place(p: Column) -> Column:
        digits, point = p["digits"], p["point"]
        return (
            F.when(point <= 0, F.concat(F.lit("0."), F.repeat(F.lit("0"), -point), digits))
            .when(point >= F.length(digits), F.concat(digits, F.repeat(F.lit("0"), point - F.length(digits))))
            .otherwise(F.concat(digits.substr(F.lit(1), point), F.lit("."), digits.substr(point + 1, F.length(digits))))
        )

    def trim(placed: Column) -> Column:
        return F.when(
            F.instr(placed, ".") > 0, F.regexp_replace(F.regexp_replace(placed, "0+$", ""), r"\.$", "")
        ).otherwise(placed)

    return F.concat(sign, _let(_let(parts, place), trim))


def float_text(value: Column, width: str) -> Column:
    """:func:`cdcwire.model.value_text.float64_text` (``width`` "double") or ``float32_text`` ("float")."""
    if width == "double":
        java = F.call_function("java_method", F.lit(_DOUBLE_WRITER), F.lit("toString"), value)
    else:
        java = F.call_function("java_method", F.lit(_FLOAT_WRITER), F.lit("toString"), value.cast("float"))
    shortest = _let(java, lambda text: _let(_one_digit(text, value, width), _plain))
    return (
        F.when(F.isnan(value), F.lit("NaN"))
        .when(value == float("inf"), F.lit("+Inf"))
        .when(value == float("-inf"), F.lit("-Inf"))
        .otherwise(shortest)
    )


def hash_text(entry: Column) -> Column:
    """The bytes :func:`cdcwire.model.value_text.hash_text` gives for a COLUMN struct of the event row."""
    v = entry["value"]
    is_float = F.upper(entry["type"]) == "FLOAT"
    return (
        F.when(v["binary"].isNotNull(), v["binary"])
        .when(v["string"].isNotNull(), v["string"].cast("binary"))
        .when(v["int"].isNotNull(), v["int"].cast("string").cast("binary"))
        .when(v["uint"].isNotNull(), v["uint"].cast("string").cast("binary"))
        .when(v["double"].isNotNull() & is_float, float_text(v["double"], "float").cast("binary"))
        .when(v["double"].isNotNull(), float_text(v["double"], "double").cast("binary"))
        .otherwise(F.lit("null").cast("binary"))
    )
