#!/usr/bin/env bash
# Fails if a C or C++ file does not follow .clang-format (run clang-format -i to fix).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
files=$(git ls-files '*.c' '*.h' '*.cpp' '*.hpp')
clang-format --dry-run --Werror $files
echo "format: $(echo "$files" | wc -l) files follow .clang-format"
