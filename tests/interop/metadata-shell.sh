#!/usr/bin/env bash
# `kraft metadata-shell` against Kafka 4.4's kafka-metadata-shell.sh (class
# org.apache.kafka.shell.MetadataShell, the Maven jars via kafka-quorum.sh):
# both must print the same stdout, byte for byte, and exit alike.
#
#   metadata-shell.sh KRAFT_BINARY   every golden case, both tools, diffed;
#                                    then a Kafka-written snapshot fresh from
#                                    image-interop.sh generate
#   metadata-shell.sh record [NAME...]  run Kafka's shell only and write
#                                    the golden files the CLI tests read
#                                    (every case, or the NAMEd ones)
#
# The golden cases are crates/cli/tests/golden/metadata-shell/NAME.args: the
# arguments of both shells, one a line, paths relative to crates/cli (both
# run there). With NAME.stdin beside it the shell runs interactively, that
# file on its standard input (one JVM runs a whole session; Kafka's JLine
# falls back to a dumb terminal: prompts, no echo, one ls column). `record`
# writes NAME.stdout and NAME.code (the exit status).
#
# Maven Central has no kafka-shell 4.4.0: the shell classes are 4.3.1's
# (whose sources differ from 4.4's only in three imports, shimmed in
# kafka-quorum/src/main/java) over Kafka 4.4.0's metadata image and node
# tree (kafka-metadata 4.4.0), run with `kafka-quorum.sh java`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cli=$root/crates/cli
cases=$cli/tests/golden/metadata-shell
kq=$here/kafka-quorum.sh
mode=${1:?usage: metadata-shell.sh KRAFT_BINARY | record}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bash "$kq" init "$work/kq" >/dev/null

# kafka_once OUT STDIN ARGS...: Kafka's shell in crates/cli, STDIN (a file
# or /dev/null) on its input; stdout in OUT.stdout, exit status in OUT.code.
kafka_once() {
    local out=$1 input=$2 rc=0
    shift 2
    (cd "$cli" && timeout 120 bash "$kq" java "$work/kq" org.apache.kafka.shell.MetadataShell "$@") \
        <"$input" >"$out.stdout" 2>"$out.stderr" || rc=$?
    echo "$rc" >"$out.code"
}

# kafka OUT STDIN ARGS...: kafka_once, made deterministic. Kafka's
# non-interactive mode races its own loader: it waits for the loader's
# applied offset, not for the shell's image, and sometimes runs the command
# on the empty image it starts with, or on a partial one. So a
# non-interactive run is checked against the same command typed into an
# interactive session (whose image is loaded by the time the line is read)
# and run again until it agrees: the same stdout; or, when the command
# fails in Kafka (an exception, whose interactive output is lost
# unflushed), the same error as the session's, with the same stdout twice
# in a row; or a command-line error, which never reaches the image.
kafka() {
    local out=$1 input=$2
    shift 2
    if [[ $input != /dev/null ]]; then
        kafka_once "$out" "$input" "$@"
        return
    fi
    local opts=() words=()
    while (($#)); do
        case $1 in
        --snapshot | -s) opts+=("$1" "$2"); shift 2 ;;
        *) words+=("$1"); shift ;;
        esac
    done
    echo "${words[*]}" >"$out.ref.stdin"
    local round attempt candidate
    # The session can race too (on a busy machine it may read its line
    # before the image is in): a reference that no run agrees with is
    # taken again.
    for round in 1 2 3 4; do
        kafka_once "$out.ref" "$out.ref.stdin" "${opts[@]}"
        # The session minus its banner (3 lines) and the prompts around the one command.
        tail -n +4 "$out.ref.stdout" | sed '1s/^>> //' | sed '$d' >"$out.ref.expected"
        grep '^Unexpected error' "$out.ref.stderr" >"$out.ref.error" || true
        candidate=
        for attempt in 1 2 3 4 5; do
            kafka_once "$out" /dev/null "${opts[@]}" "${words[@]}"
            if [[ $(cat "$out.ref.code") == 0 ]]; then
                if cmp -s "$out.stdout" "$out.ref.expected"; then return; fi
            elif [[ $(cat "$out.code") != 0 ]] &&
                grep '^Unexpected error' "$out.stderr" | cmp -s - "$out.ref.error"; then
                if [[ -n $candidate ]] && cmp -s "$out.stdout" "$candidate"; then return; fi
                candidate=$out.candidate
                cp "$out.stdout" "$candidate"
            fi
            if head -n 1 "$out.stdout" | grep -qE "^(invalid choice: |too few arguments|unrecognized arguments: |ambiguous command: )"; then return; fi
        done
    done
    echo "metadata-shell.sh: Kafka's shell gave no stable answer for ${opts[*]} ${words[*]}" >&2
    exit 1
}

