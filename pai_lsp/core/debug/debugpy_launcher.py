"""The Python program a debugged task's command starts in place of its script: it starts debugpy
(installing it with pip when the image lacks it), says on stderr where it waits for a debugger — the
line `targets.py` reads, written once the port accepts connections, so nobody has to probe debugpy's
one client connection — and runs the script or module as Python would.

Without post-mortem it waits for a debugger before the first line runs (`--wait-for-client`). With
post-mortem (`PAI_DEBUG_POST_MORTEM` minutes) it runs at once and only when the program ends with an
uncaught exception (or a non-zero `sys.exit`) listens, waits that long for a debugger, stops there with
the program's frames to inspect, and then ends as the program would have.

Its settings come from the environment the wrapped command sets: `PAI_DEBUG_VIA` (direct: listen on
the container's address; ssh: on 127.0.0.1, where the tunnel reaches), `PAI_DEBUG_RANKED` (one port
per local worker, by `LOCAL_RANK`: torchrun), and the ports of the `debug` label the platform gives
(`PAI_CONTAINER_HOST_debug_PORT_LIST`)."""

import base64

LAUNCHER = """\
import os, runpy, sys, threading
os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
def say(text):
    sys.stderr.write("[pai debug] " + text + "\\n")
    sys.stderr.flush()
try:
    import debugpy
except ImportError:
    import importlib, site, subprocess
    say("debugpy is not installed here: installing it with pip")
    for extra in ([], ["--user"]):
        if subprocess.call([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"] + extra + ["debugpy"]) == 0:
            break
    sys.path.append(site.getusersitepackages())
    importlib.invalidate_caches()
    try:
        import debugpy
    except ImportError:
        say("debugpy could not be installed: add it to the image (pip install debugpy) and debug again")
        sys.exit(3)
args = sys.argv[1:]
module = args[1] if args[:1] == ["-m"] else None
argv = args[1:] if module else args
ports = [p for p in os.environ.get("PAI_CONTAINER_HOST_debug_PORT_LIST", "").split(",") if p]
rank = int(os.environ.get("LOCAL_RANK") or 0) if os.environ.get("PAI_DEBUG_RANKED") else 0
if not ports:
    say("the task has no debug port (PAI_CONTAINER_HOST_debug_PORT_LIST is empty)")
    sys.exit(3)
port = int(ports[min(rank, len(ports) - 1)])
host = "127.0.0.1" if os.environ.get("PAI_DEBUG_VIA") == "ssh" else (os.environ.get("PAI_CONTAINER_HOST_IP") or "0.0.0.0")
minutes = float(os.environ.get("PAI_DEBUG_POST_MORTEM") or 0)
worker = " as worker {}".format(rank) if os.environ.get("PAI_DEBUG_RANKED") else ""
if module:
    import importlib.util
    sys.path[0] = os.getcwd()
    spec = importlib.util.find_spec(module)
    where = (spec.origin if spec and spec.origin else module) if not (spec and spec.submodule_search_locations) else \\
        os.path.join(list(spec.submodule_search_locations)[0], "__main__.py")
else:
    where = os.path.abspath(argv[0])
    sys.path[0] = os.path.dirname(where)
    argv[0] = where
sys.argv = argv
def run():
    if module:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    else:
        runpy.run_path(where, run_name="__main__")
if not minutes:
    debugpy.listen((host, port))
    say("waiting for a debugger on {}:{}{} (script {})".format(host, port, worker, where))
    debugpy.wait_for_client()
    run()
    sys.exit(0)
try:
    run()
except SystemExit as exc:
    if exc.code in (None, 0):
        raise
    failure = sys.exc_info()
except BaseException:
    failure = sys.exc_info()
else:
    sys.exit(0)
debugpy.listen((host, port))
say("{} ended the program: waiting {:g} minutes for a debugger on {}:{}{} (script {})".format(
    failure[0].__name__, minutes, host, port, worker, where))
waiter = threading.Thread(target=debugpy.wait_for_client, daemon=True)
waiter.start()
waiter.join(minutes * 60)
if debugpy.is_client_connected():
    if hasattr(debugpy, "trigger_exception_handler"):
        debugpy.trigger_exception_handler(failure, as_uncaught=False)
    else:
        debugpy.breakpoint()
else:
    say("no debugger came: the task ends as it would have")
raise failure[1].with_traceback(failure[2])
"""

ENCODED = base64.b64encode(LAUNCHER.encode()).decode()  # as the wrapped command carries it
