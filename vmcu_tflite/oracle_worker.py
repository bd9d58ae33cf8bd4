"""The oracle's worker process: runs TFLite Micro for `oracle.py`, one request at a time.

Requests and replies are pickles on stdin and stdout: (function name in oracle.py, arguments,
a file for stderr) in, ("ok", value) or ("error", reason) out. TFLite Micro prints its reasons
on stderr, which goes to the request's file; if it crashes, the process dies and the caller
reads the file.
"""
from __future__ import annotations

import os
import pickle
import sys

from . import oracle


def main() -> None:
    requests = sys.stdin.buffer
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # anything printed on stdout must not corrupt the replies
    while True:
        try:
            name, args, stderr_path = pickle.load(requests)
        except EOFError:
            return
        saved = os.dup(2)
        with open(stderr_path, "wb") as err:
            os.dup2(err.fileno(), 2)
        try:
            reply = ("ok", getattr(oracle, name)(*args))
        except Exception as error:  # TFLite Micro's refusal of the model
            reply = ("error", f"{type(error).__name__}: {error}")
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        pickle.dump(reply, replies)
        replies.flush()


if __name__ == "__main__":
    main()
