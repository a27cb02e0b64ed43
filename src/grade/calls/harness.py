"""ttt-referee's harness for `grade --api xtreme`: calls a student's functions.

Usage: python3 -I -B ttt/harness.py LIMIT_MS BUDGET_MS submission/STUDENT.py < calls

It reads every call (one JSON object per line) before any student code runs,
imports the student's file without running its `if __name__ == "__main__":`
block, and answers each call on its own line of standard output. It reports
what happened (the value returned, the exception raised, the arguments the call
changed, rows shared between lists) and never decides pass or fail: the grader
does. A call still running after LIMIT_MS is answered `timeout`, and the
harness exits with status 3; the grader restarts it for the calls left. Once
BUDGET_MS have gone by it starts no more calls and says `paused`.

The student's code runs in this process: a student who sets out to forge
answers can. What the harness checks is bound here before the student's file
is imported, so replacing this module's names changes nothing, and the grader
notices a call answered twice.

No module of the student's can stand in for one this harness uses: Python runs
isolated (`-I`: neither this file's directory, the working directory nor the
PYTHON* variables are on sys.path), this file is in a directory of the
grader's, not in the submission, and the student's file is loaded by its path,
after every import here; its directory is never put on sys.path. A `json.py`
or `copy.py` beside it is only ever imported by the student's own code.
"""

import copy
import importlib.util
import json
import os
import sys
import time

# The grader's protocol is only ever written through these, saved before the
# student's code can touch the modules.
_dumps = json.dumps
_exit = os._exit
_monotonic = time.monotonic

# Values are cut at this many list items in all, and a string longer than
# MAX_STRING is reported by its length, so a huge return value cannot flood the
# protocol.
MAX_ITEMS = 100_000
MAX_STRING = 100_000


class Protocol:
    """The real standard output, kept apart from the student's prints: each
    answer is one write of one line."""

    def __init__(self):
        self.fd = os.dup(1)

    def send(self, answer):
        data = (_dumps(answer, ensure_ascii=True) + "\n").encode("ascii")
        while data:
            data = data[os.write(self.fd, data):]


class Watchdog:
    """A process of its own, forked before the student's file is imported,
    that answers `timeout` for a call running past the limit and kills the
    harness: a thread could not, while a call holds the interpreter (a long
    computation in C) or swallows every exception."""

    def __init__(self, protocol, limit):
        read, self.write = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            os.close(self.write)
            watch(read, protocol, limit, os.getppid())
            _exit(0)
        os.close(read)

    def begin(self, call):
        os.write(self.write, (_dumps(call) + "\n").encode("ascii"))

    def end(self):
        os.write(self.write, b"null\n")


def watch(read, protocol, limit, harness):
    """The watchdog's loop: `begin` starts a call's clock, `end` stops it, the
    end of the pipe (the harness is gone) ends the watch."""
    import select
    import signal

    call, deadline, pending = None, None, b""
    while True:
        wait = None if deadline is None else max(0.0, deadline - _monotonic())
        ready, _, _ = select.select([read], [], [], wait)
        if ready:
            chunk = os.read(read, 4096)
            if not chunk:
                return
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                call = json.loads(line)
                deadline = None if call is None else _monotonic() + limit
            continue
        if deadline is not None and _monotonic() >= deadline:
            if call == "import":
                protocol.send({"import_failed": "timeout"})
            else:
                protocol.send({"id": call, "timeout": True})
            os.kill(harness, signal.SIGKILL)
            return


def decode(value):
    """A call's argument: `{"tuple": [...]}` is a tuple."""
    if isinstance(value, dict) and "tuple" in value:
        return tuple(decode(v) for v in value["tuple"])
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


