#!/usr/bin/env python3
"""The server's memory with many tests hammered (issue #59 S4): `cuecard serve` on loopback, TESTS tests under
/t/{id}/ each sent ROUNDS chat requests of about 2 KB (round-robin, keep-alive, 4 client threads), the server's
RSS read from /proc after each round. With one journal bound for the server (`--journal-total`, each test keeping
its share), the RSS stops growing once every test's share is full.

    python3 bench/journal-memory.py [CUECARD] [TESTS] [ROUNDS] [extra serve flags...]
    python3 bench/journal-memory.py target/dist/cuecard 1000 300
"""
import http.client
import json
import os
import subprocess
import sys
import tempfile
import threading

binary = sys.argv[1] if len(sys.argv) > 1 else "target/dist/cuecard"
tests = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 300
extra = sys.argv[4:]
# One answer, repeated: the embedded default scenario demonstrates failures (a dropped connection among them).
scenario = os.path.join(tempfile.mkdtemp(), "repeat.json")
with open(scenario, "w") as out:
    json.dump({"cuecard": 1, "on_exhausted": "repeat_last", "routes": [{"steps": [{"text": "Sunny."}]}]}, out)
server = subprocess.Popen(
    [binary, "serve", "--port", "0", "--instant", "--scenario", scenario, *extra],
    stdout=subprocess.PIPE,
    stderr=subprocess.DEVNULL,
    text=True,
)
first = server.stdout.readline()
address = first.split("http://")[1].split("/")[0]
host, port = address.split(":")
question = "What is the weather in Paris today? " * 55  # about 2 KB of body
body = json.dumps({"model": "gpt-4o", "messages": [{"role": "user", "content": question}]})
assert 1900 < len(body) < 2200, len(body)


def rss_mb():
    with open(f"/proc/{server.pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


failures = []


def hammer(ids):
    try:
        send_all(ids)
    except Exception as error:  # noqa: BLE001 - reported once, below
        failures.append(error)


def send_all(ids):
    connection = http.client.HTTPConnection(host, int(port))
    for test in ids:
        connection.request("POST", f"/t/test{test}/v1/chat/completions", body, {"content-type": "application/json"})
        reply = connection.getresponse()
        reply.read()
        assert reply.status == 200, reply.status


try:
    print(f"{tests} tests, {len(body)}-byte requests, serve {' '.join(extra) or '(defaults)'}")
    print(f"round 0: RSS {rss_mb():.0f} MB")
    for round_number in range(1, rounds + 1):
        threads = [threading.Thread(target=hammer, args=(range(k, tests, 4),)) for k in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if failures:
            sys.exit(f"round {round_number}: {failures[0]!r}")
        if round_number % max(1, rounds // 10) == 0 or round_number == rounds:
            sent = round_number * tests
            print(f"round {round_number}: {sent} requests, RSS {rss_mb():.0f} MB")
finally:
    server.terminate()
    server.wait()
