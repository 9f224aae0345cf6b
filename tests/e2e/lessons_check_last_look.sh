#!/bin/sh
# SPDX-License-Identifier: MIT
# A worked solution that became a job may end while the check is still
# busy with a look taken before the job finished: --auto looks once more
# after the solution's jobs have ended (tutor_await_check()). The fixture's
# solution writes its file after 3 s and ends; the check, missing the file,
# takes 6 s to say so. Without the last look --auto called it FAILED (as
# lesson 11, step 3 failed in the 6.1 guest: the mini init's end reached
# $TUTOR_JOBS between two looks); negative control: the same run against a
# tutor built before the last look, seen failing by hand (docs/design.adoc).
. tests/e2e/lib/common
out=$scratch/out
"$TUTOR" --auto all --lessons "$FIX/lastlook" >"$out" 2>&1
rc=$?
check "--auto: a solution's job ending during the check's look passes (status $rc)" [ $rc -eq 0 ]
check "--auto: the solution went to the background first" grep -q "keeps running in the background as job" "$out"
check "--auto: the lesson passed" grep -q "lesson 1 (01-last-look): passed" "$out"
[ "$failed" -eq 0 ] || sed 's/^/  | /' "$out"
finish
