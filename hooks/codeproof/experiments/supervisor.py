"""The supervisor of one experiment run: the program the runner starts to run a script contained.

It runs as `python -B -c <this file's text> <record fd> <lifeline fd> <handover fd> <run folder> <script> <limits>
<nobody> <calls> <trace code> <counted>` (runner.ExperimentRunner, inside the sandbox where there is one): the limits
as Limits' four numbers in its field order, then the user to become (sandbox.NOBODY in a root build's sandbox, else
0: stay), the graphs to trace as a JSON list of [function, argument], tracing.TRACE, and the folders the build
counts against the run's budgets besides its work folder, as a JSON list. Its text is given on the command line, not
its path, so the sandbox shows nothing of the repository; it imports the standard library only, so nothing of the
engine is in the experiment's process. Imported, it runs nothing.

- The run's folder holds `given/`, what the runner wrote (the published resources, an empty home and figure
  folder, matplotlib's settings). The supervisor copies it to `work/` and runs the script in `work/resources/`.
  In the sandbox, `given/` is read-only and `work/` lies in the sandbox's /tmp, memory of a fixed size: every byte
  the script writes, kept open after unlinking or written in a burst, counts against that size at once.
- Before the script starts, the supervisor opens `work/` and the counted folders and hands the descriptors to the
  runner over a Unix socket (the handover fd). The runner counts and reads through them, without following links:
  they outlive the sandbox, so the figures are read once every process of the run has ended. The script never
  holds the socket, and the supervisor is not dumpable (PR_SET_DUMPABLE 0): the script, though the same user, can
  neither trace it nor take its descriptors.

- It makes itself a child subreaper (prctl PR_SET_CHILD_SUBREAPER): every process the script leaves behind,
  however it detached (setsid, double fork), is re-parented to it. When the script ends, or the runner stops the
  run (time-out, output cap, Ctrl-C) by closing its end of the lifeline pipe, it kills and reaps every descendant
  before it exits, so no child holds the output pipes or outlives the run. The runner asks through a pipe, not
  with a signal: a SIGTERM that reaches bubblewrap before bubblewrap has tied its sandbox's life to its own ends
  bubblewrap alone, and the sandbox runs on, orphaned.
- It sets the limits (memory, processes, file size, CPU time) on the script's process and stays outside them, so
  it can always end the run; which one a script hit, the child tells the runner through the record (`limit`).

Inputs. The forked child installs an audit hook (sys.addaudithook, `recorder`) before it runs the script: it
records every file under the copy that is opened (`open()`, `io.open_code`: imports, whether by `import` or
`importlib`, and data files) and every folder listed (`os.listdir`, `os.scandir`: glob, and the import system's
look-up in experiments/, so a script that imports anything depends on the names in experiments/: a new module
there could shadow the one it imports). The record reaches the runner through a pipe (the record fd). Not seen:
files read by C code without Python's `open`, stat-only checks such as os.path.getsize, and anything a script
hides on purpose (it runs in the same process as the hook and may close the pipe): the record serves the local
cache, never what CI publishes.

The child runs the script in this module's own globals (those of `__main__`), cleared and made the script's: what
the child calls after that (`limit_shown`, the hook) uses builtins and its own locals only, never a global.
"""

import ctypes
import json
import os
import resource
import signal
import sys
import time

PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS, PR_SET_CHILD_SUBREAPER = 1, 4, 38, 36
CLONE_NEWUSER, CLONE_NEWIPC = 0x10000000, 0x08000000
MIB = 1024 * 1024


