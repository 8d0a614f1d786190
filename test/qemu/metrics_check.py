#!/usr/bin/env python3
"""The numbers the HTTPS API serves, checked from the host
(test/qemu/cases/metrics.sh drives the guest's shell around this).

usage: metrics_check.py client PORT EXPORT DIR
           connection A reads 3 MiB and closes, connection B reads 1 MiB and
           stays; writes DIR/ready ("A_BYTES B_BYTES"), then waits (up to
           60 s) for DIR/done before B closes
       metrics_check.py check DIR
           DIR/ready and what the guest printed: DIR/metrics (`metrics`),
           DIR/nbd-list (`nbd-list -j`), DIR/uptime (`uptime -j`)

Needs python3-libnbd and python3-prometheus-client (Debian's). Prints one
line per finding; exits 1 on a failure."""
import json, os, re, sys, time

MiB = 1 << 20
failed = 0


def check(ok, what):
    global failed
    print(("ok: " if ok else "FAIL: ") + what)
    failed |= not ok


def client(port, export, d):
    import nbd
    uri = "nbd://127.0.0.1:%d/%s" % (port, export)
    a = nbd.NBD()
    a.connect_uri(uri)
    got_a = sum(len(a.pread(MiB, k * MiB)) for k in range(3))
    a.shutdown()
    b = nbd.NBD()
    b.connect_uri(uri)
    got_b = len(b.pread(MiB, 0))
    with open(os.path.join(d, "ready.tmp"), "w") as f:
        f.write("%d %d\n" % (got_a, got_b))
    os.rename(os.path.join(d, "ready.tmp"), os.path.join(d, "ready"))
    t0 = time.monotonic()
    while not os.path.exists(os.path.join(d, "done")) and time.monotonic() - t0 < 60:
        time.sleep(0.1)
    b.shutdown()
    return 0


COMMANDS = {"metrics": "metrics", "nbd-list": "nbd-list -j", "uptime": "uptime -j"}


def printed(d, name):
    """What a command printed: prompt lines, the echo of the command (the log's
    lines may split it from its prompt) and the log's timestamped lines left out."""
    with open(os.path.join(d, name)) as f:
        return "".join(l for l in f if not l.startswith("pmemk> ") and
                       l.rstrip("\n") != COMMANDS[name] and
                       not re.match(r"\[ *[0-9]+\.[0-9]+\] ", l))


def one_json(d, name):
    lines = [l for l in printed(d, name).splitlines() if l.strip()]
    check(len(lines) == 1, "%s: one line of output" % name)
    return json.loads(lines[0])


def families(text):
    """The families by name; the parser names a counter without its _total, so
    the gauge pmemk_nbd_connections and the counter pmemk_nbd_connections_total
    share a name: each (name, type) must come once."""
    from prometheus_client.parser import text_string_to_metric_families
    fams, seen = {}, set()
    for fam in text_string_to_metric_families(text):
        check((fam.name, fam.type) not in seen and fam.type in ("counter", "gauge") and fam.samples,
              "metrics: %s %s once, with samples" % (fam.type, fam.name))
        seen.add((fam.name, fam.type))
        fams.setdefault(fam.name, []).append(fam)
    return fams


def sample(fams, family, name, **labels):
    """The value of the one sample with exactly these labels, or None."""
    for fam in fams.get(family, []):
        for s in fam.samples:
            if s.name == name and s.labels == labels:
                return s.value
    return None


