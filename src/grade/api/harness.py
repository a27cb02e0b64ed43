"""ttt-referee's harness for `grade --api xtreme`: calls a student's functions.

Usage: python3 -I -B harness.py LIMIT_MS STUDENT.py < calls

It reads every call (one JSON object per line) before any student code runs,
imports the student's file without running its `if __name__ == "__main__":`
block, and answers each call on its own line of standard output. It reports
what happened (the value returned, the exception raised, the arguments the call
changed, rows shared between lists) and never decides pass or fail: the grader
does. A call still running after LIMIT_MS is answered `timeout`, and the
harness exits with status 3; the grader restarts it for the calls left.
"""

import copy
import importlib.util
import json
import os
import sys
import threading
import time

# The grader's protocol is only ever written through these, saved before the
# student's code can touch the modules.
_dumps = json.dumps
_exit = os._exit
_monotonic = time.monotonic

# Values are cut at this many list items in all, so a huge return value cannot
# flood the protocol.
MAX_ITEMS = 100_000


class Protocol:
    """The real standard output, kept apart from the student's prints."""

    def __init__(self):
        self.out = os.fdopen(os.dup(1), "w", encoding="ascii", newline="\n")
        self.lock = threading.Lock()

    def send(self, answer):
        with self.lock:
            self.out.write(_dumps(answer, ensure_ascii=True) + "\n")
            self.out.flush()


class Watchdog(threading.Thread):
    """Ends the harness when a call runs past the limit (the main thread cannot
    be interrupted inside a loop that swallows every exception)."""

    def __init__(self, protocol, limit):
        super().__init__(daemon=True)
        self.protocol = protocol
        self.limit = limit
        self.cv = threading.Condition()
        self.call = None
        self.started = 0.0

    def begin(self, call):
        with self.cv:
            self.call = call
            self.started = _monotonic()
            self.cv.notify()

    def end(self):
        with self.cv:
            self.call = None

    def run(self):
        with self.cv:
            while True:
                if self.call is None:
                    self.cv.wait()
                    continue
                left = self.started + self.limit - _monotonic()
                if left > 0:
                    self.cv.wait(left)
                    continue
                if self.call == "import":
                    self.protocol.send({"import_failed": "timeout"})
                else:
                    self.protocol.send({"id": self.call, "timeout": True})
                _exit(3)


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


def call(module, request):
    name = request.get("fn")
    function = getattr(module, name, None) if isinstance(name, str) else None
    if not callable(function):
        return {"missing": "no function named %s" % name}
    args = [decode(a) for a in request.get("args", [])]
    before = copy.deepcopy(args)
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
    limit = int(sys.argv[1]) / 1000
    path = sys.argv[2]
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

    watchdog = Watchdog(protocol, limit)
    watchdog.start()

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
        ident = request.get("id")
        watchdog.begin(ident)
        answer = call(module, request)
        watchdog.end()
        answer["id"] = ident
        protocol.send(answer)
    _exit(0)


if __name__ == "__main__":
    main()
