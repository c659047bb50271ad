"""Every run and drawing has a budget (integrity round four, class 4): what a script leaves the build (a trace
record, a graph, a drawing, a figure folder, an output that differs) is bounded before the build spends on it, each
budget set in extra.series.experiments.budgets, and past one the problem names it and where it is set."""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path

import pytest
import yaml

from codeproof.common.structure import Budgets, Limits
from codeproof.common.usercache import repository_cache
from codeproof.experiments import compare
from codeproof.experiments.figures import FOLDER_FAULT, clean_svg, collect_figures
from codeproof.experiments.memorygroup import NO_MEMORY_GROUP, Hierarchy, memory_groups, remove_stale_groups
from codeproof.experiments.runner import MEMORY_MARGIN_MIB, ExperimentRunner
from codeproof.experiments.sandbox import SANDBOX_NOTES, SHM_BYTES
from codeproof.experiments.tracing import MAX_MAKERS, MAX_NAMES, read_graph
from codeproof.engine import run_failure
from codeproof.series.config import SeriesConfigError, load_series
from codeproof.site import graphs
from fixture_site import OUTPUT, SCRIPT, make_site

BUDGETS = Budgets()


def record(nodes: list[dict]) -> str:
    return json.dumps({"nodes": nodes, "output": len(nodes) - 1})


def node(parents=(), makers=(), names=()) -> dict:
    return {"name": "add", "parents": list(parents), "makers": [list(m) for m in makers], "names": list(names)}


# --- traced graphs ------------------------------------------------------------------------------------------------


def test_a_forged_record_of_one_node_with_thousands_of_makers_is_refused_before_drawing():
    """Before: one node with 9,000 makers and 55,000 names (0.9 MB, under the record's cap) took 1,118 s to draw."""
    forged = record([node(), node([0], [("autograd/core.py", 1, "f")] * 9000, ["n"] * 55000)])
    assert len(forged) < 1024 * 1024
    assert read_graph(forged, Budgets(trace_kib=1024)) == (
        f"the trace's record gives 'add' more than {MAX_MAKERS} VJP makers or {MAX_NAMES} names, which no primitive "
        "of autograd has")


def test_a_trace_record_past_its_budget_is_refused_unread():
    forged = record([node(), node([0], names=["n" * 30] * 10_000)])
    assert read_graph(forged) == (f"the trace's record is {len(forged) // 1024} KiB, past the budget trace_kib (256 KiB; "
                                  "extra.series.experiments.budgets.trace_kib in mkdocs.yml)")


def test_a_graph_whose_nodes_each_take_every_earlier_value_is_past_the_edge_budget():
    """Before: 80 nodes, each taking every earlier value (3,160 edges), added 27 s to a warm build."""
    dense = record([node()] + [node(range(n)) for n in range(1, 80)])
    assert read_graph(dense) == ("the traced graph has 3160 edges, past the budget graph_edges (200; "
                                 "extra.series.experiments.budgets.graph_edges in mkdocs.yml)")
    assert not isinstance(read_graph(dense, Budgets(graph_edges=3160)), str)


# --- drawings -----------------------------------------------------------------------------------------------------


def nested_patterns(levels: int, fan_out: int) -> str:
    """Patterns that each fill `fan_out` rectangles with the pattern before: fan_out^levels copies."""
    defs = '<pattern id="p0" width="1" height="1"><rect width="1" height="1"/></pattern>'
    for n in range(1, levels):
        defs += f'<pattern id="p{n}" width="10" height="10">' + \
            "".join(f'<rect x="{k}" width="1" height="1" fill="url(#p{n - 1})"/>' for k in range(fan_out)) + "</pattern>"
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 50"><defs>{defs}</defs>'
            f'<rect width="100" height="50" fill="url(#p{levels - 1})"/></svg>')


