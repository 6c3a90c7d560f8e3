"""benchopts: the checks of the options bench/frameworks' drivers share (run, launch_cost, knob_cost).

Each driver imports it from its own folder, which Python puts first on the path of a script.
"""
import os


def cpu_problem(cpu):
    """What is wrong with --cpu CPU (a CPU number or 'none'), or None when this process may be pinned to it."""
    allowed = os.sched_getaffinity(0)
    if cpu == "none" or (cpu.isdigit() and int(cpu) in allowed):
        return None
    return f"--cpu {cpu}: not a CPU this process may use ({sorted(allowed)})"


def preload(lib):
    """--lib's libraries (blank-separated, as LD_PRELOAD takes them) made absolute, and the first one
    missing (None when every one is there)."""
    libs = [os.path.abspath(p) for p in lib.split()]
    return " ".join(libs), next((p for p in libs if not os.path.exists(p)), None)
