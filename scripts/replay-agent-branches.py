#!/usr/bin/env python3
"""Replays every recorded agent branch of ../shared/data/agent-branches through
`loopguard replay` and reports which trip, by which rule, beside what the PRs' outcomes say.

    cargo build --release
    scripts/replay-agent-branches.py [--config FILE] [--bin target/release/loopguard] [--show N]

The data is commit metadata only (no test evidence), so `same_error` cannot fire and
`false_completion` sees every claim as unbacked. Data: LOOPGUARD_SHARED_DATA or ../shared/data.
"""
import argparse
import collections
import csv
import glob
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DATA = os.path.join(HERE, "..", "..", "shared", "data")


def records(branch):
    """Iteration records (docs/contract.md) for one branch, oldest first."""
    out = []
    trees = {}
    for c in branch["commits"]:
        trees[c["sha"]] = c["tree"]
        parent = c["parents"][0] if c["parents"] else None
        parent_tree = trees.get(parent)
        if parent_tree is None and c.get("tree_equals_parent"):
            parent_tree = c["tree"]
        message = c["subject"]
        body = [l for l in c.get("body_head") or []]
        body += ["Co-authored-by: %s" % n for n in c.get("co_authored_by") or []]
        if body:
            message += "\n\n" + "\n".join(body)
        it = {
            "id": c["sha"],
            "author": "%s <%s>" % (c["author_name"], c["author_email"]),
            "tree": c["tree"],
            "parents": c["parents"],
            "message": message,
            "at": c["committer_date"],
        }
        if parent_tree is not None:
            it["parent_tree"] = parent_tree
        if c.get("patch_id"):
            it["patch_id"] = c["patch_id"]
        if c.get("numstat_available", True) and c.get("files") is not None:
            it["files"] = [
                {"path": f["path"], "added": f["added"], "deleted": f["deleted"]}
                for f in c["files"]
            ]
            if c.get("files_truncated"):
                it.pop("files")
        out.append(it)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(HERE, "..", "target", "release", "loopguard"))
    ap.add_argument("--config")
    ap.add_argument("--show", type=int, default=15, help="tripped branches to list per rule")
    args = ap.parse_args()
    data = os.path.join(os.environ.get("LOOPGUARD_SHARED_DATA", DEFAULT_DATA), "agent-branches")
    if not os.path.isdir(data):
        sys.exit("no data at %s (set LOOPGUARD_SHARED_DATA)" % data)

    labels = {}
    with open(os.path.join(data, "labels.tsv")) as f:
        for row in csv.DictReader(f, delimiter="\t"):
            labels[(row["repo"], row["branch"])] = row["label"]
    landed = {}
    with open(os.path.join(data, "pr_outcomes.tsv")) as f:
        for row in csv.DictReader(f, delimiter="\t"):
            key = (row["repo"], row["branch"])
            landed[key] = landed.get(key, False) or row["landed_on_default"] == "yes"

    by_rule = collections.Counter()
    by_rule_landed = collections.Counter()
    by_agent = collections.defaultdict(collections.Counter)
    examples = collections.defaultdict(list)
    total = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in sorted(glob.glob(os.path.join(data, "*.jsonl"))):
            for line in open(path):
                branch = json.loads(line)
                total += 1
                rec = os.path.join(tmp, "b.jsonl")
                with open(rec, "w") as f:
                    for it in records(branch):
                        f.write(json.dumps(it) + "\n")
                cmd = [args.bin, "replay", "--json", rec]
                if args.config:
                    cmd[2:2] = ["--config", args.config]
                p = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp)
                if p.returncode not in (0, 1):
                    sys.exit("replay failed on %s %s: %s" % (branch["repo"], branch["branch"], p.stderr))
                doc = json.loads(p.stdout)
                key = (branch["repo"], branch["branch"])
                agent = branch.get("agent") or "?"
                by_agent[agent]["branches"] += 1
                if doc["state"] != "open":
                    continue
                rule = doc["rule"]
                by_rule[rule] += 1
                by_agent[agent][rule] += 1
                if landed.get(key):
                    by_rule_landed[rule] += 1
                examples[rule].append(
                    (branch["repo"], branch["branch"], branch.get("pr_numbers"), len(branch["commits"]),
                     "landed" if landed.get(key) else "not landed", labels.get(key, ""), doc["reason"])
                )

    tripped = sum(by_rule.values())
    print("branches replayed: %d; tripped: %d (%.1f%%)" % (total, tripped, 100.0 * tripped / max(total, 1)))
    print("\nby rule (tripped / of those, PR landed on the default branch):")
    for rule, n in by_rule.most_common():
        print("  %-17s %5d  %5d" % (rule, n, by_rule_landed[rule]))
    print("\nby agent (branches, then trips by rule):")
    for agent, c in sorted(by_agent.items(), key=lambda kv: -kv[1]["branches"]):
        rest = ", ".join("%s %d" % (r, n) for r, n in c.most_common() if r != "branches")
        print("  %-10s %5d  %s" % (agent, c["branches"], rest))
    print("\nlabelled branches:")
    for (repo, br), label in sorted(labels.items()):
        hit = [e for r in examples for e in examples[r] if (e[0], e[1]) == (repo, br)]
        print("  %-8s %-32s %-45s %s" % (label, repo, br[:45], ("TRIPPED: " + hit[0][6][:90]) if hit else "not tripped"))
    for rule, ex in examples.items():
        print("\n%s, first %d:" % (rule, min(args.show, len(ex))))
        for e in ex[: args.show]:
            print("  %s %s PR %s (%d commits, %s%s): %s" % (e[0], e[1][:50], e[2], e[3], e[4], ", " + e[5] if e[5] else "", e[6][:140]))


if __name__ == "__main__":
    main()
