#!/bin/sh
# SPDX-License-Identifier: MIT
# test_completion.sh: the bash completion of pidns-tutor offers what the
# program accepts. Sources completions/pidns-tutor.bash in bash, calls the
# completion function with COMP_WORDS/COMP_CWORD set as bash would, and checks
# COMPREPLY: the options, lesson names after --auto (from --lessons DIR, and
# from the installed layout next to the binary), directories after --lessons.
# When build/pidns-tutor exists, the options offered must be exactly the long
# options its --help lists.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
BUILD=${PIDNS_TUTOR_BUILD:-build}
SRC=${PIDNS_TUTOR_SRC:-$(pwd)}
. "$(dirname "$0")/lib/tap"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT


# complete WORD... : COMPREPLY (sorted, one per line) for the last word.
complete_line() {
    COMP_WORDS=("$@")
    COMP_CWORD=$(($# - 1))
    COMPREPLY=()
    _pidns_tutor
    printf '%s\n' "${COMPREPLY[@]}" | sort
}

# expect NAME EXPECTED WORD...
expect() {
    local name=$1 want=$2 got
    shift 2
    got=$(complete_line "$@")
    if [ "$got" = "$(printf '%s\n' $want | sort)" ]; then
        ok "$name"
    else
        not_ok "$name" "words: $*" "want: $(echo $want)" "got:  $(echo $got)"
    fi
}

# shellcheck source=/dev/null
. "$SRC/completions/pidns-tutor.bash" || bail_out "cannot source the completion"
complete -p pidns-tutor | grep -q -- '-F _pidns_tutor' &&
    ok "sourcing registers _pidns_tutor for pidns-tutor" ||
    not_ok "sourcing registers _pidns_tutor for pidns-tutor"

long_opts='--auto --csv --doctor --help --lessons --no-color --present --roster --user-namespace --version'
all_opts="$long_opts -h -V"
expect "an empty word offers every option" "$all_opts" pidns-tutor ''
expect "a dash offers every option" "$all_opts" pidns-tutor -
expect "two dashes offer the long options" "$long_opts" pidns-tutor --
expect "--a completes to --auto" "--auto" pidns-tutor --a
expect "--no completes to --no-color" "--no-color" pidns-tutor --no

mkdir -p "$tmp/mine" "$tmp/mine-too" "$tmp/file-dir"
: >"$tmp/mine/01-first.adoc"
: >"$tmp/mine/02-second.adoc"
: >"$tmp/mine/README.adoc"
: >"$tmp/afile"
expect "--auto offers all and the lessons of --lessons DIR" "all 01-first 02-second" \
    pidns-tutor --lessons "$tmp/mine" --auto ''
expect "--auto completes a lesson name from its number" "02-second" \
    pidns-tutor --lessons "$tmp/mine" --auto 02
expect "--auto=VALUE form completes too" "01-first" \
    pidns-tutor --lessons="$tmp/mine" --auto = 01
expect "--lessons offers directories only" "$tmp/mine $tmp/mine-too" \
    pidns-tutor --lessons "$tmp/mi"
expect "--present offers the lessons of --lessons DIR, not all" "01-first 02-second" \
    pidns-tutor --lessons "$tmp/mine" --present ''
expect "after --roster, files and directories" "$tmp/afile" pidns-tutor --roster "$tmp/af"
expect "after --roster, a dash still offers the options" "--csv" pidns-tutor --roster --cs

# The installed layout: PREFIX/bin/pidns-tutor and PREFIX/share/pidns-tutor/lessons.
mkdir -p "$tmp/prefix/bin" "$tmp/prefix/share/pidns-tutor/lessons"
printf '#!/bin/sh\n' >"$tmp/prefix/bin/pidns-tutor"
chmod 755 "$tmp/prefix/bin/pidns-tutor"
: >"$tmp/prefix/share/pidns-tutor/lessons/07-installed.adoc"
PATH="$tmp/prefix/bin:$PATH" expect "--auto finds the installed lessons next to the binary" \
    "all 07-installed" pidns-tutor --auto ''
expect "--auto with no lessons to find still offers all" "all" "$tmp/afile" --auto ''

if [ -x "$BUILD/pidns-tutor" ]; then
    # Options are on the lines of --help that start with blanks and a dash.
    help_opts=$("$BUILD/pidns-tutor" --help 2>&1 | grep -E '^[[:blank:]]+-' |
        grep -oE -- '(^|[ ,])--?[a-zA-Z][a-zA-Z-]*' | sed 's/^[ ,]*//' | sort)
    if [ "$help_opts" = "$(printf '%s\n' $all_opts | sort)" ]; then
        ok "the options offered are exactly the options of --help"
    else
        not_ok "the options offered are exactly the options of --help" \
            "--help: $(echo $help_opts)" "completion: $all_opts"
    fi
    lessons=$(cd "$SRC/lessons" 2>/dev/null && ls [0-9]*.adoc 2>/dev/null | sed 's/\.adoc$//')
    want="all $lessons"
    expect "build/pidns-tutor --auto offers the source tree's lessons" "$want" \
        "$SRC/$BUILD/pidns-tutor" --auto ''
else
    skip_test "options match --help" "$BUILD/pidns-tutor is not built"
fi

finish
