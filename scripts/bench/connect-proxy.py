#!/usr/bin/env python3
"""An HTTP CONNECT proxy on loopback for scripts/bench-cli.sh: every tunnel, whatever host it
names, goes to 127.0.0.1:TARGET_PORT (the emulator), so a program that honours HTTPS_PROXY (Azure
CLI, through requests) reaches the emulator under Microsoft's host names while TLS still checks
those names against the emulator's certificate.

    connect-proxy.py TARGET_PORT     # prints the port it listens on, then serves until killed
"""

import select
import socket
import sys
import threading


def pipe(client, upstream):
    sockets = [client, upstream]
    try:
        while True:
            readable, _, _ = select.select(sockets, [], [], 60)
            if not readable:
                return
            for source in readable:
                data = source.recv(65536)
                if not data:
                    return
                (upstream if source is client else client).sendall(data)
    except OSError:
        return
    finally:
        client.close()
        upstream.close()


def serve(client, target_port):
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = client.recv(4096)
        if not chunk or len(head) > 65536:
            client.close()
            return
        head += chunk
    if not head.startswith(b"CONNECT "):
        client.sendall(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
        client.close()
        return
    upstream = socket.create_connection(("127.0.0.1", target_port))
    client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
    rest = head.split(b"\r\n\r\n", 1)[1]
    if rest:
        upstream.sendall(rest)
    pipe(client, upstream)


def main():
    target_port = int(sys.argv[1])
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print(listener.getsockname()[1], flush=True)
    while True:
        client, _ = listener.accept()
        threading.Thread(target=serve, args=(client, target_port), daemon=True).start()


if __name__ == "__main__":
    main()
