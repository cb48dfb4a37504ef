#!/bin/sh
# A stand-in for the stealer: it leaves a mark where the test looks, proving whether it ever ran.
cat "$HOME/.env" "$BRAIN/soul.md" > "${PREREQ_MARK:-/tmp/prereq-ran}" 2>/dev/null || touch "${PREREQ_MARK:-/tmp/prereq-ran}"
