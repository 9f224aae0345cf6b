#!/bin/sh
# SPDX-License-Identifier: MIT
# check-kernels.sh: the tutorial on Debian 12's stock kernel (6.1), in qemu.
#
# The guest: check-fresh's cached minimal Debian 12 root with
# linux-image-amd64, what running and testing the tutorial needs and an
# ordinary user (tests/kernels/make-image.sh: built once, cached in
# $KERNELS_CACHE under a key of what it holds). Each run copies the current
# tree (tracked and new files, as they are now) and its build ($O, made
# here first: the guest runs the same Debian release) onto a second disk,
# boots the guest for each plan in $KERNELS_BOOTS and has
# tests/kernels/guest.sh run the plan there as root and as the user:
#
#   full   -smp 2: --doctor, --auto all (root, --user-namespace, the user),
#          every exported lesson, the integration tests
#   big    -smp 2,maxcpus=128 (128 possible CPUs: pid_max's minimum is
#          1024): lesson 23 (the limits) the same ways, and $KERNELS_BIG_TESTS
#   ci     -smp 2: only --auto all as root, both routes (for .ci/run)
#   pick   -smp 2: the lessons $KERNELS_LESSONS the three --auto ways and
#          exported as root and as the user, then $KERNELS_TESTS as root (to
#          check a fix on this kernel without the whole of full)
#   smoke  -smp 2: --doctor, lesson 1 and exported lesson 18 as the user (a
#          quick look at the machinery, about 3 minutes)
#
# qemu runs with TCG (-accel tcg -cpu max: a KVM guest hangs at boot on
# these machines), 3 GiB, the serial console in a file. The root image is
# never written (a qcow2 overlay per boot); results come back on the
# console (kmatrix lines) and on the second disk (read with debugfs).
# Nothing is mounted on the host and qemu is stopped on every exit, so
# nothing is left (tests/kernels/qemu.sh, which cgroup.sh shares). Prints the matrix: kernel x CPUs x route x what passed x
# steps skipped, and each boot's time; $O/kernels/ keeps the logs.
#
#   sh tests/kernels/check-kernels.sh      (make check-kernels; needs root)
#   KERNELS_BOOTS="full big" | ci          which boots (make check-kernels-ci: ci)
#   KERNELS_CACHE=/var/cache/pidns-tutor-kernels   the images; remove to rebuild
#   KERNELS_BIG_TESTS="test_examples test_pidns_reboot"   the big boot's tests (run-tests.sh patterns)
#   KERNELS_LESSONS="24 28" KERNELS_TESTS="test_pidns_peer"   what the pick boot runs
#   KERNELS_SMP=1                          the guest's CPUs (2): 1 on a busy machine
#   KERNELS_TIMEOUT=SECONDS                a boot still running after this is stopped
#                                          (full 7200, big 1800, ci 3300, pick and smoke 900)
#   KERNELS_AUTO_TIMEOUT=2400              an --auto run in the guest is killed after this
#   KERNELS_START_TIMEOUT=600              so is a guest that has not begun its plan by then
#   KERNELS_RESULTS=$O/kernels             where the consoles, logs and matrix go
set -u
KERNELS_CACHE=${KERNELS_CACHE:-/var/cache/pidns-tutor-kernels}
KERNELS_BOOTS=${KERNELS_BOOTS:-full big}
KERNELS_TIMEOUT=${KERNELS_TIMEOUT:-}
KERNELS_START_TIMEOUT=${KERNELS_START_TIMEOUT:-600}
KERNELS_AUTO_TIMEOUT=${KERNELS_AUTO_TIMEOUT:-2400}
KERNELS_BIG_TESTS=${KERNELS_BIG_TESTS:-test_examples test_pidns_reboot}
KERNELS_LESSONS=${KERNELS_LESSONS:-1}
KERNELS_TESTS=${KERNELS_TESTS:-}
FRESH_CACHE=${FRESH_CACHE:-/var/cache/pidns-tutor-fresh}
KERNELS_PACKAGES=${KERNELS_PACKAGES:-gcc make pkg-config libc6-dev libreadline-dev util-linux procps less libcmocka-dev}
O=${O:-build}
export KERNELS_PACKAGES
say() { echo "check-kernels: $*"; }
die() { echo "check-kernels: $*" >&2; exit 1; }