def test_laying_out_a_graph_stops_at_its_deadline():
    """Round five: drawing had no clock of its own (the size budgets bound it: bench/budgets.py times the worst)."""
    graph = read_graph(record([node(), node([0]), node([1]), node([0, 2])]))
    with pytest.raises(graphs.PastDeadline):
        graphs.lay_out(graph, "f(x)", deadline=time.monotonic() - 1)
    assert graphs.lay_out(graph, "f(x)", deadline=time.monotonic() + 60).boxes  # in time: laid out


def test_patterns_that_fill_with_patterns_are_refused_past_the_reference_depth():
    """Before: nine levels of pattern fills (10^9 copies) were published, and froze Chromium."""
    assert clean_svg(nested_patterns(9, 10)).problems == (
        "its references reach through more than 2 levels (<pattern> is one), past the budget svg_reference_depth (2; "
        "extra.series.experiments.budgets.svg_reference_depth in mkdocs.yml)",)


def test_copies_are_counted_against_the_element_budget():
    """150 copies of a group of 150 shapes, each filled with a pattern: within the depth, past the elements."""
    group = '<g id="g">' + '<rect width="1" height="1" fill="url(#p)"/>' * 150 + "</g>"
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 50"><defs><pattern id="p" width="1" height="1">'
           f'<rect width="1" height="1"/></pattern>{group}</defs>' + '<use href="#g"/>' * 150 + "</svg>")
    assert clean_svg(svg).problems == (
        "it draws more than 20000 elements, each reference counted as what it copies, past the budget svg_elements "
        "(20000; extra.series.experiments.budgets.svg_elements in mkdocs.yml)",)
    assert clean_svg(svg, Budgets(svg_elements=100_000)).problems == ()


def test_a_figure_folder_of_many_files_is_not_read(tmp_path):
    """Before: 300 files of 1 MiB each built green and left a 300 MB cache entry."""
    (tmp_path / "figures").mkdir()
    for n in range(BUDGETS.figure_files + 1):
        (tmp_path / "figures" / f"f{n}.svg").write_text("<svg/>")
    assert collect_figures(tmp_path) == ({}, {FOLDER_FAULT: (
        f"the run wrote {BUDGETS.figure_files + 1} files into its figure folder, past the budget figure_files "
        f"({BUDGETS.figure_files}; extra.series.experiments.budgets.figure_files in mkdocs.yml)")})


def test_a_figure_folder_past_its_bytes_is_not_kept(tmp_path):
    (tmp_path / "figures").mkdir()
    for n in range(3):
        (tmp_path / "figures" / f"f{n}.svg").write_bytes(b" " * (1024 * 1024 - 10) + b"<svg/>")
    figures, faults = collect_figures(tmp_path, Budgets(figure_mib=2))
    assert (figures, faults) == ({}, {FOLDER_FAULT: "the run wrote more than 2 MiB into its figure folder, past the "
                                                    "budget figure_mib (2 MiB; extra.series.experiments.budgets."
                                                    "figure_mib in mkdocs.yml)"})


# --- a mismatch's diff ---------------------------------------------------------------------------------------------


def test_a_long_mismatch_shows_the_start_of_its_diff_and_names_the_file_with_all_of_it(tmp_path):
    """Before: an 8,000-line mismatch wrote a 16,014-line log."""
    site = make_site(tmp_path)
    (site.root / SCRIPT).write_text("for n in range(8000):\n    print('printed', n)\n")
    site.edit(OUTPUT, "\n".join(f"recorded {n}" for n in range(8000)))
    code, said = site.check()
    assert code == 1
    problem = said[said.index("OUTPUT experiments/show.py: output differs"):]
    shown = problem.split("\n  hint:")[0].splitlines()[1:]
    whole = repository_cache(site.root) / "reports" / f"docs__posts__p.md-{problem_line(site)}.diff"
    assert shown[-1] == (f"… and {len(whole.read_text().splitlines()) - 200} more lines, past the budget diff_lines "
                         f"(200; extra.series.experiments.budgets.diff_lines in mkdocs.yml): the whole of it is in {whole}")
    assert len(shown) == 201 and len(whole.read_text().splitlines()) > 16_000
    assert whole.read_text().startswith("".join(line + "\n" for line in shown[:-1]))


