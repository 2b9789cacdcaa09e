"""Which topic and which partition each event goes to, exactly as the reference decides."""

from .column_selectors import ColumnSelector, ColumnSelectorError
from .dispatcher import Dispatcher, Route
from .rules import DispatchRule, DispatchRules, load_rules_file

__all__ = [
    "ColumnSelector", "ColumnSelectorError", "Dispatcher", "DispatchRule", "DispatchRules", "Route",
    "load_rules_file",
]
