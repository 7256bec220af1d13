# The init of a task's box: it runs inside the bubblewrap sandbox and starts,
# on the harness's request, every program of the task there, so that they all
# share the box's namespaces (one loopback, one process tree).
#
# The harness talks to it over the SOCK_SEQPACKET socket on fd 3. Each message
# is one JSON request with file descriptors attached:
#   {"op": "run", "argv": [...], "env": [...], "dir": "..."}
#       fds: reply, stdin, stdout, stderr. The program runs in a session of its
#       own; the reply socket gets {"pid": N} (or {"error": "...", "notfound":
#       true when the program is not there}), then
#       {"exit": CODE} (negative: killed by that signal). When the harness
#       closes the reply socket first, the program's process group is killed.
#   {"op": "dial", "port": N}
#       fds: reply. The reply gets {"ok": true} with the connected TCP socket
#       to 127.0.0.1:N on the box's loopback attached, or {"error": "..."}.
# When the control socket closes, this init exits, and with it every process
# of the box (bubblewrap's PID namespace ends).
import json
import os
import signal
import socket
import subprocess
import sys
import threading


def send(sock, msg, fds=()):
    try:
        socket.send_fds(sock, [json.dumps(msg).encode()], list(fds))
    except OSError:
        pass


def run(req, fds):
    reply, stdin, stdout, stderr = (socket.socket(fileno=fds[0]), fds[1], fds[2], fds[3])
    try:
        p = subprocess.Popen(req["argv"], env=dict(kv.split("=", 1) for kv in req["env"] if "=" in kv),
                             cwd=req.get("dir") or None, stdin=stdin, stdout=stdout, stderr=stderr,
                             start_new_session=True, close_fds=True)
    except Exception as e:  # the program cannot start: the harness reports it
        missing = isinstance(e, FileNotFoundError) and e.filename == req["argv"][0]
        send(reply, {"error": "%s: %s" % (type(e).__name__, e), "notfound": missing})
        reply.close()
        return
    finally:
        for fd in (stdin, stdout, stderr):
            os.close(fd)
    send(reply, {"pid": p.pid})

    def watch():  # the harness gave up on the program: kill its group
        try:
            reply.recv(1)
        except OSError:
            pass
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass

    threading.Thread(target=watch, daemon=True).start()
    code = p.wait()
    send(reply, {"exit": code})
    try:
        reply.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


def dial(req, fds):
    reply = socket.socket(fileno=fds[0])
    try:
        conn = socket.create_connection(("127.0.0.1", int(req["port"])), timeout=30)
    except Exception as e:
        send(reply, {"error": "%s: %s" % (type(e).__name__, e)})
    else:
        send(reply, {"ok": True}, [conn.fileno()])
        conn.close()
    reply.close()


def main():
    ctl = socket.socket(fileno=3)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(ctl, 1 << 20, 8)
        except OSError:
            return
        if not data:
            return
        try:
            req = json.loads(data)
            op = {"run": run, "dial": dial}[req["op"]]
        except Exception as e:
            for fd in fds:
                os.close(fd)
            print("box init: bad request: %s" % e, file=sys.stderr)
            continue
        threading.Thread(target=op, args=(req, fds), daemon=True).start()


main()