def problem_line(site) -> int:
    return site.post.read_text().splitlines().index("[OUTPUT]") + 1


def test_pairing_long_outputs_under_a_tolerance_does_not_grow_with_the_product_of_their_lengths(monkeypatch):
    """What the time is made of: past the bound, lines pair by position and difflib is not asked to pair them."""
    def refused(*args, **kwargs):
        raise AssertionError("difflib paired outputs past the bound")

    monkeypatch.setattr(compare.difflib, "SequenceMatcher", refused)
    recorded = "\n".join(f"value {n} 1.0" for n in range(2000))
    printed = "\n".join(f"value {n} 1.0000001" for n in range(2000))
    tolerance = compare.Tolerance(rel=1e-3, abs=0.0)
    assert compare.reconcile(recorded, printed, tolerance).lines == compare.normalize(recorded)


# --- the configuration ---------------------------------------------------------------------------------------------


def test_each_budget_is_set_in_the_configuration_and_must_be_a_positive_whole_number(tmp_path):
    site = make_site(tmp_path)
    config = yaml.safe_load((site.root / "mkdocs.yml").read_text())
    config["extra"]["series"]["experiments"] = {"budgets": {"graph_edges": 1000, "diff_lines": 0}}
    (site.root / "mkdocs.yml").write_text(yaml.safe_dump(config))
    with pytest.raises(SeriesConfigError) as refused:
        load_series(site.root / "mkdocs.yml")
    assert [p.message for p in refused.value.problems] == [
        "extra.series.experiments.budgets.diff_lines: 0 is not a positive whole number"]
    config["extra"]["series"]["experiments"]["budgets"].pop("diff_lines")
    (site.root / "mkdocs.yml").write_text(yaml.safe_dump(config))
    assert load_series(site.root / "mkdocs.yml").budgets == Budgets(graph_edges=1000)


def test_every_budget_has_a_default_and_a_phrase_that_says_where_it_is_set():
    for name in Budgets.__dataclass_fields__:
        assert f"extra.series.experiments.budgets.{name} in mkdocs.yml" in BUDGETS.phrase(name)
    assert Path(__file__).read_text().count("def test_") >= 10


# --- a run's folder -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("script, over", [
    ("for n in range(60):\n    open(f'f{n}', 'w').close()\n", "more than 50 files, past the budget run_files (50; "
                                                              "extra.series.experiments.budgets.run_files in mkdocs.yml)"),
    ("for n in range(3):\n    open(f'f{n}', 'wb').write(b' ' * (1 << 20))\n",
     "more than 2 MiB of files, past the budget run_mib (2 MiB; extra.series.experiments.budgets.run_mib in mkdocs.yml)"),
])
def test_a_run_that_leaves_more_than_its_folder_may_hold_fails_naming_the_budget(root, make_runner, script, over):
    """Before: 300 files of 1 MiB each built green (each file under the per-file limit) and left a 300 MB entry."""
    (root / "experiments" / "fill.py").write_text(script)
    runner = make_runner(budgets=Budgets(run_files=50, run_mib=2))
    result = runner.result("experiments/fill.py")
    assert (result.ok, result.over_budget, result.figures) == (False, over, {})
    assert run_failure(result, 20) == f"left in its folder {over}"


def test_a_run_that_would_fill_the_disk_is_ended_once_past_its_folders_budget(root, make_runner):
    """Round five: the folder was counted only after the run, so within its time a script could fill the disk. It
    is counted while the script runs, which is ended there and then (it would write until its 60 s timeout)."""
    (root / "experiments" / "fill.py").write_text(
        "n = 0\nwhile True:\n    open(f'f{n}', 'wb').write(b' ' * (1 << 20))\n    n += 1\n")
    result = make_runner(timeout=60, budgets=Budgets(run_mib=4)).result("experiments/fill.py")
    assert (result.ok, result.timed_out) == (False, False)
    assert result.over_budget == ("more than 4 MiB of files, past the budget run_mib (4 MiB; "
                                  "extra.series.experiments.budgets.run_mib in mkdocs.yml)")


