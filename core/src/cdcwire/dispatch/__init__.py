"""Which topic and which partition each event goes to, exactly as the reference decides."""

from .dispatcher import Dispatcher, Route
from .rules import DispatchRule, load_rules_file

__all__ = ["Dispatcher", "DispatchRule", "Route", "load_rules_file"]
