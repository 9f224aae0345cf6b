# SPDX-License-Identifier: MIT
# mk/kernels.mk: the tutorial on Debian 12's stock kernel (6.1), in qemu.
#
#   make check-kernels      two boots of a Debian 12 guest (TCG): with 2 CPUs,
#                           --doctor, --auto all (root, --user-namespace, an
#                           ordinary user), every exported lesson and the
#                           integration tests, as root and as the user; with
#                           128 possible CPUs, lesson 23 and the limits tests.
#                           Prints the matrix (kernel x route x passed x
#                           skipped). Run before a release.
#   make check-kernels-ci   only --auto all as root, both routes, in the 6.1
#                           guest (the subset for CI)
#
# Needs root. The guest's image (check-fresh's cached root plus the kernel,
# what running and testing need, an ordinary user) is built once and cached
# in KERNELS_CACHE; each run copies the current tree and $(O) in. Nothing is
# mounted on the host; qemu ends with the script. See
# tests/kernels/check-kernels.sh.

KERNELS_CACHE ?= /var/cache/pidns-tutor-kernels
KERNELS_BOOTS ?= full big
KERNELS_PACKAGES = $(DEB_RUN_PACKAGES) libcmocka-dev

.PHONY: check-kernels check-kernels-ci
check-kernels: all
	@O=$(O) KERNELS_CACHE=$(KERNELS_CACHE) FRESH_CACHE=$(FRESH_CACHE) KERNELS_BOOTS="$(KERNELS_BOOTS)" \
		KERNELS_PACKAGES="$(KERNELS_PACKAGES)" sh tests/kernels/check-kernels.sh
check-kernels-ci: all
	@O=$(O) KERNELS_CACHE=$(KERNELS_CACHE) FRESH_CACHE=$(FRESH_CACHE) KERNELS_BOOTS=ci \
		KERNELS_PACKAGES="$(KERNELS_PACKAGES)" sh tests/kernels/check-kernels.sh

# make check-cgroup: the bound per lab (shell/lab/lab_cgroup.c) on a real
# cgroup v2 in the same guest: learners' cgroups delegated the way systemd
# delegates them, one learner's fork loop held at the lab's pids.max while
# another's lesson passes, --doctor where nothing is delegated, and the loop
# without the bound as the control. Needs root; about 10 minutes (TCG). See
# tests/kernels/cgroup.sh.
.PHONY: check-cgroup
check-cgroup: all
	@O=$(O) KERNELS_CACHE=$(KERNELS_CACHE) FRESH_CACHE=$(FRESH_CACHE) \
		KERNELS_PACKAGES="$(KERNELS_PACKAGES)" sh tests/kernels/cgroup.sh
