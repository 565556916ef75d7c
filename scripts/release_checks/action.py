"""The CI action (action.yml) run as a runner runs it: its main step against the local Linux x86-64 archive starts
the server and exports its URLs; its post step stops it; an archive whose sum differs is refused."""

import os
import shutil
import socket
import subprocess
import tempfile
import time

from . import common
from .common import ROOT, VERSION, chat, free_port, missing, report, skipped


def check():
    """The CI action (action.yml) run as a runner runs it: its main step against the local x86-64 archive, then
    its post step."""
    archive = os.path.join(common.DIST, "cli", f"cuecard-{VERSION}-x86_64-unknown-linux-musl.tar.gz")
    if not os.path.exists(archive):
        missing("action: no Linux x86-64 archive to run it on")
        return
    if shutil.which("node") is None:
        skipped("action: not run (no node here)")
        return
    scratch = tempfile.mkdtemp(prefix="cuecard-action-")
    files = {name: os.path.join(scratch, name) for name in ("env", "state", "output", "path")}
    for file in files.values():
        open(file, "w").close()
    port = free_port()
    env = dict(os.environ, INPUT_ARCHIVE=archive, INPUT_PORT=str(port), INPUT_ARGS="--instant", RUNNER_TEMP=scratch,
               GITHUB_ENV=files["env"], GITHUB_STATE=files["state"], GITHUB_OUTPUT=files["output"],
               GITHUB_PATH=files["path"])
    started = subprocess.run(["node", os.path.join(ROOT, "action", "main.js")], env=env, capture_output=True,
                             text=True, timeout=120)
    report(started.returncode == 0, f"action: its main step starts cuecard ({started.stdout.strip()[:70]})")
    exported = dict(line.split("=", 1) for line in open(files["env"]).read().splitlines() if "=" in line)
    report(exported.get("OPENAI_BASE_URL") == f"http://127.0.0.1:{port}/v1", f"action: exports {sorted(exported)}")
    try:
        answer = chat(port)
    except OSError as error:
        answer = repr(error)
    report(answer.startswith("Hello!"), f"action: the exported server answers ({answer:.40})")
    state = dict(line.split("=", 1) for line in open(files["state"]).read().splitlines() if "=" in line)
    stopped = subprocess.run(["node", os.path.join(ROOT, "action", "post.js")],
                             env=dict(os.environ, **{f"STATE_{k}": v for k, v in state.items()}),
                             capture_output=True, text=True, timeout=60)
    time.sleep(0.5)
    with socket.socket() as s:
        gone = s.connect_ex(("127.0.0.1", port)) != 0
    report(stopped.returncode == 0 and gone, f"action: its post step stops the server ({stopped.stdout.splitlines()[0]})")
    with open(os.path.join(scratch, "bad.tar.gz"), "wb") as bad:
        bad.write(b"not an archive")
    with open(os.path.join(scratch, "bad.tar.gz.sha256"), "w") as sums:
        sums.write("0" * 64 + "  bad.tar.gz\n")
    refused = subprocess.run(["node", os.path.join(ROOT, "action", "main.js")],
                             env=dict(env, INPUT_ARCHIVE=os.path.join(scratch, "bad.tar.gz")),
                             capture_output=True, text=True, timeout=60)
    report(refused.returncode == 1 and "SHA-256" in refused.stdout, "action: an archive whose sum differs is refused")
