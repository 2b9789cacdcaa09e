"""Testing aids for cdcwire and for third-party plugin authors.

* :mod:`cdcwire.testing.strategies`: hypothesis strategies for tables, columns
  of every type and events (needs ``hypothesis``).
* :mod:`cdcwire.testing.conformance`: ``CodecConformance``, a pytest test class
  any codec plugin can subclass to run the common conformance suite.
* :mod:`cdcwire.testing.jvm_tiers`: a codec's Python and JVM tiers in Spark read
  against each other, for a plugin that ships a JVM codec (needs ``pyspark``).
"""
