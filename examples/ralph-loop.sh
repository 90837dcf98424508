#!/usr/bin/env bash
# A ralph-style agent loop ("while true; do agent; done") with loopguard as the brake.
#
#   AGENT_CMD='claude -p "$(cat PROMPT.md)" --dangerously-skip-permissions' \
#   TEST_CMD='cargo test' examples/ralph-loop.sh
#
# Each turn: the agent edits and commits (the hooks record every commit), then the tests
# run through `loopguard run`, which records their outcome and failure fingerprint. The
# loop ends when the tests pass (`loopguard finish`: done_success), when loopguard stops it
# (exit 86: the same failure again, no progress, a reverted patch re-applied...), or after
# MAX_TURNS. It never re-invokes an agent that loopguard has stopped.
set -u

AGENT_CMD=${AGENT_CMD:?set AGENT_CMD to the command that runs one agent turn}
TEST_CMD=${TEST_CMD:-cargo test}
MAX_TURNS=${MAX_TURNS:-50}
LOOPGUARD=${LOOPGUARD:-loopguard}

"$LOOPGUARD" init >/dev/null || exit 3

for turn in $(seq 1 "$MAX_TURNS"); do
    if ! "$LOOPGUARD" status --exit-code >/dev/null; then
        echo "ralph: loopguard's breaker is open; not starting turn $turn" >&2
        "$LOOPGUARD" report
        exit 1
    fi
    echo "ralph: turn $turn" >&2
    bash -c "$AGENT_CMD"

    "$LOOPGUARD" run -- sh -c "$TEST_CMD"
    status=$?
    case $status in
        0)
            "$LOOPGUARD" finish
            exit 0
            ;;
        86)
            echo "ralph: loopguard stopped the loop after turn $turn" >&2
            "$LOOPGUARD" report
            exit 1
            ;;
    esac
done

echo "ralph: no success after $MAX_TURNS turns" >&2
"$LOOPGUARD" finish
exit 1
