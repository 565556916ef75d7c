#!/usr/bin/env python3
"""Writes the `cuecard` container image as an OCI image layout, without a daemon or a builder.

    python3 scripts/oci_image.py OUT_DIR VERSION amd64=PATH/TO/cuecard arm64=PATH/TO/cuecard ...

Each architecture's image is `FROM scratch`: one layer holding the static `cuecard` at `/cuecard`, run as an
unprivileged user, with `cuecard serve --host 0.0.0.0 --port 8080` as its entrypoint (a scenario mounted at
`/scenario.yaml` and named by `--scenario`, or put by `PUT /_cuecard/scenario`) and `cuecard health` as its health
check. The layout's index names one multi-architecture image index, tagged VERSION and `latest`, which `skopeo copy
oci:OUT_DIR:VERSION docker-daemon:...` or `podman load` take.

Everything is written deterministically (file times 0, owner 0, gzip without a name or time), so the same binaries
give the same digests.
"""
import gzip
import hashlib
import io
import json
import os
import sys
import tarfile

PORT = 8080
# The user of Debian's `nobody`-like distroless images: no root in the container.
USER = "65532:65532"


def write_blob(root, data):
    digest = hashlib.sha256(data).hexdigest()
    path = os.path.join(root, "blobs", "sha256", digest)
    with open(path, "wb") as out:
        out.write(data)
    return {"digest": f"sha256:{digest}", "size": len(data)}


def canonical(document):
    return json.dumps(document, sort_keys=True, separators=(",", ":")).encode()


def layer(binary):
    """The layer tar (uncompressed, for the diff id) and its gzip."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for directory in ("tmp",):
            info = tarfile.TarInfo(directory)
            info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o1777, 0
            tar.addfile(info)
        with open(binary, "rb") as handle:
            content = handle.read()
        info = tarfile.TarInfo("cuecard")
        info.size, info.mode, info.mtime = len(content), 0o755, 0
        tar.addfile(info, io.BytesIO(content))
    tar_bytes = raw.getvalue()
    zipped = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=zipped, mtime=0) as stream:
        stream.write(tar_bytes)
    return tar_bytes, zipped.getvalue()


def image(root, version, architecture, binary):
    tar_bytes, gz_bytes = layer(binary)
    layer_descriptor = write_blob(root, gz_bytes)
    layer_descriptor["mediaType"] = "application/vnd.oci.image.layer.v1.tar+gzip"
    config = {
        "architecture": architecture,
        "os": "linux",
        "config": {
            "User": USER,
            "Entrypoint": ["/cuecard", "serve", "--host", "0.0.0.0", "--port", str(PORT)],
            "ExposedPorts": {f"{PORT}/tcp": {}},
            "Env": ["CUECARD_IN_CONTAINER=1"],
            "WorkingDir": "/",
            "Labels": {
                "org.opencontainers.image.title": "cuecard",
                "org.opencontainers.image.description": "A deterministic stand-in for an LLM in tests",
                "org.opencontainers.image.version": version,
                "org.opencontainers.image.licenses": "MIT OR Apache-2.0",
            },
            # Docker's extension (podman and buildah keep it too): the OCI config has no health check field.
            "Healthcheck": {
                "Test": ["CMD", "/cuecard", "health", f"http://127.0.0.1:{PORT}"],
                "Interval": 5_000_000_000,
                "Timeout": 2_000_000_000,
                "Retries": 3,
            },
        },
        "rootfs": {"type": "layers", "diff_ids": [f"sha256:{hashlib.sha256(tar_bytes).hexdigest()}"]},
        "history": [{"created_by": f"scripts/oci_image.py: the static cuecard {version}"}],
    }
    config_descriptor = write_blob(root, canonical(config))
    config_descriptor["mediaType"] = "application/vnd.oci.image.config.v1+json"
    manifest = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": config_descriptor,
        "layers": [layer_descriptor],
    }
    descriptor = write_blob(root, canonical(manifest))
    descriptor["mediaType"] = "application/vnd.oci.image.manifest.v1+json"
    descriptor["platform"] = {"architecture": architecture, "os": "linux"}
    return descriptor


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    root, version, pairs = argv[1], argv[2], argv[3:]
    os.makedirs(os.path.join(root, "blobs", "sha256"), exist_ok=True)
    manifests = []
    for pair in pairs:
        architecture, _, binary = pair.partition("=")
        if architecture not in ("amd64", "arm64") or not os.path.isfile(binary):
            sys.exit(f"{pair!r}: expected amd64=PATH or arm64=PATH to a static cuecard")
        manifests.append(image(root, version, architecture, binary))
    index = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json", "manifests": manifests}
    index_descriptor = write_blob(root, canonical(index))
    index_descriptor["mediaType"] = "application/vnd.oci.image.index.v1+json"
    tags = []
    for tag in (version, "latest"):
        tagged = dict(index_descriptor)
        tagged["annotations"] = {"org.opencontainers.image.ref.name": tag}
        tags.append(tagged)
    with open(os.path.join(root, "index.json"), "wb") as out:
        out.write(canonical({"schemaVersion": 2, "manifests": tags}))
    with open(os.path.join(root, "oci-layout"), "wb") as out:
        out.write(canonical({"imageLayoutVersion": "1.0.0"}))
    print(f"{root}: cuecard {version} for {', '.join(m['platform']['architecture'] for m in manifests)}, "
          f"index {index_descriptor['digest']}")


if __name__ == "__main__":
    main(sys.argv)
