"""Helpers shared by the benchmark drivers: run one configuration per process and read
its JSON line; parse the common command line."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}


def run(cmd, env_extra=None):
    """Run cmd with env_extra added to the environment; return its last line as JSON."""
    env = dict(os.environ)
    env.update(env_extra or {})
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def core(result):
    """The OpenBLAS core a C benchmark ran with and how it was decided: "Zen (detected)"."""
    origin = result.get("core_origin")
    return f"{result['openblas_core']} ({origin})" if origin else result["openblas_core"]


def command_line(default_exe):
    """(path of the C benchmark, quick?) from sys.argv: [EXE] [--quick]."""
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    exe = args[0] if args else os.path.join(HERE, "..", "build", "bench", default_exe)
    print(f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}")
    return exe, "--quick" in sys.argv