class Run:
    """What the command line (sys.argv: the program's name first) asks of the supervisor. A plain class: the
    experiment's process holds no module (typing, dataclasses) that the supervisor alone would need."""

    def __init__(self, argv: list[str]):
        self.record_fd, self.lifeline_fd, self.handover_fd = int(argv[1]), int(argv[2]), int(argv[3])
        self.given, self.work = argv[4] + "/given", argv[4] + "/work"
        self.inside = self.work + "/resources"  # where the script runs: only what lies under it is recorded
        self.script = argv[5]
        self.memory_mib, self.processes, self.file_size_mib, self.cpu_seconds = map(int, argv[6:10])
        self.nobody = int(argv[10])  # the user to become, or 0: stay
        self.calls = json.loads(argv[11])  # the graphs to trace once the script has run: [function, argument]
        self.trace_code = argv[12]
        self.counted = json.loads(argv[13])  # folders the runner counts besides work/ (the sandbox's memory)


def rlimits(run: Run) -> list[tuple[int, int, int]]:
    """(resource, soft, hard) of each limit, as setrlimit takes them. RLIMIT_NPROC counts the processes of the run's
    user in the run's own user namespace; past the soft CPU limit comes SIGXCPU, past the hard one SIGKILL."""
    return [(resource.RLIMIT_AS, run.memory_mib * MIB, run.memory_mib * MIB),
            (resource.RLIMIT_NPROC, run.processes, run.processes),
            (resource.RLIMIT_FSIZE, run.file_size_mib * MIB, run.file_size_mib * MIB),
            (resource.RLIMIT_CPU, run.cpu_seconds, run.cpu_seconds + 1)]


def limit_shown(error: BaseException) -> str | None:
    """The limit (a Limits field, or the budget run_mib) that an exception which ended the script shows it hit, if
    any. Called once the script's globals have replaced this module's: builtins only (errno 27 is EFBIG, 28 ENOSPC,
    11 EAGAIN)."""
    if isinstance(error, MemoryError):
        return "memory_mib"
    if isinstance(error, OSError) and error.errno == 27:  # Python ignores SIGXFSZ, the write fails
        return "file_size_mib"
    if isinstance(error, OSError) and error.errno == 28:  # ENOSPC: the sandbox's memory is full (a budget)
        return "run_mib"
    if (isinstance(error, OSError) and error.errno == 11) or "can't start new thread" in str(error):
        return "processes"  # EAGAIN from fork, or a thread refused
    return None


def recorder(inside: str, emit):
    """The audit hook that records, once each, the files opened and the folders listed under `inside`, by
    emit(b"file\\t<path>\\0") and emit(b"dir\\t<path>\\0"), the paths resolved. It never lets the record change
    what the script does: a path it cannot read, or an emit that fails, is left out."""
    seen = set()
    realpath, fsdecode = os.path.realpath, os.fsdecode  # bound now: the script may patch os
    kinds = {"open": "file", "os.listdir": "dir", "os.scandir": "dir"}

    def record(event, args):
        kind = kinds.get(event)
        if kind is None or isinstance(args[0], int):  # other events; an already open descriptor
            return
        try:
            path = realpath(fsdecode("." if args[0] is None else args[0]))
            if path.startswith(inside + "/") and (kind, path) not in seen:
                seen.add((kind, path))
                emit(f"{kind}\t{path}\0".encode("utf-8", "surrogateescape"))
        except Exception:
            pass

    return record


class Stop(Exception):
    """A SIGTERM came: the sandbox or the build went away (PR_SET_PDEATHSIG), or someone ended the run by hand."""


def stop(signum, frame):
    raise Stop


def ended_or_asked(child: int, lifeline_fd: int) -> int | None:
    """The child's wait status once it ends, or None once the runner closes the lifeline (or goes away): the main
    thread waits for both at once. (A thread that read the lifeline and signalled the main thread lost the signal
    at times, when it came just before the main thread's wait began: the run went on until the runner killed it.)"""
    import select  # here, after the fork: the script's process gets no module that `python script` would not

    try:
        child_fd = os.pidfd_open(child)
    except OSError as error:  # Linux before 5.3
        sys.exit(f"codeproof: cannot wait for the experiment: pidfd_open: {error.strerror} (Linux 5.3 or newer)")
    readable, _, _ = select.select([child_fd, lifeline_fd], [], [])
    return os.waitpid(child, 0)[1] if child_fd in readable else None


