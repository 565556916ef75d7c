#!/usr/bin/env python3
"""Runs the release in dist/ where it can run here (issue #58 §2, §3), and checks what cannot run.

    python3 scripts/check_release.py [DIST] [--all]

- Linux x86-64 (musl): the archive's sum matches; the binary is static (no ELF interpreter, no needed library);
  `cuecard --version` names the release; `cuecard serve` answers an OpenAI chat request; `cuecard health` says so.
- Linux ARM64 (musl): the same under qemu-user (`qemu-aarch64-static` or `qemu-aarch64`, from Debian's
  qemu-user-static); skipped, and said, when qemu is not installed.
- Windows x86-64: the PE file is checked (machine, console subsystem, imports only from Windows' own DLLs); run
  under wine when it is installed (Debian's wine64), in a prefix of its own with a stand-in for the one DLL Debian
  12's wine 8 lacks (scripts/wine/bcryptprimitives.c); else said not to have run.
- macOS x86-64 and ARM64: the Mach-O files are checked (architecture, minimum macOS version, libraries only
  /usr/lib/libSystem.B.dylib); they are not run here.
- Python: each wheel's platform tag agrees with `auditwheel show`; the x86-64 wheel installs into a clean venv with
  no cargo on PATH and passes the README's example; the sdist is there.
- The CI action (action.yml): its main step run with the local Linux x86-64 archive starts the server and exports
  its URLs; its post step stops it; an archive whose sum differs is refused.
- The container image: its layout's index, manifests and blobs agree with their digests; each architecture's root
  filesystem is unpacked and its entrypoint run under chroot (as root; skipped otherwise), arm64 under qemu, and
  its health check run against it.

Each check prints one line; the script exits 1 when one fails. A target without an archive is skipped (CI builds
one), unless `--all` is given (after scripts/release.sh of every target): then it fails.
"""
import gzip
import hashlib
import io
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
import zipfile

ARGUMENTS = [a for a in sys.argv[1:] if a != "--all"]
REQUIRE_ALL = "--all" in sys.argv[1:]
DIST = os.path.abspath(ARGUMENTS[0] if ARGUMENTS else "dist")
failures = []


