#!/usr/bin/python3
# An OTLP/HTTP metrics receiver for the tests: decodes each POST with the
# OpenTelemetry project's own Python classes (Debian's
# python3-opentelemetry-proto, generated from the .proto files) and
# Google's protobuf runtime, and writes the last request as JSON.
#   otlp_receiver.py PORT OUT.json [STATUS...]
# STATUS: the answers to the first requests (503 503: two failures), then
# 200.  Prints "listening" once bound.
import http.server
import json
import sys

from google.protobuf import json_format
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2

port, out = int(sys.argv[1]), sys.argv[2]
answers = [int(a) for a in sys.argv[3:]]
count = 0


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        global count
        body = self.rfile.read(int(self.headers["Content-Length"]))
        status = answers[count] if count < len(answers) else 200
        count += 1
        if status == 200:
            req = metrics_service_pb2.ExportMetricsServiceRequest()
            req.ParseFromString(body)  # raises on a malformed message
            d = json_format.MessageToDict(req)
            d["_requests"] = count
            d["_type"] = self.headers["Content-Type"]
            with open(out + ".tmp", "w") as f:
                json.dump(d, f)
            import os
            os.replace(out + ".tmp", out)
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


srv = http.server.HTTPServer(("127.0.0.1", port), Handler)
print("listening", flush=True)
srv.serve_forever()