for b in $KERNELS_BOOTS; do
    case $b in full | big | ci | pick | smoke) ;; *) die "unknown boot '$b' in KERNELS_BOOTS (full big ci pick smoke)" ;; esac
done
[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot); try: sudo make check-kernels"
here=$(cd "$(dirname "$0")" && pwd)
src=$(git -C "$here" rev-parse --show-toplevel) || die "not in a git checkout"
cd "$src" || die "cannot enter $src"
# qemu_disks, qemu_boot, qemu_stop
# shellcheck source=tests/kernels/qemu.sh
. tests/kernels/qemu.sh
[ -x "$O/pidns-tutor" ] && [ -d "$O/tests/integration" ] || die "$O is not built (make all first)"
if ! command -v qemu-system-x86_64 >/dev/null || ! command -v qemu-img >/dev/null; then
    say "installing qemu-system-x86 and qemu-utils"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends qemu-system-x86 qemu-utils; } </dev/null >/dev/null ||
        die "cannot install qemu (apt-get install qemu-system-x86 qemu-utils)"
fi
if ! command -v mkfs.ext4 >/dev/null || ! command -v debugfs >/dev/null; then
    say "installing e2fsprogs"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq e2fsprogs; } \
        </dev/null >/dev/null || die "cannot install e2fsprogs (mkfs.ext4, debugfs)"
fi

# The base root (check-fresh's), then the image on top, keyed on its recipe.
FRESH_CACHE=$FRESH_CACHE sh tests/fresh/check-fresh.sh --base || die "no base root"
key=$(cat tests/kernels/make-image.sh tests/kernels/init.sh | { cat; echo "$KERNELS_PACKAGES"; } |
    sha256sum | cut -c1-16)
img=$KERNELS_CACHE/bookworm-$key
mkdir -p "$KERNELS_CACHE" || die "cannot create $KERNELS_CACHE"
exec 9>"$KERNELS_CACHE/lock" && flock 9 || die "cannot lock $KERNELS_CACHE/lock"
if [ ! -f "$img/done" ]; then
    say "building the guest's image in $img"
    sh tests/kernels/make-image.sh "$FRESH_CACHE/bookworm-minbase" "$FRESH_CACHE/apt-archives" \
        "$img" || die "the guest's image was not built"
    # Images of an older recipe are no use any more, once no run boots them.
    for d in "$KERNELS_CACHE"/bookworm-*; do
        [ "$d" = "$img" ] || [ ! -d "$d" ] && continue
        (flock -n -x 8 && rm -rf "$d") 8>>"$d/in-use" 2>/dev/null
    done
fi
# Held (shared) while this run boots it: a newer run leaves it be.
exec 8>>"$img/in-use" && flock -s 8 || die "cannot lock $img/in-use"
exec 9>&-

scratch=$(mktemp -d "$KERNELS_CACHE/run.XXXXXX") || die "cannot make a scratch directory"
stop() {
    qemu_stop
    rm -rf "$scratch"
}
trap stop EXIT
trap 'say "interrupted"; exit 130' INT TERM HUP
# The logs: one run at a time writes them.
results=${KERNELS_RESULTS:-$O/kernels}
mkdir -p "$results" && exec 7>>"$results.lock" && flock -n 7 ||
    die "another check-kernels is writing $results (KERNELS_RESULTS=DIR for another)"