RUN_MIB = "the budget run_mib (4 MiB; extra.series.experiments.budgets.run_mib in mkdocs.yml)"


@pytest.mark.parametrize("sandbox", ["bwrap", "subreaper"])
def test_space_a_run_keeps_without_writing_counts_against_its_folders_budget(root, make_runner, sandbox):
    """Review of round five: fallocate keeps a gigabyte of disk in a file whose size is 0. On the disk the count
    sees the blocks; in the sandbox's memory the space is refused."""
    (root / "experiments" / "fill.py").write_text(
        "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nfd = os.open('kept', os.O_CREAT | os.O_WRONLY)\n"
        "libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_longlong, ctypes.c_longlong]\n"
        "if libc.fallocate(fd, 1, 0, 8 << 20) != 0:  # FALLOC_FL_KEEP_SIZE\n"
        "    raise OSError(ctypes.get_errno(), 'fallocate')\n")
    result = make_runner(sandbox=sandbox, budgets=Budgets(run_mib=4)).result("experiments/fill.py")
    assert run_failure(result, 20).startswith({"bwrap": f"exited with status 1: it passed {RUN_MIB}, or the 16 MiB of "
                                                         "/dev/shm\n",
                                               "subreaper": f"left in its folder more than 4 MiB of files, past {RUN_MIB}"}[sandbox])


def test_in_the_bwrap_sandbox_tmp_holds_no_more_than_the_folders_budget(root, make_runner):
    """/tmp is the sandbox's own memory: by default half the machine's, which a script could fill."""
    (root / "experiments" / "fill.py").write_text("open('/tmp/big', 'wb').write(b' ' * (8 << 20))\n")
    result = make_runner(sandbox="bwrap", budgets=Budgets(run_mib=4)).result("experiments/fill.py")
    assert result.returncode == 1 and "OSError: [Errno 28] No space left on device" in result.stderr, result.stderr
    assert run_failure(result, 20).startswith(f"left in its folder more than 4 MiB of files, past {RUN_MIB}")


def test_a_file_kept_open_after_it_is_unlinked_counts_against_the_sandboxs_memory(root, make_runner):
    """Round five left it: no count of the folder sees a file that is gone from it but still written. The sandbox's
    memory holds it, and refuses it past the budget: the run ends there, not at its timeout."""
    (root / "experiments" / "fill.py").write_text(
        "import os, time\nhidden = open('hidden', 'wb')\nos.unlink('hidden')\n"
        "for n in range(64):\n    hidden.write(b' ' * (1 << 20))\n    hidden.flush()\ntime.sleep(60)\n")
    result = make_runner(sandbox="bwrap", timeout=60, budgets=Budgets(run_mib=4)).result("experiments/fill.py")
    assert (result.ok, result.timed_out) == (False, False)
    assert run_failure(result, 60).startswith(f"exited with status 1: it passed {RUN_MIB}, or the 16 MiB of /dev/shm\n"), \
        result.stderr


def test_a_burst_of_writes_between_two_counts_stops_at_the_sandboxs_memory(root, make_runner):
    """Round five left it: eight threads wrote 480 MiB against a 4 MiB budget in the quarter second between two
    counts. In the sandbox's memory no more than the budget and its margin is ever written."""
    (root / "experiments" / "fill.py").write_text(
        "import threading\nwritten, lock = [], threading.Lock()\n"
        "def fill(n):\n    with open(f'burst{n}', 'wb') as out:\n        for _ in range(60):\n"
        "            try:\n                size = out.write(b' ' * (1 << 20))\n                out.flush()\n"
        "            except OSError:\n                return\n"
        "            with lock:\n                written.append(size)\n                print(sum(written), flush=True)\n"
        "threads = [threading.Thread(target=fill, args=(n,)) for n in range(8)]\n"
        "[t.start() for t in threads]\n[t.join() for t in threads]\n")
    result = make_runner(sandbox="bwrap", budgets=Budgets(run_mib=4)).result("experiments/fill.py")
    # Each write's total as it is made: the run may be ended before its threads end (the count saw the folder full).
    totals = [int(line) for line in result.stdout.split()]
    assert totals and max(totals) <= (4 + MEMORY_MARGIN_MIB) << 20, result.stdout
    assert run_failure(result, 20) == f"left in its folder more than 4 MiB of files, past {RUN_MIB}"


