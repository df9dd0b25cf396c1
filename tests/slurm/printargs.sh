#!/bin/sh
# Prints each argument between <> on its own line, so tests can check that
# values reach the program literally.
for a in "$@"; do printf '<%s>\n' "$a"; done