def check_metrics(fams, a, b, nbdl):
    want = ["pmemk_uptime_seconds", "pmemk_cpu_seconds", "pmemk_namespace_size_bytes",
            "pmemk_namespace_info", "pmemk_memmap_init_ratio", "pmemk_pmem_written_bytes",
            "pmemk_memmap_pending_bytes", "pmemk_nbd_read_bytes", "pmemk_nbd_written_bytes",
            "pmemk_nbd_zero_copy_bytes", "pmemk_nbd_reads", "pmemk_nbd_writes",
            "pmemk_nbd_flushes", "pmemk_nbd_errors", "pmemk_nbd_clients", "pmemk_nbd_connections",
            "pmemk_nbd_client_read_bytes", "pmemk_nbd_client_written_bytes",
            "pmemk_nbd_client_requests", "pmemk_nbd_refused_connections"]
    missing = [f for f in want if f not in fams]
    check(not missing, "metrics: every family parsed by prometheus_client (missing: %s)" % missing)
    read = sample(fams, "pmemk_nbd_read_bytes", "pmemk_nbd_read_bytes_total", export="pmem0")
    check(read is not None and read >= a + b,
          "pmemk_nbd_read_bytes_total{export=pmem0} %s >= %d bytes read by both clients" % (read, a + b))
    zc = sample(fams, "pmemk_nbd_zero_copy_bytes", "pmemk_nbd_zero_copy_bytes_total", export="pmem0")
    check(zc is not None and 0 < zc <= read, "zero copy bytes %s: some, at most the bytes read" % zc)
    conns = sample(fams, "pmemk_nbd_clients", "pmemk_nbd_clients", export="pmem0")
    total = sample(fams, "pmemk_nbd_connections", "pmemk_nbd_connections_total", export="pmem0")
    check((conns, total) == (1, 2), "connections now %s, ever %s (1 and 2)" % (conns, total))
    cl = [c for c in nbdl["clients"] if c.get("export") == "pmem0"]
    if len(cl) == 1:
        c = cl[0]
        labels = dict(export="pmem0", client=str(c["id"]), remote=c["remote"])
        v = sample(fams, "pmemk_nbd_client_read_bytes", "pmemk_nbd_client_read_bytes_total", **labels)
        check(v == c["read_bytes"] == b,
              "client %d: read bytes %s in metrics, %s in nbd-list -j, %d read" % (c["id"], v, c["read_bytes"], b))
        v = sample(fams, "pmemk_nbd_client_requests", "pmemk_nbd_client_requests_total", op="read", **labels)
        check(v == c["reads"], "client %d: %s reads in metrics, %s in nbd-list -j" % (c["id"], v, c["reads"]))
    closed = nbdl["closed"]["read_bytes"]
    live = sum(c["read_bytes"] for c in nbdl["clients"])
    check(read == closed + live,
          "export's read bytes %s = closed clients' %d + connected clients' %d" % (read, closed, live))
    up = sample(fams, "pmemk_uptime_seconds", "pmemk_uptime_seconds")
    busy = sample(fams, "pmemk_cpu_seconds", "pmemk_cpu_seconds_total", cpu="0", mode="busy")
    idle = sample(fams, "pmemk_cpu_seconds", "pmemk_cpu_seconds_total", cpu="0", mode="idle")
    check(None not in (up, busy, idle) and abs(busy + idle - up) < 1e-6,
          "cpu0 busy %s + idle %s s = uptime %s s" % (busy, idle, up))
    check(sample(fams, "pmemk_namespace_size_bytes", "pmemk_namespace_size_bytes",
                 namespace="namespace0.0", mode="raw", device="pmem0") == 64 * MiB,
          "namespace0.0: raw pmem0 of 64 MiB")
    info = [s.labels for fam in fams["pmemk_namespace_info"] for s in fam.samples
            if s.labels.get("namespace") == "namespace1.0"]
    check(len(info) == 1 and info[0]["mode"] == "fsdax" and info[0]["device"] == "pmem1m" and
          info[0]["map"] in ("mem", "dev"), "namespace1.0: %s" % info)
    r = sample(fams, "pmemk_memmap_init_ratio", "pmemk_memmap_init_ratio", namespace="namespace1.0")
    check(r is not None and 0 <= r <= 1, "namespace1.0: memmap init ratio %s in [0, 1]" % r)
    check(sample(fams, "pmemk_memmap_init_ratio", "pmemk_memmap_init_ratio",
                 namespace="namespace0.0") is None, "namespace0.0 (raw): no memmap init ratio")


def check_nbd_list(j):
    check(list(j) == ["exports", "clients", "closed", "refused"], "nbd-list -j: keys %s" % list(j))
    e = j["exports"]
    check(len(e) == 2 and list(e[0]) == ["export", "device", "mode", "size", "readonly", "zero_copy",
                                          "clients"],
          "nbd-list -j: two exports, keys in order, no identities on pmem0 (open to all)")
    f = e[1] if len(e) == 2 else {}
    check(list(f) == ["export", "device", "mode", "size", "readonly", "zero_copy", "identities",
                      "clients"] and f["export"] == f["device"] == "pmem1m" and f["mode"] == "fsdax" and
          f["identities"] == ["alice", "bob"] and f["clients"] == 0,
          "nbd-list -j: pmem1m fsdax for alice and bob: %s" % f)
    check(e and e[0]["export"] == "pmem0" and e[0]["mode"] == "raw" and e[0]["size"] == 64 * MiB and
          e[0]["readonly"] is False and e[0]["zero_copy"] is True and e[0]["clients"] == 1,
          "nbd-list -j: pmem0 raw, 64 MiB, rw, zero copy, 1 client: %s" % e)
    c = j["clients"]
    keys = ["id", "remote", "export", "state", "reads", "read_bytes", "zero_copy_bytes", "writes",
            "write_bytes", "flushes", "fua", "write_zeroes", "errors", "connected_ms"]
    check(len(c) == 1 and list(c[0]) == keys and c[0]["state"] == "transmission" and
          re.fullmatch(r"10\.0\.2\.2:[0-9]+", c[0]["remote"]) is not None,
          "nbd-list -j: one client in transmission, keys in order, no tls: %s" % c)


def check_uptime(u):
    up = u["uptime_ms"]
    cpus = u["cpus"]
    check([c["cpu"] for c in cpus] == [0, 1], "uptime -j: cpus 0 and 1")
    for c in cpus:
        s = c["busy_ms"] + c["idle_ms"]
        # CPU 0 is online from the boot on (its time online is the uptime), CPU 1
        # from its start (SMP bring-up), and is read a moment later.
        near = s == up if c["cpu"] == 0 else up - 2000 <= s <= up + 50
        check(near, "uptime -j: cpu%d busy %d + idle %d ms against uptime %d ms" %
              (c["cpu"], c["busy_ms"], c["idle_ms"], up))
        check(c["idle_ms"] > 0, "uptime -j: cpu%d was idle some of the time" % c["cpu"])


def check_all(d):
    a, b = map(int, open(os.path.join(d, "ready")).read().split())
    nbdl = one_json(d, "nbd-list")
    check_nbd_list(nbdl)
    check_metrics(families(printed(d, "metrics")), a, b, nbdl)
    check_uptime(one_json(d, "uptime"))
    return failed


if __name__ == "__main__":
    if sys.argv[1] == "client":
        sys.exit(client(int(sys.argv[2]), sys.argv[3], sys.argv[4]))
    sys.exit(check_all(sys.argv[2]))
