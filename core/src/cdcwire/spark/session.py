"""A SparkSession configured the way cdcwire's pipeline needs it."""

from __future__ import annotations

import os
import re
import sys
import tempfile
from typing import Optional

from pyspark.sql import SparkSession

from .jvm.jar import java_tier_jar
from .runtime.job_errors import put_carried_errors_first
from .runtime.jvm_stderr import launch_quiet_gateway

#: Spark's value of ``spark.sql.execution.arrow.maxBytesPerBatch`` for "no byte bound" (Int.MaxValue):
#: the one value at which it does not size an Arrow batch after each row.
ARROW_NO_BYTE_BOUND = 2**31 - 1

_LEVELS = ("ALL", "TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "OFF")

#: Spark's console logging at one level: its default layout, on stderr. PySpark counts as a
#: shell, and a shell announces a "default log level" on stderr unless the logger of the
#: class that starts logging (under org.apache) has a level of its own equal to the root's:
#: so the JVM's own packages are given the level too.
_LOG4J = """\
rootLogger.level = {root}
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{{yy/MM/dd HH:mm:ss}} %p %c{{1}}: %m%n%ex
logger.apache.name = org.apache
logger.apache.level = {level}
logger.sparkproject.name = org.sparkproject
logger.sparkproject.level = {level}
logger.netty.name = io.netty
logger.netty.level = {level}
logger.executor.name = org.apache.spark.executor.Executor
logger.executor.level = {tasks}
logger.tasks.name = org.apache.spark.scheduler.TaskSetManager
logger.tasks.level = {tasks}
"""

#: At these levels a failed task's executor stack trace (Executor) and "Task N failed; aborting
#: job" (TaskSetManager) stay off the console: the action's own exception says what failed, and
#: for a cdcwire error says it in its first line (runtime/job_errors.put_carried_errors_first).
_QUIET_TASKS = ("ERROR", "FATAL", "OFF")


def log4j_file(level: str) -> str:
    """A log4j2 configuration file for Spark's JVM at ``level`` (written once per level and user)."""
    level = level.upper()
    if level not in _LEVELS:
        raise ValueError(f"log level {level!r} is not one of {', '.join(_LEVELS)}")
    path = os.path.join(tempfile.gettempdir(), f"cdcwire-log4j2-{level.lower()}-{os.getuid()}.properties")
    text = _LOG4J.format(root=level, level=level, tasks="OFF" if level in _QUIET_TASKS else level)
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return path
    except OSError:
        pass
    staged = f"{path}.{os.getpid()}"
    with open(staged, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(staged, path)
    return path


def local_parallelism(master: str) -> Optional[int]:
    """The cores a local master runs tasks on (``local``: 1, ``local[N]``, ``local[*]``: this
    machine's), the shuffle partitions a session on it gets unless told otherwise: Spark's 200
    make a 300-event streaming micro-batch two stages of 200 tasks each. None for a cluster,
    whose cores are unknown before its executors register: Spark's default and AQE stay."""
    match = re.fullmatch(r"local(?:\[(\*|\d+)(?:,\s*\d+)?\])?", master.strip())
    if match is None:
        return None
    cores = match.group(1)
    if cores is None:
        return 1
    return max(1, os.cpu_count() or 1) if cores == "*" else max(1, int(cores))


def spark_session(
    master: str = "local[*]",
    app_name: str = "cdcwire",
    shuffle_partitions: Optional[int] = None,
    log_level: str = "ERROR",
    **conf: str,
) -> SparkSession:
    """Get or create a session: executors run this interpreter, the UI is off, the driver binds
    to 127.0.0.1 for local masters, and the cdcwire data sources are registered.

    ``shuffle_partitions``: ``spark.sql.shuffle.partitions``; by default (and unless ``conf``
    sets it) the cores of a local master (:func:`local_parallelism`), so small inputs run as
    few tasks; adaptive query execution is on, coalescing small shuffle partitions.

    ``log_level``: Spark's own logging on the console, from the JVM's start (its start-up
    lines too) when this call starts the JVM, else from now on: ERROR by default, OFF for
    none (``cdcwire run`` says what failed in one line of its own), WARN or INFO for
    Spark's usual output. A ``spark.driver.extraJavaOptions`` of yours is left as it is.

    The Java tier's jar (:func:`cdcwire.spark.jvm.jar.java_tier_jar`) is added to ``spark.jars``
    (after any of yours) when this machine has it, so that writes encode in the JVM where they can.
    """
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    builder = SparkSession.builder.master(master).appName(app_name).config("spark.ui.enabled", "false")
    if master.startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # no "hostname resolves to a loopback" warning
        builder = builder.config("spark.driver.bindAddress", "127.0.0.1").config("spark.driver.host", "127.0.0.1")
    if shuffle_partitions is None and "spark.sql.shuffle.partitions" not in conf:
        shuffle_partitions = local_parallelism(master)
    if shuffle_partitions is not None:
        builder = builder.config("spark.sql.shuffle.partitions", str(shuffle_partitions))
    # small inputs run small: adaptive execution coalesces a shuffle's small partitions into few
    # tasks (streaming micro-batches run without it, hence the count above on a local master)
    builder = builder.config("spark.sql.adaptive.enabled", "true").config(
        "spark.sql.adaptive.coalescePartitions.enabled", "true")
    builder = builder.config("spark.sql.execution.arrow.maxRecordsPerBatch", "4096")
    # Arrow batches to Python bounded by their row count alone: with a byte bound (Spark's default
    # is 64 MiB) Spark sizes the whole batch after every row it adds, walking each nested vector of
    # the event images, which cost a fifth of a Java-tier write (benchmarks/spark_encoding_stages.py)
    builder = builder.config("spark.sql.execution.arrow.maxBytesPerBatch", str(ARROW_NO_BYTE_BOUND))
    if "spark.driver.extraJavaOptions" not in conf:
        builder = builder.config("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={log4j_file(log_level)}")
    jar = java_tier_jar()  # the Java tier's encoders (built on first use; None without a JDK)
    if jar is not None:
        conf = {**conf, "spark.jars": ",".join(j for j in (conf.get("spark.jars"), jar) if j)}
    for key, value in conf.items():
        builder = builder.config(key, value)
    # the JVM's stderr without its incubator-module warning and the workers' BrokenPipeError
    # tracebacks after df.show(n) (see runtime/jvm_stderr.py); a JVM already running is left as it is
    launch_quiet_gateway(dict(builder._options))
    put_carried_errors_first()  # a user's own action that meets a bad message: its one line first
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel(log_level)
    from .format import register_data_sources

    register_data_sources(spark)
    return spark