@pytest.mark.parametrize("path, error", [("/outside", "Read-only file system"), ("/dev/outside", "Read-only file system"),
                                          ("/dev/shm/outside", "No space left on device")])
def test_in_the_sandbox_nothing_outside_its_tmp_may_be_written_past_a_small_fixed_size(root, make_runner, path, error):
    """Round six: the sandbox's / and /dev were writable memory of no size (half the machine's), and so was
    /dev/shm. / and /dev are read-only now, and /dev/shm holds SHM_BYTES (16 MiB) whatever the budget: here the
    budget is larger than that, so the count of the run's folders (which may end a run past it at any moment,
    CI's first failure of this test) never comes before the write that fills /dev/shm."""
    (root / "experiments" / "fill.py").write_text(
        f"with open({path!r}, 'wb') as out:\n    for n in range(64):\n        out.write(b' ' * (1 << 20))\n        out.flush()\n")
    assert SHM_BYTES < 32 << 20
    result = make_runner(sandbox="bwrap", budgets=Budgets(run_mib=32)).result("experiments/fill.py")
    assert (result.returncode, f"OSError: [Errno {28 if 'shm' in path else 30}] {error}" in result.stderr) == (1, True), \
        result.stderr


def test_the_script_cannot_take_its_supervisors_descriptors(root, make_runner):
    """The supervisor hands the run's folders to the build over a socket: the script, the same user, may not
    trace it or open its descriptors (it is not dumpable), so it cannot hand over folders of its own choosing."""
    (root / "experiments" / "peek.py").write_text(
        "import os\ntry:\n    print(sorted(os.listdir(f'/proc/{os.getppid()}/fd')))\nexcept PermissionError:\n"
        "    print('refused')\n")
    result = make_runner(sandbox="bwrap").result("experiments/peek.py")
    assert (result.returncode, result.stdout) == (0, "refused\n")


@pytest.mark.parametrize("script, budgets, over", [
    ("import os\nfor n in range(60):\n    os.mkdir(f'd{n}')\n", Budgets(run_files=50),
     "more than 50 files, past the budget run_files (50; extra.series.experiments.budgets.run_files in mkdocs.yml)"),
    ("import os\nfor n in range(2100):\n    os.mkdir('d')\n    os.chdir('d')\n", Budgets(run_files=5000),
     "a folder nested deeper than 256, past the budget run_files (5000; "
     "extra.series.experiments.budgets.run_files in mkdocs.yml)"),
])
def test_folders_count_and_one_too_deep_to_read_fails_the_block_not_the_build(root, make_runner, script, budgets, over):
    """Review of round four: 50,000 empty folders were not counted, and 2,100 nested ones crashed the build (the
    count, and then the removal of the run's folder, which recursed once a level)."""
    (root / "experiments" / "fill.py").write_text(script)
    result = make_runner(budgets=budgets).result("experiments/fill.py")
    assert (result.ok, result.over_budget) == (False, over)


