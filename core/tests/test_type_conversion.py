"""A value converted to a column's new type as MySQL's ALTER TABLE ... MODIFY converts it
(strict mode): what is rounded, what is refused."""

import pytest

from cdcwire.values.type_conversion import converted


@pytest.mark.parametrize("value, type_text, expected", [
    (127, "tinyint", 127), (-1, "bigint", -1), (255, "tinyint unsigned", 255), ("2.5", "int", 3), ("-2.5", "int", -3),
    ("12", "smallint", 12), (5, "decimal(10,2)", "5.00"),
])
def test_numbers_that_fit_an_integer_or_decimal_type_are_kept_rounded_half_away_from_zero(value, type_text,
                                                                                          expected) -> None:
    assert converted(value, type_text) == (expected, True)


def test_a_decimal_losing_digits_past_its_scale_is_rounded_not_refused() -> None:
    assert converted("1.25", "decimal(5,1)") == ("1.3", True)
    assert converted("-1.25", "decimal(5,1)") == ("-1.3", True)


@pytest.mark.parametrize("value, type_text", [
    (300, "tinyint"), (-1, "int unsigned"), ("123456", "decimal(5,1)"), ("abc", "int"), ("abcdef", "varchar(3)"),
    (12345, "char(4)"),
])
def test_a_value_the_new_type_cannot_hold_is_refused(value, type_text) -> None:
    assert converted(value, type_text) == (None, False)


def test_numbers_become_their_text_and_texts_their_number() -> None:
    assert converted(12, "varchar(5)") == ("12", True) and converted("1.50", "varchar(8)") == ("1.50", True)
    assert converted("7", "bigint") == (7, True) and converted("7.5", "double") == (7.5, True)


def test_null_stays_null_and_an_unknown_target_keeps_the_value() -> None:
    assert converted(None, "tinyint") == (None, True)
    assert converted("2020-01-01", "datetime") == ("2020-01-01", True)
