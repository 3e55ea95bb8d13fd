#!/usr/bin/env python3
# metadata-images.py DUMP SPEC SUBJECT: the controllers' metadata logs and
# snapshots, decoded by Kafka's DumpLogSegments --cluster-metadata-decoder,
# compared (compare_images in cluster-lib.sh runs it; topics.sh step 4 and
# authz.sh describe the checks). Exit status 0 (equal), 1 (a difference,
# printed), 3 (the newest snapshots have image-changing records between
# them: retry).
import collections, json, os, re, sys

# analyse DUMP SPEC SUBJECT: DUMP is DumpLogSegments --cluster-metadata-decoder
# output over every file SPEC names ("ID IMPL KIND PATH" a line, KIND
# snapshot or log); SUBJECT the controller whose snapshots are compared with
# every other controller's.
dump_path, spec_path, subject = sys.argv[1], sys.argv[2], int(sys.argv[3])
spec, impl = {}, {}
for line in open(spec_path):
    i, im, kind, path = line.rstrip("\n").split(" ", 3)
    spec[path] = (int(i), kind)
    impl[int(i)] = im

CONTROL = ("LeaderChange: ", "SnapshotHeader ", "SnapshotFooter ", "KRaftVersion ", "KRaftVoters ")
files = {}
cur = None
epoch = None
rec_re = re.compile(r"^\| offset: (\d+) ")
for line in open(dump_path, errors="replace"):
    line = line.rstrip("\n")
    if line.startswith("Dumping "):
        cur = files.setdefault(line[len("Dumping "):].strip(), {"records": [], "invalid": [], "footer": False})
        continue
    if cur is None:
        continue
    if line.startswith("baseOffset:"):
        m = re.search(r"partitionLeaderEpoch: (-?\d+)", line)
        epoch = int(m.group(1)) if m else None
        if "isvalid: false" in line:
            cur["invalid"].append(line[:300])
        continue
    if line.startswith("Found ") and "invalid bytes" in line:
        cur["invalid"].append(line[:300])
        continue
    m = rec_re.match(line)
    if not m:
        continue
    off = int(m.group(1))
    # The record line without its offset: CreateTime, sizes, headers, payload.
    body = line[m.end():]
    if " payload: " in line:
        cur["records"].append((off, epoch, "data", line.split(" payload: ", 1)[1], body))
        continue
    for kind in CONTROL:
        idx = line.find(" " + kind)
        if idx >= 0:
            name = kind.strip(": ")
            cur["records"].append((off, epoch, name, line[idx + 1 + len(kind):], body))
            if name == "SnapshotFooter":
                cur["footer"] = True
            break
    else:
        cur["records"].append((off, epoch, "other", body, body))

errors = []
missing = [p for p in spec if p not in files]
if missing:
    print("DumpLogSegments printed nothing for: " + ", ".join(missing))
    sys.exit(1)

# ---------- the logs: one merged view, every copy agreeing ----------
merged = {}   # offset -> (epoch, kind, payload, body, from id)
conflicts = []
log_ranges = {}
for path, (cid, kind) in spec.items():
    if kind != "log":
        continue
    f = files[path]
    offs = [r[0] for r in f["records"]]
    if offs:
        lo, hi = min(offs), max(offs)
        log_ranges.setdefault(cid, []).append((lo, hi))
    for off, ep, k, payload, body in f["records"]:
        prev = merged.get(off)
        if prev is None:
            merged[off] = (ep, k, payload, body, cid)
        elif (prev[0], prev[3]) != (ep, body):
            conflicts.append(f"offset {off}: controller {prev[4]} has epoch {prev[0]} {prev[3][:300]}; "
                             f"controller {cid} has epoch {ep} {body[:300]}")
if conflicts:
    print(f"the controllers' metadata logs differ at {len(conflicts)} offset(s) (first 5):")
    for c in conflicts[:5]:
        print("  " + c)
    sys.exit(1)
end = max(merged) + 1 if merged else 0
holes = [o for o in range(end) if o not in merged]


def rec_type(payload):
    try:
        return json.loads(payload).get("type", "?")
    except ValueError:
        return "?"


