"""The supervisor's own logic, without a sandbox: what it reads of its command line, the limits it sets, what it
records, which limit a failure shows, the children it finds and the exit code it gives. That it contains a run
is test_containment.py's."""

from __future__ import annotations

import ast
import errno
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

from codeproof.experiments import supervisor
from codeproof.experiments.supervisor import Run, children, exit_code, limit_shown, recorder, rlimits

RUN = Run(["-c", "7", "8", "9", "/run", "experiments/x.py", "2048", "64", "16", "30", "65534", '[["f", "1.5"]]',
           "TRACE", '["/tmp", "/dev/shm"]'])


def test_the_command_line_gives_three_fds_the_folder_the_script_the_limits_the_user_the_calls_the_trace_and_counts():
    assert vars(RUN) == {"record_fd": 7, "lifeline_fd": 8, "handover_fd": 9, "given": "/run/given", "work": "/run/work",
                         "inside": "/run/work/resources", "script": "experiments/x.py", "memory_mib": 2048,
                         "processes": 64, "file_size_mib": 16, "cpu_seconds": 30, "nobody": 65534,
                         "calls": [["f", "1.5"]], "trace_code": "TRACE", "counted": ["/tmp", "/dev/shm"]}


def test_each_limit_is_set_soft_and_hard_with_one_second_more_of_cpu_before_sigkill():
    mib = 1024 * 1024
    assert rlimits(RUN) == [(resource.RLIMIT_AS, 2048 * mib, 2048 * mib), (resource.RLIMIT_NPROC, 64, 64),
                            (resource.RLIMIT_FSIZE, 16 * mib, 16 * mib), (resource.RLIMIT_CPU, 30, 31)]


def test_a_memory_error_shows_the_memory_limit():
    assert limit_shown(MemoryError()) == "memory_mib"


def test_a_write_refused_as_too_large_shows_the_file_size_limit():
    assert limit_shown(OSError(errno.EFBIG, "File too large")) == "file_size_mib"


def test_a_fork_refused_or_a_thread_refused_shows_the_process_limit():
    assert limit_shown(OSError(errno.EAGAIN, "Resource temporarily unavailable")) == "processes"
    assert limit_shown(RuntimeError("can't start new thread")) == "processes"


def test_any_other_failure_shows_no_limit():
    assert limit_shown(ValueError("math domain error")) is None
    assert limit_shown(OSError(errno.ENOENT, "No such file or directory")) is None


def test_the_record_names_each_file_opened_and_folder_listed_under_the_run_once(tmp_path: Path, monkeypatch):
    inside, emitted = tmp_path.resolve() / "resources", []
    (inside / "experiments" / "sub").mkdir(parents=True)
    monkeypatch.chdir(inside / "experiments")
    record = recorder(str(inside), emitted.append)
    record("open", (str(inside / "experiments" / "data.csv"), "r", 0))
    record("open", (str(inside / "experiments" / "data.csv"), "r", 0))
    record("os.listdir", (None,))  # the working directory
    record("os.scandir", (str(inside / "experiments" / "sub" / "..").encode(),))  # the same folder, in bytes
    assert emitted == [f"file\t{inside}/experiments/data.csv\0".encode(), f"dir\t{inside}/experiments\0".encode()]


def test_the_record_leaves_out_what_lies_outside_the_run_descriptors_and_other_events(tmp_path: Path):
    inside, emitted = tmp_path.resolve() / "resources", []
    record = recorder(str(inside), emitted.append)
    record("open", ("/etc/passwd", "r", 0))
    record("open", (str(tmp_path / "resources-other" / "x.py"), "r", 0))  # a prefix of the name, not the folder
    record("open", (3, "r", 0))
    record("os.remove", (str(inside / "x.py"),))
    assert emitted == []


def test_a_record_that_cannot_be_written_never_fails_the_script(tmp_path: Path):
    def closed(data: bytes) -> None:
        raise OSError(errno.EBADF, "Bad file descriptor")

    recorder(str(tmp_path), closed)("open", (str(tmp_path / "x.py"), "r", 0))  # no exception


def test_the_children_of_a_process_are_the_processes_it_started(tmp_path: Path):
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert sleeper.pid in children(os.getpid())
        assert children(sleeper.pid) == []
    finally:
        sleeper.kill()
        sleeper.wait()


def test_the_exit_code_is_the_scripts_or_128_and_the_signal_that_killed_it():
    exited = subprocess.run([sys.executable, "-c", "raise SystemExit(3)"])
    killed = subprocess.Popen([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"])
    _, status = os.waitpid(killed.pid, 0)
    killed.returncode = -1  # reaped here, not by Popen
    assert exit_code(exited.returncode << 8) == 3
    assert exit_code(status) == 128 + signal.SIGKILL


def test_the_supervisor_imports_the_standard_library_alone():
    """Nothing of the engine (nor anything installed) is imported into the experiment's process."""
    tree = ast.parse(Path(supervisor.__file__).read_text(encoding="utf-8"))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported and imported <= sys.stdlib_module_names


def test_imported_the_supervisor_runs_nothing():
    done = subprocess.run([sys.executable, "-c", "import codeproof.experiments.supervisor; print('imported')"],
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "imported\n", "")


def test_the_supervisor_loads_no_module_beyond_those_it_imports():
    """What the experiment's process holds of the supervisor is its seven imports: the script finds the same
    modules loaded (and the same import times) whatever the supervisor's own code needs."""
    listing = "print(sorted(sys.modules))"
    imports = subprocess.run([sys.executable, "-B", "-c", f"import ctypes, json, os, resource, signal, sys, time; {listing}"],
                             capture_output=True, text=True, timeout=60)
    program = (f"import sys; path = {supervisor.__file__!r}\n"
               f"exec(compile(open(path).read(), path, 'exec'), {{'__name__': 'supervisor'}}); {listing}")
    supervised = subprocess.run([sys.executable, "-B", "-c", program], capture_output=True, text=True, timeout=60)
    assert (supervised.stdout, supervised.stderr) == (imports.stdout, "")
