"""What .ci/run can check offline about releasing and installing (run by .ci/run, from the
repository root, with the tools venv's python):

- the MSRV: both crates state the same `rust-version`; edition 2024 needs 1.85; no locked
  dependency asks for a newer Rust than that (so `cargo install --locked` works on it); the
  MSRV job of ci.yml builds with exactly that toolchain;
- one version everywhere: both crates, the Python package (pyproject takes Cargo.toml's),
  a CHANGELOG.md section;
- the release archives: the targets the release workflow packs, the ones the Action's install
  step picks, and what cargo-binstall's templates expand to are the same names.
"""

import json
import re
import subprocess
import sys
import tomllib

import yaml

failures = []


def check(ok, message):
    if not ok:
        failures.append(message)


def version_tuple(v):
    return tuple(int(x) for x in v.split("."))


meta = json.loads(
    subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--locked"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
)
workspace = {p["name"]: p for p in meta["packages"] if p["id"] in meta["workspace_members"]}
lg, core = workspace["loopguard"], workspace["loopguard-core"]

# The MSRV.
msrv = lg["rust_version"]
check(msrv is not None, "Cargo.toml has no rust-version")
check(core["rust_version"] == msrv, f"rust-version differs: loopguard {msrv}, loopguard-core {core['rust_version']}")
for p in (lg, core):
    if p["edition"] == "2024":
        check(version_tuple(msrv) >= (1, 85), f"{p['name']}: edition 2024 needs rust-version >= 1.85, not {msrv}")
newer = sorted(
    f"{p['name']} {p['version']} (rust-version {p['rust_version']})"
    for p in meta["packages"]
    if p["rust_version"] and version_tuple(p["rust_version"]) > version_tuple(msrv)
)
check(not newer, f"locked dependencies need a newer Rust than rust-version {msrv}: {', '.join(newer)}")
ci = yaml.safe_load(open(".github/workflows/ci.yml"))
msrv_job = ci["jobs"].get("msrv", {})
msrv_steps = "\n".join(step.get("run", "") for step in msrv_job.get("steps", []))
check("rust_version" in msrv_steps and "cargo +\"$msrv\"" in msrv_steps and "--locked" in msrv_steps,
      "ci.yml's msrv job must build with the toolchain of Cargo.toml's rust-version, --locked")

# One version.
version = lg["version"]
check(core["version"] == version, f"versions differ: loopguard {version}, loopguard-core {core['version']}")
dep = [d for d in lg["dependencies"] if d["name"] == "loopguard-core"]
check(dep and dep[0]["req"] == f"^{version}", f"loopguard's dependency on loopguard-core is not ^{version}")
pyproject = tomllib.load(open("pyproject.toml", "rb"))
check("version" in pyproject["project"].get("dynamic", []), "pyproject.toml must take its version from Cargo.toml (dynamic)")
check(pyproject["tool"]["maturin"].get("bindings") == "bin", "pyproject.toml: bindings must be bin")
notes = subprocess.run(["bash", "scripts/release-notes.sh", version], capture_output=True, text=True)
check(notes.returncode == 0, f"CHANGELOG.md: {notes.stderr.strip()}")

# The release archives.
release = yaml.safe_load(open(".github/workflows/release.yml"))
packed = sorted(e["target"] for e in release["jobs"]["build"]["strategy"]["matrix"]["include"] if e.get("archive"))
install = open("scripts/action-install.sh").read()
picked = sorted(set(re.findall(r"\btarget=([a-z0-9_]+-[a-z0-9_-]+)", install)))
check(packed == picked, f"the release packs {packed}, the Action picks {picked}")


def asset(target):
    return f"loopguard-{target}.{'zip' if '-windows-' in target else 'tar.gz'}"


binstall = lg["metadata"]["binstall"]
for target in packed:
    chosen = {**binstall, **binstall.get("overrides", {}).get(target, {})}
    url = (chosen["pkg-url"].replace("{ repo }", lg["repository"]).replace("{ version }", version)
           .replace("{ name }", "loopguard").replace("{ target }", target))
    want = f"{lg['repository']}/releases/download/v{version}/{asset(target)}"
    check(url == want, f"cargo-binstall, {target}: {url} is not {want}")
    fmt = "zip" if target.endswith("windows-msvc") else "tgz"
    check(chosen.get("pkg-fmt") == fmt, f"cargo-binstall, {target}: pkg-fmt should be {fmt}")
    check(chosen["bin-dir"] == "{ name }-{ target }/{ bin }{ binary-ext }", "cargo-binstall: bin-dir")

if failures:
    for f in failures:
        print(f"release-checks: {f}", file=sys.stderr)
    sys.exit(1)
print(f"release checks: MSRV {msrv} (no locked dependency needs newer), version {version} "
      f"everywhere, {len(packed)} release targets agree (workflow, Action, cargo-binstall)")