def test_what_is_bound_read_only_into_the_sandboxs_tmp_is_not_the_runs(root, make_runner, tmp_path):
    """Review of round six: a build whose venv lies in /tmp (a fresh clone there) counted the venv, bound
    read-only into the sandbox's /tmp, as the run's files, and ended every run past the budget. Here a package tree
    in /tmp is bound as drift --run binds another commit's."""
    tree = tmp_path / "tree"
    for n in range(80):
        (tree / "pkg" / f"m{n}.py").parent.mkdir(parents=True, exist_ok=True)
        (tree / "pkg" / f"m{n}.py").write_text("")
    (root / "experiments" / "x.py").write_text("import time\ntime.sleep(1)\nprint('ran')\n")  # counted as it runs
    runner = ExperimentRunner(root, tmp_path / ".cache", 20, 1 << 20, sandbox="bwrap", key_file=tmp_path / "key",
                              python_path=tree, budgets=Budgets(run_files=50))
    result = runner.result("experiments/x.py")
    runner.finish()
    assert str(tree).startswith("/tmp/")
    assert (result.returncode, result.stdout, result.over_budget) == (0, "ran\n", "")


def test_the_script_may_make_no_user_namespace_of_its_own(root, make_runner):
    """Review of round six: in a build that is not root's, a script made a user namespace of its own, mounted a
    tmpfs of 100 GB there and filled 900 MiB of it, counted by nothing. bwrap now disables further user
    namespaces (a root build's sandbox had none to give: its supervisor's namespace maps no user)."""
    (root / "experiments" / "nest.py").write_text(
        "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        "print('refused' if libc.unshare(0x10000000) != 0 else 'made')  # CLONE_NEWUSER\n")
    result = make_runner(sandbox="bwrap").result("experiments/nest.py")
    assert (result.returncode, result.stdout) == (0, "refused\n")


def test_a_run_that_names_a_figure_in_bytes_that_are_not_utf8_is_stored_and_read_back(root, make_runner):
    """Review of round six: the same name ended the build with a traceback where the run was stored in the cache."""
    (root / "experiments" / "x.py").write_text(
        "import os\nopen(os.environ['CODEPROOF_FIGURES'].encode() + b'/\\xff.svg', 'wb').write(b'<svg/>')\n")
    result = make_runner().result("experiments/x.py")
    again = make_runner().result("experiments/x.py")
    assert (result.ok, result.figure_faults, again.cached, again.figure_faults) == (
        True, {"\\xff.svg": "its name is not UTF-8"}, True, {"\\xff.svg": "its name is not UTF-8"})


def test_a_folder_swapped_for_a_link_while_it_is_counted_turns_the_count_nowhere(tmp_path, monkeypatch):
    """Review of round six: the count walked paths, so a script that swapped a folder for a link between the count's
    look at it and its listing had it list a folder of the machine (here one of 60 files, past a budget of 50).
    Each folder is now opened from the one above it without following a link."""
    from codeproof.experiments import runner as runner_module

    run, machine = tmp_path / "run", tmp_path / "machine"
    (run / "a").mkdir(parents=True)
    machine.mkdir()
    for n in range(60):
        (machine / f"f{n}").touch()
    listing = os.scandir

    class Swapping:
        """An entry that, once the count has looked at it (a folder), becomes a link to the machine's folder."""

        def __init__(self, entry):
            self.entry, self.name, self.path = entry, entry.name, entry.path

        def stat(self, follow_symlinks=True):
            info = self.entry.stat(follow_symlinks=follow_symlinks)
            if self.name == "a" and not (run / "a").is_symlink():
                (run / "a").rmdir()
                (run / "a").symlink_to(machine)
            return info

    def swapping(folder):
        return _Listing([Swapping(entry) for entry in listing(folder)])

    monkeypatch.setattr(runner_module.os, "scandir", swapping)
    counted = ExperimentRunner.__new__(ExperimentRunner)
    counted.budgets = Budgets(run_files=50)
    assert counted._over_budget([str(run)]) == ("a folder the build cannot read (Not a directory), "
                                                "past the budget run_files (50; extra.series.experiments.budgets."
                                                "run_files in mkdocs.yml)")


class _Listing:
    """A listing as os.scandir gives it: an iterator of entries, closed, or used in a with statement."""

    def __init__(self, entries):
        self._entries = iter(entries)

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._entries)

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass


# --- memory no file holds: the run's memory group (experiments.memorygroup) -----------------------------------