def experiment(run: Run) -> None:
    """The forked child: record what the script opens and lists, then run it as `python -B script` would.

    Everything it needs once the script's globals replace the module's is local (see the module's docstring)."""
    import builtins
    import os
    import sys
    from importlib.machinery import SourceFileLoader

    write, record_fd, shown = os.write, run.record_fd, limit_shown  # bound now: the script may patch os

    def emit(data: bytes) -> None:
        write(record_fd, data)

    def hit(name):
        """Tell the runner which limit stopped the script (a note for the failure's message, nothing more)."""
        try:
            emit(f"limit\t{name}\0".encode())
        except OSError:
            pass

    # The limits hold for the script and every process it starts; the supervisor stays outside them, so it can
    # always end the run.
    for which, soft, hard in rlimits(run):
        resource.setrlimit(which, (soft, hard))

    script, calls, trace_code, inside = run.script, run.calls, run.trace_code, run.inside
    path = os.path.abspath(script)
    sys.addaudithook(recorder(inside, emit))
    sys.argv[:] = [script]
    sys.path[0] = os.path.dirname(path)  # `python script` puts the script's folder first, -c the cwd
    with open(path, "rb") as handle:  # recorded, as every input is
        code = compile(handle.read(), path, "exec")
    namespace = sys.modules["__main__"].__dict__
    namespace.clear()
    namespace.update(__name__="__main__", __doc__=None, __package__=None, __spec__=None, __cached__=None,
                     __file__=path, __builtins__=builtins, __loader__=SourceFileLoader("__main__", path))

    def traces():
        """The graphs the posts ask of this script, traced in its own process once it has run (see tracing)."""
        if calls:
            graph = lambda number, text: emit(f"graph\t{number}\t{text}\0".encode("utf-8", "surrogateescape"))
            exec(trace_code, {"namespace": namespace, "calls": calls, "inside": inside, "emit": graph})

    try:
        exec(code, namespace)
        traces()
    except SystemExit as done:
        if done.code in (None, 0):  # `sys.exit(main())` that went well
            traces()
        raise
    except BaseException as error:  # a traceback of the script's frames only, as `python script` prints
        name = shown(error)
        if name is not None:
            hit(name)
        error = error.with_traceback(error.__traceback__.tb_next)
        sys.excepthook(type(error), error, error.__traceback__)
        sys.exit(1)


def copy_tree(source: str, target: str) -> None:
    """A copy of the folders and files under `source` (the runner wrote them: no link, no other kind) at `target`,
    with os and open alone: the script's process gets no module that `python script` would not."""
    os.mkdir(target)
    for entry in os.scandir(source):
        path = os.path.join(target, entry.name)
        if entry.is_dir(follow_symlinks=False):
            copy_tree(entry.path, path)
        else:
            with open(entry.path, "rb") as given, open(path, "wb") as copy:
                copy.write(given.read())


def prepare(run: Run) -> list[int]:
    """The run's work folder, copied from what it was given, and the descriptors of it and of the counted folders,
    opened before the script runs (so they are the folders the supervisor made, whatever the script does later)."""
    copy_tree(run.given, run.work)
    os.chdir(run.inside)
    os.environ["PWD"] = run.inside  # bwrap set it to where it started the supervisor
    return [os.open(path, os.O_RDONLY | os.O_DIRECTORY) for path in (run.work, *run.counted)]


def hand_over(handover_fd: int, folders: list[int]) -> None:
    """Give the runner the folders' descriptors (SCM_RIGHTS): held in the socket until it reads them, they keep the
    sandbox's memory readable after the run. A runner that went away gets nothing; the run ends anyway."""
    import _socket  # here, after the fork: see experiment()

    handover = _socket.socket(fileno=handover_fd)
    try:
        fds = b"".join(fd.to_bytes(4, sys.byteorder) for fd in folders)
        handover.sendmsg([b"folders"], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])
    except OSError:
        pass
    finally:
        handover.close()
        for fd in folders:
            os.close(fd)


