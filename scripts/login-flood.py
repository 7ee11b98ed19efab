#!/usr/bin/env python3
"""A login flood against a running `tengen` on loopback, for measuring what it costs the server.

SOCKETS connections from ADDRESSES loopback addresses (127.0.0.2, 127.0.0.3, ...) send wrong passwords (for unknown names, so no per-account counter
spares the hash) as fast as they are answered for SECONDS, while a player on 127.0.0.1 logs in with the
right password once a second (retrying at once on `busy`). Prints the server's RSS before, the highest
during and after the flood, the flood's answers by code, and how long each legitimate login took.
Standard library only; bounded: it stops by itself after SECONDS plus a few seconds' wind-down.

    python3 scripts/login-flood.py 127.0.0.1:18080 <server pid> [sockets] [seconds] [addresses]

One address shows the login throttles at work; many (60 sockets from 60 addresses) keep the hashing
pool busy, as a botnet would.
"""
import base64, json, os, socket, struct, sys, threading, time

addr, pid = sys.argv[1], sys.argv[2]
SOCKETS = int(sys.argv[3]) if len(sys.argv) > 3 else 60
SECONDS = float(sys.argv[4]) if len(sys.argv) > 4 else 10
ADDRESSES = int(sys.argv[5]) if len(sys.argv) > 5 else 1
host, port = addr.rsplit(':', 1)
if not host.startswith('127.'):
    sys.exit('loopback only: the server must listen on 127.x.x.x')
PASSWORD = 'correct horse battery'


def rss_mib():
    with open(f'/proc/{pid}/status') as status:
        for line in status:
            if line.startswith('VmRSS:'):
                return int(line.split()[1]) / 1024
    return 0.0


class Socket:
    """A WebSocket (client side, masked frames) that has said hello; `ask` sends and waits the reply."""

    def __init__(self, source):
        self.sock = socket.create_connection((host, int(port)), source_address=(source, 0))
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f'GET /ws HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\n'
                           f'Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n'
                           'Sec-WebSocket-Version: 13\r\n\r\n').encode())
        self.buf = b''
        while b'\r\n\r\n' not in self.buf:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError('closed during the handshake')
            self.buf += chunk
        head, self.buf = self.buf.split(b'\r\n\r\n', 1)
        if not head.startswith(b'HTTP/1.1 101'):
            raise ConnectionError(head.decode(errors='replace'))
        self.next_id = 1
        self.ask({'type': 'hello', 'version': 1})

    def send(self, msg):
        payload = json.dumps(msg).encode()
        mask = os.urandom(4)
        n = len(payload)
        head = b'\x81' + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack('>H', n))
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def frame(self):
        """The next text frame (server frames are unmasked; lengths up to 64 KiB are all it sends here)."""
        while True:
            header = self.header()
            if header and len(self.buf) >= header[1] + header[2]:
                op, off, n = header
                payload, self.buf = self.buf[off:off + n], self.buf[off + n:]
                if op == 1:
                    return json.loads(payload)
                if op == 8:
                    raise ConnectionError('closed')
                continue
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError('closed')
            self.buf += chunk

    def header(self):
        """(opcode, payload offset, payload length) of the buffered frame, once its header is in."""
        if len(self.buf) < 2:
            return None
        n = self.buf[1] & 0x7f
        if n < 126:
            return self.buf[0] & 0x0f, 2, n
        if n == 126 and len(self.buf) >= 4:
            return self.buf[0] & 0x0f, 4, struct.unpack('>H', self.buf[2:4])[0]
        if n == 127 and len(self.buf) >= 10:
            return self.buf[0] & 0x0f, 10, struct.unpack('>Q', self.buf[2:10])[0]
        return None

    def ask(self, msg):
        msg = dict(msg, id=self.next_id)
        self.next_id += 1
        self.send(msg)
        while True:
            reply = self.frame()
            if reply.get('id') == msg['id']:
                return reply


user = f'legit{int(time.time()) % 100000}'
# Registered from an address of its own, so a few runs against one server stay under the
# registration throttle (a few accounts per address).
setup = Socket(f'127.0.1.{int(time.time()) % 250 + 2}')
registered = setup.ask({'type': 'register', 'username': user, 'password': PASSWORD})
assert registered['type'] == 'session', registered
setup.sock.close()
time.sleep(1)
before = rss_mib()
codes, lock = {}, threading.Lock()
flooders = [Socket(f'127.0.{(2 + i % ADDRESSES) // 256}.{(2 + i % ADDRESSES) % 256}') for i in range(SOCKETS)]
deadline = time.time() + SECONDS
peak = [before]


def flood(index, ws):
    n = 0
    while time.time() < deadline:
        try:
            reply = ws.ask({'type': 'login', 'username': f'nobody{index}x{n}', 'password': 'wrong password 1'})
        except ConnectionError:
            # Closed for flooding (a throttled socket asks faster than its rate limit).
            reply = {'code': 'socket closed'}
        n += 1
        with lock:
            code = reply.get('code', reply.get('type'))
            codes[code] = codes.get(code, 0) + 1
        if code == 'socket closed':
            return


def sample():
    while time.time() < deadline + 0.5:
        peak[0] = max(peak[0], rss_mib())
        time.sleep(0.1)


logins = []


def legit():
    while time.time() < deadline:
        ws = Socket('127.0.0.1')
        started, busy = time.time(), 0
        while True:
            reply = ws.ask({'type': 'login', 'username': user, 'password': PASSWORD})
            if reply['type'] == 'session':
                break
            assert reply.get('code') == 'busy', reply
            busy += 1
        logins.append(((time.time() - started) * 1000, busy))
        ws.sock.close()
        time.sleep(1)


threads = [threading.Thread(target=flood, args=(i, ws)) for i, ws in enumerate(flooders)]
threads += [threading.Thread(target=sample), threading.Thread(target=legit)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
for ws in flooders:
    ws.sock.close()
time.sleep(3)
ms = sorted(ms for ms, _ in logins)
print(json.dumps({
    'sockets': SOCKETS, 'seconds': SECONDS, 'addresses': ADDRESSES,
    'rss_mib': {'before': round(before, 1), 'flood_max': round(peak[0], 1), 'after_3s': round(rss_mib(), 1)},
    'flood_answers': codes,
    'legit_logins': {'count': len(ms), 'ms_min': round(ms[0]), 'ms_median': round(ms[len(ms) // 2]),
                     'ms_max': round(ms[-1]), 'busy_answers': sum(b for _, b in logins)},
}, indent=1))
