#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# cordon serve and serve --mcp end to end: serve-check.py (TAP).
set -u
: "${CORDON:?CORDON must point at the built cordon binary}"
exec /usr/bin/python3 "$(dirname "$0")/serve-check.py"
