"""The Java tier's jar: built from the Java sources shipped in the package, once per machine.

The sources (the core's framework in ``java/``, package ``io.cdcwire.spark``, and every
installed codec's declared JVM sources, ``Codec.jvm``: compiled together) compile against the jars PySpark ships
(Spark SQL's UDF interfaces, Jackson), so they are compiled where PySpark is: on first use,
with the JDK's ``javac``, into a cache keyed by the sources' hash and the PySpark version
(``$CDCWIRE_JVM_CACHE``, else ``$XDG_CACHE_HOME/cdcwire/jvm``, else ``~/.cache/cdcwire/jvm``).
Not when the core is built: ``pip install ./core`` builds in an isolated environment
without PySpark, and the core installs without the ``spark`` extra too. A machine without a
JDK gets no jar, and the Python tier encodes (:func:`jar_and_reason` says why).
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path
from typing import Optional

#: The Java tier's encoding over Spark's internal rows, by a plugin's MessageEncoder (``MessageEncoding.java``).
MESSAGE_ENCODING = "io.cdcwire.spark.MessageEncoding"
#: The Java tier's encoding for formats that pack a batch, by a plugin's BatchEncoder (``BatchEncoding.java``).
BATCH_ENCODING = "io.cdcwire.spark.BatchEncoding"
#: The Java tier's decoding over Spark's internal rows, by a plugin's MessageDecoder (``MessageDecoding.java``).
MESSAGE_DECODING = "io.cdcwire.spark.MessageDecoding"
#: The last pass of a JVM-tier read: each message's events in its place (``DecodedInPlace.java``).
DECODED_IN_PLACE = "io.cdcwire.spark.DecodedInPlace"
#: A JVM-tier read whose Python pass runs only in a task that meets a pending message (``PythonWhenPending.java``).
PYTHON_WHEN_PENDING = "io.cdcwire.spark.PythonWhenPending"
#: The ``file://`` message source in the JVM: partition files' records as message rows (``FramedFiles.java``).
FRAMED_FILES = "io.cdcwire.spark.FramedFiles"
#: The ``kafka://`` message source in the JVM: a partition's records fetched as message rows (``KafkaRecords.java``).
KAFKA_RECORDS = "io.cdcwire.spark.KafkaRecords"
#: The ``file://`` sink's staging in the JVM: the messages Java made, framed and staged (``FramedStaging.java``).
FRAMED_STAGING = "io.cdcwire.spark.FramedStaging"
#: The Java tier's routing stage over Spark's internal rows (``RoutedCopies.java``).
ROUTED_COPIES = "io.cdcwire.spark.RoutedCopies"
SOURCES = Path(__file__).parent / "java"
_COMPILE_SECONDS = 300
#: javac's own JVM compiles with C1 only: one compile of a few dozen sources ends before C2's
#: optimized code would pay back its compiling (3 s against 6-9 s on a loaded 2-core machine).
#: The classes javac writes do not depend on its JIT.
JAVAC_JVM_OPTIONS = ("-J-XX:TieredStopAtLevel=1",)

log = logging.getLogger("cdcwire.spark")


def _cache_dir() -> Path:
    configured = os.environ.get("CDCWIRE_JVM_CACHE")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "cdcwire" / "jvm"


def _javac() -> Optional[str]:
    home = os.environ.get("JAVA_HOME")
    if home and os.access(os.path.join(home, "bin", "javac"), os.X_OK):
        return os.path.join(home, "bin", "javac")
    return shutil.which("javac")


def source_roots() -> list[Path]:
    """The directories compiled together: the core's framework, then each installed codec's
    declared JVM sources (``Codec.jvm``, plugin API 1.10), by codec name."""
    from ...sinks.installed import get_registry

    roots = [SOURCES]
    for codec, _ in get_registry().codecs():
        jvm = getattr(codec, "jvm", None)
        if jvm is not None and Path(jvm.sources) not in roots:
            roots.append(Path(jvm.sources))
    return roots


def _sources() -> list[Path]:
    return [path for root in source_roots() for path in sorted(Path(root).rglob("*.java"))]


def source_key(spark_version: str) -> str:
    """The cache key of a jar: every root's sources' paths and contents (the core's and the
    plugins'), and the Spark they compile against."""
    digest = hashlib.sha256(spark_version.encode())
    for number, root in enumerate(source_roots()):
        for path in sorted(Path(root).rglob("*.java")):
            digest.update(f"{number}:".encode() + str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def java_tier_jar() -> Optional[str]:
    """The path of the Java tier's jar, for ``spark.jars`` of a session of your own; None when
    this machine cannot have it (:func:`jar_and_reason` says why): the Python tier encodes."""
    return jar_and_reason()[0]


@functools.cache
def jar_and_reason() -> tuple[Optional[str], str]:
    """The jar's path (built now if it is not cached yet) and what was done; (None, why) when it
    cannot be had: no PySpark, no JDK, or a compile that failed. Once per process."""
    try:
        import pyspark
    except ImportError:
        return None, "PySpark is not installed"
    jars = Path(pyspark.__file__).parent / "jars"
    key = source_key(pyspark.__version__)
    jar = _cache_dir() / f"cdcwire-jvm-{key}.jar"
    if jar.is_file():
        return str(jar), f"the Java tier's jar is {jar}"
    javac = _javac()
    if javac is None:
        why = "no JDK (javac) on this machine: the Python tier encodes (install a JDK 17 to get the Java tier)"
        log.info("cdcwire.spark: %s", why)
        return None, why
    try:
        _build(javac, jars, jar)
    except (OSError, subprocess.SubprocessError) as exc:
        why = f"the Java tier's sources did not compile ({str(exc).strip().splitlines()[-1][:300] if str(exc).strip() else type(exc).__name__}): the Python tier encodes"
        log.warning("cdcwire.spark: %s", why)
        return None, why
    return str(jar), f"the Java tier's jar was built: {jar}"


def _build(javac: str, spark_jars: Path, jar: Path) -> None:
    """Compile the sources against ``spark_jars`` and write ``jar`` atomically (a concurrent
    build of the same key writes the same bytes)."""
    jar.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=jar.parent, prefix=".build-") as work:
        classes = Path(work) / "classes"
        classes.mkdir()
        done = subprocess.run(
            [javac, *JAVAC_JVM_OPTIONS, "--release", "17", "-nowarn", "-encoding", "UTF-8", "-d", str(classes),
             "-cp", str(spark_jars / "*"), *map(str, _sources())],
            capture_output=True, text=True, timeout=_COMPILE_SECONDS,
        )
        if done.returncode != 0:
            raise subprocess.SubprocessError(done.stderr or done.stdout or f"javac exited {done.returncode}")
        staged = Path(work) / jar.name
        with zipfile.ZipFile(staged, "w", zipfile.ZIP_DEFLATED) as out:
            out.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\nCreated-By: cdcwire\r\n\r\n")
            for path in sorted(classes.rglob("*.class")):
                out.write(path, str(path.relative_to(classes)))
        os.replace(staged, jar)


def jar_lacking(spark, name: str) -> Optional[str]:
    """Why the session cannot run the Java tier's class ``name`` (no jar on this machine, or a
    classpath without it: what to set then), or None when it can."""
    if java_class(spark, name) is not None:
        return None
    jar, why = jar_and_reason()
    if jar is None:
        return why
    return f"the session's classpath lacks the Java tier's jar: start it with spark.jars={jar}"


def java_class(spark, name: str):
    """The session's JVM class of that name (a py4j JavaClass), or None when its classpath does
    not have it (the Java tier's jar is not in ``spark.jars``)."""
    from py4j.java_gateway import JavaClass

    found = functools.reduce(getattr, name.split("."), spark.sparkContext._jvm)
    return found if isinstance(found, JavaClass) else None
