"""Opens network sockets: to a listener on the grader's loopback (port filled in by the
test) and to the outside. Expected: no connection under isolation."""
import socket

PORT = 0  # the test writes the grader's listening port here

for host, port in (("127.0.0.1", PORT), ("1.1.1.1", 53)):
    try:
        with socket.create_connection((host, port), timeout=0.5) as s:
            s.sendall(b"leak")
            print("CONNECTED", host, port)
    except OSError as exc:
        print("REFUSED", host, port, type(exc).__name__)


def causal_attention(q, k, v):
    return v, v
