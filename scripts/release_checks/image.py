"""The container image (dist/image, an OCI layout): its index, manifests and blobs agree with their digests; each
architecture's root filesystem is unpacked and its entrypoint run under chroot (as root; skipped otherwise), arm64
under qemu, and its health check run against it."""

import gzip
import hashlib
import io
import json
import os
import shutil
import socket
import tarfile
import tempfile

from . import common
from .binaries import elf_is_static
from .common import VERSION, missing, qemu, read_bytes, report, serve_and_ask, skipped


def check():
    root = os.path.join(common.DIST, "image")
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
        ok, what = elf_is_static(read_bytes(os.path.join(rootfs, "cuecard")))
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
