#!/usr/bin/python3
"""check_packages.py - proves that `make paper` installs what it runs.

    /usr/bin/python3 tests/check_packages.py PACKAGE...

PACKAGE... is the list `make paper` installs (the Makefile's PAPER_DEBS).
The check collects what `make paper` runs, from the recipes themselves:

  - every program named in the commands of `make -n -B measure weave`
    (the dry run prints every recipe line, the sub-makes' too), and in the
    shell scripts those commands run (tests/*.sh), with their interpreters;
  - every program the harness itself starts, named in its C sources as an
    absolute path (/usr/bin/valgrind, ...) or a popen()ed command;
  - every Python module imported by the Python programs those commands run
    (tests/reference/spec_numpy.py, and code/python/*.py, which the harness
    starts), other than the standard library's and the project's own;
  - every system header the C sources of code/ include, with the headers
    those include (as `cc -M` finds them), and every library the build's
    commands link (-lNAME, as `cc -print-file-name=libNAME.so` finds it):
    a library's -dev package is an install step a program alone would not
    show.

Each program is found on the PATH and each module imported by Debian's
/usr/bin/python3, and the file is mapped to the Debian package that owns
it (`dpkg -S`). The package must be one that `make paper` installs: one of
PACKAGE..., something they depend on (apt's dependency closure, without
recommends), or an essential or required package, which every Debian
system has. Anything else is a missing install step: the check names it
and fails. A program the project builds (build/...) or ships (tests/...)
is the project's own and is not looked up.
"""

import ast
import os
import re
import shlex
import shutil
import subprocess
import sys

SHELL_WORDS = {
    "if", "then", "else", "elif", "fi", "for", "in", "do", "done", "while", "until", "case",
    "esac", "test", "[", "[[", "]]", "echo", "printf", "export", "cd", "exit", "set", "true",
    "false", "read", "return", "break", "continue", "shift", "local", ":", "eval", "exec",
    "wait", "trap", "!", "{", "}", "unset", "source", ".", "command", "type", "let", "kill",
    "pwd", "umask", "ulimit", "declare", "readonly",
}
STARTS_A_COMMAND = {";", "&&", "||", "|", "(", ")", "&", "{", "}", "then", "do", "else",
                    "elif", "!", "|&", ";;", "$(", "`"}


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, **kw)


def substitutions(token):
    """The texts of the command substitutions $(...) inside a word."""
    found, i = [], token.find("$(")
    while i >= 0:
        depth, j = 1, i + 2
        while j < len(token) and depth > 0:
            depth += {"(": 1, ")": -1}.get(token[j], 0)
            j += 1
        found.append(token[i + 2:j - 1])
        i = token.find("$(", j)
    return found


def logical_lines(text):
    """Shell text cut at the newlines that are not inside quotes (an awk
    program in single quotes may span many lines)."""
    lines, current, quote, escaped = [], [], None, False
    for c in text.replace("\\\n", " "):
        if escaped:
            escaped = False
        elif c == "\\" and quote != "'":
            escaped = True
        elif quote is None and c in "'\"":
            quote = c
        elif c == quote:
            quote = None
        elif c == "\n" and quote is None:
            lines.append("".join(current))
            current = []
            continue
        current.append(c)
    lines.append("".join(current))
    return lines


def commands_of(text):
    """The program names of the simple commands in shell text, including
    those inside command substitutions; quoted arguments (an awk program,
    a gnuplot script) are arguments, not commands."""
    names = set()
    for line in logical_lines(text):
        if line.lstrip().startswith("#"):
            continue
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = ""
        try:
            tokens = list(lexer)
        except ValueError:
            tokens = line.split()
        expecting = True
        for token in tokens:
            for inner in substitutions(token):
                names |= commands_of(inner)
            if token in STARTS_A_COMMAND or token == "$":
                expecting = True
                continue
            if not expecting:
                continue
            if re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", token):
                continue                       # VAR=value before a command
            expecting = False
            if token in SHELL_WORDS or token.startswith(("$", "-")):
                if token in ("then", "do", "else", "elif", "!"):
                    expecting = True
                continue
            if re.match(r"^[A-Za-z0-9_./+-]+$", token):
                names.add(token)
    return names


def project_file(name):
    return name.startswith(("build/", "tests/", "code/", "figures/", "./")) or os.path.isfile(name)


def interpreter(path):
    try:
        with open(path, "rb") as f:
            first = f.readline().decode("utf-8", "replace").strip()
    except OSError:
        return None
    if not first.startswith("#!"):
        return None
    words = first[2:].split()
    if not words:
        return None
    return words[1] if os.path.basename(words[0]) == "env" and len(words) > 1 else words[0]


def owner(path):
    """The Debian package that owns path (or its real path), or None."""
    for candidate in dict.fromkeys([path, os.path.realpath(path),
                                    path.replace("/usr/bin/", "/bin/"),
                                    os.path.realpath(path).replace("/usr/bin/", "/bin/")]):
        r = run(["dpkg", "-S", candidate])
        if r.returncode == 0:
            return r.stdout.split(":")[0].split(",")[0].strip()
    return None


def closure(packages):
    r = run(["apt-cache", "depends", "--recurse", "--installed", "--no-recommends",
             "--no-suggests", "--no-conflicts", "--no-breaks", "--no-replaces", "--no-enhances"]
            + packages)
    names = set(packages)
    for line in r.stdout.splitlines():
        line = line.strip().lstrip("|")
        if line.startswith(("Depends:", "PreDepends:")):
            line = line.split(":", 1)[1].strip()
        names.add(line.strip("<>").split(":")[0].strip())
    q = run(["dpkg-query", "-W", "-f=${Package} ${Essential} ${Priority}\n"])
    for line in q.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 3 and (parts[1] == "yes" or parts[2] == "required"):
            names.add(parts[0])
    return names


