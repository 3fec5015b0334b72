"""LLM input tokens per run as a share of the whole directory's tokens.

    python bench/llm_tokens.py [--count 200] [--seed 0]

Generates a labelled directory (about 10% duplicates and other planted problems), starts a
stand-in Messages API on 127.0.0.1 (it answers every question with "keep both" / "valid"),
runs `consolidator report --llm` with the anthropic backend pointed at it, and compares the
text the tool sent with the text of every memory — what an agent that reads the whole
directory would send. Both sides are counted with the same token estimate. Target <= 20%.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

BENCH = Path(__file__).resolve().parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from memgen.build import generate  # noqa: E402

from consolidator.llm.anthropic_backend import estimate_tokens  # noqa: E402


class Recorder(BaseHTTPRequestHandler):
    sent: list[str] = []

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        text = body.get("system", "") + "".join(m["content"] for m in body["messages"])
        Recorder.sent.append(text + json.dumps(body.get("tools", [])))
        kind = "keep_both" if "disagree" in text or "near-duplicates" in text else "valid"
        reply = {
            "id": "msg_bench", "type": "message", "role": "assistant", "model": body["model"],
            "stop_reason": "tool_use", "stop_sequence": None,
            "usage": {"input_tokens": estimate_tokens(text), "output_tokens": 20},
            "content": [{"type": "tool_use", "id": "toolu_bench", "name": "decide",
                         "input": {"decision": kind, "keep": "", "merged_body": "",
                                   "description": "", "reason": "benchmark"}}],
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *_args: object) -> None:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="llm-tokens-"))
    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        generate(work / "dir", args.count, seed=args.seed)
        config = work / "config.toml"
        config.write_text('[llm]\nbackend = "anthropic"\nmax_calls_per_run = 1000\n'
                          "max_input_tokens_per_run = 10000000\n")
        env = {**os.environ, "ANTHROPIC_API_KEY": "bench-not-a-key",
               "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{server.server_port}"}
        proc = subprocess.run(
            [sys.executable, "-m", "consolidator", "report", "--llm", "--format", "json",
             "--config", str(config), "--memory-dir", str(work / "dir" / "memory"),
             "--project-root", str(work / "dir" / "project"), "--state-dir", str(work / "s")],
            env=env, capture_output=True, text=True, check=True,
        )
        llm = json.loads(proc.stdout)["roots"][0]["llm"]
        whole = sum(
            estimate_tokens(p.read_text(encoding="utf-8", errors="replace"))
            for p in (work / "dir" / "memory").rglob("*.md")
        )
        sent = sum(estimate_tokens(t) for t in Recorder.sent)
        print(f"memories: {args.count}; calls: {llm['calls']}")
        print(f"directory tokens (every memory and MEMORY.md): {whole}")
        print(f"tokens sent to the model: {sent}")
        print(f"share: {100 * sent / whole:.1f}%  (target <= 20%)")
    finally:
        server.shutdown()
        import shutil

        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