# case_input NAME: the case's stdin file, or /dev/null.
case_input() {
    if [[ -f $cases/$1.stdin ]]; then echo "$cases/$1.stdin"; else echo /dev/null; fi
}

if [[ $mode == record ]]; then
    shift
    for f in "$cases"/*.args; do
        name=${f##*/}
        name=${name%.args}
        if (($#)) && [[ " $* " != *" $name "* ]]; then continue; fi
        mapfile -t args <"$f"
        kafka "$work/$name" "$(case_input "$name")" "${args[@]}"
        cp "$work/$name.stdout" "$cases/$name.stdout"
        cp "$work/$name.code" "$cases/$name.code"
        echo "recorded $name (exit $(cat "$work/$name.code"))"
    done
    exit 0
fi

kraft=$(cd "$(dirname "$mode")" && pwd)/$(basename "$mode")
[[ -x $kraft ]] || { echo "metadata-shell.sh: $mode is not an executable" >&2; exit 2; }
failures=0
checked=0

# compare TAG STDIN ARGS...: both shells with ARGS and STDIN, in crates/cli.
compare() {
    local tag=$1 input=$2 rc=0
    shift 2
    (cd "$cli" && "$kraft" metadata-shell "$@") <"$input" >"$work/$tag.kraft.stdout" 2>"$work/$tag.kraft.stderr" || rc=$?
    # A Kafka session that raced its loader (see kafka) is run again.
    local try
    for try in 1 2 3; do
        kafka "$work/$tag.kafka" "$input" "$@"
        if cmp -s "$work/$tag.kafka.stdout" "$work/$tag.kraft.stdout" || [[ $input == /dev/null ]]; then break; fi
    done
    checked=$((checked + 1))
    if ! cmp -s "$work/$tag.kafka.stdout" "$work/$tag.kraft.stdout"; then
        echo "FAIL $tag: stdout differs (- Kafka, + kraft metadata-shell):"
        diff -u "$work/$tag.kafka.stdout" "$work/$tag.kraft.stdout" | head -n 40 || true
        failures=$((failures + 1))
    elif [[ $(cat "$work/$tag.kafka.code") != "$rc" ]]; then
        echo "FAIL $tag: Kafka exited with $(cat "$work/$tag.kafka.code"), kraft metadata-shell with $rc"
        failures=$((failures + 1))
    else
        echo "PASS $tag ($(wc -l <"$work/$tag.kafka.stdout") lines)"
    fi
}

# 1. The golden cases.
for f in "$cases"/*.args; do
    name=${f##*/}
    name=${name%.args}
    mapfile -t args <"$f"
    compare "golden-$name" "$(case_input "$name")" "${args[@]}"
done

# 2. A fresh Kafka-written log and snapshot (image-interop.sh generate), one
# interactive session each.
bash "$here/image-interop.sh" generate "$work/gen" >"$work/gen.log" 2>&1 ||
    { cat "$work/gen.log" >&2; echo "FAIL image-interop.sh generate"; exit 1; }
printf '%s\n' 'tree /image' 'cd /image/topics/byName' 'ls' 'find /image/topics /image/cluster /image/configs /image/acls' 'cat /image/provenance' 'history' >"$work/session.stdin"
compare generated-snapshot "$work/session.stdin" --snapshot "$work/gen/kafka-snapshot.checkpoint"
compare generated-log "$work/session.stdin" --snapshot "$work/gen/kafka-log.log"
# Both sessions must have run to the end (a Kafka exception would lose them).
for tag in generated-snapshot generated-log; do
    if (($(wc -l <"$work/$tag.kafka.stdout") < 100)); then
        echo "FAIL $tag: Kafka's session printed only $(wc -l <"$work/$tag.kafka.stdout") lines"
        failures=$((failures + 1))
    fi
done

if ((failures)); then
    echo "FAIL metadata-shell: $failures of $checked comparisons differ"
    exit 1
fi
echo "PASS metadata-shell: kraft metadata-shell printed what Kafka's MetadataShell printed in all $checked comparisons"
