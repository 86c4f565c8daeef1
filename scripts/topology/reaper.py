# Runs the drill as a child subreaper (PR_SET_CHILD_SUBREAPER): a process
# orphaned by a kill -9 (Patroni's PostgreSQL, which Patroni starts in a
# session of its own) is re-parented here, not to PID 1, and reaped when it
# exits, so the drill leaves no zombies even where PID 1 reaps none (a
# container or a microVM's init). SIGTERM and SIGHUP are passed on to the
# drill; Ctrl-C reaches it from the terminal directly.
#
#   python3 scripts/topology/reaper.py <command> [args...]
import ctypes
import os
import signal
import sys

PR_SET_CHILD_SUBREAPER = 36
ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)

child = os.fork()
if child == 0:
    os.execvp(sys.argv[1], sys.argv[1:])

signal.signal(signal.SIGINT, signal.SIG_IGN)
for forwarded in (signal.SIGTERM, signal.SIGHUP):
    signal.signal(forwarded, lambda signum, _frame: os.kill(child, signum))

code = 1
while True:
    try:
        pid, status = os.wait()
    except ChildProcessError:
        break
    except InterruptedError:
        continue
    if pid == child:
        code = os.waitstatus_to_exitcode(status)
        if code < 0:
            code = 128 - code
        break

# The drill has stopped everything it started: reap what already exited, never wait on more.
while True:
    try:
        pid, _ = os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        break
    if pid == 0:
        break
sys.exit(code)
