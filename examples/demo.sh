#!/usr/bin/env bash
# docform demo: serve a seeded sandbox on a loopback port and call it through docform's client.
# Run from anywhere with `make demo` (which creates .venv first) or `bash examples/demo.sh`.
set -euo pipefail

REPO="$(cd "$(dirname "$0")/.." && pwd)"
BIN="$REPO/.venv/bin"
DATA="$REPO/.docform/demo.sqlite"
cd "$REPO"

if [[ ! -x "$BIN/docform" ]]; then
    echo "demo: $BIN/docform not found; run 'make demo' to create the virtualenv first." >&2
    exit 1
fi

# A fresh sandbox each run, so the demo shows the same thing every time.
mkdir -p "$(dirname "$DATA")"
rm -f "$DATA" "$DATA-wal" "$DATA-shm"
"$BIN/docform" sandbox seed --data "$DATA" examples/sandbox-seed.yaml

PORT="$("$BIN/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
# A throwaway admin token for this local sandbox only; the client reads it from the environment.
DOCFORM_API_TOKEN="demo_$("$BIN/python" -c 'import secrets; print(secrets.token_hex(16))')"
export DOCFORM_API_TOKEN
export DOCFORM_API_URL="http://127.0.0.1:$PORT"

"$BIN/docform" sandbox serve --port "$PORT" --data "$DATA" --token "$DOCFORM_API_TOKEN" &
SERVER_PID=$!
stop_server() {
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
}
trap stop_server EXIT

step() { printf '\n== %s\n' "$*"; }

step "1. The sandbox answers like the service (a few calls through docform's client)"
"$BIN/python" examples/demo_calls.py

# A copy under .docform/: apply writes docform.lock beside the manifests, and each run's
# sandbox is new.
MANIFESTS=.docform/quickstart
rm -rf "$MANIFESTS"
cp -r examples/quickstart "$MANIFESTS"
step "2. docform validate $MANIFESTS"
"$BIN/docform" validate "$MANIFESTS"

step "3. docform plan $MANIFESTS  (read-only; -v counts the API requests)"
"$BIN/docform" plan "$MANIFESTS" -v

step "4. docform apply $MANIFESTS --yes"
"$BIN/docform" apply "$MANIFESTS" --yes

step "5. docform plan $MANIFESTS --detailed-exitcode  (exit 0: nothing left to do)"
"$BIN/docform" plan "$MANIFESTS" --detailed-exitcode -v
echo "exit code: $?"
