"""``materialize`` rate against a plain ``cs.read`` of the same topic, in one run, with peak memory.

The topic (``file://``, canal-json with the extension, index-value dispatch over 4
partitions) holds a generated workload of inserts, updates and deletes with resolved
events. Baseline: ``cs.read`` of the topic into Spark's ``noop`` sink. Then a first
``materialize`` run into Parquet, one into Delta and one into Iceberg (each into a fresh
directory: the whole topic applied), and an incremental run of
each after 10% more events. Each figure
is events read per second and its ratio to the read (the issue's goals: first runs
>= 0.5x, an incremental Delta run <= 0.25x the time of the first), the Spark jobs the run
started, and the peak resident memory over the run of the JVM, of the Python workers
(summed) and of this driver process, sampled from /proc: on a shared machine only
ratios and memory mean something, never seconds. Then the seconds each run spent per step
(the steps the run tells its progress display): where the time goes.

    .venv/bin/python benchmarks/materialize_rate.py [--events N ...] [--master local[2]] [--driver-memory 4g]
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Optional

import cdcwire
from cdcwire import spark as cs
from cdcwire.spark.runtime.run_steps import RunSteps, unwatch, watch
from cdcwire.spark.tables.materialize import FORMATS
from cdcwire.spark.tables.table_apply import PLAN_SETTING, PLANS
from cdcwire import ResolvedEvent
from cdcwire.workload import Workload, make_tables


class PeakMemory:
    """Peak RSS (MiB) of this process's tree while running, polled from /proc every 0.1 s: the
    JVM, the Python workers (summed) and this driver process."""

    def __init__(self) -> None:
        self.peak = {"jvm": 0, "workers": 0, "driver": 0}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def __enter__(self) -> "PeakMemory":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _poll(self) -> None:
        while not self._stop.is_set():
            now = {"jvm": 0, "workers": 0, "driver": _rss(os.getpid())}
            for pid in _descendants(os.getpid()):
                kind = "jvm" if "java" in _cmdline(pid) else "workers"
                now[kind] += _rss(pid)
            for k, v in now.items():
                self.peak[k] = max(self.peak[k], v)
            self._stop.wait(0.1)

    def text(self) -> str:
        return f"{self.peak['jvm']:>6} {self.peak['workers']:>8} {self.peak['driver']:>7}"


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _rss(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) // 1024
    except OSError:
        pass
    return 0


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


class JobSteps(RunSteps):
    """The run's steps with the Spark jobs each started (counted at each step's end, from the
    jobs of the benchmark's job group)."""

    def __init__(self, spark, group: str) -> None:
        super().__init__()
        self._tracker, self._group = spark.sparkContext.statusTracker(), group
        self.jobs: dict[str, int] = {}
        self._seen = 0

    def end(self, now=None) -> None:
        if self._step_since is not None:
            seen = len(self._tracker.getJobIdsForGroup(self._group))
            self.jobs[self._step_name] = self.jobs.get(self._step_name, 0) + seen - self._seen
            self._seen = seen
        super().end(now)


def _jobs(spark, run):
    """(what ``run()`` returned, seconds, Spark jobs it started, peak memory, seconds per step)."""
    group = f"bench-{time.monotonic_ns()}"
    spark.sparkContext.setJobGroup(group, group)
    steps = JobSteps(spark, group)
    token = watch(steps)  # the run tells its steps (as to the command's progress display)
    try:
        with PeakMemory() as memory:
            start = time.perf_counter()
            result = run()
            seconds = time.perf_counter() - start
    finally:
        steps.end()
        unwatch(token)
    spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)
    return result, seconds, len(spark.sparkContext.statusTracker().getJobIdsForGroup(group)), memory, _by_stage(steps)


def _by_stage(steps: JobSteps) -> dict[str, tuple[float, int]]:
    """(seconds, Spark jobs) per step, the per-table "applying <table>" steps summed as one."""
    stages: dict[str, tuple[float, int]] = {}
    for name, seconds in steps.seconds.items():
        key = "applying tables" if name.startswith("applying ") and "in one" not in name else name
        before = stages.get(key, (0.0, 0))
        stages[key] = (before[0] + seconds, before[1] + steps.jobs.get(name, 0))
    return stages


def source_topic(directory: Path, events: int, tables: int) -> str:
    """The topic of ``events`` generated events over ``tables`` tables under ``directory``,
    generated once and kept (``--source-dir``): at a million events the generation, one Python
    process, takes longer than every run measured on it."""
    uri = (f"file://{directory}/src/orders?protocol=canal-json&enable-tidb-extension=true&partition-num=4"
           "&partition=index-value")
    marker = directory / f"generated-{events}-{tables}"
    if not marker.exists():
        shutil.rmtree(directory / "src", ignore_errors=True)
        cdcwire.write(uri, cdcwire.encode(uri, list(Workload(events, seed=4, ddl_every=10**9, tables=tables))))
        marker.touch()
    return uri


