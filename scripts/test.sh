#!/usr/bin/env bash
# Runs every test of Tengen, installing first whatever the tests need on a fresh machine.
# The SGF corpus tests read ../shared/data/sgf-corpus (beside the checkout) or $TENGEN_SGF_CORPUS.
set -euo pipefail
cd "$(dirname "$0")/.."

# GNU Go plays against the bot bridge's tests.
if [ ! -x /usr/games/gnugo ]; then
    apt-get update -qq && apt-get install -y -qq gnugo
fi

cargo test --workspace --all-targets --locked
# Doc tests (the crate examples) are not part of --all-targets.
cargo test --workspace --doc --locked
