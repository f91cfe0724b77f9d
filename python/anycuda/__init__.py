"""anycuda from Python: the ``anycuda`` command and its CUDA drop-in libraries.

The wheel installs the ``anycuda`` command and anycuda's C ABI (``libanycuda_capi.so``) side by
side in the environment's ``bin`` folder. This package finds them and runs the command:

    python -m anycuda run app.py [ARGS]   # == anycuda run -- python app.py [ARGS], this Python
    python -m anycuda info                # libraries found, devices (--verbose: each try of the search)
    python -m anycuda libdir              # the folder of libcuda.so.1, libcudart.so.13, ...

Nothing here imports a GPU library or runs at import time; it only locates files.
"""

import os
import shutil
import site
import sys
import sysconfig

__all__ = ["binary", "capi_library", "site_packages", "command", "main"]

#: The C-ABI library's file name, beside the command.
CAPI_FILE = "libanycuda_capi.so"
#: What the command reads for site-packages folders to search first (anycuda's library search).
SITE_PACKAGES_ENV = "ANYCUDA_SITE_PACKAGES"


def _installed(name):
    """The absolute path of a file this distribution installed whose name is ``name``."""
    try:
        from importlib import metadata
    except ImportError:  # Python < 3.8 has no importlib.metadata
        return None
    try:
        dist = metadata.distribution("anycuda")
    except metadata.PackageNotFoundError:
        return None
    for f in dist.files or ():
        if f.name == name:
            p = os.path.realpath(str(dist.locate_file(f)))
            if os.path.isfile(p):
                return p
    return None


def binary():
    """The ``anycuda`` command this wheel installed (else the one in this environment's
    scripts folder, else the one on ``PATH``). Raises ``FileNotFoundError`` when there is none."""
    found = _installed("anycuda")
    if found:
        return found
    scripts = sysconfig.get_path("scripts")
    candidates = [os.path.join(scripts, "anycuda")] if scripts else []
    which = shutil.which("anycuda")
    if which:
        candidates.append(which)
    for c in candidates:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    raise FileNotFoundError(
        "the anycuda command is not installed in this environment (pip install anycuda)"
    )


def capi_library():
    """anycuda's C-ABI library (``libanycuda_capi.so``) beside the command, or ``None``."""
    p = _installed(CAPI_FILE)
    if p:
        return p
    try:
        p = os.path.join(os.path.dirname(binary()), CAPI_FILE)
    except FileNotFoundError:
        return None
    return p if os.path.isfile(p) else None


def site_packages():
    """This interpreter's site-packages folders, in ``sys.path`` order (user site first when it
    is enabled), as the command should search NVIDIA's wheels there."""
    dirs = []
    if getattr(site, "ENABLE_USER_SITE", False) and hasattr(site, "getusersitepackages"):
        dirs.append(site.getusersitepackages())
    if hasattr(site, "getsitepackages"):
        dirs.extend(site.getsitepackages())
    seen = []
    for d in dirs:
        if d not in seen and os.path.isdir(d):
            seen.append(d)
    ordered = [p for p in sys.path if p in seen]
    return ordered + [d for d in seen if d not in ordered]


def _run_args(args):
    """``run [--backend B] [--] ARGS`` -> anycuda's options, and Python's arguments (every
    other option is Python's: ``-c``, ``-m``, ``-v``, ...)."""
    opts = []
    rest = list(args)
    while rest:
        a = rest[0]
        if a == "--backend" and len(rest) > 1:
            opts += rest[:2]
            rest = rest[2:]
        elif a.startswith("--backend="):
            opts.append(a)
            rest = rest[1:]
        elif a == "--":
            rest = rest[1:]
            break
        else:
            break
    return opts, rest


def command(args):
    """The command line ``python -m anycuda ARGS`` runs: ``run ...`` becomes
    ``anycuda run ... -- sys.executable ...``; anything else goes to the command as is."""
    exe = binary()
    if args and args[0] == "run":
        opts, rest = _run_args(args[1:])
        return [exe, "run"] + opts + ["--", sys.executable] + rest
    return [exe] + list(args)


def environment():
    """The command's environment: this one, with ``ANYCUDA_SITE_PACKAGES`` naming this
    interpreter's site-packages (after any the user set), so the command, and anycuda inside
    the programs it runs, search NVIDIA's wheels of this Python."""
    env = dict(os.environ)
    mine = site_packages()
    theirs = [d for d in env.get(SITE_PACKAGES_ENV, "").split(os.pathsep) if d]
    joined = theirs + [d for d in mine if d not in theirs]
    if joined:
        env[SITE_PACKAGES_ENV] = os.pathsep.join(joined)
    return env


def main(argv=None):
    """``python -m anycuda ARGS``: replaces this process with the anycuda command."""
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        cmd = command(args)
    except FileNotFoundError as e:
        sys.stderr.write("anycuda: %s\n" % e)
        return 127
    env = environment()
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(cmd[0], cmd, env)
    return 0  # not reached
