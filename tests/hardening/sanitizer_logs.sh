# SPDX-License-Identifier: MIT
# sanitizer_logs.sh: sourced by asan.sh and asan_logs_nobody.sh; the one
# place that makes the directory every instrumented process logs into.
#
# sanitizer_log_dir: prints the path of a new directory under /tmp (a
# checkout under /root is out of nobody's reach) in which root and nobody
# (uid 65534, the ordinary user of the tests) can each create a log file AND
# open, for writing, one the other created under the same name.
#
# The runtime names a report file PREFIX.EXE.PID with the PID as the process
# sees it and opens it when it first has something to say (a notice such as
# "ignoring requested __asan_handle_no_return" will do); if that fails it
# ends the process with status 1. In PID namespaces every run has a PID 1,
# so a root test and a nobody test of the same program meet on one name
# (asan.test_pidns_translate.1), and asan.sh moves files aside only every
# 50 ms, later on a loaded machine. With mode 1777 and root's file 0644, the
# nobody process got EACCES ("Can't open file ... (reason: 13)") and failed
# its test. So:
#  - a default ACL gives nobody rw on every file created in the directory,
#    whatever the umask (the runtime asks for 0660; a default ACL replaces
#    the umask);
#  - no sticky bit: with fs.protected_regular set (systemd sets 1), root
#    may not O_CREAT-open a nobody file in a sticky world-writable directory.
# Fails (status 1, with a message) where ACLs cannot be set: setfacl is in
# Debian's acl package (make deps-check installs it).
sanitizer_log_dir() {
    _d=$(mktemp -d /tmp/pidns-tutor-asan.XXXXXX) || return 1
    if ! chmod 0777 "$_d" || ! setfacl -m d:u::rwx,d:g::rwx,d:o::rwx,d:u:65534:rw,d:m::rwx "$_d"; then
        echo "sanitizer_log_dir: cannot let nobody write the logs in $_d (chmod, setfacl: the acl package)" >&2
        rm -rf "$_d"
        return 1
    fi
    echo "$_d"
}

# sanitizer_options DIR [EXTRA]: sets ASAN_OPTIONS and UBSAN_OPTIONS as
# check-asan runs everything: reports to files in DIR (named
# asan.EXE.PID / ubsan.EXE.PID); halt_on_error: the first error ends the
# process with a non-zero status (UBSan too: the build has
# -fno-sanitize-recover=undefined). EXTRA (colon-separated) goes to ASan.
sanitizer_options() {
    _common="halt_on_error=1:log_exe_name=1"
    ASAN_OPTIONS="log_path=$1/asan:$_common:strict_string_checks=1${2:+:$2}"
    UBSAN_OPTIONS="log_path=$1/ubsan:$_common:print_stacktrace=1"
    export ASAN_OPTIONS UBSAN_OPTIONS
}