RUN_MEMORY = ("held more memory than the run's memory limit (384 MiB; extra.series.experiments.limits.run_memory_mib "
              "in mkdocs.yml): the kernel ended one of its processes (memory no file holds counts too: shared memory, "
              "memfd, pipes and sockets, every process)")
HOLDS_MEMORY = {  # each holds 1 GiB that no file in the run's folders holds, then waits to be counted
    "memfd": "import os, time\nfor n in range(32):  # each under file_size_mib, which bounds one memfd\n"
             "    fd = os.memfd_create('held')\n    for _ in range(32):\n        os.write(fd, b'x' * (1 << 20))\n"
             "time.sleep(30)\n",
    "System V shared memory": "import ctypes, time\nlibc = ctypes.CDLL(None, use_errno=True)\n"
             "libc.shmat.restype = ctypes.c_void_p\n"
             "segment = libc.shmget(0, 1 << 30, 0o1600)\nassert segment >= 0, ctypes.get_errno()\n"
             "address = libc.shmat(segment, None, 0)\nctypes.memset(address, 1, 1 << 30)\ntime.sleep(30)\n",
    "many processes, each under memory_mib": "import os, time\nfor _ in range(8):\n    if os.fork() == 0:\n"
             "        held = bytearray(160 << 20)\n        held[::4096] = b'x' * len(held[::4096])\n        time.sleep(30)\n"
             "time.sleep(30)\n",
}


@pytest.mark.parametrize("sandbox", ["bwrap", "subreaper"])
@pytest.mark.parametrize("holds", list(HOLDS_MEMORY), ids=list(HOLDS_MEMORY))
def test_memory_no_file_holds_is_bounded_by_the_runs_memory_group(root, make_runner, sandbox, holds, caplog):
    """Round six left it: memory that no file holds and no one process maps passed every limit (memfd, shared
    memory, many processes each under memory_mib). Where the machine lets the build make a memory cgroup, the
    run's processes hold no more than run_memory_mib together: the run fails naming it, well before its timeout.
    Where it does not, the build says so rather than claim the bound."""
    (root / "experiments" / "hold.py").write_text(HOLDS_MEMORY[holds])
    runner = make_runner(sandbox=sandbox, timeout=60, limits=Limits(run_memory_mib=384))
    if runner.memory_groups is None:  # (the attack is not run: nothing would bound it)
        caplog.set_level(logging.INFO, logger="mkdocs.codeproof.experiments")
        assert runner.sandbox == sandbox and NO_MEMORY_GROUP in caplog.messages
        return
    result = runner.result("experiments/hold.py")
    assert (result.ok, result.timed_out, run_failure(result, 60)) == (False, False, RUN_MEMORY), result.stderr
    assert not list(runner.memory_groups.folder.glob(f"codeproof-{os.getpid()}-*"))  # each run's group removed


# A segment of a size nothing else on the machine asks for, so that the host's list shows whether it is left.
ODD_SIZE = 1_234_567
LEAVES_SHARED_MEMORY = ("import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
                        f"print(libc.shmget(0, {ODD_SIZE}, 0o1600) >= 0)\n")


def segments_of_odd_size() -> list[str]:
    """The machine's System V shared memory segments of ODD_SIZE, as /proc lists them (size is the 4th column)."""
    lines = Path("/proc/sysvipc/shm").read_text().splitlines()[1:]
    return [line for line in lines if line.split()[3] == str(ODD_SIZE)]


@pytest.mark.parametrize("sandbox", ["bwrap", "subreaper"])
def test_the_system_v_shared_memory_a_script_leaves_ends_with_its_run(root, make_runner, sandbox):
    """A System V segment outlives the process that made it: one the test above made each time was left on the
    machine, a GiB a run, until the machine had no memory left. The run's IPC namespace ends it with the run
    (bubblewrap's; the fallback's own where the build may make one, as root)."""
    if sandbox == "subreaper" and os.geteuid() != 0:  # it may not: the build log says so (sandbox.SANDBOX_NOTES)
        assert "System V" in SANDBOX_NOTES["subreaper"]
        return
    (root / "experiments" / "leave.py").write_text(LEAVES_SHARED_MEMORY)
    before = segments_of_odd_size()
    result = make_runner(sandbox=sandbox).result("experiments/leave.py")
    assert (result.ok, result.stdout) == (True, "True\n"), result.stderr
    assert segments_of_odd_size() == before