def bench(spark, events: int, work: Path, master: str, tables: int = 4, plan: str = "one",
          formats: tuple[str, ...] = FORMATS, incremental: bool = True, source_dir: Optional[Path] = None) -> None:
    spark.conf.set(PLAN_SETTING, plan)
    if source_dir is not None:  # a kept topic: first runs only (the incremental runs' events are not in it)
        uri, workload, incremental = source_topic(source_dir / f"{events}-{tables}", events, tables), [], False
    else:
        uri = (f"file://{work}/src/orders?protocol=canal-json&enable-tidb-extension=true&partition-num=4"
               "&partition=index-value")
        workload = list(Workload(events + events // 10, seed=4, ddl_every=10**9, tables=tables))
        cdcwire.write(uri, cdcwire.encode(uri, workload[:events]))
    read_back = cs.read(spark, uri).count()  # and a warm-up
    _, read, read_jobs, read_memory, _ = _jobs(spark, lambda: cs.read(spark, uri).write.format("noop").mode("overwrite").save())
    rows = [("cs.read into noop", read, read_jobs, read_memory, None, read_back)]
    stages = {}
    for fmt in formats:
        summary, seconds, jobs, memory, stages[f"{fmt} first"] = _jobs(
            spark, lambda: cs.materialize(spark, uri, str(work / fmt), format=fmt))
        rows.append((f"materialize {fmt}, first run", seconds, jobs, memory, summary, read_back))
    if incremental:
        cdcwire.write(uri, cdcwire.encode(uri, workload[events:]))
    for fmt in formats if incremental else ():
        summary, seconds, jobs, memory, stages[f"{fmt} incremental"] = _jobs(
            spark, lambda: cs.materialize(spark, uri, str(work / fmt), format=fmt))
        rows.append((f"materialize {fmt}, +10% incremental", seconds, jobs, memory, summary, summary.events_read))
    print(f"\n{read_back:,} events over {tables} tables read back, plan {plan!r}, {master}, driver memory"
          f" {spark.conf.get('spark.driver.memory', '1g (default)')}")
    print(f"{'run':<38} {'events':>9} {'events/s':>9} {'ratio':>6} {'x first':>7} {'jobs':>5}"
          f" {'JVM MiB':>7} {'workers':>8} {'driver':>7}  tables, rows")
    first = {}
    for label, seconds, jobs, memory, summary, n in rows:
        fmt = label.split()[1] if summary is not None else None
        if label.endswith("first run"):
            first[fmt] = seconds
        of_first = f"{seconds / first[fmt]:>7.2f}" if label.endswith("incremental") else f"{'':>7}"
        tables = "" if summary is None else (
            f"{len(summary.tables)} tables, +{sum(c.inserted for c in summary.tables.values()):,}"
            f" ~{sum(c.updated for c in summary.tables.values()):,} -{sum(c.deleted for c in summary.tables.values()):,}"
        )
        print(f"{label:<38} {n:>9,} {n / seconds:>9,.0f} {(n / seconds) / (read_back / read):>6.2f}"
              f" {of_first} {jobs:>5} {memory.text()}  {tables}")
    print(f"\nwhere a run's time goes, seconds (Spark jobs) per step (the read into noop: {read:.1f}s, {read_jobs} jobs)")
    names = list(dict.fromkeys(name for run in stages.values() for name in run))
    print(f"{'step':<40}" + "".join(f" {run:>19}" for run in stages))
    for name in names:
        print(f"{name:<40}" + "".join(f" {run.get(name, (0.0, 0))[0]:>13.1f} ({run.get(name, (0.0, 0))[1]:>3})"
                                      for run in stages.values()))


def touched_bench(spark, tables: int, touched: int, work: Path, fmt: str = "delta", profile: str = "") -> None:
    """An incremental run whose changes touch ``touched`` of ``tables`` tables, against the same
    changes applied into an output of only those tables (the issue's goal: <= 1.5x). ``profile``:
    the driver's cProfile of the run over every table is written to ``<profile>.<format>``
    (read it with ``python -m pstats``), its top functions by own time printed."""
    full = list(Workload(360_000, seed=7, ddl_every=10**9, tables=tables))
    # the first run ends on a resolved event: nothing of it waits above the release point, so
    # the incremental run of either output applies exactly the later changes of the chosen tables
    # (cut anywhere, the run over every table also applied the pending rows of other tables)
    cut = max(i for i, e in enumerate(full[:30_000]) if isinstance(e, ResolvedEvent)) + 1
    first, later = full[:cut], full[cut:]
    chosen = {(t.schema, t.name) for t in make_tables(tables)[-touched:]}

    def of_chosen(events):
        return [e for e in events if isinstance(e, ResolvedEvent) or (getattr(e, "schema", None), getattr(e, "table", None)) in chosen]

    later = of_chosen(later)
    seconds = {}
    for label, base in (("all", first), ("only", of_chosen(first))):
        uri = f"file://{work}/{label}/src?protocol=canal-json&enable-tidb-extension=true&partition-num=4&partition=index-value"
        cdcwire.write(uri, cdcwire.encode(uri, base))
        cs.materialize(spark, uri, str(work / label / "out"), format=fmt)
        cdcwire.write(uri, cdcwire.encode(uri, later))
        run = lambda: cs.materialize(spark, uri, str(work / label / "out"), format=fmt)  # noqa: E731
        if profile and label == "all":
            run = _profiled(run, f"{profile}.{fmt}")
        summary, seconds[label], jobs, memory, _ = _jobs(spark, run)
        print(f"incremental {fmt} run of {summary.events_read:,} events touching {len(summary.tables)} table(s) of an output of"
              f" {tables if label == 'all' else touched} tables: {seconds[label]:.1f}s, {jobs} jobs, memory {memory.text()}")
    print(f"ratio: {seconds['all'] / seconds['only']:.2f}x the time of the same changes into an output of only those tables")


def _profiled(run, path: str):
    """``run`` under cProfile (the driver's Python only: the JVM's work shows as time waiting
    on py4j); the stats saved at ``path``, the 15 functions of most own time printed."""
    def profiled():
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        try:
            return profiler.runcall(run)
        finally:
            profiler.dump_stats(path)
            pstats.Stats(path).sort_stats("tottime").print_stats(15)
    return profiled


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, nargs="+", default=None,
                        help="sizes to run, one table each (default 100000 1000000, none with --touched;"
                             " CI: --events 100000)")
    parser.add_argument("--tables", type=int, nargs="+", default=[4],
                        help="tables the events are spread over, each size run with each (default 4)")
    parser.add_argument("--plans", nargs="+", default=["one"], choices=PLANS,
                        help="how materialize writes the tables: one Spark job for all (default) or per table")
    parser.add_argument("--no-incremental", action="store_true", help="first runs only")
    parser.add_argument("--touched", type=int, default=0,
                        help="also time an incremental run touching this many of the largest --tables (0: not run)")
    parser.add_argument("--formats", nargs="+", default=None, choices=FORMATS,
                        help="the table formats to run (default: all; --touched: delta)")
    parser.add_argument("--profile", default="",
                        help="--touched: save the driver's cProfile of the run over every table at PROFILE.<format>")
    parser.add_argument("--source-dir", type=Path, default=None,
                        help="generate each topic once under this directory and keep it for later runs"
                             " (first runs only); --generate-only stops after generating")
    parser.add_argument("--generate-only", action="store_true", help="with --source-dir: generate, measure nothing")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--driver-memory", default=None, help="spark.driver.memory (default: Spark's 1g)")
    args = parser.parse_args()
    if args.generate_only and args.source_dir is None:
        parser.error("--generate-only needs --source-dir")
    if args.generate_only:
        for events in args.events or [100_000, 1_000_000]:
            for tables in args.tables:
                print(source_topic(args.source_dir / f"{events}-{tables}", events, tables))
        return
    conf = {"spark.ui.showConsoleProgress": "false"}
    if args.driver_memory:
        conf["spark.driver.memory"] = args.driver_memory
    spark = cs.spark_session(args.master, **conf)
    try:
        for events in args.events if args.events is not None else [] if args.touched else [100_000, 1_000_000]:
            for tables in args.tables:
                for plan in args.plans:
                    work = Path(tempfile.mkdtemp(prefix="cdcwire-materialize-bench-"))
                    try:
                        bench(spark, events, work, args.master, tables, plan, tuple(args.formats or FORMATS),
                              not args.no_incremental, args.source_dir)
                    finally:
                        shutil.rmtree(work, ignore_errors=True)
        if args.touched:
            for fmt in args.formats or ["delta"]:
                work = Path(tempfile.mkdtemp(prefix="cdcwire-materialize-bench-"))
                try:
                    touched_bench(spark, max(args.tables), args.touched, work, fmt, args.profile)
                finally:
                    shutil.rmtree(work, ignore_errors=True)
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