def children(parent: int) -> list[int]:
    """The processes whose parent is `parent`, as /proc shows them now."""
    me = str(parent).encode()
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as stat:
                    if stat.read().rsplit(b")", 1)[1].split()[1] == me:
                        found.append(int(name))
            except (OSError, IndexError):
                pass  # gone meanwhile
    return found


def end_descendants() -> None:
    """Kill every child until none is left: orphans of killed ones are re-parented here, and killed too."""
    while True:
        for pid in children(os.getpid()):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                time.sleep(0.005)
        except ChildProcessError:
            return


def exit_code(status: int) -> int:
    """The supervisor's exit code for the script's wait status: a script killed by signal N ends with 128+N, as in
    a shell (and as bwrap reports it)."""
    return 128 + os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


def main(argv: list[str]) -> None:
    run = Run(argv)
    for fd in (run.record_fd, run.lifeline_fd, run.handover_fd):
        os.set_inheritable(fd, False)  # the script's own children do not get them
    libc = ctypes.CDLL(None, use_errno=True)
    prctl = getattr(libc, "prctl", None)
    if prctl is None or prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit("codeproof: cannot contain the experiment: prctl(PR_SET_CHILD_SUBREAPER) is not available "
                 "(experiments run on Linux only)")
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)  # no program it runs gains a privilege (setuid bits, file capabilities)
    if run.nobody:  # a root build's sandbox (see sandbox.bwrap_command): never run the script as root
        os.setgroups([])
        os.setresgid(run.nobody, run.nobody, run.nobody)
        os.setresuid(run.nobody, run.nobody, run.nobody)
        if libc.unshare(CLONE_NEWUSER) != 0:  # where it cannot, the process limit counts every process of NOBODY
            print(f"codeproof: no user namespace of the run's own (errno {ctypes.get_errno()}): the process limit "
                  "counts every process of its user", file=sys.stderr)
    # System V shared memory, semaphores and queues outlive the processes that made them (a script that left a GiB
    # of shared memory left it on the machine, run after run): in an IPC namespace of the run's own they end with
    # its last process. bubblewrap makes one; the fallback makes one where it may (as root; in the user namespace
    # above), and its build log says where it may not (sandbox.SANDBOX_NOTES).
    libc.unshare(CLONE_NEWIPC)
    if run.nobody:
        # A new user namespace gives its first process every capability inside it: the script needs none.
        header, data = (ctypes.c_uint32 * 2)(0x20080522, 0), (ctypes.c_uint32 * 6)()  # _LINUX_CAPABILITY_VERSION_3
        if libc.capset(header, data) != 0:
            sys.exit(f"codeproof: cannot drop the run's capabilities (errno {ctypes.get_errno()})")
    prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)  # the build went away: clean up as on a time-out
    try:
        folders = prepare(run)
    except OSError as error:  # the given files do not fit the sandbox's memory (the budget run_mib)
        sys.exit(f"codeproof: cannot make the run's folder: {error.strerror}: {error.filename}")

    signal.signal(signal.SIGTERM, stop)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})  # held until the parent is in its try below
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # from here on the script runs beside it, as the same user
    child = os.fork()
    if child == 0:
        for fd in (run.lifeline_fd, run.handover_fd, *folders):
            os.close(fd)  # the lifeline: the script's to end only by ending; the rest are the runner's
        prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)  # the script's process is as `python script`'s
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
        prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        experiment(run)
        return
    hand_over(run.handover_fd, folders)
    status = None
    try:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})  # a pending SIGTERM raises Stop here
        status = ended_or_asked(child, run.lifeline_fd)
    except Stop:
        pass
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # ending is under way: finish it
        end_descendants()
    sys.exit(124 if status is None else exit_code(status))


if __name__ == "__main__":
    main(sys.argv)