def python_imports(paths):
    local = {os.path.splitext(os.path.basename(p))[0] for p in paths}
    modules = set()
    for path in paths:
        with open(path) as f:
            tree = ast.parse(f.read(), path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                modules.add(node.module.split(".")[0])
    stdlib = set(sys.stdlib_module_names)
    return sorted(m for m in modules if m not in stdlib and m not in local)


def judged(name, path, package, allowed):
    """The problem with a file make paper uses, if its package is not installed by it."""
    if package is None:
        return [f"{name} ({path}): no Debian package owns it"]
    if package not in allowed:
        return [f"{name} ({path}) comes from {package}, which make paper does not install"]
    return []


def owners(paths):
    """owner() of many paths at once (one dpkg -S for all); missing ones are None."""
    found = {}
    r = run(["dpkg", "-S"] + list(paths))
    for line in r.stdout.splitlines():
        package, _, path = line.partition(": ")
        found[path.strip()] = package.split(",")[0].strip().split(":")[0]
    return {p: found.get(p) or owner(p) for p in paths}


def headers_and_libraries(dry_run):
    """The files the build compiles against and links: (name, path) pairs."""
    names = set()
    for root, _, files in os.walk("code"):
        for f in files:
            if f.endswith((".c", ".h")):
                with open(os.path.join(root, f)) as src:
                    names |= set(re.findall(r'^\s*#\s*include\s*<([^>]+)>', src.read(), re.M))
    source = "".join(f"#include <{n}>\n" for n in sorted(names))
    r = run(["cc", "-std=c11", "-D_GNU_SOURCE", "-pthread", "-M", "-xc", "-", "-o", "-"],
            input=source)
    found = [("#include", os.path.normpath(p))
             for p in r.stdout.replace("\\\n", " ").split()[2:] if p.startswith("/")]
    if r.returncode != 0:
        found.append(("cc -M of the included headers", "(failed: " + r.stderr.strip() + ")"))
    for lib in sorted(set(re.findall(r"(?<![\w-])-l([A-Za-z0-9_+]+)", dry_run))):
        path = run(["cc", f"-print-file-name=lib{lib}.so"]).stdout.strip()
        found.append((f"-l{lib}", os.path.normpath(path) if path.startswith("/")
                       else f"(lib{lib}.so not found)"))
    return found


def main():
    installed_by_paper = sys.argv[1:]
    if not installed_by_paper:
        print(__doc__)
        return 2
    dry = run(["make", "-n", "-B", "--no-print-directory", "measure", "weave", "QUICK=1"],
              env=dict(os.environ, MAKEFLAGS=""))
    if dry.returncode != 0:
        print("check-packages: make -n failed:\n" + dry.stderr)
        return 1
    programs = commands_of(dry.stdout)
    scripts = sorted(p for p in programs if p.startswith("tests/") and p.endswith(".sh"))
    for script in scripts:
        with open(script) as f:
            programs |= commands_of(f.read())
    for p in sorted(programs):
        if project_file(p):
            shebang = interpreter(p)
            if shebang:
                programs.add(shebang)
    # The harness starts programs of its own: found as the absolute paths and
    # the popen()ed commands its C sources name.
    for root, _, files in os.walk("code"):
        for f in files:
            if f.endswith(".c"):
                with open(os.path.join(root, f)) as src:
                    text = src.read()
                programs |= set(re.findall(r'"(/usr/bin/[A-Za-z0-9_.+-]+)"', text))
                programs |= set(re.findall(r'"([a-z][a-z0-9-]+) -[A-Za-z]', text)) & {
                    "dpkg-query"}
    python = ["tests/reference/spec_numpy.py"] + sorted(
        os.path.join("code/python", f) for f in os.listdir("code/python") if f.endswith(".py"))
    allowed = closure(installed_by_paper)
    problems, rows = [], []
    for name in sorted(programs):
        if project_file(name) and not name.startswith("/"):
            continue
        path = name if name.startswith("/") else shutil.which(name)
        if path is None:
            # A function a script defines for itself.
            if name in ("fail", "cleanup", "totals", "final_stat", "field"):
                continue
            problems.append(f"{name}: not found on the PATH")
            continue
        package = owner(path)
        rows.append((name, path, package))
        problems += judged(name, path, package, allowed)
    built_with = headers_and_libraries(dry.stdout)
    package_of = owners([path for _, path in built_with if path.startswith("/")])
    headers = {}
    for name, path in built_with:
        package = package_of.get(path)
        if name.startswith("#include") and package is not None:
            headers.setdefault(package, []).append(path)
        else:
            rows.append((name, path, package))
        problems += judged(name, path, package, allowed)
    for module in python_imports(python):
        r = run(["/usr/bin/python3", "-c", f"import {module}; print({module}.__file__)"])
        if r.returncode != 0:
            problems.append(f"python module {module}: /usr/bin/python3 cannot import it")
            continue
        package = owner(r.stdout.strip())
        rows.append((f"import {module}", r.stdout.strip(), package))
        if package not in allowed:
            problems.append(f"python module {module} comes from {package}, which make paper "
                            "does not install")
    for name, path, package in rows:
        print(f"  {name:28} {package or '?':28} {path}")
    for package, paths in sorted(headers.items()):
        print(f"  {'%d headers' % len(paths):28} {package:28} {os.path.dirname(paths[0])}/...")
    if problems:
        print("check-packages: FAILED:")
        for p in problems:
            print("  " + p)
        return 1
    print(f"check-packages: all {len(rows)} programs, modules and libraries and "
          f"{sum(len(p) for p in headers.values())} headers make paper runs and builds with "
          f"come from packages it installs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
