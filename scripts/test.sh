#!/usr/bin/env bash
# Runs every test of Tengen, installing first whatever the tests need on a fresh machine.
# The SGF corpus tests read rules/tests/data/sgf-corpus (in the repository) or $TENGEN_SGF_CORPUS.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the tests use, installed only when missing: GNU Go (the bot bridge's opponent),
# Redis (the Redis store's tests start their own redis-server), Node.js and npm (the browser
# client's tests), Chromium (playwright-core never downloads a browser), and a CJK font so the
# Chinese screens render in screenshots.
apt_updated=false
apt_install() {
  if [ "$apt_updated" = false ]; then apt-get update; apt_updated=true; fi
  apt-get install -y "$@"
}
if [ ! -x /usr/games/gnugo ]; then apt_install gnugo; fi
if [ ! -x /usr/bin/redis-server ]; then apt_install redis-server; fi
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then apt_install nodejs npm; fi
if [ ! -x /usr/bin/chromium ]; then apt_install chromium; fi
if ! fc-list :lang=zh 2>/dev/null | grep -q .; then apt_install fonts-wqy-microhei; fi

cargo test --workspace --all-targets --locked
# Doc tests (the crate examples) are not part of --all-targets.
cargo test --workspace --doc --locked

# The browser client: unit tests of its pure modules and scenarios in real Chromium against the real
# `tengen` binary.
(cd client-web && npm ci --no-audit --no-fund)
cargo build -p tengen-server --bin tengen --locked
node --test client-web/tests/