# Offsets whose record may change the image: anything but NoOpRecords and
# LeaderChange control records (a missing offset counts as a change).
changing = [0] * (end + 1)
for o in range(end):
    r = merged.get(o)
    quiet = r is not None and ((r[1] == "data" and rec_type(r[2]) == "NO_OP_RECORD") or r[1] == "LeaderChange")
    changing[o + 1] = changing[o] + (0 if quiet else 1)


def quiet_between(a, b):
    a, b = min(a, b), max(a, b)
    if b > end:
        return False
    return changing[b] - changing[a] == 0


# ---------- who wrote what ----------
leader_of_epoch = {}
for o in sorted(merged):
    ep, k, payload, _, _ = merged[o]
    if k == "LeaderChange":
        leader_of_epoch.setdefault(ep, json.loads(payload).get("leaderId"))
terms = collections.OrderedDict()
writes = collections.defaultdict(collections.Counter)
for o in sorted(merged):
    ep, k, payload, _, _ = merged[o]
    if k != "data":
        continue
    rec = json.loads(payload)
    t = rec["type"]
    if t == "NO_OP_RECORD":
        continue
    leader = leader_of_epoch.get(ep)
    term = terms.setdefault(ep, {"leader": leader, "first": o, "last": o, "types": collections.Counter(),
                                 "topics": [], "fenced": [], "unfenced": [], "registered": [], "controllers": [],
                                 "isr": 0, "elr": 0, "leaders": 0})
    term["last"] = o
    term["types"][t] += 1
    data = rec.get("data", {})
    who = impl.get(leader, "?")
    writes[who][t] += 1
    if t == "TOPIC_RECORD":
        term["topics"].append(data.get("name"))
    elif t == "BROKER_REGISTRATION_CHANGE_RECORD":
        f = data.get("fenced", 0)
        if f == 1:
            term["fenced"].append(data.get("brokerId"))
        elif f == -1:
            term["unfenced"].append(data.get("brokerId"))
    elif t == "REGISTER_BROKER_RECORD":
        term["registered"].append(data.get("brokerId"))
    elif t == "REGISTER_CONTROLLER_RECORD":
        term["controllers"].append(data.get("controllerId"))
    elif t == "PARTITION_CHANGE_RECORD":
        for key, name in (("isr", "isr"), ("eligibleLeaderReplicas", "elr"), ("leader", "leaders")):
            if key in data:
                term[name] += 1
                writes[who]["PARTITION_CHANGE_RECORD." + name] += 1
for ep, term in terms.items():
    leader = term["leader"]
    kinds = ", ".join(f"{t}x{n}" for t, n in sorted(term["types"].items()))
    extra = []
    if term["topics"]:
        extra.append("topics " + ",".join(map(str, term["topics"])))
    if term["types"]["PARTITION_CHANGE_RECORD"]:
        extra.append(f"partition changes: {term['isr']} ISR, {term['leaders']} leader, {term['elr']} ELR")
    for key, label in (("fenced", "fenced brokers"), ("unfenced", "unfenced brokers"),
                       ("registered", "registered brokers"), ("controllers", "registered controllers")):
        if term[key]:
            extra.append(label + " " + ",".join(map(str, term[key])))
    print(f"TERM epoch {ep}: leader {leader} ({impl.get(leader, '?')}), offsets {term['first']}-{term['last']}: "
          f"{kinds}{'; ' + '; '.join(extra) if extra else ''}")
for who in sorted(writes):
    for t, n in sorted(writes[who].items()):
        print(f"WRITES {who} {t} {n}")


# ---------- the snapshots ----------
def canon(v):
    if isinstance(v, dict):
        return {k: canon(x) for k, x in v.items()}
    if isinstance(v, list):
        v = [canon(x) for x in v]
        # Kafka's "mapKey" collections (features, endPoints of registrations:
        # unordered in its image, written in HashMap order) and the voters
        # of a VotersRecord: compared as sets.
        if v and all(isinstance(x, dict) and ("name" in x or "voterId" in x) for x in v):
            v = sorted(v, key=lambda x: json.dumps(x, sort_keys=True))
        return v
    return v