def report(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def skipped(what):
    print("skip  " + what)


def missing(what):
    """An artifact that is not there: a failure with --all, else skipped."""
    (report(False, what) if REQUIRE_ALL else skipped(what))


def version():
    with open(os.path.join(os.path.dirname(__file__), "..", "Cargo.toml")) as cargo:
        for line in cargo:
            if line.startswith("version = "):
                return line.split('"')[1]
    raise SystemExit("no version in Cargo.toml")


VERSION = version()


def unpack(target):
    """The archive of `target`, its sum checked, unpacked: the path of the binary."""
    cli = os.path.join(DIST, "cli")
    name = f"cuecard-{VERSION}-{target}"
    archive = next((os.path.join(cli, name + ext) for ext in (".tar.gz", ".zip")
                    if os.path.exists(os.path.join(cli, name + ext))), None)
    if archive is None:
        return None
    with open(archive + ".sha256") as sums:
        expected = sums.read().split()[0]
    with open(archive, "rb") as data:
        actual = hashlib.sha256(data.read()).hexdigest()
    report(expected == actual, f"{os.path.basename(archive)}: SHA-256 matches")
    out = tempfile.mkdtemp(prefix="cuecard-release-")
    if archive.endswith(".zip"):
        with zipfile.ZipFile(archive) as z:
            z.extractall(out)
        return os.path.join(out, name, "cuecard.exe")
    with tarfile.open(archive) as t:
        t.extractall(out, filter="data")
    return os.path.join(out, name, "cuecard")


def unpacked_bytes(target):
    """The unpacked binary of `target` and its bytes, or (None, None) when there is no archive (said as missing)."""
    binary = unpack(target)
    if binary is None:
        missing(f"{target}: no archive in {DIST}/cli")
        return None, None
    with open(binary, "rb") as f:
        return binary, f.read()


def elf_is_static(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        return False, "not a 64-bit ELF file"
    phoff, = struct.unpack_from("<Q", data, 32)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    for i in range(phnum):
        p_type, = struct.unpack_from("<I", data, phoff + i * phentsize)
        if p_type == 3:  # PT_INTERP
            return False, "it names a dynamic loader"
        if p_type == 2:  # PT_DYNAMIC: a static-pie has one, with no DT_NEEDED
            offset, = struct.unpack_from("<Q", data, phoff + i * phentsize + 8)
            size, = struct.unpack_from("<Q", data, phoff + i * phentsize + 32)
            for j in range(0, size, 16):
                tag, = struct.unpack_from("<q", data, offset + j)
                if tag == 1:
                    return False, "it needs a shared library"
                if tag == 0:
                    break
    machine, = struct.unpack_from("<H", data, 18)
    return True, {62: "x86-64", 183: "aarch64"}.get(machine, f"machine {machine}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def chat(port):
    body = json.dumps({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/chat/completions", body,
                                     {"content-type": "application/json", "authorization": "Bearer sk-test"})
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.load(reply)["choices"][0]["message"]["content"]


def serve_and_ask(command, label, port, health=None):
    """Starts `command` (a server on `port`), asks it one chat request and its health, stops it."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 30
        answer = None
        while time.time() < deadline and answer is None:
            try:
                answer = chat(port)
            except OSError:
                if process.poll() is not None:
                    break
                time.sleep(0.2)
        report(bool(answer), f"{label}: serves and answers an OpenAI chat request ({answer!r:.50})")
        if health:
            checked = subprocess.run(health, capture_output=True, text=True, timeout=30)
            report(checked.returncode == 0, f"{label}: its health check passes ({checked.stdout.strip()[:60]})")
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def qemu():
    return shutil.which("qemu-aarch64-static") or shutil.which("qemu-aarch64")


def check_linux(target, runner):
    binary = unpack(target)
    if binary is None:
        missing(f"{target}: no archive in {DIST}/cli")
        return
    ok, what = elf_is_static(binary)
    report(ok, f"{target}: static ({what})")
    if runner is None and "aarch64" in target:
        skipped(f"{target}: not run (install qemu-user-static)")
        return
    prefix = [runner] if runner else []
    printed = subprocess.run(prefix + [binary, "--version"], capture_output=True, text=True, timeout=60).stdout
    report(printed.strip() == f"cuecard {VERSION}", f"{target}: --version prints cuecard {VERSION} ({printed.strip()!r})")
    port = free_port()
    serve_and_ask(prefix + [binary, "serve", "--port", str(port)], target, port,
                  prefix + [binary, "health", f"http://127.0.0.1:{port}"])


def check_windows(target):
    binary, data = unpacked_bytes(target)
    if binary is None:
        return
    pe = struct.unpack_from("<I", data, 0x3C)[0]
    machine, = struct.unpack_from("<H", data, pe + 4)
    optional = pe + 24
    subsystem, = struct.unpack_from("<H", data, optional + 68)
    report(data[pe:pe + 4] == b"PE\0\0" and machine == 0x8664, f"{target}: a PE32+ x86-64 executable")
    report(subsystem == 3, f"{target}: a console program (subsystem {subsystem})")
    dlls = pe_imports(data, pe)
    # Windows' own libraries, and the Universal CRT's API sets (part of Windows since 10).
    windows_own = dlls and all(d.startswith(("kernel32", "kernelbase", "ntdll", "ws2_32", "advapi32", "bcrypt",
                                             "userenv", "api-ms-win-", "user32", "shell32", "ole32", "secur32",
                                             "crypt32", "iphlpapi", "ucrtbase", "msvcrt"))
                               for d in dlls)
    report(windows_own, f"{target}: imports only Windows' own libraries ({', '.join(dlls)})")
    wine = shutil.which("wine64") or shutil.which("wine") or next(
        (p for p in ("/usr/lib/wine/wine64",) if os.access(p, os.X_OK)), None)
    if wine is None:
        skipped(f"{target}: not run (no wine here: apt-get install wine64)")
        return
    prefix = os.path.join(tempfile.gettempdir(), "cuecard-wineprefix")
    env = dict(os.environ, WINEPREFIX=prefix, WINEDEBUG="-all")
    subprocess.run([wine, "wineboot", "--init"], env=env, capture_output=True, timeout=300)
    system32 = os.path.join(prefix, "drive_c", "windows", "system32")
    if not os.path.exists(os.path.join(system32, "bcryptprimitives.dll")):
        # Debian 12's wine 8 lacks the DLL whose ProcessPrng Rust's std calls (every Windows 10+ has it): a
        # stand-in built with zig (scripts/wine/bcryptprimitives.c) is put into this test prefix only.
        zig = [os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "release-tools", "bin", "python"),
               "-m", "ziglang"]
        shim = os.path.join(os.path.dirname(os.path.abspath(__file__)), "wine", "bcryptprimitives.c")
        built = subprocess.run(zig + ["cc", "-target", "x86_64-windows-gnu", "-shared", "-o",
                                      os.path.join(system32, "bcryptprimitives.dll"), shim, "-ladvapi32"],
                               capture_output=True, text=True)
        report(built.returncode == 0, f"{target}: wine's missing bcryptprimitives.dll stand-in built {built.stderr[-200:]}")
    printed = subprocess.run([wine, binary, "--version"], env=env, capture_output=True, text=True, timeout=120).stdout
    report(printed.strip() == f"cuecard {VERSION}", f"{target} under wine: --version prints cuecard {VERSION}")
    port = free_port()
    os.environ.update(WINEPREFIX=prefix, WINEDEBUG="-all")
    serve_and_ask([wine, binary, "serve", "--port", str(port)], f"{target} under wine", port)


def pe_imports(data, pe):
    """The DLLs a PE32+ file imports from, read from its import directory."""
    sections_count, = struct.unpack_from("<H", data, pe + 6)
    optional_size, = struct.unpack_from("<H", data, pe + 20)
    optional = pe + 24
    import_rva, _ = struct.unpack_from("<II", data, optional + 112 + 8)  # data directory 1 of a PE32+ header
    sections = []
    for i in range(sections_count):
        at = optional + optional_size + i * 40
        virtual_size, virtual_address, raw_size, raw_pointer = struct.unpack_from("<IIII", data, at + 8)
        sections.append((virtual_address, max(virtual_size, raw_size), raw_pointer))

    def offset(rva):
        for address, size, pointer in sections:
            if address <= rva < address + size:
                return rva - address + pointer
        raise ValueError(f"RVA {rva:#x} is in no section")

    names, at = [], offset(import_rva)
    while True:
        name_rva, = struct.unpack_from("<I", data, at + 12)
        if name_rva == 0:
            break
        start = offset(name_rva)
        names.append(data[start:data.index(b"\0", start)].decode().lower())
        at += 20
    return sorted(names)


MACHO_CPU = {0x01000007: "x86_64", 0x0100000C: "arm64"}


def check_macos(target, expected_cpu):
    binary, data = unpacked_bytes(target)
    if binary is None:
        return
    magic, cpu, _, _, ncmds, _, _ = struct.unpack_from("<IiiIIII", data, 0)
    report(magic == 0xFEEDFACF and MACHO_CPU.get(cpu & 0xFFFFFFFF) == expected_cpu,
           f"{target}: a 64-bit Mach-O for {expected_cpu}")
    offset, dylibs, minimum = 32, [], None
    for _ in range(ncmds):
        command, size = struct.unpack_from("<II", data, offset)
        if command in (0xC, 0x80000018, 0x1F):  # LC_LOAD_DYLIB, LC_LOAD_WEAK_DYLIB, LC_REEXPORT_DYLIB
            name_offset, = struct.unpack_from("<I", data, offset + 8)
            dylibs.append(data[offset + name_offset:offset + size].split(b"\0")[0].decode())
        if command == 0x32:  # LC_BUILD_VERSION
            _, minos = struct.unpack_from("<II", data, offset + 8)
            minimum = f"{minos >> 16}.{(minos >> 8) & 0xFF}"
        if command == 0x24:  # LC_VERSION_MIN_MACOSX
            minos, = struct.unpack_from("<I", data, offset + 8)
            minimum = f"{minos >> 16}.{(minos >> 8) & 0xFF}"
        offset += size
    report(minimum is not None, f"{target}: minimum macOS {minimum}")
    # libSystem, and libiconv with its libcharset (Rust's std links them on macOS): all three ship in /usr/lib.
    system = ("/usr/lib/libSystem.B.dylib", "/usr/lib/libiconv.2.dylib", "/usr/lib/libcharset.1.dylib",
              "/usr/lib/libresolv.9.dylib")
    report(dylibs and all(d in system for d in dylibs), f"{target}: links only macOS's own libraries ({', '.join(dylibs)})")
    skipped(f"{target}: not run (no macOS here)")


def check_image():
    root = os.path.join(DIST, "image")
    if not os.path.exists(os.path.join(root, "index.json")):
        missing("container image: none in dist/image")
        return

    def blob(descriptor):
        path = os.path.join(root, "blobs", *descriptor["digest"].split(":"))
        with open(path, "rb") as f:
            data = f.read()
        good = "sha256:" + hashlib.sha256(data).hexdigest() == descriptor["digest"] and len(data) == descriptor["size"]
        if not good:
            report(False, f"image: blob {descriptor['digest']} does not match its digest or size")
        return data

    with open(os.path.join(root, "index.json")) as f:
        top = json.load(f)
    tags = sorted(m["annotations"]["org.opencontainers.image.ref.name"] for m in top["manifests"])
    report(tags == sorted([VERSION, "latest"]), f"image: tagged {', '.join(tags)}")
    index = json.loads(blob(top["manifests"][0]))
    for manifest_descriptor in index["manifests"]:
        architecture = manifest_descriptor["platform"]["architecture"]
        manifest = json.loads(blob(manifest_descriptor))
        config = json.loads(blob(manifest["config"]))
        layer = blob(manifest["layers"][0])
        diff_id = "sha256:" + hashlib.sha256(gzip.decompress(layer)).hexdigest()
        report(config["rootfs"]["diff_ids"] == [diff_id] and config["architecture"] == architecture,
               f"image {architecture}: its manifest, config and layer agree")
        rootfs = tempfile.mkdtemp(prefix=f"cuecard-image-{architecture}-")
        with tarfile.open(fileobj=io.BytesIO(layer)) as t:
            t.extractall(rootfs, filter="fully_trusted")
        ok, what = elf_is_static(os.path.join(rootfs, "cuecard"))
        report(ok, f"image {architecture}: /cuecard is static ({what})")
        entrypoint = config["config"]["Entrypoint"]
        health = config["config"]["Healthcheck"]["Test"][1:]
        if os.geteuid() != 0:
            skipped(f"image {architecture}: entrypoint not run (chroot needs root)")
            continue
        prefix = []
        if architecture == "arm64":
            emulator = qemu()
            if emulator is None:
                skipped("image arm64: entrypoint not run (install qemu-user-static)")
                continue
            shutil.copy(emulator, os.path.join(rootfs, "qemu"))
            prefix = ["/qemu"]
        port = int(entrypoint[entrypoint.index("--port") + 1])
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                skipped(f"image {architecture}: port {port} is in use here")
                continue
        serve_and_ask(["chroot", rootfs] + prefix + entrypoint, f"image {architecture}: entrypoint under chroot",
                      port, ["chroot", rootfs] + prefix + health)


def check_python():
    """The wheels: each Linux one's tag agrees with auditwheel; the x86-64 one installs into a clean venv with no
    cargo on PATH and runs the README example of `pip install ./python` (python/tests/test_readme_example.py) and the CLI entry point."""
    folder = os.path.join(DIST, "python")
    wheels = sorted(f for f in os.listdir(folder) if f.endswith(".whl")) if os.path.isdir(folder) else []
    if not wheels:
        missing("python: no wheels in dist/python")
        return
    report(any(f.endswith(".tar.gz") for f in os.listdir(folder)), "python: the sdist is there")
    tools = tempfile.mkdtemp(prefix="cuecard-auditwheel-")
    subprocess.run([sys.executable, "-m", "venv", tools], check=True)
    subprocess.run([os.path.join(tools, "bin", "pip"), "install", "-q", "auditwheel==6.8.2"], check=True)
    for wheel in wheels:
        shown = subprocess.run([os.path.join(tools, "bin", "auditwheel"), "show", os.path.join(folder, wheel)],
                               capture_output=True, text=True)
        platforms = wheel.rsplit("-", 1)[1].removesuffix(".whl").split(".")
        said = " ".join(shown.stdout.split())
        agreed = [p for p in platforms if f'"{p}"' in said]
        report(shown.returncode == 0 and bool(agreed),
               f"python: {wheel}: auditwheel agrees with {', '.join(agreed) or platforms} ({said[:100]}...)")
    native = next((w for w in wheels if w.endswith("x86_64.whl")), None)
    if native is None:
        missing("python: no x86-64 wheel to install here")
        return
    venv = tempfile.mkdtemp(prefix="cuecard-wheel-venv-")
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    # No cargo, rustc or compiler on PATH: the wheel must not build anything.
    clean = dict(os.environ, PATH=f"{venv}/bin:/usr/bin:/bin")
    installed = subprocess.run([f"{venv}/bin/pip", "install", "-q", "--only-binary", ":all:",
                                os.path.join(folder, native), "pytest==9.2.0"], env=clean, capture_output=True, text=True)
    report(installed.returncode == 0, f"python: {native} installs with no cargo on PATH {installed.stderr[-200:]}")
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    example = subprocess.run([f"{venv}/bin/python", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              "test_readme_example.py"], cwd=os.path.join(root, "python", "tests"), env=clean,
                             capture_output=True, text=True)
    report(example.returncode == 0, f"python: the README's example passes ({example.stdout.strip().splitlines()[-1:]})")
    counted = subprocess.run([f"{venv}/bin/cuecard", "tokenize", "--count"], input="Hello, world!", env=clean,
                             capture_output=True, text=True)
    report(counted.stdout.strip() == "4", "python: the wheel's cuecard command runs")


def check_action():
    """The CI action (action.yml) run as a runner runs it: its main step against the local x86-64 archive, then
    its post step."""
    archive = os.path.join(DIST, "cli", f"cuecard-{VERSION}-x86_64-unknown-linux-musl.tar.gz")
    if not os.path.exists(archive):
        missing("action: no Linux x86-64 archive to run it on")
        return
    if shutil.which("node") is None:
        skipped("action: not run (no node here)")
        return
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    scratch = tempfile.mkdtemp(prefix="cuecard-action-")
    files = {name: os.path.join(scratch, name) for name in ("env", "state", "output", "path")}
    for file in files.values():
        open(file, "w").close()
    port = free_port()
    env = dict(os.environ, INPUT_ARCHIVE=archive, INPUT_PORT=str(port), INPUT_ARGS="--instant", RUNNER_TEMP=scratch,
               GITHUB_ENV=files["env"], GITHUB_STATE=files["state"], GITHUB_OUTPUT=files["output"],
               GITHUB_PATH=files["path"])
    started = subprocess.run(["node", os.path.join(root, "action", "main.js")], env=env, capture_output=True,
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
    stopped = subprocess.run(["node", os.path.join(root, "action", "post.js")],
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
    refused = subprocess.run(["node", os.path.join(root, "action", "main.js")],
                             env=dict(env, INPUT_ARCHIVE=os.path.join(scratch, "bad.tar.gz")),
                             capture_output=True, text=True, timeout=60)
    report(refused.returncode == 1 and "SHA-256" in refused.stdout, "action: an archive whose sum differs is refused")


check_linux("x86_64-unknown-linux-musl", None)
check_linux("aarch64-unknown-linux-musl", qemu())
check_windows("x86_64-pc-windows-gnu")
check_macos("x86_64-apple-darwin", "x86_64")
check_macos("aarch64-apple-darwin", "arm64")
check_image()
check_python()
check_action()
if failures:
    print(f"release check: {len(failures)} failed")
    sys.exit(1)
print("release check: passed")