def encode(value, budget, seen=()):
    """A value as JSON: tuples tagged, anything else JSON cannot hold as its
    repr (cycles and very large values cut)."""
    budget[0] -= 1
    if budget[0] < 0:
        return {"repr": "..."}
    kind = type(value)
    if kind is str and len(value) > MAX_STRING:
        return {"repr": "<a str of %d characters>" % len(value)}
    if value is None or kind in (bool, int, str):
        return value
    if kind is float:
        return value if value == value and abs(value) != float("inf") else {"repr": repr(value)}
    if kind in (list, tuple):
        if id(value) in seen:
            return {"repr": "[...]"}
        items = [encode(v, budget, seen + (id(value),)) for v in value]
        return {"tuple": items} if kind is tuple else items
    return {"repr": shown(value)}


def shown(value):
    try:
        text = repr(value)
    except BaseException as e:  # a student's __repr__ may raise anything
        text = "<unprintable %s: %s>" % (type(value).__name__, type(e).__name__)
    return text[:2000]


def described(error):
    message = shown(error.args[0]) if len(error.args) == 1 and not isinstance(error.args[0], str) else str(error)
    name = type(error).__name__
    return "%s: %s" % (name, message[:2000]) if message else name


def rows_of(value):
    """The rows of a list of lists, or None."""
    if type(value) is list and value and all(type(r) is list for r in value):
        return value
    return None


def aliasing(value, args):
    """How a returned board shares rows: it is an argument, or shares rows with
    itself or with an argument."""
    rows = rows_of(value)
    if rows is None:
        return None
    if any(value is arg for arg in args):
        return "same"
    ids = [id(r) for r in rows]
    if len(set(ids)) < len(ids):
        return "itself"
    for arg in args:
        arg_rows = rows_of(arg)
        if arg_rows is not None and set(ids) & {id(r) for r in arg_rows}:
            return "argument"
    return None


def call(module, request, deepcopy=copy.deepcopy, aliasing=aliasing, encode=encode, described=described):
    """Makes one call. Its helpers are bound as defaults, before the student's
    file is imported."""
    name = request.get("fn")
    function = getattr(module, name, None) if isinstance(name, str) else None
    if not callable(function):
        return {"missing": "no function named %s" % name}
    args = [decode(a) for a in request.get("args", [])]
    before = deepcopy(args)
    try:
        value = function(*args)
    except BaseException as e:
        return {"raised": described(e)}
    answer = {"ok": encode(value, [MAX_ITEMS])}
    try:
        changed = [i for i, (a, b) in enumerate(zip(args, before)) if not a == b]
    except BaseException:
        changed = list(range(len(args)))
    if changed:
        answer["changed_args"] = changed
        answer["args_after"] = [encode(args[i], [MAX_ITEMS]) for i in changed]
    shared = aliasing(value, args)
    if shared:
        answer["aliased_rows"] = shared
    return answer


def main():
    began = _monotonic()
    limit = int(sys.argv[1]) / 1000
    budget = int(sys.argv[2]) / 1000
    path = sys.argv[3]
    requests = []
    for line in sys.stdin.buffer.read().decode("utf-8", "replace").splitlines():
        if line.strip():
            requests.append(json.loads(line))

    protocol = Protocol()
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    sys.stdin = open(os.devnull, "r")
    sys.stdout = open(os.devnull, "w")

    # Bound before the student's file can replace this module's names.
    make_call = call
    watchdog = Watchdog(protocol, limit)

    watchdog.begin("import")
    try:
        spec = importlib.util.spec_from_file_location("student", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except BaseException as e:
        watchdog.end()
        protocol.send({"import_failed": described(e)})
        _exit(0)
    watchdog.end()
    protocol.send({"loaded": True})

    for request in requests:
        if _monotonic() - began > budget:
            protocol.send({"paused": True})
            _exit(0)
        ident = request.get("id")
        watchdog.begin(ident)
        answer = make_call(module, request)
        watchdog.end()
        answer["id"] = ident
        protocol.send(answer)
    _exit(0)


if __name__ == "__main__":
    main()