def image(path):
    f = files[path]
    recs, raw = [], []
    for off, ep, k, payload, _ in f["records"]:
        if k in ("SnapshotHeader", "SnapshotFooter"):
            continue
        if k == "other":
            errors.append(f"{os.path.basename(path)}: an undecoded record: {payload[:200]}")
            continue
        obj = json.loads(payload)
        tag = "" if k == "data" else "control " + k + " "
        raw.append(tag + json.dumps(obj, sort_keys=True))
        recs.append(tag + json.dumps(canon(obj), sort_keys=True))
    return collections.Counter(recs), collections.Counter(raw)


snaps = collections.defaultdict(list)  # id -> [(offset, path)]
for path, (cid, kind) in spec.items():
    if kind != "snapshot":
        continue
    f = files[path]
    if f["invalid"] or not f["footer"]:
        print(f"snapshot {path} of controller {cid}: invalid batch or no SnapshotFooter: {f['invalid'][:2]}")
        sys.exit(1)
    snaps[cid].append((int(os.path.basename(path).split("-")[0]), path))
for cid in snaps:
    snaps[cid].sort()
cache = {}


def img(path):
    if path not in cache:
        cache[path] = image(path)
    return cache[path]


def key_of(r):
    if r.startswith("control "):
        return r.split(" {", 1)[0]
    o = json.loads(r)
    t, dd = o["type"], o["data"]
    ident = {
        "TOPIC_RECORD": lambda: dd.get("name"),
        "PARTITION_RECORD": lambda: f"{dd.get('topicId')}-{dd.get('partitionId')}",
        "CONFIG_RECORD": lambda: f"{dd.get('resourceType')}:{dd.get('resourceName')}:{dd.get('name')}",
        "REGISTER_BROKER_RECORD": lambda: dd.get("brokerId"),
        "REGISTER_CONTROLLER_RECORD": lambda: dd.get("controllerId"),
        "FEATURE_LEVEL_RECORD": lambda: dd.get("name"),
        "PRODUCER_IDS_RECORD": lambda: "",
    }.get(t, lambda: json.dumps(dd, sort_keys=True))()
    return f"{t} {ident}"


def diff(a, b, la, lb):
    out = []
    only_a, only_b = a - b, b - a
    keys = sorted({key_of(r) for r in only_a.elements()} | {key_of(r) for r in only_b.elements()}, key=str)
    for k in keys:
        ra = [r for r in only_a.elements() if key_of(r) == k]
        rb = [r for r in only_b.elements() if key_of(r) == k]
        fields = ""
        if len(ra) == 1 and len(rb) == 1 and not k.startswith("control "):
            da, db = json.loads(ra[0]), json.loads(rb[0])
            names = sorted(x for x in set(da) | set(db) if x != "data" and da.get(x) != db.get(x))
            names += sorted("data." + x for x in set(da["data"]) | set(db["data"]) if da["data"].get(x) != db["data"].get(x))
            fields = " (differing: " + ", ".join(names) + ")"
        out.append(f"  {k}{fields}:")
        for r in ra:
            out.append(f"    {la}: {r}")
        if not ra:
            out.append(f"    {la}: (none)")
        for r in rb:
            out.append(f"    {lb}: {r}")
        if not rb:
            out.append(f"    {lb}: (none)")
    return out


others = sorted(c for c in snaps if c != subject)
if subject not in snaps or not others:
    print(f"no snapshots to compare (controllers with snapshots: {sorted(snaps)})")
    sys.exit(1)
pairs = same_offset = 0
differing = []
for cid in others:
    for ko, kp in snaps[subject]:
        # The other controller's snapshot nearest to this one with only
        # NoOp/LeaderChange records between them.
        cands = sorted((abs(jo - ko), jo, jp) for jo, jp in snaps[cid] if quiet_between(ko, jo))
        if not cands:
            continue
        _, jo, jp = cands[0]
        pairs += 1
        same_offset += jo == ko
        a, b = img(kp)[0], img(jp)[0]
        if a != b:
            differing.append((cid, ko, kp, jo, jp, a, b))
