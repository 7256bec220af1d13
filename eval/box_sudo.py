#!/usr/bin/python3 -I
# sudo of deskpilot's task box (eval/box_sudo.go). OSWorld's tasks run
# "echo password | sudo -S CMD" on a VM where the user "user" may become root
# with the password "password". The box has no root: its user is uid 1000 in a
# user namespace with no capabilities, the system folders are read-only, and
# there is no network. So this stand-in
#   - checks the password as sudo does (with -S, one line of stdin; without
#     -S, none: the VM's sudo remembers an earlier one for 15 minutes);
#   - "apt"/"apt-get" install: succeeds when every package is installed on
#     this machine (its dpkg database, read-only in the box), as apt then
#     does nothing; fails clearly otherwise (exit 100, as apt). update and
#     upgrade do nothing and say so;
#   - "pip"/"pip3" install: the same, with the Python distributions installed;
#   - anything else: runs it as the box's user, which is enough for what
#     tasks do to their own home (mkdir, touch, chmod); when it fails, says
#     that it ran without root.
import os
import subprocess
import sys

PASSWORD = "password"  # OSWorld's VM: user "user", password "password"
ME = "sudo (deskpilot's task box)"
NOOP_FLAGS = set("EHkKnbPi")  # accepted and meaningless here
LONG_NOOP = {"--preserve-env", "--set-home", "--reset-timestamp", "--remove-timestamp",
             "--non-interactive", "--background", "--preserve-groups", "--login"}


def fail(msg, code=1):
    print(f"{ME}: {msg}", file=sys.stderr)
    sys.exit(code)


def parse(args):
    stdin, user = False, None
    while args and args[0].startswith("-") and args[0] != "-":
        a = args.pop(0)
        if a == "--":
            break
        if a in ("--stdin",):
            stdin = True
        elif a in ("--user",):
            user = args.pop(0) if args else fail("--user needs a user")
        elif a.startswith("--user="):
            user = a.split("=", 1)[1]
        elif a in LONG_NOOP or a.startswith("--preserve-env="):
            pass
        elif a.startswith("--"):
            fail(f"option {a} is not supported in the box")
        else:
            flags = a[1:]
            for i, f in enumerate(flags):
                if f == "S":
                    stdin = True
                elif f == "u":
                    user = flags[i + 1:] or (args.pop(0) if args else fail("-u needs a user"))
                    break
                elif f not in NOOP_FLAGS:
                    fail(f"option -{f} is not supported in the box")
    return stdin, user, args


def installed_debs():
    names = set()
    try:
        with open("/var/lib/dpkg/status", encoding="utf-8", errors="replace") as f:
            pkg = None
            for line in f:
                if line.startswith("Package: "):
                    pkg = line.split(":", 1)[1].strip()
                elif line.startswith("Status: ") and pkg and line.split()[-1] == "installed":
                    names.add(pkg)
                    names.add(pkg.split(":")[0])
    except OSError:
        pass
    return names


def apt(argv):
    words = [w for w in argv[1:] if not w.startswith("-")]
    if not words:
        fail(f"{argv[0]}: no command given", 100)
    sub, pkgs = words[0], words[1:]
    if sub in ("update", "upgrade", "dist-upgrade", "full-upgrade", "autoremove", "clean"):
        print(f"{ME}: {argv[0]} {sub}: nothing done (the box has no network and no root; its packages are this machine's)")
        return 0
    if sub != "install":
        fail(f"{argv[0]} {sub}: cannot change this machine's packages from the box", 100)
    have = installed_debs()
    missing = [p for p in pkgs if p.split("=")[0] not in have]
    if missing:
        fail(f"{argv[0]} install: {' '.join(missing)} not installed on this machine, and the box cannot "
             "install packages (no root, no network): install them on the machine", 100)
    for p in pkgs:
        print(f"{p} is already the newest version (installed on this machine).")
    return 0


def pip(argv):
    words = [w for w in argv[1:] if not w.startswith("-")]
    if not words or words[0] != "install":
        fail(f"{os.path.basename(argv[0])}: only 'install' of what is already installed can be done in the box")
    from importlib import metadata
    missing = []
    for p in words[1:]:
        name = p.split("==")[0].split(">=")[0]
        try:
            metadata.distribution(name)
        except metadata.PackageNotFoundError:
            missing.append(name)
    if missing:
        fail(f"pip install: {' '.join(missing)} not installed on this machine, and the box cannot install "
             "packages (no root, no network)")
    print(f"Requirement already satisfied: {' '.join(words[1:])}")
    return 0


def main():
    stdin, user, cmd = parse(sys.argv[1:])
    if stdin:
        line = sys.stdin.readline()
        if line.rstrip("\n") != PASSWORD:
            print("Sorry, try again.\nsudo: 1 incorrect password attempt", file=sys.stderr)
            return 1
    if user not in (None, "root", "0", "#0", "user"):
        fail(f"cannot run as {user}: the box has only the user 'user'")
    if not cmd:
        fail("usage: sudo [-S] [-u root] COMMAND [ARG...]")
    name = os.path.basename(cmd[0])
    if name in ("apt", "apt-get"):
        return apt(cmd)
    if name in ("pip", "pip3") or (name.startswith("python") and cmd[1:3] == ["-m", "pip"]):
        return pip(cmd if name.startswith("pip") else cmd[2:])
    try:
        code = subprocess.call(cmd)
    except FileNotFoundError:
        fail(f"{cmd[0]}: command not found", 1)
    if code != 0:
        print(f"{ME}: {name} exited {code}; it ran as the box's user (uid 1000), not as root: the box has no root",
              file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