rm -rf "${results:?}"/* || die "cannot empty $results"

# The tree as it is now (tracked and new files, the ones deleted left out)
# and its build, world-readable (the user runs it), mtimes kept.
tree=$scratch/tree
mkdir -p "$tree/.kernels"
git ls-files -z -co --exclude-standard | xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
    tar --null -T - -cf - | tar -xf - -C "$tree" || die "cannot copy the tree"
tar --exclude="$O/kernels*" -cf - "$O" | tar -xf - -C "$tree" || die "cannot copy $O"
[ "$O" = build ] || ln -s "$O" "$tree/build" 2>/dev/null
chmod -R a+rX "$tree"
say "tree: $(git log --oneline -1 | cut -c1-60)$(git status --porcelain | grep -q . && echo ' (with changes)'), $(du -sm "$tree" | cut -f1) MiB"

# Says why qemu_boot stops the boot of $plan ($1: bound or start), and how
# its console ended.
# shellcheck disable=SC2317 # qemu_boot calls it by name
boot_stopped() {
    case $1 in
    bound) why="still running after $bound s (KERNELS_TIMEOUT)" ;;
    *) why="no plan begun after $KERNELS_START_TIMEOUT s: the boot hangs (KERNELS_START_TIMEOUT)" ;;
    esac
    say "boot '$plan': $why; stopped. The console's last lines:"
    tail -n 8 "$log" | tr -d '\r' | sed 's/^/  | /'
    [ -s "$log" ] || echo "  | (nothing)"
}

boot() { # $1 = plan
    plan=$1
    case $plan in big) smp=${KERNELS_SMP:-2},maxcpus=128 ;; *) smp=${KERNELS_SMP:-2} ;; esac
    # Bounds: a boot's plan under TCG on a 2-CPU machine shared with seven
    # other sessions took about half of these (ci: 2 x 1500 s at load 20);
    # the guest prints its first line within a minute or two. ci's keeps a
    # hung CI job under CI's 90 minutes (.ci/run's other 25 and the image).
    case $plan in full) bound=7200 ;; big) bound=1800 ;; ci) bound=3300 ;; *) bound=900 ;; esac
    bound=${KERNELS_TIMEOUT:-$bound}
    printf '#!/bin/sh\ncd /srv/tree && KERNELS_BIG_TESTS="%s" KERNELS_LESSONS="%s" KERNELS_TESTS="%s" KERNELS_AUTO_TIMEOUT=%s exec sh tests/kernels/guest.sh %s %s\n' \
        "$KERNELS_BIG_TESTS" "$KERNELS_LESSONS" "$KERNELS_TESTS" "$KERNELS_AUTO_TIMEOUT" "$plan" "$O" >"$tree/.kernels/run" &&
        chmod 755 "$tree/.kernels/run"
    qemu_disks "$tree" || die "cannot make the boot's disks"
    log=$results/$plan.console
    say "--- boot '$plan': Debian 12's kernel, -smp $smp, TCG (the console in $log)"
    qemu_boot "$smp" "$log" kernels: boot_stopped "$bound" "$KERNELS_START_TIMEOUT" 'kernels: plan '
    secs=$qemu_secs
    debugfs -R "rdump /.kernels/results $results" "$scratch/tree.img" >/dev/null 2>&1 &&
        mv "$results/results" "$results/$plan" 2>/dev/null
    tr -d '\r' <"$log" | grep -a '^kmatrix|' >>"$results/matrix"
    echo "boot|$plan|$smp|$secs" >>"$results/matrix"
    say "boot '$plan' took $secs s"
    rm -f "$scratch/tree.img" "$scratch/root.qcow2"
}
for b in $KERNELS_BOOTS; do boot "$b"; done

# The matrix: one line per route and what ran, each verdict from the guest.
say "=== the kernel matrix (logs in $results)"
printf '%-22s %-7s %-16s %-40s %-10s %-8s %s\n' kernel CPUs route what passed skipped verdict
bad=0
awk -F'|' '$1 == "kmatrix" && $4 != "end" { printf "%-22s %-7s %-16s %-40s %-10s %-8s %s (%s s)\n", $2, $3, $4, $5, $6, $7, $8, $9 }' \
    "$results/matrix"
awk -F'|' '$1 == "boot" { printf "boot %-5s -smp %-14s %5d s\n", $2, $3, $4 }' "$results/matrix"
for b in $KERNELS_BOOTS; do
    grep -q "^kmatrix|.*|end|$b|" "$results/matrix" || { say "boot '$b' did not finish its plan"; bad=1; }
done
grep -q '^kmatrix|[^|]*|[^|]*|[^|]*|[^|]*|[^|]*|[^|]*|FAIL' "$results/matrix" && bad=1
[ $bad -eq 0 ] && say "all passed" && exit 0
say "FAILED (see $results)"
exit 1
