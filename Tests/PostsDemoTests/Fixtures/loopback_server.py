"""The tests' HTTP server on 127.0.0.1: the fixture files, plus paths that misbehave on purpose.

  /slow/NAME   waits 2 s, then serves the fixture NAME
  /trickle     answers at once, then sends its body one byte a second
  /cut         promises 1000 bytes, sends 10, closes the connection
  /loop        redirects to itself
  /ftp         redirects to an ftp:// URL
"""
import http.server
import os
import sys
import time


class Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path.startswith("/slow/"):
            time.sleep(2)
            self.path = self.path[len("/slow"):]
            return super().do_GET()
        if self.path == "/trickle":
            self.send_response(200)
            self.send_header("Content-Length", "60")
            self.end_headers()
            for _ in range(60):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(1)
            return
        if self.path == "/cut":
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b'[{"id": 1,')
            self.wfile.flush()
            self.close_connection = True
            return
        if self.path in ("/loop", "/ftp"):
            self.send_response(302)
            self.send_header("Location", "/loop" if self.path == "/loop" else "ftp://127.0.0.1/posts.json")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        return super().do_GET()


os.chdir(sys.argv[1])
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
port = server.server_address[1]
print(f"Serving HTTP on 127.0.0.1 port {port} (http://127.0.0.1:{port}/) ...", flush=True)
server.serve_forever()