def test_a_run_within_its_memory_group_passes_and_leaves_no_group(root, make_runner):
    (root / "experiments" / "small.py").write_text("held = bytearray(64 << 20)\nprint(len(held) >> 20)\n")
    runner = make_runner(sandbox="bwrap", limits=Limits(run_memory_mib=384))
    result = runner.result("experiments/small.py")
    assert (result.ok, result.stdout) == (True, "64\n"), result.stderr
    if runner.memory_groups is not None:
        assert not list(runner.memory_groups.folder.glob(f"codeproof-{os.getpid()}-*"))


def fake_cgroups(tmp_path: Path, mounts: list[str], cgroup: str) -> tuple[Path, Path]:
    """A machine's /proc/self/mountinfo and /proc/self/cgroup, as files."""
    (tmp_path / "mountinfo").write_text("".join(f"{n} 1 0:{n} {line}\n" for n, line in enumerate(mounts, 30)))
    (tmp_path / "cgroup").write_text(cgroup)
    return tmp_path / "mountinfo", tmp_path / "cgroup"


def cgroup_folder(path: Path, subtree: str = "") -> Path:
    path.mkdir(parents=True)
    (path / "cgroup.procs").write_text("")
    (path / "cgroup.subtree_control").write_text(subtree)
    return path


def test_a_memory_group_is_made_in_the_builds_own_cgroup_of_cgroup_v1s_memory_hierarchy(tmp_path):
    own = cgroup_folder(tmp_path / "memory" / "runner" / "abc")
    mountinfo, cgroup = fake_cgroups(tmp_path, [f"/ {tmp_path}/memory rw,relatime - cgroup cgroup rw,memory",
                                                f"/ {tmp_path}/cpu rw - cgroup cgroup rw,cpu"],
                                     "5:cpu:/runner/abc\n4:memory:/runner/abc\n0::/\n")
    assert memory_groups(mountinfo, cgroup) == Hierarchy(own, 1)


@pytest.mark.parametrize("subtree, found", [("cpu memory", True), ("cpu", False)])
def test_in_cgroup_v2_a_memory_group_is_made_only_where_the_builds_cgroup_delegates_memory(tmp_path, subtree, found):
    own = cgroup_folder(tmp_path / "unified" / "user.slice" / "build", subtree)
    mountinfo, cgroup = fake_cgroups(tmp_path, [f"/ {tmp_path}/unified rw - cgroup2 cgroup2 rw"],
                                     "0::/user.slice/build\n")
    assert memory_groups(mountinfo, cgroup) == (Hierarchy(own, 2) if found else None)


def test_no_memory_hierarchy_mounted_means_no_memory_group(tmp_path):
    mountinfo, cgroup = fake_cgroups(tmp_path, [f"/ {tmp_path}/cpu rw - cgroup cgroup rw,cpu"], "4:cpu:/\n")
    assert memory_groups(mountinfo, cgroup) is None
    assert memory_groups(tmp_path / "no-mountinfo", cgroup) is None


def test_the_groups_of_builds_that_ended_are_removed_and_a_running_builds_kept(tmp_path):
    hierarchy = Hierarchy(cgroup_folder(tmp_path / "memory"), 1)
    (hierarchy.folder / "codeproof-999999999-1").mkdir()
    (hierarchy.folder / f"codeproof-{os.getpid()}-1").mkdir()
    (hierarchy.folder / "someone-else").mkdir()
    remove_stale_groups(hierarchy, lambda pid: pid == os.getpid())
    assert sorted(p.name for p in hierarchy.folder.iterdir() if p.is_dir()) == [f"codeproof-{os.getpid()}-1",
                                                                               "someone-else"]