print(f"PAIRS {pairs} snapshot pairs compared (controller {subject} against {', '.join(map(str, others))}; "
      f"{same_offset} at the same offset, the others with only NoOp/LeaderChange records between them)")
if differing:
    print(f"{len(differing)} snapshot pair(s) hold different images; the first ones:")
    for cid, ko, kp, jo, jp, a, b in differing[:3]:
        la = f"controller {subject} ({impl[subject]}) @{ko}"
        lb = f"controller {cid} ({impl[cid]}) @{jo}"
        print(f" {os.path.basename(kp)} of controller {subject} vs {os.path.basename(jp)} of controller {cid}:")
        for line in diff(a, b, la, lb)[:60]:
            print(line)
    sys.exit(1)
if errors:
    print("; ".join(errors[:5]))
    sys.exit(1)

# ---------- the final images ----------
ko, kp = snaps[subject][-1]
final = []
for cid in others:
    jo, jp = snaps[cid][-1]
    if not quiet_between(ko, jo):
        print(f"RETRY the latest snapshots of controller {subject} (@{ko}) and {cid} (@{jo}) have "
              f"{changing[max(ko, jo)] - changing[min(ko, jo)] if max(ko, jo) <= end else '?'} image-changing "
              f"record(s) between them (log end {end})")
        sys.exit(3)
    a, b = img(kp)[0], img(jp)[0]
    assert a == b  # compared above as a pair
    reordered = sum((img(kp)[1] - img(jp)[1]).values())
    final.append(f"controller {cid} ({impl[cid]}) @{jo}" + (f" ({reordered} record(s) list features/endpoints/voters in another order)" if reordered else ""))
recs = [json.loads(r) for r in img(kp)[0].elements() if not r.startswith("control ")]
by = collections.defaultdict(list)
for r in recs:
    by[r["type"]].append(r["data"])
ids = {t["topicId"]: t["name"] for t in by["TOPIC_RECORD"]}
parts = collections.Counter(ids.get(p["topicId"], "?") for p in by["PARTITION_RECORD"])
elr = sum(1 for p in by["PARTITION_RECORD"] if p.get("eligibleLeaderReplicas"))
lelr = sum(1 for p in by["PARTITION_RECORD"] if p.get("lastKnownElr"))
epochs = sorted((p.get("leaderEpoch", 0), p.get("partitionEpoch", 0)) for p in by["PARTITION_RECORD"])
brokers = ", ".join(f"{b['brokerId']} (epoch {b.get('brokerEpoch')}{', fenced' if b.get('fenced') else ''})"
                    for b in sorted(by["REGISTER_BROKER_RECORD"], key=lambda b: b["brokerId"]))
pid = [p.get("nextProducerId") for p in by["PRODUCER_IDS_RECORD"]]
feats = ", ".join(f"{f['name']}={f['featureLevel']}" for f in sorted(by["FEATURE_LEVEL_RECORD"], key=lambda f: f["name"]))
kinds = ", ".join(f"{t}={n}" for t, n in sorted(collections.Counter(r["type"] for r in recs).items()))
print(f"FINAL controller {subject} ({impl[subject]}) @{ko} equals " + "; ".join(final))
print(f"IMAGE {len(recs)} records ({kinds}); topics {', '.join(f'{n} ({c} partitions)' for n, c in sorted(parts.items()))}; "
      f"partition leader epochs {epochs[0][0]}-{epochs[-1][0]}, partition epochs "
      f"{min(e[1] for e in epochs)}-{max(e[1] for e in epochs)}; {elr} partitions with an ELR, {lelr} with a last known ELR; "
      f"brokers {brokers}; next producer id {pid}; "
      f"{len(by['CONFIG_RECORD'])} ConfigRecords; controllers {sorted(c['controllerId'] for c in by['REGISTER_CONTROLLER_RECORD'])}; {feats}")
print(f"LOGS {len(log_ranges)} controllers' logs agree record for record over offsets 0-{end - 1}"
      + (f" ({len(holes)} offsets in none of them)" if holes else ""))
