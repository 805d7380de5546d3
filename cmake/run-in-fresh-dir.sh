#!/usr/bin/env bash
# Runs a test command in an empty directory of its own, so I/O tests never see each other's files.
set -eu
dir=$1
shift
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir"
exec "$@"
